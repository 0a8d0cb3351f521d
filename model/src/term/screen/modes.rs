//! SGR (the pen's attributes and colours), the private modes set by `CSI ? h`
//! and `CSI ? l`, and the answers to the program's queries (DSR, DA1, DA2,
//! DECRQM) that read those modes back.

use super::perform::arg;
use super::{Screen, Switch, mode};
use crate::term::grid::{Color, Pen, attr};
use vte::Params;

impl Screen {
    /// A private mode's DECRQM state: 1 set, 2 reset, 0 not known here.
    fn mode_state(&self, mode: u16) -> u8 {
        let flag = |m: u16| if self.modes & m != 0 { 1 } else { 2 };
        match mode {
            1 => flag(mode::APP_CURSOR),
            6 => flag(mode::ORIGIN),
            7 => flag(mode::AUTOWRAP),
            25 => {
                if self.modes & mode::HIDE_CURSOR != 0 {
                    2
                } else {
                    1
                }
            },
            2004 => flag(mode::BRACKETED_PASTE),
            47 | 1047 | 1049 => {
                if self.alt.is_some() {
                    1
                } else {
                    2
                }
            },
            9 | 1000 | 1002 | 1003 => {
                if self.mouse == mode {
                    1
                } else {
                    2
                }
            },
            _ => 0,
        }
    }

    /// Answers a query the way xterm does (and tmux for a pane), so programs
    /// that wait for an answer do not hang: DSR/CPR, DA1, DA2 and DECRQM.
    pub(super) fn answer(&mut self, params: &Params, intermediates: &[u8], action: char) {
        let reply = match (intermediates, action) {
            ([], 'n') => match arg(params, 0, 0) {
                5 => "\x1b[0n".to_owned(),
                6 => {
                    let row = if self.modes & mode::ORIGIN != 0 {
                        self.cursor.row.saturating_sub(self.top)
                    } else {
                        self.cursor.row
                    };
                    format!("\x1b[{};{}R", row + 1, self.col() + 1)
                },
                _ => return,
            },
            ([], 'c') if arg(params, 0, 0) == 0 => "\x1b[?62;22c".to_owned(),
            (b">", 'c') if arg(params, 0, 0) == 0 => "\x1b[>1;10;0c".to_owned(),
            (b"?$", 'p') => {
                let mode = arg(params, 0, 0);
                format!("\x1b[?{mode};{}$y", self.mode_state(mode))
            },
            _ => return,
        };
        self.replies.extend_from_slice(reply.as_bytes());
    }

    // ----- SGR ------------------------------------------------------------------

    pub(super) fn sgr(&mut self, params: &Params) {
        if params.is_empty() {
            self.cursor.pen = Pen::default();
            return;
        }
        let mut iter = params.iter();
        let pen = &mut self.cursor.pen;
        while let Some(param) = iter.next() {
            let code = param.first().copied().unwrap_or(0);
            match code {
                0 => *pen = Pen::default(),
                1 => pen.attrs |= attr::BOLD,
                2 => pen.attrs |= attr::DIM,
                3 => pen.attrs |= attr::ITALIC,
                4 => {
                    // `4:0` turns underline off; other styles still underline.
                    if param.get(1) == Some(&0) {
                        pen.attrs &= !attr::UNDERLINE;
                    } else {
                        pen.attrs |= attr::UNDERLINE;
                    }
                },
                5 | 6 => pen.attrs |= attr::BLINK,
                7 => pen.attrs |= attr::INVERSE,
                8 => pen.attrs |= attr::HIDDEN,
                9 => pen.attrs |= attr::STRIKE,
                21 => pen.attrs |= attr::UNDERLINE,
                22 => pen.attrs &= !(attr::BOLD | attr::DIM),
                23 => pen.attrs &= !attr::ITALIC,
                24 => pen.attrs &= !attr::UNDERLINE,
                25 => pen.attrs &= !attr::BLINK,
                27 => pen.attrs &= !attr::INVERSE,
                28 => pen.attrs &= !attr::HIDDEN,
                29 => pen.attrs &= !attr::STRIKE,
                30..=37 => pen.fg = Color::indexed((code - 30) as u8),
                38 => {
                    if let Some(c) = extended_color(param, &mut iter) {
                        pen.fg = c;
                    }
                },
                39 => pen.fg = Color::DEFAULT,
                40..=47 => pen.bg = Color::indexed((code - 40) as u8),
                48 => {
                    if let Some(c) = extended_color(param, &mut iter) {
                        pen.bg = c;
                    }
                },
                49 => pen.bg = Color::DEFAULT,
                90..=97 => pen.fg = Color::indexed((code - 90 + 8) as u8),
                100..=107 => pen.bg = Color::indexed((code - 100 + 8) as u8),
                // 58/59 (underline colour) take arguments too: skip them.
                58 => {
                    let _ = extended_color(param, &mut iter);
                },
                _ => {},
            }
        }
    }

