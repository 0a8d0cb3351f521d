//! A prompt taken back (docs/screen-rules.md#an-interrupted-turn-is-idle):
//! interrupted before the model answered, Claude Code and Qwen Code say
//! nothing and put the prompt back into their input box. From the screen
//! alone that looked like a finished turn. The prompt is known: pasted by
//! `pane.submit`, or typed through `pane.input` (an attached terminal's
//! keys, kept as a line until Enter). When the turn's end shows its first
//! words back in the prompt box, the turn was taken back, and the pane is
//! `idle` with nothing to read. A line edited with the cursor keys is not
//! followed: it is not looked for, and such a turn still reads `done`.

use super::AgentTracker;
use super::screen::{Screen, Winner};
use signaltty_model::agents::screen::{Region, ScreenState};
use signaltty_protocol::pane::Lifecycle;

/// The id the reading carries (`screen:prompt_put_back`).
const PUT_BACK: &str = "prompt_put_back";

/// How much of a prompt's first line is looked for: a long line wraps in the
/// box.
const WORDS: usize = 40;

/// What of a pasted prompt the box would show: the start of its first
/// non-empty line, when long enough to tell.
pub(super) fn prompt_start(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let start: String = line.chars().take(WORDS).collect();
    let start = start.trim_end().to_owned();
    (start.chars().count() >= 4).then_some(start)
}

/// The line being typed into the pane through `pane.input`, as far as plain
/// keys tell it.
#[derive(Debug, Default)]
pub(super) struct TypedLine {
    line: String,
    /// Inside an escape sequence: `Some(true)` for a CSI, waiting for its
    /// final byte; `Some(false)` right after ESC.
    escape: Option<bool>,
    /// The cursor moved within the line: what it holds is not known.
    edited: bool,
}

impl TypedLine {
    /// Feeds typed bytes; returns the line Enter submitted, if one was.
    fn feed(&mut self, bytes: &[u8]) -> Option<String> {
        let mut entered = None;
        for ch in String::from_utf8_lossy(bytes).chars() {
            match (self.escape, ch) {
                (Some(true), c) => {
                    // Cursor keys inside the line make it unknown; a
                    // bracketed paste's markers (`200~`, `201~`) do not.
                    if ('\u{40}'..='\u{7e}').contains(&c) {
                        self.escape = None;
                        self.edited |= matches!(c, 'C' | 'D' | 'H' | 'F');
                    }
                },
                (Some(false), '[') => self.escape = Some(true),
                (Some(false), _) => self.escape = None,
                (None, '\x1b') => self.escape = Some(false),
                (None, '\r' | '\n') => {
                    let line = std::mem::take(&mut self.line);
                    if !std::mem::take(&mut self.edited) {
                        entered = Some(line);
                    }
                },
                (None, '\x7f' | '\x08') => {
                    self.line.pop();
                },
                (None, '\x15' | '\x03') => {
                    self.line.clear();
                    self.edited = false;
                },
                (None, c) if c.is_control() => {},
                (None, c) => self.line.push(c),
            }
        }
        // A lone Esc is a key of its own (it interrupts), not an Alt prefix.
        if self.escape == Some(false) {
            self.escape = None;
        }
        entered
    }
}

impl AgentTracker {
    /// Keys written through `pane.input`: a line ended by Enter is the
    /// prompt looked for.
    pub fn on_keys(&mut self, bytes: &[u8]) {
        if let Some(line) = self.typed_line.feed(bytes) {
            self.submitted = prompt_start(&line);
        }
    }

    /// `pane.submit` pasted `text` into the agent's input box.
    pub fn on_submitted(&mut self, text: &str) {
        self.submitted = prompt_start(text);
    }

    /// An idle reading that ends a working turn, with the prompt signaltty
    /// pasted back in the prompt box: read as the interrupted turn it is.
    pub(super) fn put_back(&mut self, winner: Winner, screen: &dyn Screen) -> Winner {
        if winner.state != ScreenState::Idle || self.pane.lifecycle != Lifecycle::Working {
            return winner;
        }
        let Some(start) = self.submitted.take() else {
            return winner;
        };
        let text = screen.text();
        let view = self.view(&text, screen.width());
        if !view.region(Region::PromptBox, None).contains(&start) {
            return winner;
        }
        Winner {
            id: PUT_BACK.to_owned(),
            state: ScreenState::Interrupted,
            ..winner
        }
    }
}
