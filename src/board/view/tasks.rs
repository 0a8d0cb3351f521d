//! The tasks view (`t`): one line per task in the list's place, and the
//! selected task in the preview's place — its contract, branch, result and,
//! after `d`, its diff stat with the merge preview.
//!
//! ```text
//! ─ tasks 2 ──────────────────────────────────────────────────────────
//!   ✓ claude parser  signaltty/parser-1a2b  3m merged    committed out.txt
//!   ◆ codex  docs    signaltty/docs-9f86    5s conflicts 1 turn_ended_without_report
//! ─ task · docs ◆ input_required 5s ──────────────────────────────────
//! conflicts with task api in README.md
//! objective: fix the docs
//! ```

use super::ViewOpts;
use super::glyphs::{self, Paint, one_line, pad, rule, truncate};
use super::list::offset;
use crate::board::model::{Board, Conn, TaskNote, disposition, task_note};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use signaltty_protocol::TaskId;
use signaltty_protocol::task::{Task, TaskDiffResult};

/// The disposition column, when some task has one: "discarded ".
const DISPOSITION_W: usize = 10;

/// The widths of a task line's columns, the same for every line.
struct Columns {
    /// The host's name, on a board of several hosts (else 0: no column).
    host: usize,
    agent: usize,
    label: usize,
    branch: usize,
    disposition: usize,
}

impl Columns {
    fn of(board: &Board, width: usize) -> Columns {
        let tasks = &board.tasks;
        let host = tasks
            .iter()
            .filter_map(|t| host_of(board, t))
            .map(glyphs::width)
            .max()
            .unwrap_or(0)
            .min(12);
        let agent = tasks
            .iter()
            .map(|t| glyphs::width(agent_of(t)))
            .max()
            .unwrap_or(0)
            .min(10);
        let label = tasks
            .iter()
            .map(|t| glyphs::width(&one_line(&t.label)))
            .max()
            .unwrap_or(0)
            .clamp(4, (width / 6).clamp(8, 20));
        let branch = tasks
            .iter()
            .map(|t| glyphs::width(&t.branch))
            .max()
            .unwrap_or(0)
            .min((width / 5).clamp(8, 32));
        let disposition = if tasks.iter().any(|t| disposition(t).is_some()) {
            DISPOSITION_W
        } else {
            0
        };
        Columns {
            host,
            agent,
            label,
            branch,
            disposition,
        }
    }
}

/// The task's host's name, when the board shows several hosts.
fn host_of<'b>(board: &'b Board, task: &Task) -> Option<&'b str> {
    board
        .several_hosts()
        .then(|| board.host_name(board.host_of_task(&task.id)))
}

fn agent_of(task: &Task) -> &str {
    task.agent.as_deref().unwrap_or("-")
}

/// How long the task has been as it is: since its last change.
fn time_in_state(task: &Task, now_ms: i64) -> String {
    task.updated_at
        .unix_millis()
        .map(|at| glyphs::age(at, now_ms))
        .unwrap_or_default()
}

