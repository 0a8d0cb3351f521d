//! A prompt taken back (docs/screen-rules.md#an-interrupted-turn-is-idle):
//! interrupted before the model answered, Claude Code and Qwen Code say
//! nothing and put the prompt back into their input box. From the screen
//! alone that looked like a finished turn. A prompt signaltty itself pasted
//! (`pane.submit`) is known: when the turn's end shows its first words back
//! in the prompt box, the turn was taken back, and the pane is `idle` with
//! nothing to read. A prompt a person typed is not known, and such a turn
//! still reads `done`.

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

impl AgentTracker {
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
