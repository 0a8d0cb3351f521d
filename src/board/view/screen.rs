//! The preview: the selected pane's screen, drawn from the local copy of its
//! terminal (`preview.term`), cropped to the area.

use super::ViewOpts;
use super::glyphs::{self, Paint, pane_name, rule};
use crate::board::model::Board;
use crate::board::preview::{Preview, PreviewState};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use signaltty_model::term::{CellColor, StyledCell, Terminal};

/// Draws the preview in `area` (its title rule included).
pub(super) fn draw_preview(
    buf: &mut Buffer,
    area: Rect,
    board: &Board,
    preview: &Preview,
    opts: &ViewOpts,
) {
    if area.height == 0 || area.width == 0 {
        return;
    }
    let paint = Paint(opts.color);
    let pane = preview
        .pane
        .as_ref()
        .or(board.selected.as_ref())
        .and_then(|id| board.panes.get(id));
    let mut title = vec![Span::styled(
        "preview",
        Style::new().add_modifier(Modifier::BOLD),
    )];
    if let Some(p) = pane {
        let (glyph, color) = crate::paint::lifecycle(p.lifecycle);
        title.push(Span::raw(" · "));
        let name = match board.host_tag(&p.id) {
            Some(host) => format!("{host}:{}", pane_name(p)),
            None => pane_name(p),
        };
        title.push(Span::styled(
            name,
            Style::new().add_modifier(Modifier::BOLD),
        ));
        title.push(Span::raw(" "));
        title.push(Span::styled(
            format!("{glyph} {}", p.lifecycle.as_str()),
            paint.fg(color),
        ));
        let since = glyphs::time_in_state(p, opts.now_ms);
        if !since.is_empty() {
            title.push(Span::styled(format!(" {since}"), paint.dim()));
        }
        if let Some(term) = &preview.term {
            let (rows, cols) = term.size();
            title.push(Span::styled(format!(" · {cols}×{rows}"), paint.dim()));
        }
    }
    buf.set_line(area.x, area.y, &rule(title, area.width, paint), area.width);
    let inner = Rect::new(area.x, area.y + 1, area.width, area.height - 1);
    if inner.height == 0 {
        return;
    }
    // The shown pane's server: another host's link being down is no reason.
    let host = pane.map_or(0, |p| board.host_of_pane(&p.id));
    let note = match (&preview.state, &preview.term) {
        _ if !board.is_live(host) => Some("no preview while not connected".to_owned()),
        (PreviewState::Live, Some(term)) => {
            draw_screen(buf, inner, term, opts);
            None
        },
        (PreviewState::Live, None) | (PreviewState::Attaching, _) => Some("attaching…".to_owned()),
        (PreviewState::Failed(why), _) => Some(format!("no preview: {why}")),
        (PreviewState::Empty, _) => Some("no pane selected".to_owned()),
    };
    if let Some(note) = note {
        let line = Line::styled(
            format!("  {note}"),
            paint.dim().add_modifier(Modifier::ITALIC),
        );
        buf.set_line(inner.x, inner.y, &line, inner.width);
    }
}

/// Whether a cell shows anything (a character, or a coloured or reversed
/// blank, as a status bar has).
fn visible(cell: &StyledCell) -> bool {
    cell.ch != ' ' || cell.bg != CellColor::Default || cell.attrs.inverse()
}

/// The rows to show in `height` rows: the bottom-most ones, ending at the
/// cursor's row or the last row with something on it, whichever is lower.
pub(super) fn shown_rows(term: &Terminal, height: usize) -> std::ops::Range<usize> {
    let (rows, _) = term.size();
    let rows = usize::from(rows);
    let last_used = (0..rows)
        .rev()
        .find(|&i| term.styled_row(i).iter().any(visible));
    let cursor = term.cursor().map(|(row, _)| usize::from(row));
    let end = match (last_used, cursor) {
        (None, None) => return 0..0,
        (a, b) => a.max(b).unwrap_or(0) + 1,
    }
    .min(rows);
    end.saturating_sub(height)..end
}

fn color(c: CellColor) -> Color {
    match c {
        CellColor::Default => Color::Reset,
        CellColor::Indexed(i) => Color::Indexed(i),
        CellColor::Rgb(r, g, b) => Color::Rgb(r, g, b),
    }
}

/// A cell's style: its colours (when on) and attributes.
fn cell_style(cell: &StyledCell, opts: &ViewOpts) -> Style {
    let a = cell.attrs;
    let mut style = Style::new();
    if opts.color {
        if cell.fg != CellColor::Default {
            style = style.fg(color(cell.fg));
        }
        if cell.bg != CellColor::Default {
            style = style.bg(color(cell.bg));
        }
    }
    let flags = [
        (a.bold(), Modifier::BOLD),
        (a.dim(), Modifier::DIM),
        (a.italic(), Modifier::ITALIC),
        (a.underline(), Modifier::UNDERLINED),
        (a.inverse(), Modifier::REVERSED),
        (a.strike(), Modifier::CROSSED_OUT),
    ];
    for (on, m) in flags {
        if on {
            style = style.add_modifier(m);
        }
    }
    style
}

/// Draws the terminal's cells, left-aligned, cut to `area`, and its cursor
/// (reverse video) when shown.
fn draw_screen(buf: &mut Buffer, area: Rect, term: &Terminal, opts: &ViewOpts) {
    let right = area.x + area.width;
    let rows = shown_rows(term, usize::from(area.height));
    let cursor = term.cursor();
    let first = rows.start;
    for (dy, row) in rows.clone().enumerate() {
        let y = area.y + dy as u16;
        for (col, cell) in term.styled_row(row).iter().enumerate() {
            if cell.continuation {
                continue;
            }
            let Ok(col) = u16::try_from(col) else {
                break;
            };
            let x = area.x.saturating_add(col);
            let cells = if cell.wide { 2 } else { 1 };
            if x.saturating_add(cells) > right {
                break;
            }
            let style = cell_style(cell, opts);
            let mut symbol = String::new();
            if cell.attrs.hidden() {
                symbol.push(' ');
            } else {
                symbol.push(cell.ch);
                symbol.push_str(&cell.combining);
            }
            buf.set_stringn(x, y, &symbol, usize::from(cells), style);
            if cell.wide
                && let Some(next) = buf.cell_mut((x + 1, y))
            {
                next.set_style(style);
            }
        }
    }
    if let Some((row, col)) = cursor
        && rows.contains(&usize::from(row))
        && area.x.saturating_add(col) < right
    {
        let y = area.y + (usize::from(row) - first) as u16;
        buf.set_style(
            Rect::new(area.x + col, y, 1, 1),
            Style::new().add_modifier(Modifier::REVERSED),
        );
    }
}

#[cfg(test)]
mod tests;
