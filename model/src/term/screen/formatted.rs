//! The screen written back out with its styles: the shown grid as SGR-coloured
//! lines ([`Screen::contents_formatted`]) and the replayable VT bytes that
//! reproduce the whole state on another terminal ([`Screen::state_formatted`]).

use super::{Cursor, Screen, mode};
use crate::term::grid::{Cell, Grid, Pen, Row, attr, flag};

/// Appends the SGR sequence that sets `pen` from a reset state.
pub(crate) fn write_sgr(out: &mut String, pen: Pen) {
    use std::fmt::Write as _;
    out.push_str("\x1b[0");
    const BITS: [(u8, &str); 8] = [
        (attr::BOLD, ";1"),
        (attr::DIM, ";2"),
        (attr::ITALIC, ";3"),
        (attr::UNDERLINE, ";4"),
        (attr::BLINK, ";5"),
        (attr::INVERSE, ";7"),
        (attr::HIDDEN, ";8"),
        (attr::STRIKE, ";9"),
    ];
    for (bit, code) in BITS {
        if pen.attrs & bit != 0 {
            out.push_str(code);
        }
    }
    for (color, base, bright, extended) in [(pen.fg, 30, 90, 38), (pen.bg, 40, 100, 48)] {
        use crate::term::grid::ColorKind;
        let _ = match color.kind() {
            ColorKind::Default => Ok(()),
            ColorKind::Indexed(i) if i < 8 => write!(out, ";{}", base + u16::from(i)),
            ColorKind::Indexed(i) if i < 16 => write!(out, ";{}", bright + u16::from(i) - 8),
            ColorKind::Indexed(i) => write!(out, ";{extended};5;{i}"),
            ColorKind::Rgb(r, g, b) => write!(out, ";{extended};2;{r};{g};{b}"),
        };
    }
    out.push('m');
}

impl Screen {
    /// The grid shown with SGR colours, one line per row, each row's trailing
    /// unstyled blanks and the trailing blank rows left out; every line that
    /// changes the style ends with a reset.
    pub fn contents_formatted(&self) -> String {
        let grid = self.grid();
        let mut lines: Vec<String> = grid
            .iter()
            .map(|row| {
                let mut out = String::new();
                write_row(&mut out, row, grid.cols(), Pen::default(), false);
                out
            })
            .collect();
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        lines.join("\n")
    }

    /// Replayable VT bytes (docs/terminal.md#the-grid,
    /// docs/terminal.md#attaching): fed into a fresh terminal of the same size, or
    /// a client terminal in any state, they reproduce the contents, colours,
    /// cursor, scroll region and input modes. On the alternate screen they first
    /// draw the main screen, so leaving the alternate screen on the client brings
    /// the main text back.
    pub fn state_formatted(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        // ASCII in G0 and G1 first: the cells hold what was drawn, and a
        // client left in line drawing would turn their letters into lines.
        out.push_str("\x1b[?1049l\x1b[r\x1b[?6l\x1b[?7h\x1b[4l\x1b(B\x1b)B\x0f");
        write_grid(&mut out, &self.main);
        if self.alt.is_some() {
            // Where `?1049l` will put the cursor back.
            let saved = self.saved[0].map_or(Cursor::default(), |s| s.cursor);
            let _ = write!(
                out,
                "\x1b[{};{}H\x1b[?1049h",
                saved.row + 1,
                saved.col.min(self.cols - 1) + 1
            );
            write_grid(&mut out, self.grid());
        }
        if (self.top, self.bottom) != (0, self.rows - 1) {
            let _ = write!(out, "\x1b[{};{}r", self.top + 1, self.bottom + 1);
        }
        let flag = |on: bool| if on { 'h' } else { 'l' };
        let _ = write!(
            out,
            "\x1b[?1{}\x1b{}\x1b[?2004{}\x1b[?9l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l",
            flag(self.modes & mode::APP_CURSOR != 0),
            if self.modes & mode::APP_KEYPAD != 0 {
                '='
            } else {
                '>'
            },
            flag(self.modes & mode::BRACKETED_PASTE != 0),
        );
        if self.mouse != 0 {
            let _ = write!(out, "\x1b[?{}h", self.mouse);
        }
        if !self.charsets.is_ascii() {
            self.charsets.formatted(&mut out);
        }
        if self.mouse_encoding != 0 {
            let _ = write!(out, "\x1b[?{}h", self.mouse_encoding);
        }
        // The cursor: a pending wrap is recreated by printing the last cell again.
        let (row, col) = (self.cursor.row, self.cursor.col);
        if col >= self.cols && self.modes & mode::AUTOWRAP != 0 {
            let line = self.grid().row(row);
            let mut last = self.cols - 1;
            if line.cell(last).flags & flag::WIDE_CONT != 0 && last > 0 {
                last -= 1;
            }
            let cell = line.cell(last);
            let _ = write!(out, "\x1b[{};{}H", row + 1, last + 1);
            write_sgr(&mut out, cell.pen());
            out.push(cell.ch);
            out.push_str(line.combining_at(last));
        } else {
            let _ = write!(out, "\x1b[{};{}H", row + 1, col.min(self.cols - 1) + 1);
        }
        if self.modes & mode::ORIGIN != 0 {
            // Setting origin mode homes the cursor: restore it relative to the region.
            let _ = write!(
                out,
                "\x1b[?6h\x1b[{};{}H",
                row.saturating_sub(self.top) + 1,
                col.min(self.cols - 1) + 1
            );
        }
        if self.modes & mode::AUTOWRAP == 0 {
            out.push_str("\x1b[?7l");
        }
        if self.modes & mode::INSERT != 0 {
            out.push_str("\x1b[4h");
        }
        write_sgr(&mut out, self.cursor.pen);
        out.push_str(if self.modes & mode::HIDE_CURSOR != 0 {
            "\x1b[?25l"
        } else {
            "\x1b[?25h"
        });
        out
    }
}

/// Clears the client screen and draws `grid` on it, joining wrapped rows so the
/// client's rows wrap too. Leaves the pen in an unknown state.
fn write_grid(out: &mut String, grid: &Grid) {
    use std::fmt::Write as _;
    out.push_str("\x1b[0m\x1b[H\x1b[2J");
    let last_row = grid.rows() - 1;
    let mut continued = false;
    for (i, row) in grid.iter().enumerate() {
        let wraps = row.wrapped && i < last_row;
        if !continued {
            if row.cells().iter().all(Cell::is_plain_blank) && !wraps {
                continue;
            }
            let _ = write!(out, "\x1b[{}H", i + 1);
        }
        write_row(out, row, grid.cols(), Pen::default(), wraps);
        continued = wraps;
    }
}

/// Appends the cells of `row` with SGR changes, starting from `pen`. Trailing
/// unstyled blanks are left out unless `full` (a wrapped row must fill its
/// width so that the next character wraps). Ends with a reset when the style
/// is not the default.
fn write_row(out: &mut String, row: &Row, cols: usize, mut pen: Pen, full: bool) {
    let end = if full {
        cols
    } else {
        row.cells()
            .iter()
            .rposition(|c| !c.is_plain_blank())
            .map_or(0, |p| p + 1)
    };
    for col in 0..end {
        let cell = row.cell(col);
        if cell.flags & flag::WIDE_CONT != 0 {
            continue;
        }
        if cell.pen() != pen {
            pen = cell.pen();
            write_sgr(out, pen);
        }
        out.push(cell.ch);
        if cell.flags & flag::COMBINING != 0 {
            out.push_str(row.combining_at(col));
        }
    }
    if pen != Pen::default() {
        out.push_str("\x1b[0m");
    }
}
