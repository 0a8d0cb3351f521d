//! The VT emulator of a pane: cursor, modes, main and alternate grids, and the
//! `vte::Perform` that applies every escape sequence to them (spec
//! pty-terminal.md §5.1). Pure: bytes in through a `vte::Parser`, text and
//! replayable state out.
//!
//! It also keeps, for the rendered ring, an exact account of what changed
//! since the ring last looked ([`Track`]): how far the whole screen scrolled
//! and which rows were written. The ring then reads only those rows.
//!
//! Behaviour follows xterm where tmux does too (the differential test plays
//! the same bytes into tmux): the cursor and pen are shared by both screens,
//! entering the alternate screen (`?47h`, `?1047h`, `?1049h`) clears it, and a
//! character printed in the last column leaves the cursor *past* it (column
//! `cols`) until the next character wraps.

use super::grid::{Cell, Color, Grid, Pen, attr, flag};
use unicode_width::UnicodeWidthChar;
use vte::{Params, Perform};

/// Mode bits of [`Screen::modes`].
mod mode {
    pub const AUTOWRAP: u16 = 1;
    pub const ORIGIN: u16 = 1 << 1;
    pub const INSERT: u16 = 1 << 2;
    pub const APP_CURSOR: u16 = 1 << 3;
    pub const APP_KEYPAD: u16 = 1 << 4;
    pub const HIDE_CURSOR: u16 = 1 << 5;
    pub const BRACKETED_PASTE: u16 = 1 << 6;
}

/// What changed since [`Screen::take_track`], in the coordinates of the grid
/// as it is now.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Track {
    /// Rows the whole screen scrolled up: row `i` now holds what row
    /// `i + shift` held, unless it is in `dirty`.
    pub shift: usize,
    /// The first and last row that may hold something new.
    pub dirty: Option<(usize, usize)>,
    /// Anything may have changed (screen switch, resize, reset): read it all.
    pub all: bool,
    /// The `n` of every `CSI n S` and `CSI n T`, summed (the scroll bound, §6.3).
    pub csi_scroll: u64,
}

/// A switch between the main and the alternate screen, parsed but not yet
/// applied: the terminal reconciles the ring on each side of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Switch {
    /// `?47h`, `?1047h`: enter and clear the alternate screen.
    Enter,
    /// `?1049h`: save the cursor, then enter and clear.
    EnterSaving,
    /// `?47l`, `?1047l`.
    Leave,
    /// `?1049l`: leave, then restore the cursor.
    LeaveRestoring,
}

#[derive(Debug, Clone, Copy, Default)]
struct Cursor {
    row: usize,
    /// `0..=cols`; `cols` means a character was printed in the last column and
    /// the next one wraps first.
    col: usize,
    pen: Pen,
}

#[derive(Debug, Clone, Copy)]
struct Saved {
    cursor: Cursor,
    origin: bool,
}

/// The emulator. See the module documentation.
#[derive(Debug)]
pub(crate) struct Screen {
    main: Grid,
    /// Exists only while shown: entering clears it anyway.
    alt: Option<Grid>,
    rows: usize,
    cols: usize,
    cursor: Cursor,
    /// DECSC slots of the main and the alternate screen.
    saved: [Option<Saved>; 2],
    /// The scroll region, inclusive.
    top: usize,
    bottom: usize,
    modes: u16,
    /// The mouse tracking mode (9, 1000, 1002, 1003) or 0.
    mouse: u16,
    /// The mouse encoding mode (1005, 1006, 1015) or 0.
    mouse_encoding: u16,
    /// Tab stops set or cleared by HTS/TBC; `None` means every 8 columns.
    tabs: Option<Vec<bool>>,
    last_char: Option<char>,
    track: Track,
    switch: Option<Switch>,
    /// Answers to the program's terminal queries (cursor position, device
    /// attributes, colours, modes), in the order they were asked.
    replies: Vec<u8>,
}

impl Screen {
    pub fn new(rows: usize, cols: usize) -> Screen {
        let (rows, cols) = (rows.max(1), cols.max(1));
        Screen {
            main: Grid::new(rows, cols),
            alt: None,
            rows,
            cols,
            cursor: Cursor::default(),
            saved: [None, None],
            top: 0,
            bottom: rows - 1,
            modes: mode::AUTOWRAP,
            mouse: 0,
            mouse_encoding: 0,
            tabs: None,
            last_char: None,
            track: Track::default(),
            switch: None,
            replies: Vec::new(),
        }
    }