/// One task line: glyph, host (with several), agent, label, branch, time
/// in state, disposition, how many collisions it is in
/// (docs/tasks.md#conflict-radar), the summary or the reason.
fn task_line(
    task: &Task,
    host: Option<&str>,
    cols: &Columns,
    width: usize,
    opts: &ViewOpts,
    conflicts: usize,
) -> Line<'static> {
    let paint = Paint(opts.color);
    let (glyph, color) = crate::paint::task_state(task.state);
    let mut spans = vec![
        Span::raw("  "),
        Span::styled(glyph, paint.fg(color).add_modifier(Modifier::BOLD)),
        Span::raw(" "),
    ];
    if let Some(host) = host.filter(|_| cols.host > 0) {
        spans.push(Span::styled(pad(host, cols.host), paint.dim()));
        spans.push(Span::raw(" "));
    }
    spans.extend([
        Span::raw(pad(agent_of(task), cols.agent)),
        Span::raw(" "),
        Span::styled(
            pad(&one_line(&task.label), cols.label),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Span::raw(" "),
        Span::styled(pad(&task.branch, cols.branch), paint.dim()),
        Span::styled(
            format!(" {:>4} ", time_in_state(task, opts.now_ms)),
            paint.dim(),
        ),
    ]);
    if cols.disposition > 0 {
        let (text, color) = match disposition(task) {
            Some("merged") => ("merged", Color::LightGreen),
            Some(other) => (other, Color::Magenta),
            None => ("", Color::Reset),
        };
        spans.push(Span::styled(
            pad(text, cols.disposition),
            paint.fg(color).add_modifier(Modifier::BOLD),
        ));
    }
    if conflicts > 0 {
        spans.push(Span::styled(
            format!("conflicts {conflicts} "),
            paint.alarm(Color::LightRed),
        ));
    }
    let used: usize = spans.iter().map(|s| s.width()).sum();
    let room = width.saturating_sub(used);
    match task_note(task) {
        TaskNote::Summary(s) => spans.push(Span::raw(truncate(&one_line(&s), room))),
        TaskNote::Reason(r) => spans.push(Span::styled(
            truncate(&one_line(&r), room),
            paint.dim().add_modifier(Modifier::ITALIC),
        )),
        TaskNote::Nothing => {},
    }
    Line::from(spans)
}

/// Draws the task list in `area` (its title rule included); returns the
/// area of its lines and the tasks drawn there, top to bottom.
pub(super) fn draw_tasks(
    buf: &mut Buffer,
    area: Rect,
    board: &Board,
    opts: &ViewOpts,
) -> (Rect, Vec<TaskId>) {
    if area.height == 0 || area.width == 0 {
        return (Rect::default(), Vec::new());
    }
    let paint = Paint(opts.color);
    let mut body = Rect::new(area.x, area.y + 1, area.width, area.height - 1);
    // With several hosts, the panes' host headings say which are down.
    if !board.several_hosts()
        && let Conn::Reconnecting { since, .. } = &board.conn
        && body.height > 0
    {
        let ago = opts.now.saturating_duration_since(*since).as_secs();
        let style = paint
            .style(Style::new().fg(Color::Black).bg(Color::Yellow))
            .add_modifier(Modifier::BOLD);
        let style = if opts.color {
            style
        } else {
            style.add_modifier(Modifier::REVERSED)
        };
        let banner = format!(" ⟳ showing the tasks as of {ago}s ago — reconnecting…");
        buf.set_style(Rect::new(body.x, body.y, body.width, 1), style);
        buf.set_line(body.x, body.y, &Line::styled(banner, style), body.width);
        body.y += 1;
        body.height -= 1;
    }
    let height = usize::from(body.height);
    let tasks = &board.tasks;
    let at = board
        .task_selected
        .as_ref()
        .and_then(|s| tasks.iter().position(|t| t.id == *s));
    let from = offset(at, tasks.len(), height);
    let drawn: Vec<&Task> = tasks.iter().skip(from).take(height).collect();

    let mut title = vec![
        Span::styled("tasks", Style::new().add_modifier(Modifier::BOLD)),
        Span::styled(format!(" {}", tasks.len()), paint.dim()),
    ];
    if tasks.len() > height && height > 0 {
        title.push(Span::styled(
            format!(
                " · lines {}–{} of {}",
                from + 1,
                from + drawn.len(),
                tasks.len()
            ),
            paint.dim(),
        ));
    }
    buf.set_line(area.x, area.y, &rule(title, area.width, paint), area.width);

    if tasks.is_empty() {
        let hint = empty_hint(board);
        if body.height > 0 {
            let line = Line::styled(
                format!("  {hint}"),
                paint.dim().add_modifier(Modifier::ITALIC),
            );
            buf.set_line(body.x, body.y, &line, body.width);
        }
        return (body, Vec::new());
    }
    let width = usize::from(body.width);
    let cols = Columns::of(board, width);
    for (i, task) in drawn.iter().enumerate() {
        let y = body.y + i as u16;
        let conflicts = board.conflicts_of(&task.id).count();
        let line = task_line(task, host_of(board, task), &cols, width, opts, conflicts);
        buf.set_line(body.x, y, &line, body.width);
        let line_area = Rect::new(body.x, y, body.width, 1);
        if !board.is_live(board.host_of_task(&task.id)) {
            buf.set_style(line_area, Style::new().add_modifier(Modifier::DIM));
        }
        if board.task_selected.as_ref() == Some(&task.id) {
            buf.set_style(line_area, Style::new().add_modifier(Modifier::REVERSED));
        }
    }
    (body, drawn.into_iter().map(|t| t.id.clone()).collect())
}

