//! The decision queue, pinned at the top: each pending decision with its
//! pane, agent, question and options, oldest first, and each pane blocked on
//! a question only its terminal shows.

use super::ViewOpts;
use super::glyphs::{self, Paint, one_line, pad, pane_name, rule, truncate};
use crate::board::model::Board;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use signaltty_protocol::pane::{Attention, Lifecycle, Pane};

/// A prompt narrower than this moves the options to a line of their own.
const MIN_PROMPT: usize = 16;

/// One entry of the queue: its lines, and whether its pane is selected.
struct Entry {
    lines: Vec<Line<'static>>,
    selected: bool,
}

/// The decision queue, laid out for a width.
pub(super) struct Queue {
    entries: Vec<Entry>,
}

/// The widest the "who asks" column gets.
const HEAD_MAX: usize = 40;

impl Queue {
    pub(super) fn new(board: &Board, width: u16, opts: &ViewOpts) -> Queue {
        let asked: Vec<Asked> = board
            .queue()
            .into_iter()
            .filter_map(|pane| {
                let selected = board.selected.as_ref() == Some(&pane.id);
                Asked::of(pane, board.host_tag(&pane.id), selected, opts)
            })
            .collect();
        // Questions and options line up from one entry to the next.
        let head_w = asked
            .iter()
            .map(|a| spans_width(&a.head))
            .max()
            .unwrap_or(0);
        let prompt_w = asked.iter().map(|a| width_of(&a.prompt)).max().unwrap_or(0);
        let width = usize::from(width);
        let entries = asked
            .into_iter()
            .map(|a| Entry {
                selected: a.selected,
                lines: a.lines(width, head_w.min(HEAD_MAX), prompt_w),
            })
            .collect();
        Queue { entries }
    }

    /// The rows the queue takes in a body `body` rows high: none when
    /// empty, its title and entries, at most a third of the body.
    pub(super) fn height(&self, body: u16) -> u16 {
        if self.entries.is_empty() {
            return 0;
        }
        let cap = (body / 3).max(3);
        let total: usize = self.entries.iter().map(|e| e.lines.len()).sum();
        (total + 1).min(usize::from(cap.min(body))) as u16
    }

    pub(super) fn draw(&self, buf: &mut Buffer, area: Rect, opts: &ViewOpts) {
        if area.height == 0 || self.entries.is_empty() {
            return;
        }
        let paint = Paint(opts.color);
        let n = self.entries.len();
        let title = vec![Span::styled(
            format!(
                "{n} question{} waiting for you, oldest first · 1–9/y/n answer{}",
                if n == 1 { "" } else { "s" },
                if n == 1 {
                    "s it"
                } else {
                    " the selected or the oldest"
                }
            ),
            paint.alarm(Color::Yellow),
        )];
        buf.set_line(area.x, area.y, &rule(title, area.width, paint), area.width);
        let room = usize::from(area.height - 1);
        let total: usize = self.entries.iter().map(|e| e.lines.len()).sum();
        // Whole entries only; the last line says how many did not fit.
        let fits = if total <= room {
            n
        } else {
            let mut used = 0;
            self.entries
                .iter()
                .take_while(|e| {
                    used += e.lines.len();
                    used < room
                })
                .count()
        };
        let mut y = area.y + 1;
        for entry in &self.entries[..fits] {
            let top = y;
            for line in &entry.lines {
                buf.set_line(area.x, y, line, area.width);
                y += 1;
            }
            if entry.selected {
                let rows = Rect::new(area.x, top, area.width, y - top);
                buf.set_style(rows, Style::new().add_modifier(Modifier::REVERSED));
            }
        }
        if fits < n && y < area.y + area.height {
            let more = format!("  +{} more", n - fits);
            buf.set_line(
                area.x,
                y,
                &Line::styled(more, paint.dim().add_modifier(Modifier::BOLD)),
                area.width,
            );
        }
    }
}