    // ----- modes ----------------------------------------------------------------

    pub(super) fn private_mode(&mut self, params: &Params, on: bool) {
        for param in params.iter() {
            let Some(&code) = param.first() else { continue };
            match code {
                1 => self.set_mode(mode::APP_CURSOR, on),
                // DECCOLM: the width stays what the pane's size says; the
                // screen is cleared, the margins reset and the cursor homed,
                // as tmux and alacritty do.
                3 => self.column_mode(),
                6 => {
                    self.set_mode(mode::ORIGIN, on);
                    self.goto(0, 0);
                },
                7 => self.set_mode(mode::AUTOWRAP, on),
                25 => self.set_mode(mode::HIDE_CURSOR, !on),
                9 | 1000 | 1002 | 1003 => {
                    if on {
                        self.mouse = code;
                    } else if self.mouse == code {
                        self.mouse = 0;
                    }
                },
                1005 | 1006 | 1015 => {
                    if on {
                        self.mouse_encoding = code;
                    } else if self.mouse_encoding == code {
                        self.mouse_encoding = 0;
                    }
                },
                2004 => self.set_mode(mode::BRACKETED_PASTE, on),
                47 | 1047 => {
                    self.switch = Some(if on { Switch::Enter } else { Switch::Leave });
                },
                1049 => {
                    self.switch = Some(if on {
                        Switch::EnterSaving
                    } else {
                        Switch::LeaveRestoring
                    });
                },
                1048 => {
                    if on {
                        self.save_cursor();
                    } else {
                        self.restore_cursor();
                    }
                },
                _ => {},
            }
        }
    }
}

/// Decodes the colour after a 38/48/58: `38;5;n`, `38;2;r;g;b` and their colon
/// forms `38:5:n`, `38:2:r:g:b`, `38:2::r:g:b`. Consumes the arguments it used.
fn extended_color<'a>(param: &[u16], iter: &mut impl Iterator<Item = &'a [u16]>) -> Option<Color> {
    let byte = |v: u16| v.min(255) as u8;
    if param.len() > 1 {
        return match param[1] {
            5 => param.get(2).map(|&n| Color::indexed(byte(n))),
            2 => {
                let rgb = if param.len() >= 6 {
                    &param[3..6]
                } else {
                    param.get(2..5)?
                };
                Some(Color::rgb(byte(rgb[0]), byte(rgb[1]), byte(rgb[2])))
            },
            _ => None,
        };
    }
    let mut next = || iter.next().and_then(|p| p.first().copied());
    match next()? {
        5 => next().map(|n| Color::indexed(byte(n))),
        2 => {
            let (r, g, b) = (next()?, next()?, next()?);
            Some(Color::rgb(byte(r), byte(g), byte(b)))
        },
        _ => None,
    }
}

impl Screen {
    /// DECCOLM, set or reset: the margins reset, the screen erased, the
    /// cursor home (docs/terminal.md#where-we-differ-and-why).
    fn column_mode(&mut self) {
        self.top = 0;
        self.bottom = self.rows - 1;
        self.erase_display(2);
        self.cursor.row = 0;
        self.cursor.col = 0;
    }
}
