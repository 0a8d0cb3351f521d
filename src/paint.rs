//! Colour and width for the CLI's text output: `--color never|auto|always`,
//! `NO_COLOR` (https://no-color.org: any non-empty value turns colour off
//! unless `--color always`), and lines that fit the terminal they are printed
//! on. The state glyphs and colours are here, for the board and the CLI
//! both, so a state looks the same in `pane list`, `attention`, `decisions`
//! and on the board.
//!
//! Output that is not a terminal is left exactly as before: no colour, no
//! cutting, one line per item, for scripts that read it.

use ratatui::style::Color;
use signaltty_protocol::pane::{Attention, Lifecycle};
use signaltty_protocol::task::TaskState;
use std::io::IsTerminal;
use unicode_width::UnicodeWidthChar;

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorWhen {
    /// Colour when stdout is a terminal and `NO_COLOR` is unset or empty.
    #[default]
    Auto,
    /// Always colour, even into a pipe and despite `NO_COLOR`.
    Always,
    /// Never colour.
    Never,
}

/// How this invocation prints: whether it colours, and the width to fit
/// (`None`: not a terminal, print whole lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paint {
    colour: bool,
    width: Option<usize>,
}

/// This process's choice, set once by `main` from `--color`.
static CURRENT: std::sync::OnceLock<Paint> = std::sync::OnceLock::new();

/// Sets this process's choice (the first call wins).
pub fn init(when: ColorWhen) {
    let _ = CURRENT.set(Paint::stdout(when));
}

/// This process's choice: plain whole lines until [`init`] ran.
pub fn current() -> Paint {
    CURRENT.get().copied().unwrap_or(Paint {
        colour: false,
        width: None,
    })
}

/// The narrowest width lines are laid out for; a narrower terminal wraps.
const MIN_WIDTH: usize = 80;

impl Paint {
    /// The choice for stdout.
    pub fn stdout(when: ColorWhen) -> Paint {
        let terminal = std::io::stdout().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let width = terminal.then(|| {
            ratatui::crossterm::terminal::size()
                .map_or(MIN_WIDTH, |(cols, _)| usize::from(cols).max(MIN_WIDTH))
        });
        Paint {
            colour: decide(when, terminal, no_color),
            width,
        }
    }

    /// A fixed choice (tests).
    #[cfg(test)]
    pub fn new(colour: bool, width: Option<usize>) -> Paint {
        Paint { colour, width }
    }

    /// The width to fit, when printing to a terminal.
    pub fn width(self) -> Option<usize> {
        self.width
    }

    /// A line of plain text cut to the terminal's width (whole into a pipe).
    pub fn fit(self, line: &str) -> String {
        match self.width {
            Some(w) => cut(line, w),
            None => line.to_owned(),
        }
    }

    /// `text` after `indent`, wrapped at spaces to the terminal's width
    /// (one line into a pipe). A word longer than a line is cut.
    pub fn wrap(self, indent: &str, text: &str) -> Vec<String> {
        let Some(width) = self.width else {
            return vec![format!("{indent}{text}")];
        };
        let room = width.saturating_sub(columns(indent)).max(1);
        let mut lines = Vec::new();
        let mut line = String::new();
        for word in text.split(' ').filter(|w| !w.is_empty()) {
            let word = cut(word, room);
            if !line.is_empty() && columns(&line) + 1 + columns(&word) > room {
                lines.push(format!("{indent}{}", std::mem::take(&mut line)));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&word);
        }
        lines.push(format!("{indent}{line}"));
        lines
    }

    /// `text` in `colour` (bold when `bold`), or as it is without colour.
    pub fn paint(self, text: &str, colour: Color, bold: bool) -> String {
        match (self.colour, sgr(colour)) {
            (true, Some(code)) if bold => format!("\x1b[1;{code}m{text}\x1b[0m"),
            (true, Some(code)) => format!("\x1b[{code}m{text}\x1b[0m"),
            (true, None) if bold => format!("\x1b[1m{text}\x1b[0m"),
            _ => text.to_owned(),
        }
    }
}

// The state glyphs. Every state has its own character, so the board and the
// CLI read the same with `NO_COLOR`; colours only repeat what the glyphs say.

/// The legend (the help popup shows it): the lifecycle glyph, first column of
/// a pane line, then the attention marker, second column. All distinct.
pub const GLYPHS: &[(&str, &str)] = &[
    ("●", "working"),
    ("◆", "blocked: waiting for you"),
    ("✓", "done"),
    ("○", "idle"),
    ("✗", "failed"),
    ("■", "exited"),
    ("?", "unknown"),
    ("*", "unread: something new"),
    ("»", "input required"),
    ("!", "permission required"),
    ("△", "warning"),
    ("◷", "rate limited"),
    ("▲", "error"),
];

