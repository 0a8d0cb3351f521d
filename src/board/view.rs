//! Drawing the board (ratatui): the decision queue, the pane list grouped by
//! workspace and tab, the preview and the status line. A pure function of the
//! model: tested with ratatui's test backend.

use super::model::{Board, Row};
use super::preview::Preview;
use ratatui::Frame;
use ratatui::layout::Rect;
use std::time::Instant;

/// How to draw.
#[derive(Debug, Clone, Copy)]
pub struct ViewOpts {
    /// Colours on (off with `NO_COLOR`): glyphs carry the meaning either way.
    pub color: bool,
    /// Now, for "reconnecting for 3 s".
    pub now: Instant,
    /// Now as wall-clock milliseconds, for "time in state".
    pub now_ms: i64,
}

/// Where things were drawn, for the mouse.
#[derive(Debug, Clone, Default)]
pub struct Drawn {
    /// The pane list's area (inside its border).
    pub list: Rect,
    /// The rows drawn in it, top to bottom.
    pub list_rows: Vec<Row>,
}

/// Draws the whole board.
pub fn draw(frame: &mut Frame, board: &Board, preview: &Preview, opts: &ViewOpts) -> Drawn {
    let _ = (board, preview, opts);
    let _ = frame.area();
    Drawn::default()
}

/// The list row under the screen position (`x`, `y`), if any.
pub fn row_at(drawn: &Drawn, x: u16, y: u16) -> Option<Row> {
    let area = drawn.list;
    if x < area.x || x >= area.x + area.width || y < area.y || y >= area.y + area.height {
        return None;
    }
    drawn.list_rows.get(usize::from(y - area.y)).cloned()
}
