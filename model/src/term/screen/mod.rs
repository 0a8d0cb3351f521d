//! The VT emulator of a pane: cursor, modes, main and alternate grids, and the
//! `vte::Perform` that applies every escape sequence to them
//! (docs/terminal.md#the-grid). Pure: bytes in through a `vte::Parser`, text and
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
//!
//! This file owns the state (cursor, saved cursors, scroll region, modes, tab
//! stops) with its small accessors, cursor movement, the screen switches, reset
//! and resize; each other file of the module owns one concern of applying bytes.
//!
//! The state is plain data that serde carries across an in-place upgrade
//! (`term/export.rs`); [`Screen::check`] refuses a state that does not fit.

use super::grid::{Grid, Pen};
use charset::Charsets;
use serde::{Deserialize, Serialize};

mod charset;
mod edit;
mod formatted;
mod modes;
mod perform;

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
    /// The `n` of every `CSI n S` and `CSI n T`, summed (the scroll bound,
    /// docs/terminal.md#the-scroll-bound).
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

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
struct Cursor {
    row: usize,
    /// `0..=cols`; `cols` means a character was printed in the last column and
    /// the next one wraps first.
    col: usize,
    pen: Pen,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Saved {
    cursor: Cursor,
    origin: bool,
    /// As xterm's DECSC: the character sets too (left out of the export
    /// while plain ASCII, so format 1 reads as it did).
    #[serde(default, skip_serializing_if = "Charsets::is_ascii")]
    charsets: Charsets,
}

/// The emulator. See the module documentation.
///
/// `track`, `switch` and `replies` are not serialised: they only live within
/// one `Terminal::feed` (or `resize`), which takes all three before it returns
/// (`end_segment` takes the track after every batch, `feed_batch` takes a
/// switch as soon as the parser stops for it, `feed` takes the replies), so
/// between calls they are always empty.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// G0/G1 and the one invoked (`charset.rs`).
    #[serde(default, skip_serializing_if = "Charsets::is_ascii")]
    charsets: Charsets,
    last_char: Option<char>,
    #[serde(skip)]
    track: Track,
    #[serde(skip)]
    switch: Option<Switch>,
    /// Answers to the program's terminal queries (cursor position, device
    /// attributes, colours, modes), in the order they were asked.
    #[serde(skip)]
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
            charsets: Charsets::default(),
            last_char: None,
            track: Track::default(),
            switch: None,
            replies: Vec::new(),
        }
    }

    /// Gives back what the grids reserve and do not use: blank rows then hold
    /// no allocation (docs/terminal.md#the-grid).
    pub fn shrink(&mut self) {
        self.main.shrink();
        if let Some(alt) = &mut self.alt {
            alt.shrink();
        }
        self.replies = Vec::new();
    }

    /// The heap bytes the grids hold.
    #[cfg(test)]
    pub fn heap_bytes(&self) -> usize {
        self.main.heap_bytes() + self.alt.as_ref().map_or(0, Grid::heap_bytes)
    }

    /// The heap bytes the grids' rows hold besides their headers.
    #[cfg(test)]
    pub fn cell_bytes(&self) -> usize {
        self.main.cell_bytes() + self.alt.as_ref().map_or(0, Grid::cell_bytes)
    }

    /// The answers owed to the program since the last call.
    pub fn take_replies(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.replies)
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

    /// Whether the program asked for bracketed paste (DECSET 2004).
    pub fn bracketed_paste(&self) -> bool {
        self.modes & mode::BRACKETED_PASTE != 0
    }

    /// Whether the program hid the cursor (DECTCEM off).
    pub fn cursor_hidden(&self) -> bool {
        self.modes & mode::HIDE_CURSOR != 0
    }

    /// `(row, col)` of the cursor; `col` may equal the width (see `Cursor`).
    pub fn cursor_position(&self) -> (usize, usize) {
        (self.cursor.row, self.cursor.col)
    }

    /// The mode bits, mouse mode and mouse encoding, for tests comparing two
    /// screens.
    #[cfg(test)]
    pub fn modes(&self) -> (u16, u16, u16) {
        (self.modes, self.mouse, self.mouse_encoding)
    }

    /// Whether a deserialised screen is one of `rows` × `cols` that the
    /// methods can run on without an index out of range: the error says what
    /// does not fit.
    pub fn check(&self, rows: usize, cols: usize) -> Result<(), String> {
        if (self.rows, self.cols) != (rows, cols) || rows == 0 || cols == 0 {
            return Err(format!(
                "a screen of {}x{} in a terminal of {rows}x{cols}",
                self.rows, self.cols
            ));
        }
        for (name, grid) in [("main", Some(&self.main)), ("alternate", self.alt.as_ref())] {
            if let Some(grid) = grid
                && (grid.rows(), grid.cols()) != (rows, cols)
            {
                let (r, c) = (grid.rows(), grid.cols());
                return Err(format!(
                    "a {name} grid of {r}x{c} on a screen of {rows}x{cols}"
                ));
            }
        }
        let fits = |c: &Cursor| c.row < rows && c.col <= cols;
        if !fits(&self.cursor) || !self.saved.iter().flatten().all(|s| fits(&s.cursor)) {
            return Err("a cursor outside the screen".to_owned());
        }
        if self.top > self.bottom || self.bottom >= rows {
            return Err(format!(
                "a scroll region of rows {}..={}",
                self.top, self.bottom
            ));
        }
        if self.tabs.as_ref().is_some_and(|tabs| tabs.len() != cols) {
            return Err("tab stops for another width".to_owned());
        }
        let known = mode::AUTOWRAP
            | mode::ORIGIN
            | mode::INSERT
            | mode::APP_CURSOR
            | mode::APP_KEYPAD
            | mode::HIDE_CURSOR
            | mode::BRACKETED_PASTE;
        if self.modes & !known != 0
            || ![0, 9, 1000, 1002, 1003].contains(&self.mouse)
            || ![0, 1005, 1006, 1015].contains(&self.mouse_encoding)
        {
            return Err("unknown modes".to_owned());
        }
        Ok(())
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
            charsets: self.charsets,
        });
    }

    fn restore_cursor(&mut self) {
        let slot = usize::from(self.alt.is_some());
        let saved = self.saved[slot].unwrap_or(Saved {
            cursor: Cursor::default(),
            origin: false,
            charsets: Charsets::default(),
        });
        self.cursor = saved.cursor;
        self.charsets = saved.charsets;
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

    // ----- screens and resets ---------------------------------------------------

    /// Applies a switch taken with [`Screen::take_switch`].
    pub fn apply_switch(&mut self, switch: Switch) {
        match switch {
            Switch::Enter | Switch::EnterSaving => {
                if switch == Switch::EnterSaving && self.alt.is_none() {
                    self.save_cursor();
                }
                if self.alt.is_none() {
                    // Its saved cursor stays: xterm and tmux keep one per
                    // screen across switches.
                    self.alt = Some(Grid::new(self.rows, self.cols));
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

    /// Resizes without reflow (docs/terminal.md#the-grid). Shrinking scrolls the
    /// shown grid up just enough to keep the cursor row; returns how many rows
    /// that pushed off.
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
}
