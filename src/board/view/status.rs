//! The two bottom lines: the message line (what is being typed, the last
//! action's outcome, or what the keys do for the selected pane) and the
//! status line (connection, counts per state, filters, server, key hint).

use super::ViewOpts;
use super::glyphs::{self, Paint, pane_name, truncate, truncate_left};
use crate::board::model::{Board, Conn, Mode, StateFilter, View};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use signaltty_protocol::PaneId;
use signaltty_protocol::pane::{Attention, Lifecycle, RestoreState};
use signaltty_protocol::server::StorageStatus;
use std::time::Duration;

/// How long a flash message stays.
pub(super) const FLASH_FOR: Duration = Duration::from_secs(5);
/// The caret of a text field.
const CARET: &str = "▏";

/// The pane's name, as `HOST:NAME` when the board shows several hosts (a
/// prompt or a close should never leave in doubt which machine it is for).
fn name_of(board: &Board, pane: &PaneId) -> String {
    let name = board
        .panes
        .get(pane)
        .map(pane_name)
        .unwrap_or_else(|| pane.0.clone());
    match board.host_tag(pane) {
        Some(host) => format!("{host}:{name}"),
        None => name,
    }
}

/// A text field: `label` then the end of `text` that fits, then the caret.
fn field(label: String, text: &str, width: usize, paint: Paint) -> Line<'static> {
    let room = width.saturating_sub(glyphs::width(&label) + 1);
    Line::from(vec![
        Span::styled(
            label,
            paint.fg(Color::LightYellow).add_modifier(Modifier::BOLD),
        ),
        Span::raw(truncate_left(text, room)),
        Span::raw(CARET),
    ])
}

/// The message line.
pub(super) fn draw_message(buf: &mut Buffer, area: Rect, board: &Board, opts: &ViewOpts) {
    if area.height == 0 {
        return;
    }
    let paint = Paint(opts.color);
    let w = usize::from(area.width);
    let line = match &board.mode {
        Mode::Filter => field("/".into(), &board.filter_text, w, paint),
        Mode::Prompt { pane, text } => field(
            format!("prompt for {}: ", name_of(board, pane)),
            text,
            w,
            paint,
        ),
        Mode::ConfirmClose { pane } => Line::from(vec![
            Span::styled(
                format!("close {}? ", name_of(board, pane)),
                paint.alarm(Color::LightRed),
            ),
            Span::styled("y/N", Style::new().add_modifier(Modifier::BOLD)),
        ]),
        Mode::ConfirmFinish { task, merge } => {
            let t = board.task(task);
            let label = t.map(|t| t.label.clone()).unwrap_or_else(|| task.0.clone());
            let question = if *merge {
                let into = t
                    .and_then(|t| t.target_branch.clone())
                    .map(|b| format!(" into {b}"))
                    .unwrap_or_default();
                format!("merge {label}{into}? ")
            } else {
                format!("discard {label} (its checkout goes)? ")
            };
            Line::from(vec![
                Span::styled(question, paint.alarm(Color::LightRed)),
                Span::styled("y/N", Style::new().add_modifier(Modifier::BOLD)),
            ])
        },
        Mode::Normal | Mode::Help => match &board.flash {
            Some(f) if opts.now.saturating_duration_since(f.at) < FLASH_FOR => {
                if f.error {
                    Line::styled(format!("! {}", f.text), paint.alarm(Color::LightRed))
                } else {
                    Line::styled(format!("  {}", f.text), paint.fg(Color::LightGreen))
                }
            },
            _ => hint(board, paint),
        },
    };
    buf.set_line(area.x, area.y, &line, area.width);
}

/// The hint's keys, laid out.
fn keys_line(keys: Vec<(String, &str)>, paint: Paint) -> Line<'static> {
    let mut spans = vec![Span::raw("  ")];
    for (i, (k, what)) in keys.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", paint.dim()));
        }
        spans.push(Span::styled(k, Style::new().add_modifier(Modifier::BOLD)));
        spans.push(Span::styled(format!(" {what}"), paint.dim()));
    }
    Line::from(spans)
}

/// What the keys do for the selected task.
fn tasks_hint(board: &Board, paint: Paint) -> Line<'static> {
    let mut keys: Vec<(String, &str)> = Vec::new();
    let mut key = |k: &str, what: &'static str| keys.push((k.to_owned(), what));
    if let Some(t) = board.selected_task() {
        if board.selected_worker().is_some() {
            key("Enter", "attach the worker");
        }
        key("d", "diff");
        if t.disposition.outcome == signaltty_protocol::task::Outcome::None {
            if t.state == signaltty_protocol::task::TaskState::Completed {
                key("m", "merge");
            }
            key("D", "discard");
        }
    }
    key("t", "panes");
    keys_line(keys, paint)
}

