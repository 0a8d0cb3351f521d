//! The reads of a [`Terminal`]: its size and modes, the screen as plain text,
//! as styled cells or as replayable bytes, and the ring's tail and deltas.
//! None of them changes the terminal.

use super::{RING_LINES, Rendered, Tail, TailSource, Terminal, grid};
use std::sync::Arc;

impl Terminal {
    /// `(rows, cols)`.
    pub fn size(&self) -> (u16, u16) {
        (self.rows, self.cols)
    }

    /// The visible grid as plain text: one line per row (a wrapped row is its own
    /// line), trailing spaces and trailing blank rows trimmed.
    pub fn screen_text(&self) -> String {
        let mut text = String::new();
        let ring = self.ring.lock();
        let rows = (0..ring.screen_len())
            .rposition(|i| !ring.screen_row(i).is_empty())
            .map_or(0, |last| last + 1);
        for i in 0..rows {
            if i > 0 {
                text.push('\n');
            }
            text.push_str(ring.screen_row(i));
        }
        text
    }

    /// The visible grid with SGR colour sequences, for `pane.read` mode `screen`
    /// with `strip_ansi: false`: rows joined by `\n` (wrapped rows joined), no
    /// other escape sequences, not trimmed.
    pub fn screen_formatted(&self) -> String {
        self.screen.contents_formatted()
    }

    /// The last `lines` content lines (capped at 5000), oldest first (`tail` of
    /// docs/terminal.md#read-modes).
    pub fn tail(&self, lines: usize) -> Tail {
        self.ring.lock().tail(lines.min(RING_LINES))
    }

    /// The content lines newer than `after_seq`, at most `lines` (capped at 5000)
    /// of the newest (docs/terminal.md#reads-of-the-ring, `rendered` of
    /// docs/terminal.md#read-modes).
    pub fn rendered(&self, after_seq: u64, lines: usize) -> Rendered {
        self.ring.lock().rendered(after_seq, lines.min(RING_LINES))
    }

    /// The last seq handed out (0 only before the ring has any line).
    pub fn head(&self) -> u64 {
        self.ring.lock().head()
    }

    /// History plus the screen's content rows.
    pub fn ring_len(&self) -> usize {
        self.ring.lock().len()
    }

    /// A handle that reads the ring from another thread (the snapshot's
    /// tails), whatever this terminal is doing.
    pub fn tail_source(&self) -> TailSource {
        TailSource(Arc::clone(&self.ring))
    }

    /// Whether the program asked for its pastes bracketed (DECSET 2004).
    pub fn bracketed_paste(&self) -> bool {
        self.screen.bracketed_paste()
    }

    /// Whether the alternate screen is shown.
    pub fn alternate_screen(&self) -> bool {
        self.screen.alternate_screen()
    }

    /// Replayable VT bytes for `pane.attach` (docs/terminal.md#the-grid,
    /// docs/terminal.md#attaching): fed into a fresh terminal of the same size
    /// they reproduce the contents, colours, cursor and input modes. On the
    /// alternate screen they first draw the main screen as it was when the
    /// alternate one was entered, then enter it with `?1049h`, so the client gets
    /// the main text back when the program leaves.
    pub fn state_formatted(&self) -> Vec<u8> {
        self.screen.state_formatted().into_bytes()
    }

    /// The cells of visible row `i` with their style, for a client that draws
    /// the screen itself (the board's preview). Empty past the last row.
    pub fn styled_row(&self, i: usize) -> Vec<StyledCell> {
        let grid = self.screen.grid();
        if i >= grid.rows() {
            return Vec::new();
        }
        let row = grid.row(i);
        (0..grid.cols())
            .map(|col| (col, row.cell(col)))
            .map(|(col, cell)| StyledCell {
                ch: cell.ch,
                combining: if cell.flags & grid::flag::COMBINING != 0 {
                    row.combining_at(col).to_owned()
                } else {
                    String::new()
                },
                fg: cell.fg.kind().into(),
                bg: cell.bg.kind().into(),
                attrs: CellAttrs(cell.attrs),
                wide: cell.flags & grid::flag::WIDE != 0,
                continuation: cell.flags & grid::flag::WIDE_CONT != 0,
            })
            .collect()
    }

    /// Where the cursor is drawn, `(row, col)`, or `None` when the program hid it.
    pub fn cursor(&self) -> Option<(u16, u16)> {
        if self.screen.cursor_hidden() {
            return None;
        }
        let (row, col) = self.screen.cursor_position();
        let col = col.min(usize::from(self.cols).saturating_sub(1));
        Some((row as u16, col as u16))
    }
}

/// A colour as a cell holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellColor {
    /// The terminal's default.
    Default,
    /// One of the 256 indexed colours.
    Indexed(u8),
    /// 24-bit colour.
    Rgb(u8, u8, u8),
}

impl From<grid::ColorKind> for CellColor {
    fn from(kind: grid::ColorKind) -> CellColor {
        match kind {
            grid::ColorKind::Default => CellColor::Default,
            grid::ColorKind::Indexed(i) => CellColor::Indexed(i),
            grid::ColorKind::Rgb(r, g, b) => CellColor::Rgb(r, g, b),
        }
    }
}

/// The SGR attributes of a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CellAttrs(u8);

impl CellAttrs {
    pub fn bold(self) -> bool {
        self.0 & grid::attr::BOLD != 0
    }
    pub fn dim(self) -> bool {
        self.0 & grid::attr::DIM != 0
    }
    pub fn italic(self) -> bool {
        self.0 & grid::attr::ITALIC != 0
    }
    pub fn underline(self) -> bool {
        self.0 & grid::attr::UNDERLINE != 0
    }
    pub fn inverse(self) -> bool {
        self.0 & grid::attr::INVERSE != 0
    }
    pub fn hidden(self) -> bool {
        self.0 & grid::attr::HIDDEN != 0
    }
    pub fn strike(self) -> bool {
        self.0 & grid::attr::STRIKE != 0
    }
}

/// One visible cell with its style (`Terminal::styled_row`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StyledCell {
    /// The character (a space when blank).
    pub ch: char,
    /// Combining characters after it, usually none.
    pub combining: String,
    pub fg: CellColor,
    pub bg: CellColor,
    pub attrs: CellAttrs,
    /// The first half of a double-width character.
    pub wide: bool,
    /// The second half of one: nothing of its own to draw.
    pub continuation: bool,
}