/// The tasks view's legend: one glyph per task state, all distinct.
pub const TASK_GLYPHS: &[(&str, &str)] = &[
    ("⋯", "queued: waits its turn"),
    ("◌", "pending"),
    ("●", "working"),
    ("◆", "input required: waiting for you"),
    ("✓", "completed"),
    ("✗", "failed"),
    ("■", "canceled"),
    ("⊘", "rejected"),
];

/// The glyph of a task state and its colour.
pub fn task_state(s: TaskState) -> (&'static str, Color) {
    match s {
        TaskState::Queued => ("⋯", Color::DarkGray),
        TaskState::Pending => ("◌", Color::Gray),
        TaskState::Working => ("●", Color::Cyan),
        TaskState::InputRequired => ("◆", Color::Yellow),
        TaskState::Completed => ("✓", Color::Green),
        TaskState::Failed => ("✗", Color::Red),
        TaskState::Canceled => ("■", Color::DarkGray),
        TaskState::Rejected => ("⊘", Color::LightRed),
    }
}

/// The glyph of a lifecycle and its colour.
pub fn lifecycle(l: Lifecycle) -> (&'static str, Color) {
    match l {
        Lifecycle::Working => ("●", Color::Cyan),
        Lifecycle::Blocked => ("◆", Color::Yellow),
        Lifecycle::Done => ("✓", Color::Green),
        Lifecycle::Idle => ("○", Color::Gray),
        Lifecycle::Failed => ("✗", Color::Red),
        Lifecycle::Exited => ("■", Color::DarkGray),
        Lifecycle::Unknown => ("?", Color::DarkGray),
    }
}

/// The glyph of a pane: its lifecycle's, or a crescent for a hibernated
/// agent (docs/board.md#hibernated-agents).
pub fn pane_glyph(p: &signaltty_protocol::pane::Pane) -> (&'static str, Color) {
    if p.restore_state == signaltty_protocol::pane::RestoreState::Hibernated {
        return (HIBERNATED_GLYPH, Color::Blue);
    }
    lifecycle(p.lifecycle)
}

/// The glyph of a hibernated agent's pane.
pub const HIBERNATED_GLYPH: &str = "☾";

/// The marker of an attention value (a space for none) and its colour.
pub fn attention(a: Attention) -> (&'static str, Color) {
    match a {
        Attention::None => (" ", Color::Reset),
        Attention::Unread => ("*", Color::LightCyan),
        Attention::InputRequired => ("»", Color::LightYellow),
        Attention::PermissionRequired => ("!", Color::LightYellow),
        Attention::Warning => ("△", Color::Yellow),
        Attention::RateLimited => ("◷", Color::LightMagenta),
        Attention::Error => ("▲", Color::LightRed),
    }
}

/// How long until a usage limit resets at `at`, as "1h 58m", "12m", "40s"
/// or "now" (docs/states.md#usage-limits).
pub fn countdown(
    at: &signaltty_protocol::Timestamp,
    now: &signaltty_protocol::Timestamp,
) -> String {
    let secs = at.seconds_since(now).unwrap_or(0);
    match secs {
        s if s <= 0 => "now".to_owned(),
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h {:02}m", s / 3600, (s % 3600) / 60),
        s => format!("{}d {}h", s / 86_400, (s % 86_400) / 3600),
    }
}

/// Whether to colour: `always` and `never` are final; `auto` colours a
/// terminal unless `NO_COLOR` is set.
pub fn decide(when: ColorWhen, terminal: bool, no_color: bool) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => terminal && !no_color,
    }
}

/// The SGR foreground code of a board colour (`None` for the default).
fn sgr(c: Color) -> Option<u8> {
    Some(match c {
        Color::Black => 30,
        Color::Red => 31,
        Color::Green => 32,
        Color::Yellow => 33,
        Color::Blue => 34,
        Color::Magenta => 35,
        Color::Cyan => 36,
        Color::Gray => 37,
        Color::DarkGray => 90,
        Color::LightRed => 91,
        Color::LightGreen => 92,
        Color::LightYellow => 93,
        Color::LightBlue => 94,
        Color::LightMagenta => 95,
        Color::LightCyan => 96,
        Color::White => 97,
        _ => return None,
    })
}

/// Display columns of `s`.
pub fn columns(s: &str) -> usize {
    s.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// `s` cut to at most `max` columns, its end replaced by `…` when cut.
pub fn cut(s: &str, max: usize) -> String {
    if columns(s) <= max {
        return s.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > max {
            break;
        }
        used += w;
        out.push(c);
    }
    if max > 0 {
        out.push('…');
    }
    out
}

/// `s` cut to at most `max` columns from the left (`…/src/api`): the end of a
/// path says more than its start.
pub fn cut_left(s: &str, max: usize) -> String {
    if columns(s) <= max {
        return s.to_owned();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 0;
    for c in s.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > max {
            break;
        }
        used += w;
        kept.push(c);
    }
    let mut out = String::new();
    if max > 0 {
        out.push('…');
    }
    out.extend(kept.into_iter().rev());
    out
}

#[cfg(test)]
mod tests;