/// What the keys do for the selected pane (or task).
fn hint(board: &Board, paint: Paint) -> Line<'static> {
    if board.view == View::Tasks {
        return tasks_hint(board, paint);
    }
    let mut keys: Vec<(String, &str)> = Vec::new();
    let mut key = |k: &str, what: &'static str| keys.push((k.to_owned(), what));
    if let Some(p) = board.selected_pane() {
        match &p.pending_decision {
            Some(d) if d.answerable => {
                match d.options.len().min(9) {
                    0 => {},
                    1 => key("1", "answer"),
                    n => key(&format!("1-{n}"), "answer"),
                }
                // The words `y` and `n` look for (see `board::pick`).
                let yes = crate::board::model::allowing(d).is_some();
                let no = crate::board::model::denying(d).is_some();
                match (yes, no) {
                    (true, true) => key("y/n", "allow/deny"),
                    (true, false) => key("y", "allow"),
                    (false, true) => key("n", "deny"),
                    (false, false) => {},
                }
                key("Enter", "attach");
            },
            Some(_) => key("Enter", "answer in the terminal"),
            None if crate::board::model::asks_in_terminal(p) => {
                key("Enter", "answer in the terminal");
            },
            None => key("Enter", "attach"),
        }
        key("s", "prompt");
        if matches!(
            p.restore_state,
            RestoreState::Resumable | RestoreState::Restored
        ) {
            key("r", "resume");
        }
    }
    key("Tab", "next waiting");
    if filters(board).is_some() {
        key("Esc", "clear the filters");
    } else {
        key("/", "filter");
    }
    key("t", "tasks");
    keys_line(keys, paint)
}

/// A state directory that takes no writes, in words.
fn storage_words(s: &StorageStatus) -> String {
    let what = match s.reason.as_deref().unwrap_or("io") {
        "no_space" | "quota" => "disk full",
        "read_only" => "disk read-only",
        "vanished" => "state dir gone",
        _ => "disk failing",
    };
    format!(
        "{what}: {} takes no writes, changes refused; agents keep running",
        s.dir
    )
}

/// The connection, as the status line says it.
fn connection(board: &Board, opts: &ViewOpts, paint: Paint) -> Span<'static> {
    if board.several_hosts() {
        return fleet_connection(board, paint);
    }
    match &board.conn {
        Conn::Live if let Some(s) = &board.storage => Span::styled(
            format!("! {}", storage_words(s)),
            paint.alarm(Color::LightRed),
        ),
        Conn::Live => Span::styled("● live", paint.fg(Color::LightGreen)),
        Conn::Connecting => Span::styled("connecting…", paint.alarm(Color::Yellow)),
        Conn::Reconnecting { since, why } => {
            let secs = opts.now.saturating_duration_since(*since).as_secs();
            Span::styled(
                format!("! reconnecting… ({secs}s): {why}"),
                paint.alarm(Color::Yellow),
            )
        },
    }
}

/// The hosts' links in one phrase (each host's heading has the details): a
/// host whose disk takes no writes first, then the hosts that are down,
/// then the ones still connecting.
fn fleet_connection(board: &Board, paint: Paint) -> Span<'static> {
    let n = board.host_count();
    let live = (0..n).filter(|h| board.is_live(*h)).count();
    let full = (0..n).find_map(|h| Some((h, board.storage_of(h).filter(|_| board.is_live(h))?)));
    if let Some((h, s)) = full {
        let text = format!("! {}: {}", board.host_name(h), storage_words(s));
        return Span::styled(text, paint.alarm(Color::LightRed));
    }
    let down: Vec<&str> = (0..n)
        .filter(|h| matches!(board.conn_of(*h), Conn::Reconnecting { .. }))
        .map(|h| board.host_name(h))
        .collect();
    if !down.is_empty() {
        let text = format!("! {live} of {n} hosts live · {} down", down.join(", "));
        Span::styled(text, paint.alarm(Color::Yellow))
    } else if live < n {
        let text = format!("connecting… ({live} of {n} hosts live)");
        Span::styled(text, paint.alarm(Color::Yellow))
    } else {
        Span::styled(format!("● live · {n} hosts"), paint.fg(Color::LightGreen))
    }
}