/// The pane's name, cut to fit, as `HOST:NAME` when the board shows several
/// hosts (the form `signaltty answer` takes).
fn who(pane: &Pane, host: Option<&str>) -> String {
    let name = truncate(&pane_name(pane), 24);
    match host {
        Some(h) => format!("{}:{name}", truncate(&one_line(h), 12)),
        None => name,
    }
}

fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| s.width()).sum()
}

fn width_of(text: &str) -> usize {
    glyphs::width(text)
}

/// A pending decision before it is laid out: who asks (glyph, name, agent,
/// how long ago), the question on one line, and its options numbered as the
/// keys answer them, or "answer in the terminal".
struct Asked {
    head: Vec<Span<'static>>,
    prompt: String,
    choices: Vec<Span<'static>>,
    selected: bool,
}

impl Asked {
    /// `host`: the pane's host's name, when the board shows several.
    fn of(pane: &Pane, host: Option<&str>, selected: bool, opts: &ViewOpts) -> Option<Asked> {
        let d = pane.pending_decision.as_ref();
        if d.is_none() && !crate::board::model::asks_in_terminal(pane) {
            return None;
        }
        let paint = Paint(opts.color);
        let (glyph, color) = match pane.attention {
            Attention::InputRequired | Attention::PermissionRequired => {
                crate::paint::attention(pane.attention)
            },
            _ => crate::paint::lifecycle(Lifecycle::Blocked),
        };
        let asked_at = d
            .map(|d| &d.received_at)
            .or(pane.attention_since.as_ref())
            .or(pane.lifecycle_since.as_ref());
        let waited = asked_at
            .and_then(|at| at.unix_millis())
            .map(|at| format!(" · {}", glyphs::age(at, opts.now_ms)))
            .unwrap_or_default();
        let head = vec![
            Span::styled(format!("{glyph} "), paint.alarm(color)),
            Span::styled(who(pane, host), Style::new().add_modifier(Modifier::BOLD)),
            Span::styled(
                format!(" · {}{waited}", pane.agent.kind.name()),
                paint.dim(),
            ),
        ];
        let in_terminal = |choices: &mut Vec<Span<'static>>| {
            choices.push(Span::styled(
                "answer in the terminal",
                paint.dim().add_modifier(Modifier::ITALIC),
            ));
        };
        let mut choices = Vec::new();
        let prompt = match d {
            Some(d) if d.answerable => {
                for (i, o) in d.options.iter().enumerate() {
                    if i > 0 {
                        choices.push(Span::raw("  "));
                    }
                    choices.push(Span::styled(
                        format!("{}", i + 1),
                        paint.alarm(Color::LightYellow),
                    ));
                    choices.push(Span::raw(format!(" {}", one_line(&o.label))));
                }
                one_line(&d.prompt)
            },
            Some(d) => {
                in_terminal(&mut choices);
                one_line(&d.prompt)
            },
            // The question is on its screen only (the preview shows it).
            None => {
                in_terminal(&mut choices);
                "a question on its screen".to_owned()
            },
        };
        Some(Asked {
            head,
            prompt,
            choices,
            selected,
        })
    }

    /// One line when the question gets a fair share of it beside the
    /// options, else the options on a second line.
    fn lines(self, width: usize, head_w: usize, prompt_w: usize) -> Vec<Line<'static>> {
        let mut first = self.head;
        let own = spans_width(&first);
        first.push(Span::raw(" ".repeat(head_w.saturating_sub(own) + 2)));
        let head_w = spans_width(&first);
        let choices_w = spans_width(&self.choices);
        let room = width.saturating_sub(head_w + 2 + choices_w);
        if room >= MIN_PROMPT.min(width_of(&self.prompt)) {
            first.push(Span::raw(pad(&self.prompt, room.min(prompt_w))));
            first.push(Span::raw("  "));
            first.extend(self.choices);
            return vec![Line::from(first)];
        }
        first.push(Span::raw(truncate(
            &self.prompt,
            width.saturating_sub(head_w),
        )));
        let mut second = vec![Span::raw("    ")];
        second.extend(self.choices);
        vec![Line::from(first), Line::from(second)]
    }
}

#[cfg(test)]
mod tests;