/// Why the task list is empty: the link, else there are none yet.
fn empty_hint(board: &Board) -> String {
    let none_yet = "no tasks yet — start one with `signaltty task start`".to_owned();
    if board.several_hosts() {
        let n = board.host_count();
        return if (0..n).any(|h| board.is_live(h)) {
            none_yet
        } else if (0..n).all(|h| *board.conn_of(h) == Conn::Connecting) {
            "connecting to the hosts…".to_owned()
        } else {
            "cannot reach any host — retrying…".to_owned()
        };
    }
    match board.conn {
        Conn::Connecting => format!("connecting to {}…", board.socket),
        Conn::Reconnecting { .. } => format!("cannot reach {} — retrying…", board.socket),
        Conn::Live => none_yet,
    }
}

fn short(sha: &str) -> &str {
    sha.get(..10).unwrap_or(sha)
}

/// The lines about the selected task's collisions: with which task (by
/// label) or its target branch, on which paths.
fn conflict_lines(board: &Board, task: &Task, paint: Paint) -> Vec<Line<'static>> {
    board
        .conflicts_of(&task.id)
        .map(|c| {
            let with = match c.other(&task.id) {
                Some(other) => match board.task(other) {
                    Some(t) => format!("task {}", one_line(&t.label)),
                    None => format!("task {other}"),
                },
                None => format!("{} (target)", c.target_branch.as_deref().unwrap_or("?")),
            };
            Line::from(vec![
                Span::styled("conflicts ", paint.alarm(Color::LightRed)),
                Span::raw(format!("with {with} in {}", c.paths.join(", "))),
            ])
        })
        .collect()
}

/// The lines about `task`: its objective, branch and checkout, its result
/// or reason, its disposition.
fn about(task: &Task, paint: Paint) -> Vec<Line<'static>> {
    let key = |k: &str| Span::styled(format!("{k} "), paint.dim());
    let mut lines = vec![Line::from(vec![
        key("objective"),
        Span::raw(one_line(&task.contract.objective)),
    ])];
    let target = task.target_branch.as_deref().unwrap_or("(detached)");
    lines.push(Line::from(vec![
        key("branch"),
        Span::raw(task.branch.clone()),
        Span::styled(" → ", paint.dim()),
        Span::raw(target.to_owned()),
        Span::styled(format!(" · base {}", short(&task.base_sha)), paint.dim()),
    ]));
    lines.push(Line::from(vec![
        key("checkout"),
        Span::raw(task.worktree_path.clone()),
    ]));
    match task_note(task) {
        TaskNote::Summary(s) => {
            lines.push(Line::from(vec![key("result"), Span::raw(one_line(&s))]))
        },
        TaskNote::Reason(r) => lines.push(Line::from(vec![key("reason"), Span::raw(one_line(&r))])),
        TaskNote::Nothing => {},
    }
    let d = &task.disposition;
    match disposition(task) {
        Some("merged") => lines.push(Line::from(vec![
            key("merged"),
            Span::raw(format!(
                "into {} at {}",
                d.target_ref.as_deref().unwrap_or("?"),
                short(d.merged_sha.as_deref().unwrap_or("?"))
            )),
        ])),
        Some(other) => lines.push(Line::from(vec![key(other)])),
        None => {},
    }
    lines
}