/// The counts per state, with their glyphs; `short` leaves the names out.
fn counts(board: &Board, short: bool, paint: Paint) -> Vec<Span<'static>> {
    let c = board.counts();
    let states = [
        (Lifecycle::Blocked, c.blocked),
        (Lifecycle::Working, c.working),
        (Lifecycle::Done, c.done),
        (Lifecycle::Idle, c.idle),
        (Lifecycle::Failed, c.failed),
        (Lifecycle::Exited, c.exited),
        (Lifecycle::Unknown, c.unknown),
    ];
    let mut spans = Vec::new();
    let mut push = |glyph: &str, color: Color, n: usize, name: &str| {
        if !spans.is_empty() {
            spans.push(Span::raw(" "));
        }
        let text = if short {
            format!("{glyph}{n}")
        } else {
            format!("{glyph} {n} {name}")
        };
        spans.push(Span::styled(text, paint.fg(color)));
    };
    for (l, n) in states {
        if n > 0 {
            let (glyph, color) = crate::paint::lifecycle(l);
            push(glyph, color, n, l.as_str());
        }
    }
    if c.unread > 0 {
        let (glyph, color) = crate::paint::attention(Attention::Unread);
        push(glyph, color, c.unread, "unread");
    }
    if spans.is_empty() {
        spans.push(Span::styled("no panes", paint.dim()));
    }
    spans
}

/// The active filters: `/text`, `!blocked`, `@working`, `#done`.
fn filters(board: &Board) -> Option<String> {
    let mut parts = Vec::new();
    let text = board.filter_text.trim();
    if !text.is_empty() {
        parts.push(format!("/{text}"));
    }
    if let Some(f) = board.state_filter {
        let key = match f {
            StateFilter::Blocked => '!',
            StateFilter::Working => '@',
            StateFilter::Done => '#',
        };
        parts.push(format!("{key}{}", f.name()));
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| s.width()).sum()
}

/// Spans laid out left to right in a width: a part goes in whole or not at all.
struct Fit {
    spans: Vec<Span<'static>>,
    room: usize,
}

impl Fit {
    fn add(&mut self, part: Vec<Span<'static>>) -> bool {
        let w = spans_width(&part);
        let fits = w <= self.room;
        if fits {
            self.room -= w;
            self.spans.extend(part);
        }
        fits
    }
}

/// The status line: the connection, the counts per state (without their
/// names when narrow), the filters, whether desktop notifications are on and
/// where the selected pane's server is (its socket's end, or its host), as
/// much as fits, then the key hint, which always stays.
pub(super) fn draw_status(buf: &mut Buffer, area: Rect, board: &Board, opts: &ViewOpts) {
    if area.height == 0 {
        return;
    }
    let paint = Paint(opts.color);
    let bar = if opts.color {
        Style::new().bg(Color::Indexed(236)).fg(Color::Gray)
    } else {
        Style::new()
    };
    buf.set_style(area, bar);
    let sep = || Span::styled(" │ ", paint.dim());
    let keys = vec![
        sep(),
        Span::styled("?", Style::new().add_modifier(Modifier::BOLD)),
        Span::raw(" keys "),
    ];
    let width = usize::from(area.width);
    let mut fit = Fit {
        spans: Vec::new(),
        room: width.saturating_sub(spans_width(&keys)),
    };
    // The connection always shows, cut if it must.
    let conn = connection(board, opts, paint);
    let conn_text = truncate(&conn.content, fit.room.saturating_sub(1));
    fit.add(vec![Span::raw(" "), Span::styled(conn_text, conn.style)]);
    let counted = |short: bool| {
        let mut part = vec![sep()];
        part.extend(counts(board, short, paint));
        part
    };
    if !fit.add(counted(false)) {
        fit.add(counted(true));
    }
    if let Some(f) = filters(board) {
        let style = paint.fg(Color::LightYellow).add_modifier(Modifier::BOLD);
        fit.add(vec![sep(), Span::styled(f, style)]);
    }
    if opts.notify {
        fit.add(vec![sep(), Span::styled("notify", paint.dim())]);
    }
    if fit.room >= 3 + 8 {
        // The server the keys act on: the selected pane's, or task's.
        let host = match (board.view, &board.task_selected) {
            (View::Tasks, Some(task)) => board.host_of_task(task),
            _ => board.selected_host(),
        };
        let at = board.host_label(host);
        let socket = truncate_left(at, fit.room - 3);
        fit.add(vec![sep(), Span::styled(socket, paint.dim())]);
    }
    let mut line = fit.spans;
    let used = spans_width(&line);
    line.push(Span::raw(
        " ".repeat(width.saturating_sub(used + spans_width(&keys))),
    ));
    line.extend(keys);
    buf.set_line(area.x, area.y, &Line::from(line), area.width);
}

#[cfg(test)]
mod tests;
