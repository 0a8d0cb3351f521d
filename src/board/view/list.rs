//! The pane list grouped by workspace and tab, scrolled so the selection
//! stays in view.

use super::ViewOpts;
use super::glyphs::{self, Paint, one_line, pad, pane_name, rule, truncate, width};
use crate::board::model::{Board, Conn, LinkState, Row};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use signaltty_protocol::pane::{Fidelity, Pane, RestoreState};
use std::time::Instant;

/// Rows kept visible below the selection when the list scrolls.
const SCROLL_MARGIN: usize = 2;

/// The widths of the pane line's columns, the same for every line.
struct Columns {
    kind: usize,
    name: usize,
    tag: usize,
}

impl Columns {
    fn of(panes: &[&Pane], width: usize) -> Columns {
        let kind = panes.iter().map(|p| kind_label(p).len()).max().unwrap_or(0);
        let name = panes
            .iter()
            .map(|p| width_of_name(p))
            .max()
            .unwrap_or(0)
            .clamp(4, (width / 4).clamp(8, 24));
        let tag = if panes.iter().any(|p| restore_tag(p).is_some()) {
            "HIBERNATED".len() + 1
        } else {
            0
        };
        Columns { kind, name, tag }
    }
}

fn width_of_name(pane: &Pane) -> usize {
    width(&pane_name(pane))
}

/// The agent kind, with `?` when its version is newer than those its rules
/// were checked on: the state shown is their unverified best reading
/// (docs/agents.md#checked-versions).
fn kind_label(pane: &Pane) -> String {
    let name = pane.agent.kind.name();
    match pane.agent.fidelity {
        Some(Fidelity::Unverified) => format!("{name}?"),
        _ => name.to_owned(),
    }
}

fn restore_tag(pane: &Pane) -> Option<(&'static str, Color)> {
    match pane.restore_state {
        RestoreState::Restored => Some(("RESTORED", Color::Magenta)),
        RestoreState::Resumable => Some(("RESUMABLE", Color::LightBlue)),
        RestoreState::Hibernated => Some(("HIBERNATED", Color::Blue)),
        RestoreState::Live | RestoreState::Exited => None,
    }
}

/// One pane line: glyph, marker, name, agent kind, time in state, restore
/// tag, last message. The name comes first: it is what a person looks for.
fn pane_line(
    pane: &Pane,
    indent: usize,
    cols: &Columns,
    width: usize,
    opts: &ViewOpts,
) -> Line<'static> {
    let paint = Paint(opts.color);
    let (glyph, color) = crate::paint::pane_glyph(pane);
    let (marker, marker_color) = crate::paint::attention(pane.attention);
    let kind = pane.agent.kind;
    let kind_style = if pane.agent.fidelity == Some(Fidelity::Unverified) {
        paint.fg(Color::Yellow)
    } else if kind.is_agent() {
        Style::new()
    } else {
        paint.dim()
    };
    let mut spans = vec![
        Span::raw(" ".repeat(indent)),
        Span::styled(glyph, paint.fg(color).add_modifier(Modifier::BOLD)),
        Span::styled(marker, paint.alarm(marker_color)),
        Span::raw(" "),
        Span::styled(
            pad(&pane_name(pane), cols.name),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Span::raw(" "),
        Span::styled(pad(&kind_label(pane), cols.kind), kind_style),
        Span::styled(
            format!(" {:>4} ", glyphs::time_in_state(pane, opts.now_ms)),
            paint.dim(),
        ),
    ];
    if cols.tag > 0 {
        match restore_tag(pane) {
            Some((tag, c)) => spans.push(Span::styled(
                pad(tag, cols.tag),
                paint.fg(c).add_modifier(Modifier::BOLD),
            )),
            None => spans.push(Span::raw(" ".repeat(cols.tag))),
        }
    }
    // A pane at its usage limit: how long until it resets
    // (docs/states.md#usage-limits).
    if pane.attention == signaltty_protocol::pane::Attention::RateLimited
        && let Some(at) = &pane.resets_at
    {
        let now = signaltty_protocol::Timestamp::from_unix_millis(opts.now_ms);
        spans.push(Span::styled(
            format!("resets in {} ", crate::paint::countdown(at, &now)),
            paint.fg(Color::LightMagenta).add_modifier(Modifier::BOLD),
        ));
    }
    let used: usize = spans.iter().map(|s| s.width()).sum();
    if let Some(message) = pane.last_message.as_deref() {
        spans.push(Span::raw(truncate(
            &one_line(message),
            width.saturating_sub(used),
        )));
    }
    Line::from(spans)
}