/// The diff stat: the totals and the merge preview, then a line per file.
fn diff_lines(diff: &TaskDiffResult, width: usize, paint: Paint) -> Vec<Line<'static>> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let merge = match &diff.merge_preview {
        Some(m) if m.clean => Span::styled(
            format!("merges cleanly into {}", m.target),
            paint.fg(Color::LightGreen),
        ),
        Some(m) => Span::styled(
            format!("conflicts with {}: {}", m.target, m.conflicted.join(", ")),
            paint.alarm(Color::LightRed),
        ),
        None => Span::styled("merge preview unknown", paint.dim()),
    };
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("diff {} file(s) ", diff.files.len()), bold),
        Span::styled(format!("+{}", diff.added), paint.fg(Color::Green)),
        Span::raw(" "),
        Span::styled(format!("-{}", diff.removed), paint.fg(Color::Red)),
        Span::styled(" · ", paint.dim()),
        merge,
    ])];
    let num_w = diff
        .files
        .iter()
        .map(|f| {
            format!("+{}", f.added)
                .len()
                .max(format!("-{}", f.removed).len())
        })
        .max()
        .unwrap_or(2);
    for f in &diff.files {
        let (plus, minus) = if f.binary {
            (pad("bin", num_w), " ".repeat(num_w))
        } else {
            (
                format!("{:>num_w$}", format!("+{}", f.added)),
                format!("{:>num_w$}", format!("-{}", f.removed)),
            )
        };
        let tag = if f.untracked { " (new)" } else { "" };
        let used = 2 + 2 * num_w + 2;
        lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(plus, paint.fg(Color::Green)),
            Span::raw(" "),
            Span::styled(minus, paint.fg(Color::Red)),
            Span::raw(" "),
            Span::raw(truncate(
                &format!("{}{tag}", f.path),
                width.saturating_sub(used),
            )),
        ]));
    }
    lines
}

/// The selected task in the preview's place.
pub(super) fn draw_task_detail(buf: &mut Buffer, area: Rect, board: &Board, opts: &ViewOpts) {
    if area.height == 0 || area.width == 0 {
        return;
    }
    let paint = Paint(opts.color);
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let Some(task) = board.selected_task() else {
        let title = vec![Span::styled("task", bold)];
        buf.set_line(area.x, area.y, &rule(title, area.width, paint), area.width);
        return;
    };
    let (glyph, color) = crate::paint::task_state(task.state);
    let label = match host_of(board, task) {
        Some(host) => format!("{host}:{}", one_line(&task.label)),
        None => one_line(&task.label),
    };
    let title = vec![
        Span::styled("task · ", bold),
        Span::styled(label, bold),
        Span::raw(" "),
        Span::styled(
            format!("{glyph} {}", task.state.as_str()),
            paint.fg(color).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!(" {}", time_in_state(task, opts.now_ms)),
            paint.dim(),
        ),
    ];
    buf.set_line(area.x, area.y, &rule(title, area.width, paint), area.width);
    let w = usize::from(area.width);
    // The diff stat, once asked for, first: it is what `d` wanted to see.
    let lines = match board.selected_diff() {
        Some(diff) => {
            let mut lines = diff_lines(diff, w, paint);
            lines.extend(conflict_lines(board, task, paint));
            lines.extend(about(task, paint));
            lines
        },
        None => {
            let mut lines = conflict_lines(board, task, paint);
            lines.extend(about(task, paint));
            lines.push(Line::styled(
                "d: the diff stat and the merge preview",
                paint.dim().add_modifier(Modifier::ITALIC),
            ));
            lines
        },
    };
    for (i, line) in lines.iter().take(usize::from(area.height - 1)).enumerate() {
        let y = area.y + 1 + i as u16;
        buf.set_line(area.x, y, line, area.width);
        // A line wider than the area is cut by set_line; mark it.
        if line.width() > w && w > 0 {
            buf.set_string(area.x + area.width - 1, y, "…", Style::new());
        }
    }
}

#[cfg(test)]
mod tests;
