//! What writes cells into the grid shown: printing a character (wrapping,
//! wide and combining characters, insert mode), scrolling a region and erasing.
//! Every write marks the rows it touched in the [`Track`](super::Track).

use super::{Screen, mode};
use crate::term::grid::{Cell, flag};
use unicode_width::UnicodeWidthChar;

impl Screen {
    // ----- scrolling ------------------------------------------------------------

    /// Scrolls rows `top..=bottom` up by `n`.
    pub(super) fn scroll_up_in(&mut self, top: usize, bottom: usize, n: usize) {
        let n = n.min(bottom + 1 - top);
        if n == 0 {
            return;
        }
        let pen = self.cursor.pen;
        self.grid_mut().scroll_up(top, bottom, n, pen);
        if top == 0 && bottom + 1 == self.rows {
            self.track.shift = self.track.shift.saturating_add(n);
            self.track.dirty = match self.track.dirty {
                Some((_, hi)) if hi < n => None,
                Some((lo, hi)) => Some((lo.saturating_sub(n), hi - n)),
                None => None,
            };
            self.touch_rows(self.rows - n, self.rows - 1);
        } else {
            self.touch_rows(top, bottom);
        }
    }

    pub(super) fn scroll_down_in(&mut self, top: usize, bottom: usize, n: usize) {
        let n = n.min(bottom + 1 - top);
        if n == 0 {
            return;
        }
        let pen = self.cursor.pen;
        self.grid_mut().scroll_down(top, bottom, n, pen);
        self.touch_rows(top, bottom);
    }

    /// LF, VT, FF, IND: down one row, scrolling at the bottom of the region.
    pub(super) fn linefeed(&mut self) {
        if self.cursor.row == self.bottom {
            self.scroll_up_in(self.top, self.bottom, 1);
        } else if self.cursor.row + 1 < self.rows {
            self.cursor.row += 1;
        }
    }

    /// RI: up one row, scrolling down at the top of the region.
    pub(super) fn reverse_index(&mut self) {
        if self.cursor.row == self.top {
            self.scroll_down_in(self.top, self.bottom, 1);
        } else if self.cursor.row > 0 {
            self.cursor.row -= 1;
        }
    }

    // ----- printing -------------------------------------------------------------

    #[inline]
    pub(super) fn put_char(&mut self, c: char) {
        let width = if c.is_ascii() {
            1
        } else {
            match c.width() {
                Some(w) => w,
                None => return,
            }
        };
        if width == 0 {
            self.combine(c);
            return;
        }
        let cols = self.cols;
        if width > cols {
            return;
        }
        if self.cursor.col + width > cols {
            if self.modes & mode::AUTOWRAP != 0 {
                let row = self.cursor.row;
                self.grid_mut().row_mut(row).wrapped = true;
                self.linefeed();
                self.cursor.col = 0;
            } else {
                self.cursor.col = cols - width;
            }
        }
        let (row, col) = (self.cursor.row, self.cursor.col);
        let pen = self.cursor.pen;
        let insert = self.modes & mode::INSERT != 0;
        let line = self.grid_mut().row_mut(row);
        if insert {
            line.insert_blanks(col, width, pen, cols);
        }
        // The cells written, and the one after them (a wide character there
        // may lose its first half): the row grows to hold them.
        let cells = line.cells_mut((col + width + 1).min(cols), cols);
        let old = cells[col].flags;
        if old & flag::WIDE_CONT != 0 && col > 0 {
            cells[col - 1] = Cell::blank(pen);
        }
        if old & flag::WIDE != 0 && width == 1 && col + 1 < cols {
            cells[col + 1] = Cell::blank(pen);
        }
        if old & flag::COMBINING != 0 {
            line.clear_combining(col);
        }
        let cells = line.cells_mut(col + width, cols);
        cells[col] = Cell {
            ch: c,
            fg: pen.fg,
            bg: pen.bg,
            attrs: pen.attrs,
            flags: if width == 2 { flag::WIDE } else { 0 },
        };
        if width == 2 {
            let next = cells[col + 1].flags;
            if next & flag::WIDE != 0 && col + 2 < cols {
                cells[col + 2] = Cell::blank(pen);
            }
            if next & flag::COMBINING != 0 {
                line.clear_combining(col + 1);
            }
            line.cells_mut(col + 2, cols)[col + 1] = Cell {
                ch: ' ',
                fg: pen.fg,
                bg: pen.bg,
                attrs: pen.attrs,
                flags: flag::WIDE_CONT,
            };
        }
        self.cursor.col = col + width;
        self.last_char = Some(c);
        self.touch(row);
    }

    /// A zero-width character joins the cell before the cursor.
    fn combine(&mut self, c: char) {
        let (row, col) = (self.cursor.row, self.cursor.col);
        if col == 0 {
            return;
        }
        let cols = self.cols;
        let line = self.grid_mut().row_mut(row);
        let mut at = (col - 1).min(cols - 1);
        if line.cell(at).flags & flag::WIDE_CONT != 0 && at > 0 {
            at -= 1;
        }
        line.add_combining(at, c, cols);
        self.touch(row);
    }

    // ----- erasing --------------------------------------------------------------

    pub(super) fn erase_in_row(&mut self, row: usize, from: usize, to: usize) {
        let (pen, cols) = (self.cursor.pen, self.cols);
        let line = self.grid_mut().row_mut(row);
        line.erase(from, to, pen, cols);
        if to >= cols {
            line.wrapped = false;
        }
        self.touch(row);
    }

    fn erase_rows(&mut self, from: usize, to: usize) {
        let pen = self.cursor.pen;
        for row in from..to {
            self.grid_mut().clear_row(row, pen);
        }
        if from < to {
            self.touch_rows(from, to - 1);
        }
    }

    pub(super) fn erase_display(&mut self, how: u16) {
        let (row, col, cols, rows) = (self.cursor.row, self.cursor.col, self.cols, self.rows);
        match how {
            0 => {
                self.erase_in_row(row, col, cols);
                self.erase_rows(row + 1, rows);
            },
            1 => {
                self.erase_rows(0, row);
                self.erase_in_row(row, 0, (col + 1).min(cols));
            },
            2 => self.erase_rows(0, rows),
            // 3 erases the scrollback, which the grid does not keep.
            _ => {},
        }
    }

    pub(super) fn erase_line(&mut self, how: u16) {
        let (row, col, cols) = (self.cursor.row, self.cursor.col, self.cols);
        match how {
            0 => self.erase_in_row(row, col, cols),
            1 => self.erase_in_row(row, 0, (col + 1).min(cols)),
            2 => self.erase_in_row(row, 0, cols),
            _ => {},
        }
    }
}