/// The first row to draw so that the row `at` (and a few after it) is in
/// view: 0 until the selection nears the bottom (the panes list and the
/// tasks list alike).
pub(super) fn offset(at: Option<usize>, rows: usize, height: usize) -> usize {
    let Some(at) = at else {
        return 0;
    };
    let margin = SCROLL_MARGIN.min(height / 4);
    (at + 1 + margin)
        .saturating_sub(height)
        .min(rows.saturating_sub(height))
}

/// Draws the list in `area` (its title rule included); returns the area of
/// its rows and the rows drawn there, top to bottom.
pub(super) fn draw_list(
    buf: &mut Buffer,
    area: Rect,
    board: &Board,
    opts: &ViewOpts,
) -> (Rect, Vec<Row>) {
    if area.height == 0 || area.width == 0 {
        return (Rect::default(), Vec::new());
    }
    let paint = Paint(opts.color);
    let rows = board.rows();
    let filtering = board.state_filter.is_some() || !board.filter_text.trim().is_empty();
    let shown: Vec<&Pane> = rows
        .iter()
        .filter_map(|r| match r {
            Row::Pane(id) => board.panes.get(id),
            _ => None,
        })
        .collect();
    let mut body = Rect::new(area.x, area.y + 1, area.width, area.height - 1);
    // The banner that keeps a stale list from passing for the current one;
    // with several hosts each host's heading says it for its own rows.
    if !board.several_hosts()
        && let Conn::Reconnecting { since, .. } = &board.conn
        && body.height > 0
    {
        stale_banner(buf, &mut body, *since, opts);
    }
    let height = usize::from(body.height);
    let at = board
        .selected
        .as_ref()
        .and_then(|s| rows.iter().position(|r| *r == Row::Pane(s.clone())));
    let from = offset(at, rows.len(), height);
    let drawn: Vec<Row> = rows.iter().skip(from).take(height).cloned().collect();

    let mut title = vec![Span::styled(
        "panes",
        Style::new().add_modifier(Modifier::BOLD),
    )];
    let count = if filtering {
        format!(" {} of {} (filtered)", shown.len(), board.panes.len())
    } else {
        format!(" {}", board.panes.len())
    };
    title.push(Span::styled(count, paint.dim()));
    if rows.len() > height && height > 0 {
        title.push(Span::styled(
            format!(
                " · lines {}–{} of {}",
                from + 1,
                from + drawn.len(),
                rows.len()
            ),
            paint.dim(),
        ));
    }
    buf.set_line(area.x, area.y, &rule(title, area.width, paint), area.width);

    if shown.is_empty() && !board.several_hosts() {
        hint(buf, body, &empty_hint(board, filtering), paint);
        return (body, Vec::new());
    }

    let width = usize::from(body.width);
    let cols = Columns::of(&shown, width);
    // Under host headings everything moves one step right.
    let base = if board.several_hosts() { 2 } else { 0 };
    let mut indent = base + 2;
    for r in rows.iter().take(from) {
        indent = indent_after(r, indent, base);
    }
    for (i, row) in drawn.iter().enumerate() {
        let y = body.y + i as u16;
        indent = indent_after(row, indent, base);
        let line = match row {
            Row::Pane(id) => match board.panes.get(id) {
                Some(p) => pane_line(p, indent, &cols, width, opts),
                None => Line::raw(id.0.clone()),
            },
            _ => heading_line(board, row, base, opts),
        };
        buf.set_line(body.x, y, &line, body.width);
        let line_area = Rect::new(body.x, y, body.width, 1);
        // A host's rows are dimmed while its feed is down; its heading
        // says why and stays bright.
        if !matches!(row, Row::Host(_)) && !board.is_live(board.host_of_row(row)) {
            buf.set_style(line_area, Style::new().add_modifier(Modifier::DIM));
        }
        if let Row::Pane(id) = row
            && board.selected.as_ref() == Some(id)
        {
            buf.set_style(line_area, Style::new().add_modifier(Modifier::REVERSED));
        }
    }
    // Several hosts and no pane shown: the headings, then why.
    let after = drawn.len() as u16;
    if shown.is_empty() && after < body.height {
        let rest = Rect::new(body.x, body.y + after, body.width, body.height - after);
        let why = if filtering {
            "no pane matches the filter — Esc clears it"
        } else {
            "no panes yet — start one with `signaltty new -- claude`"
        };
        if filtering || (0..board.host_count()).any(|h| board.is_live(h)) {
            hint(buf, rest, why, paint);
        }
    }
    (body, drawn)
}

/// The banner over a stale list, taking the first row of `body`.
fn stale_banner(buf: &mut Buffer, body: &mut Rect, since: Instant, opts: &ViewOpts) {
    let ago = opts.now.saturating_duration_since(since).as_secs();
    let banner = format!(" ⟳ showing the state as of {ago}s ago — reconnecting…");
    let style = if opts.color {
        Style::new()
            .fg(Color::Black)
            .bg(Color::Yellow)
            .add_modifier(Modifier::BOLD)
    } else {
        Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    };
    let line = Rect::new(body.x, body.y, body.width, 1);
    buf.set_style(line, style);
    buf.set_line(body.x, body.y, &Line::styled(banner, style), body.width);
    body.y += 1;
    body.height -= 1;
}

