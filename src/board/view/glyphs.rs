//! The board's styles and the small text helpers the parts of the view
//! share. The state glyphs and colours are `crate::paint`'s, which the CLI
//! prints with too.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use signaltty_protocol::pane::Pane;

/// Colours on or off (`NO_COLOR`): styles keep their modifiers either way.
#[derive(Debug, Clone, Copy)]
pub struct Paint(pub bool);

impl Paint {
    /// `style` as given, or without its colours.
    pub fn style(self, style: Style) -> Style {
        if self.0 {
            style
        } else {
            let mut plain = style;
            plain.fg = None;
            plain.bg = None;
            plain
        }
    }

    /// A foreground colour, or nothing.
    pub fn fg(self, color: Color) -> Style {
        self.style(Style::new().fg(color))
    }

    /// Something going wrong (reconnecting, an error flash): yellow or red
    /// with colours, bold either way.
    pub fn alarm(self, color: Color) -> Style {
        self.fg(color).add_modifier(Modifier::BOLD)
    }

    pub fn dim(self) -> Style {
        self.fg(Color::DarkGray)
    }
}

/// What a pane is called on the board: its name, else its label, else its title.
pub fn pane_name(pane: &Pane) -> String {
    match [pane.name.as_deref(), pane.label.as_deref()]
        .into_iter()
        .flatten()
        .find(|n| !n.trim().is_empty())
    {
        Some(name) => one_line(name),
        None if !pane.title.trim().is_empty() => one_line(&pane.title),
        None => pane.id.0.clone(),
    }
}

/// How long ago `since_ms` was: "12s", "3m", "2h", "4d".
pub fn age(since_ms: i64, now_ms: i64) -> String {
    let secs = (now_ms - since_ms).max(0) / 1000;
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// The pane's time in its lifecycle, or "" when not known.
pub fn time_in_state(pane: &Pane, now_ms: i64) -> String {
    pane.lifecycle_since
        .as_ref()
        .and_then(|t| t.unix_millis())
        .map(|since| age(since, now_ms))
        .unwrap_or_default()
}

/// Text on one line: control characters (newlines, tabs, escapes) become
/// spaces, runs of spaces one.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.trim().chars() {
        if c.is_control() || c.is_whitespace() {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
    }
    out
}

/// The width of `text` in terminal cells.
pub fn width(text: &str) -> usize {
    Span::raw(text).width()
}

fn char_width(c: char) -> usize {
    let mut bytes = [0u8; 4];
    width(c.encode_utf8(&mut bytes))
}

/// `text` cut to `max` cells, ending with "…" when something was cut.
pub fn truncate(text: &str, max: usize) -> String {
    if width(text) <= max {
        return text.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = char_width(c);
        if used + w > max - 1 {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// The end of `text` in `max` cells, starting with "…" when something was
/// cut (a long socket path, a typed text whose end must stay in view).
pub fn truncate_left(text: &str, max: usize) -> String {
    if width(text) <= max {
        return text.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut kept = Vec::new();
    let mut used = 0;
    for c in text.chars().rev() {
        let w = char_width(c);
        if used + w > max - 1 {
            break;
        }
        kept.push(c);
        used += w;
    }
    let mut out = String::from("…");
    out.extend(kept.into_iter().rev());
    out
}

/// `text` cut or padded with spaces to exactly `cells` cells.
pub fn pad(text: &str, cells: usize) -> String {
    let mut out = truncate(text, cells);
    let w = width(&out);
    out.extend(std::iter::repeat_n(' ', cells.saturating_sub(w)));
    out
}

/// A rule across `width` cells with `title` in it: `─ title ─────`.
pub fn rule(title: Vec<Span<'static>>, width: u16, paint: Paint) -> Line<'static> {
    let mut spans = vec![Span::styled("─ ", paint.dim())];
    let used = 2 + title.iter().map(|s| s.width()).sum::<usize>() + 1;
    spans.extend(title);
    spans.push(Span::raw(" "));
    let rest = usize::from(width).saturating_sub(used);
    spans.push(Span::styled("─".repeat(rest), paint.dim()));
    Line::from(spans)
}
