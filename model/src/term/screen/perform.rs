//! The `vte::Perform` of the screen: the dispatch of every printable
//! character, control byte, CSI, ESC and OSC sequence to the [`Screen`] method
//! that applies it.

use super::{Screen, mode};
use crate::term::grid::Pen;
use vte::{Params, Perform};

/// The `i`th parameter, with 0 or absent meaning `default`.
pub(super) fn arg(params: &Params, i: usize, default: u16) -> u16 {
    match params.iter().nth(i).and_then(|p| p.first().copied()) {
        Some(0) | None => default,
        Some(n) => n,
    }
}

impl Perform for Screen {
    #[inline]
    fn print(&mut self, c: char) {
        // DEL is not a character: terminals ignore it (vttest prints one
        // after each character set's last row).
        if c != '\u{7f}' {
            self.put_char(self.charsets.map(c));
        }
    }

    /// OSC 10/11/12 `?`: the default foreground, background and cursor
    /// colours, answered with the same terminator the query used.
    fn osc_dispatch(&mut self, params: &[&[u8]], bell_terminated: bool) {
        let (Some(which), Some(&b"?")) = (params.first(), params.get(1)) else {
            return;
        };
        let colour = match *which {
            b"10" => "rgb:d0d0/d0d0/d0d0",
            b"11" => "rgb:0000/0000/0000",
            b"12" => "rgb:d0d0/d0d0/d0d0",
            _ => return,
        };
        let end = if bell_terminated { "\x07" } else { "\x1b\\" };
        let which = String::from_utf8_lossy(which);
        self.replies
            .extend_from_slice(format!("\x1b]{which};{colour}{end}").as_bytes());
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            0x08 => {
                self.cursor.col = self.cursor.col.saturating_sub(1).min(self.cols - 1);
            },
            0x09 => self.tab_forward(1),
            0x0a..=0x0c => self.linefeed(),
            0x0d => self.cursor.col = 0,
            0x0e => self.charsets.shift(true),
            0x0f => self.charsets.shift(false),
            _ => {},
        }
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        if ignore {
            return;
        }
        // Queries (DSR, DA1, DA2, DECRQM) are answered and change nothing.
        if matches!(
            (intermediates, action),
            ([], 'n') | ([], 'c') | (b">", 'c') | (b"?$", 'p')
        ) {
            self.answer(params, intermediates, action);
            return;
        }
        if !intermediates.is_empty() {
            if intermediates == b"?" {
                match action {
                    'h' => self.private_mode(params, true),
                    'l' => self.private_mode(params, false),
                    _ => {},
                }
            }
            // Everything else with a private marker or an intermediate byte
            // (`CSI > 4;1 m`, `CSI SP q`, `CSI ! p`, …) changes nothing here.
            return;
        }
        let n = usize::from(arg(params, 0, 1));
        match action {
            // ICH, DCH and ECH do nothing while a wrap is pending, as in tmux.
            '@' => {
                let (row, col, pen) = (self.cursor.row, self.cursor.col, self.cursor.pen);
                let cols = self.cols;
                self.grid_mut()
                    .row_mut(row)
                    .insert_blanks(col, n, pen, cols);
                self.touch(row);
            },
            'A' => self.cursor_up(n),
            'B' | 'e' => self.cursor_down(n),
            'C' | 'a' => self.set_col(self.col().saturating_add(n)),
            'D' => self.set_col(self.cursor.col.saturating_sub(n)),
            'E' => {
                self.cursor_down(n);
                self.cursor.col = 0;
            },
            'F' => {
                self.cursor_up(n);
                self.cursor.col = 0;
            },
            'G' | '`' => self.set_col(n - 1),
            'H' | 'f' => {
                let col = usize::from(arg(params, 1, 1));
                self.goto(n - 1, col - 1);
            },
            'I' => self.tab_forward(n),
            'J' => self.erase_display(arg(params, 0, 0)),
            'K' => self.erase_line(arg(params, 0, 0)),
            'L' => {
                let row = self.cursor.row;
                if (self.top..=self.bottom).contains(&row) {
                    self.scroll_down_in(row, self.bottom, n);
                }
            },
            'M' => {
                let row = self.cursor.row;
                if (self.top..=self.bottom).contains(&row) {
                    self.scroll_up_in(row, self.bottom, n);
                }
            },
            'P' => {
                let (row, col, pen) = (self.cursor.row, self.cursor.col, self.cursor.pen);
                let cols = self.cols;
                self.grid_mut().row_mut(row).delete_cells(col, n, pen, cols);
                self.touch(row);
            },
            'S' => {
                self.track.csi_scroll = self.track.csi_scroll.saturating_add(n as u64);
                self.scroll_up_in(self.top, self.bottom, n);
            },
            'T' => {
                self.track.csi_scroll = self.track.csi_scroll.saturating_add(n as u64);
                self.scroll_down_in(self.top, self.bottom, n);
            },
            'X' => {
                let (row, col) = (self.cursor.row, self.cursor.col);
                self.erase_in_row(row, col, col.saturating_add(n));
            },
            'Z' => self.tab_backward(n),
            'b' => {
                if let Some(c) = self.last_char {
                    // Bounded: a repeat never needs more than a screenful.
                    for _ in 0..n.min(self.rows * self.cols) {
                        self.put_char(c);
                    }
                }
            },
            'd' => {
                // VPA keeps a pending wrap, as in tmux.
                let col = self.cursor.col;
                self.goto(n - 1, 0);
                self.cursor.col = col;
            },
            'g' => match arg(params, 0, 0) {
                0 => {
                    let col = self.col();
                    self.tab_stops_mut()[col] = false;
                },
                3 => self.tab_stops_mut().fill(false),
                _ => {},
            },
            'h' | 'l' => {
                for param in params.iter() {
                    if param.first() == Some(&4) {
                        self.set_mode(mode::INSERT, action == 'h');
                    }
                }
            },
            'm' => self.sgr(params),
            'r' => {
                let top = usize::from(arg(params, 0, 1)) - 1;
                let bottom = usize::from(arg(params, 1, self.rows as u16)).min(self.rows) - 1;
                if top < bottom {
                    self.top = top;
                    self.bottom = bottom;
                    self.goto(0, 0);
                }
            },
            's' => self.save_cursor(),
            'u' => self.restore_cursor(),
            _ => {},
        }
    }

    fn esc_dispatch(&mut self, intermediates: &[u8], ignore: bool, byte: u8) {
        if ignore {
            return;
        }
        match (intermediates, byte) {
            ([], b'7') => self.save_cursor(),
            ([], b'8') => self.restore_cursor(),
            ([], b'=') => self.modes |= mode::APP_KEYPAD,
            ([], b'>') => self.modes &= !mode::APP_KEYPAD,
            ([], b'D') => self.linefeed(),
            ([], b'E') => {
                self.linefeed();
                self.cursor.col = 0;
            },
            ([], b'H') => {
                let col = self.col();
                self.tab_stops_mut()[col] = true;
            },
            ([], b'M') => self.reverse_index(),
            ([], b'c') => self.reset(),
            ([b'('], set) => self.charsets.designate(0, set),
            ([b')'], set) => self.charsets.designate(1, set),
            ([b'#'], b'8') => {
                // DECALN: fill the screen with `E`.
                let (rows, cols, pen) = (self.rows, self.cols, Pen::default());
                for row in 0..rows {
                    let line = self.grid_mut().row_mut(row);
                    line.clear(pen, cols);
                    for cell in line.cells_mut(cols, cols) {
                        cell.ch = 'E';
                    }
                }
                self.touch_rows(0, rows - 1);
                self.top = 0;
                self.bottom = rows - 1;
                self.goto(0, 0);
            },
            _ => {},
        }
    }

    fn terminated(&self) -> bool {
        self.switch.is_some()
    }
}
