//! Drawing the board (ratatui): the decision queue, the pane list grouped by
//! workspace and tab, the preview and the status line. A pure function of the
//! model: tested with ratatui's test backend.
//!
//! ```text
//! ─ 1 question waiting for you, oldest first ───────────
//! ! web · claude · 2m  Run `rm -rf build`?   1 Allow once  2 Deny
//! ─ panes 3 ─────────────────────────────────────────────
//! signaltty  (signaltty)
//!   ◆! claude web    2m RESUMABLE waiting for permission
//!   ●  codex  api    5s            running the tests
//! ─ preview · web ◆ blocked 2m ──────────────────────────
//! (the pane's screen)
//!   1-9 answer · y/n allow/deny · Enter attach · …       (message line)
//!  ● live │ ◆ 1 blocked ● 1 working │ /run/…/sock │ ? keys
//! ```
//!
//! The preview is on the right from 120 columns, below the list when the
//! height allows, else left out. Glyphs (`paint::GLYPHS`) carry every state
//! without colour; the selection is reverse video either way.

pub mod glyphs;
mod list;
mod queue;
mod screen;
mod status;
mod tasks;

use super::keys::HELP;
use super::model::{Board, Mode, Row, View};
use super::preview::Preview;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget as _};
use signaltty_protocol::TaskId;
use std::time::Instant;

use crate::paint::{GLYPHS, TASK_GLYPHS};

/// From this width the preview sits right of the list.
const WIDE: u16 = 120;
/// The narrowest the list gets beside the preview.
const LIST_MIN: u16 = 60;
/// Below the list, the preview needs this much height left to be worth it.
const STACKED_MIN: u16 = 14;

/// How to draw.
#[derive(Debug, Clone, Copy)]
pub struct ViewOpts {
    /// Colours on (off with `NO_COLOR`): glyphs carry the meaning either way.
    pub color: bool,
    /// Now, for "reconnecting for 3 s".
    pub now: Instant,
    /// Now as wall-clock milliseconds, for "time in state".
    pub now_ms: i64,
    /// Desktop notifications are on (`--notify` found a way): the status
    /// line says so.
    pub notify: bool,
}

/// Where things were drawn, for the mouse.
#[derive(Debug, Clone, Default)]
pub struct Drawn {
    /// The pane list's area (inside its border).
    pub list: Rect,
    /// The rows drawn in it, top to bottom.
    pub list_rows: Vec<Row>,
    /// In the tasks view: the tasks drawn in the list's area, top to bottom.
    pub task_rows: Vec<TaskId>,
}

/// Draws the whole board.
pub fn draw(frame: &mut Frame, board: &Board, preview: &Preview, opts: &ViewOpts) -> Drawn {
    let area = frame.area();
    draw_in(frame.buffer_mut(), area, board, preview, opts)
}

/// Draws the board in `area` of `buf`.
fn draw_in(
    buf: &mut Buffer,
    area: Rect,
    board: &Board,
    preview: &Preview,
    opts: &ViewOpts,
) -> Drawn {
    if area.width == 0 || area.height == 0 {
        return Drawn::default();
    }
    // The bottom: the message line (when there is room) and the status line.
    let footer = if area.height >= 4 { 2 } else { 1 };
    let body = Rect::new(area.x, area.y, area.width, area.height - footer);
    let bottom = area.y + area.height - 1;
    status::draw_status(buf, Rect::new(area.x, bottom, area.width, 1), board, opts);
    if footer == 2 {
        let message = Rect::new(area.x, bottom - 1, area.width, 1);
        status::draw_message(buf, message, board, opts);
    }

    let queue = queue::Queue::new(board, body.width, opts);
    let queue_h = queue.height(body.height);
    queue.draw(buf, Rect::new(body.x, body.y, body.width, queue_h), opts);
    let rest = Rect::new(body.x, body.y + queue_h, body.width, body.height - queue_h);

    let (mut list_area, mut preview_area) = split(rest);
    // Below a short task list, the task's details get the rows it leaves.
    if board.view == View::Tasks
        && let Some(p) = preview_area.as_mut()
        && p.y > list_area.y
    {
        let want = (board.tasks.len() as u16 + 2).max(4);
        let spare = list_area.height.saturating_sub(want);
        list_area.height -= spare;
        p.y -= spare;
        p.height += spare;
    }
    let mut drawn = Drawn::default();
    match board.view {
        View::Panes => (drawn.list, drawn.list_rows) = list::draw_list(buf, list_area, board, opts),
        View::Tasks => {
            (drawn.list, drawn.task_rows) = tasks::draw_tasks(buf, list_area, board, opts)
        },
    }
    if let Some(p) = preview_area {
        match board.view {
            View::Panes => screen::draw_preview(buf, p, board, preview, opts),
            View::Tasks => tasks::draw_task_detail(buf, p, board, opts),
        }
        if p.x > list_area.x {
            separator(buf, Rect::new(p.x - 1, p.y, 1, p.height), opts);
        }
    }
    if board.mode == Mode::Help {
        let legend = match board.view {
            View::Panes => GLYPHS,
            View::Tasks => TASK_GLYPHS,
        };
        help(buf, area, legend, opts);
    }
    drawn
}