    /// The answers owed to the program since the last call.
    pub fn take_replies(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.replies)
    }

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
    fn answer(&mut self, params: &Params, intermediates: &[u8], action: char) {
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

    pub fn alternate_screen(&self) -> bool {
        self.alt.is_some()
    }

    /// The grid shown.
    pub fn grid(&self) -> &Grid {
        self.alt.as_ref().unwrap_or(&self.main)
    }

    fn grid_mut(&mut self) -> &mut Grid {
        self.alt.as_mut().unwrap_or(&mut self.main)
    }

    /// `(row, col)` of the cursor; `col` may equal the width (see `Cursor`).
    #[cfg(test)]
    pub fn cursor_position(&self) -> (usize, usize) {
        (self.cursor.row, self.cursor.col)
    }

    /// The mode bits, mouse mode and mouse encoding, for tests comparing two
    /// screens.
    #[cfg(test)]
    pub fn modes(&self) -> (u16, u16, u16) {
        (self.modes, self.mouse, self.mouse_encoding)
    }

    /// The text of row `i` of the grid shown, trailing spaces trimmed.
    pub fn row_text(&self, i: usize) -> String {
        self.grid().row(i).text()
    }

    /// Returns what changed since the last call and starts a new account.
    pub fn take_track(&mut self) -> Track {
        std::mem::take(&mut self.track)
    }

    /// The screen switch the last parsed sequence asked for, if any. Parsing
    /// stops (`Perform::terminated`) until it is taken and applied.
    pub fn take_switch(&mut self) -> Option<Switch> {
        self.switch.take()
    }

    // ----- change tracking ------------------------------------------------------

    #[inline]
    fn touch(&mut self, row: usize) {
        self.track.dirty = Some(match self.track.dirty {
            Some((lo, hi)) => (lo.min(row), hi.max(row)),
            None => (row, row),
        });
    }

    fn touch_rows(&mut self, from: usize, to: usize) {
        if from <= to {
            self.touch(from);
            self.touch(to);
        }
    }

    // ----- scrolling ------------------------------------------------------------

    /// Scrolls rows `top..=bottom` up by `n`.
    fn scroll_up_in(&mut self, top: usize, bottom: usize, n: usize) {
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

    fn scroll_down_in(&mut self, top: usize, bottom: usize, n: usize) {
        let n = n.min(bottom + 1 - top);
        if n == 0 {
            return;
        }
        let pen = self.cursor.pen;
        self.grid_mut().scroll_down(top, bottom, n, pen);
        self.touch_rows(top, bottom);
    }

    /// LF, VT, FF, IND: down one row, scrolling at the bottom of the region.
    fn linefeed(&mut self) {
        if self.cursor.row == self.bottom {
            self.scroll_up_in(self.top, self.bottom, 1);
        } else if self.cursor.row + 1 < self.rows {
            self.cursor.row += 1;
        }
    }

    /// RI: up one row, scrolling down at the top of the region.
    fn reverse_index(&mut self) {
        if self.cursor.row == self.top {
            self.scroll_down_in(self.top, self.bottom, 1);
        } else if self.cursor.row > 0 {
            self.cursor.row -= 1;
        }
    }

    // ----- printing -------------------------------------------------------------

    #[inline]
    fn put_char(&mut self, c: char) {
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
            line.insert_blanks(col, width, pen);
        }
        let cells = &mut line.cells;
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
        let cells = &mut line.cells;
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
            line.cells[col + 1] = Cell {
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
        let line = self.grid_mut().row_mut(row);
        let mut at = col - 1;
        if line.cells[at].flags & flag::WIDE_CONT != 0 && at > 0 {
            at -= 1;
        }
        line.add_combining(at, c);
        self.touch(row);
    }

    // ----- cursor ---------------------------------------------------------------

    /// The cursor column as an index (a pending wrap counts as the last column).
    fn col(&self) -> usize {
        self.cursor.col.min(self.cols - 1)
    }

    fn set_col(&mut self, col: usize) {
        self.cursor.col = col.min(self.cols - 1);
    }

    /// Moves to `row` (0-based, relative to the region in origin mode) and `col`.
    fn goto(&mut self, row: usize, col: usize) {
        self.cursor.row = if self.modes & mode::ORIGIN != 0 {
            (self.top + row).min(self.bottom)
        } else {
            row.min(self.rows - 1)
        };
        self.set_col(col);
    }

    fn cursor_up(&mut self, n: usize) {
        let limit = if self.cursor.row >= self.top {
            self.top
        } else {
            0
        };
        self.cursor.row = self.cursor.row.saturating_sub(n).max(limit);
        self.set_col(self.cursor.col);
    }

    fn cursor_down(&mut self, n: usize) {
        let limit = if self.cursor.row <= self.bottom {
            self.bottom
        } else {
            self.rows - 1
        };
        self.cursor.row = self.cursor.row.saturating_add(n).min(limit);
        self.set_col(self.cursor.col);
    }

    fn is_tab_stop(&self, col: usize) -> bool {
        match &self.tabs {
            Some(stops) => stops.get(col).copied().unwrap_or(false),
            None => col.is_multiple_of(8),
        }
    }

    fn tab_forward(&mut self, n: usize) {
        let mut col = self.col();
        for _ in 0..n {
            col += 1;
            while col < self.cols - 1 && !self.is_tab_stop(col) {
                col += 1;
            }
            if col >= self.cols - 1 {
                col = self.cols - 1;
                break;
            }
        }
        self.cursor.col = col;
    }

    fn tab_backward(&mut self, n: usize) {
        let mut col = self.col();
        for _ in 0..n {
            col = col.saturating_sub(1);
            while col > 0 && !self.is_tab_stop(col) {
                col -= 1;
            }
        }
        self.cursor.col = col;
    }

    fn tab_stops_mut(&mut self) -> &mut Vec<bool> {
        let cols = self.cols;
        self.tabs
            .get_or_insert_with(|| (0..cols).map(|c| c.is_multiple_of(8)).collect())
    }

    fn save_cursor(&mut self) {
        let slot = usize::from(self.alt.is_some());
        self.saved[slot] = Some(Saved {
            cursor: self.cursor,
            origin: self.modes & mode::ORIGIN != 0,
        });
    }

    fn restore_cursor(&mut self) {
        let slot = usize::from(self.alt.is_some());
        let saved = self.saved[slot].unwrap_or(Saved {
            cursor: Cursor::default(),
            origin: false,
        });
        self.cursor = saved.cursor;
        self.cursor.row = self.cursor.row.min(self.rows - 1);
        self.cursor.col = self.cursor.col.min(self.cols);
        self.set_mode(mode::ORIGIN, saved.origin);
    }

    fn set_mode(&mut self, bit: u16, on: bool) {
        if on {
            self.modes |= bit;
        } else {
            self.modes &= !bit;
        }
    }

    // ----- erasing --------------------------------------------------------------

    fn erase_in_row(&mut self, row: usize, from: usize, to: usize) {
        let pen = self.cursor.pen;
        let line = self.grid_mut().row_mut(row);
        line.erase(from, to, pen);
        if to >= line.cells.len() {
            line.wrapped = false;
        }
        self.touch(row);
    }

    fn erase_rows(&mut self, from: usize, to: usize) {
        let pen = self.cursor.pen;
        for row in from..to {
            self.grid_mut().row_mut(row).clear(pen);
        }
        if from < to {
            self.touch_rows(from, to - 1);
        }
    }

    fn erase_display(&mut self, how: u16) {
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

    fn erase_line(&mut self, how: u16) {
        let (row, col, cols) = (self.cursor.row, self.cursor.col, self.cols);
        match how {
            0 => self.erase_in_row(row, col, cols),
            1 => self.erase_in_row(row, 0, (col + 1).min(cols)),
            2 => self.erase_in_row(row, 0, cols),
            _ => {},
        }
    }

    // ----- screens and resets ---------------------------------------------------

    /// Applies a switch taken with [`Screen::take_switch`].
    pub fn apply_switch(&mut self, switch: Switch) {
        match switch {
            Switch::Enter | Switch::EnterSaving => {
                if switch == Switch::EnterSaving && self.alt.is_none() {
                    self.save_cursor();
                }
                if self.alt.is_none() {
                    self.alt = Some(Grid::new(self.rows, self.cols));
                    self.saved[1] = None;
                }
            },
            Switch::Leave => {
                self.alt = None;
            },
            Switch::LeaveRestoring => {
                self.alt = None;
                // As in xterm, even when the alternate screen was not shown.
                self.restore_cursor();
            },
        }
        self.track.all = true;
    }

    /// RIS: back to the state of a new terminal of the same size.
    fn reset(&mut self) {
        let (rows, cols) = (self.rows, self.cols);
        *self = Screen {
            main: std::mem::replace(&mut self.main, Grid::new(0, 0)),
            ..Screen::new(rows, cols)
        };
        self.main.clear(Pen::default());
        self.track.all = true;
    }

    /// Resizes without reflow (§5.1). Shrinking scrolls the shown grid up just
    /// enough to keep the cursor row; returns how many rows that pushed off.
    pub fn resize(&mut self, rows: usize, cols: usize) -> usize {
        let (rows, cols) = (rows.max(1), cols.max(1));
        let pushed = (self.cursor.row + 1).saturating_sub(rows);
        if pushed > 0 {
            let (old_rows, pen) = (self.rows, self.cursor.pen);
            self.grid_mut().scroll_up(0, old_rows - 1, pushed, pen);
            self.cursor.row -= pushed;
        }
        self.main.resize(rows, cols);
        if let Some(alt) = &mut self.alt {
            alt.resize(rows, cols);
        }
        self.rows = rows;
        self.cols = cols;
        self.top = 0;
        self.bottom = rows - 1;
        self.cursor.col = self.cursor.col.min(cols - 1);
        if let Some(stops) = &mut self.tabs {
            let kept = stops.len().min(cols);
            stops.truncate(kept);
            stops.extend((kept..cols).map(|c| c.is_multiple_of(8)));
        }
        self.track = Track {
            all: true,
            ..Track::default()
        };
        pushed
    }

    // ----- SGR ------------------------------------------------------------------

    fn sgr(&mut self, params: &Params) {
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

    fn private_mode(&mut self, params: &Params, on: bool) {
        for param in params.iter() {
            let Some(&code) = param.first() else { continue };
            match code {
                1 => self.set_mode(mode::APP_CURSOR, on),
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

/// The `i`th parameter, with 0 or absent meaning `default`.
fn arg(params: &Params, i: usize, default: u16) -> u16 {
    match params.iter().nth(i).and_then(|p| p.first().copied()) {
        Some(0) | None => default,
        Some(n) => n,
    }
}

impl Perform for Screen {
    #[inline]
    fn print(&mut self, c: char) {
        self.put_char(c);
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
                self.grid_mut().row_mut(row).insert_blanks(col, n, pen);
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
                self.grid_mut().row_mut(row).delete_cells(col, n, pen);
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
            ([b'#'], b'8') => {
                // DECALN: fill the screen with `E`.
                let (rows, pen) = (self.rows, Pen::default());
                for row in 0..rows {
                    let line = self.grid_mut().row_mut(row);
                    line.clear(pen);
                    for cell in &mut line.cells {
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

// ----- formatted output ---------------------------------------------------------

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
        use super::grid::ColorKind;
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
                write_row(&mut out, row, Pen::default(), false);
                out
            })
            .collect();
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        lines.join("\n")
    }

    /// Replayable VT bytes (§5.1, §8.1): fed into a fresh terminal of the same
    /// size, or a client terminal in any state, they reproduce the contents,
    /// colours, cursor, scroll region and input modes. On the alternate screen
    /// they first draw the main screen, so leaving the alternate screen on the
    /// client brings the main text back.
    pub fn state_formatted(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        out.push_str("\x1b[?1049l\x1b[r\x1b[?6l\x1b[?7h\x1b[4l");
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
        if self.mouse_encoding != 0 {
            let _ = write!(out, "\x1b[?{}h", self.mouse_encoding);
        }
        // The cursor: a pending wrap is recreated by printing the last cell again.
        let (row, col) = (self.cursor.row, self.cursor.col);
        if col >= self.cols && self.modes & mode::AUTOWRAP != 0 {
            let line = self.grid().row(row);
            let mut last = self.cols - 1;
            if line.cells[last].flags & flag::WIDE_CONT != 0 && last > 0 {
                last -= 1;
            }
            let cell = line.cells[last];
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
            if row.cells.iter().all(Cell::is_plain_blank) && !wraps {
                continue;
            }
            let _ = write!(out, "\x1b[{}H", i + 1);
        }
        write_row(out, row, Pen::default(), wraps);
        continued = wraps;
    }
}

/// Appends the cells of `row` with SGR changes, starting from `pen`. Trailing
/// unstyled blanks are left out unless `full` (a wrapped row must fill its
/// width so that the next character wraps). Ends with a reset when the style
/// is not the default.
fn write_row(out: &mut String, row: &super::grid::Row, mut pen: Pen, full: bool) {
    let end = if full {
        row.cells.len()
    } else {
        row.cells
            .iter()
            .rposition(|c| !c.is_plain_blank())
            .map_or(0, |p| p + 1)
    };
    for (col, cell) in row.cells[..end].iter().enumerate() {
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