/// Why a single-host list shows no pane.
fn empty_hint(board: &Board, filtering: bool) -> String {
    if board.conn == Conn::Connecting {
        format!("connecting to {}…", board.socket)
    } else if board.conn != Conn::Live && board.panes.is_empty() {
        // Never "no panes yet" about a server the board cannot reach.
        format!("cannot reach {} — retrying…", board.socket)
    } else if filtering {
        "no pane matches the filter — Esc clears it".to_owned()
    } else if board.panes.is_empty() {
        "no panes yet — start one with `signaltty new -- claude`".to_owned()
    } else {
        "no panes to show".to_owned()
    }
}

/// A hint in the first row of `area`, dim and italic.
fn hint(buf: &mut Buffer, area: Rect, text: &str, paint: Paint) {
    if area.height > 0 {
        let line = Line::styled(
            format!("  {text}"),
            paint.dim().add_modifier(Modifier::ITALIC),
        );
        buf.set_line(area.x, area.y, &line, area.width);
    }
}

/// The indent of the pane lines after `row`: panes under a tab heading are
/// one step further in than those right under their workspace.
fn indent_after(row: &Row, indent: usize, base: usize) -> usize {
    match row {
        Row::Host(_) | Row::Workspace(_) => base + 2,
        Row::Tab(_) => base + 4,
        Row::Pane(_) => indent,
    }
}

/// A heading line: a host, a workspace or a tab.
fn heading_line(board: &Board, row: &Row, base: usize, opts: &ViewOpts) -> Line<'static> {
    let paint = Paint(opts.color);
    let mut spans = Vec::new();
    if base > 0 && !matches!(row, Row::Host(_)) {
        spans.push(Span::raw(" ".repeat(base)));
    }
    match row {
        Row::Host(h) => spans.extend(host_heading(board, *h, opts)),
        Row::Workspace(id) => match board.workspace(id) {
            Some(w) => {
                spans.push(Span::styled(
                    one_line(&w.name),
                    paint.fg(Color::LightBlue).add_modifier(Modifier::BOLD),
                ));
                spans.push(Span::styled(format!("  ({})", w.handle), paint.dim()));
            },
            None => spans.push(Span::raw(id.0.clone())),
        },
        Row::Tab(id) => {
            let title = board
                .tabs
                .get(id)
                .map(|t| one_line(&t.title))
                .unwrap_or_default();
            spans.push(Span::styled("  ▸ ", paint.dim()));
            spans.push(Span::styled(
                title,
                Style::new().add_modifier(Modifier::BOLD),
            ));
        },
        Row::Pane(id) => spans.push(Span::raw(id.0.clone())),
    }
    Line::from(spans)
}

/// A host's heading: its name and its link, `devbox  connected`.
fn host_heading(board: &Board, host: usize, opts: &ViewOpts) -> Vec<Span<'static>> {
    let paint = Paint(opts.color);
    let (state, color) = link_words(board, host, opts);
    let name = Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
    let style = match color {
        Color::LightGreen => paint.fg(color),
        _ => paint.alarm(color),
    };
    vec![
        Span::styled(one_line(board.host_name(host)), name),
        Span::raw("  "),
        Span::styled(state, style),
    ]
}

/// A host's link in words, and its colour: `connected`, `connecting…`,
/// `reconnecting since 14:02:11 UTC: why`, `unreachable: why`.
pub(super) fn link_words(board: &Board, host: usize, opts: &ViewOpts) -> (String, Color) {
    match board.link(host) {
        LinkState::Connected => ("connected".into(), Color::LightGreen),
        LinkState::Connecting => ("connecting…".into(), Color::Yellow),
        LinkState::Reconnecting { since, why } => (
            format!(
                "reconnecting since {}: {}",
                clock(since, opts),
                one_line(why)
            ),
            Color::Yellow,
        ),
        LinkState::Unreachable { why } => {
            (format!("unreachable: {}", one_line(why)), Color::LightRed)
        },
    }
}

/// The wall-clock time (UTC, as the rest of the CLI prints times) of an
/// instant in the past.
fn clock(at: Instant, opts: &ViewOpts) -> String {
    let ago = opts.now.saturating_duration_since(at).as_millis();
    let ms = opts.now_ms - i64::try_from(ago).unwrap_or(i64::MAX).min(opts.now_ms);
    let stamp = signaltty_protocol::Timestamp::from_unix_millis(ms);
    format!("{} UTC", stamp.as_str().get(11..19).unwrap_or("--:--:--"))
}

#[cfg(test)]
mod tests;