/// The list's area and the preview's, if it fits: on the right when wide,
/// else below when high enough.
fn split(rest: Rect) -> (Rect, Option<Rect>) {
    if rest.width >= WIDE && rest.height >= 3 {
        let list_w = (rest.width * 45 / 100).max(LIST_MIN);
        let list = Rect::new(rest.x, rest.y, list_w, rest.height);
        let preview = Rect::new(
            rest.x + list_w + 1,
            rest.y,
            rest.width - list_w - 1,
            rest.height,
        );
        (list, Some(preview))
    } else if rest.height >= STACKED_MIN {
        let preview_h = (rest.height * 2 / 5).max(5);
        let list = Rect::new(rest.x, rest.y, rest.width, rest.height - preview_h);
        let preview = Rect::new(rest.x, list.y + list.height, rest.width, preview_h);
        (list, Some(preview))
    } else {
        (rest, None)
    }
}

/// The line between the list and the preview beside it.
fn separator(buf: &mut Buffer, area: Rect, opts: &ViewOpts) {
    let style = glyphs::Paint(opts.color).dim();
    for y in area.y..area.y + area.height {
        let symbol = if y == area.y { "┬" } else { "│" };
        buf.set_string(area.x, y, symbol, style);
    }
}

/// The key table and the legend of the view's glyphs, in a centred popup.
fn help(buf: &mut Buffer, area: Rect, legend: &[(&str, &str)], opts: &ViewOpts) {
    let paint = glyphs::Paint(opts.color);
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let key_w = HELP
        .iter()
        .map(|(k, _)| glyphs::width(k))
        .max()
        .unwrap_or(0);
    let mut lines: Vec<Line> = HELP
        .iter()
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(glyphs::pad(k, key_w + 2), bold),
                Span::raw(*what),
            ])
        })
        .collect();
    // A blank line before the legend, when the screen has the room.
    if lines.len() + legend.len().div_ceil(2) + 3 <= usize::from(area.height) {
        lines.push(Line::raw(""));
    }
    // The legend, two glyphs a line.
    let legend_w = legend
        .iter()
        .map(|(_, what)| glyphs::width(what))
        .max()
        .unwrap_or(0);
    for pair in legend.chunks(2) {
        let mut spans = Vec::new();
        for (glyph, what) in pair {
            spans.push(Span::styled(format!("{glyph} "), bold));
            spans.push(Span::raw(glyphs::pad(what, legend_w + 2)));
        }
        lines.push(Line::from(spans));
    }
    let content_w = lines.iter().map(Line::width).max().unwrap_or(0);
    let w = (content_w as u16 + 4).min(area.width);
    let h = (lines.len() as u16 + 2).min(area.height);
    let popup = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    Clear.render(popup, buf);
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(paint.dim())
        .title(Line::styled(" keys — any key closes ", bold));
    Paragraph::new(lines)
        .block(block.padding(ratatui::widgets::Padding::horizontal(1)))
        .render(popup, buf);
}

/// The list row under the screen position (`x`, `y`), if any.
pub fn row_at(drawn: &Drawn, x: u16, y: u16) -> Option<Row> {
    let area = drawn.list;
    if x < area.x || x >= area.x + area.width || y < area.y || y >= area.y + area.height {
        return None;
    }
    drawn.list_rows.get(usize::from(y - area.y)).cloned()
}

/// The task line under the screen position (`x`, `y`), if any.
pub fn task_at(drawn: &Drawn, x: u16, y: u16) -> Option<TaskId> {
    let area = drawn.list;
    if x < area.x || x >= area.x + area.width || y < area.y || y >= area.y + area.height {
        return None;
    }
    drawn.task_rows.get(usize::from(y - area.y)).cloned()
}

#[cfg(test)]
mod tests;
