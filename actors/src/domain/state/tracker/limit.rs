//! A usage limit read from the screen (docs/screen-rules.md#a-usage-limit-is-rate-limited):
//! the agent says it stopped at its plan's limit, and perhaps when the limit
//! resets. The pane is `blocked` with attention `rate_limited` and the reset
//! time read from the winning rule's region
//! (docs/states.md#reading-the-reset-time). Agents fire no hook of their own
//! for it (Codex, Gemini CLI) or end the turn as any other, so the screen of
//! a hooked, working pane is read for it, and so is the screen a turn-end hook
//! leaves.

use super::screen::Screen;
use super::{AgentTracker, Effect};
use crate::domain::state::apply::CheckedHook;
use signaltty_model::agents::screen::ScreenState;

impl AgentTracker {
    /// The highest rate-limit rule matching the screen, with the text of its
    /// region: the agent's words about its limit.
    pub(super) fn limit_on_screen(&self, screen: &dyn Screen) -> Option<(String, String)> {
        let set = self.rules.current();
        let (_, rules) = set.rules_for(self.pane.agent.kind, &self.process_name);
        if !rules.iter().any(|r| r.state == ScreenState::RateLimited) {
            return None;
        }
        let text = screen.text();
        let view = self.view(&text, screen.width());
        rules
            .iter()
            .filter(|r| r.state == ScreenState::RateLimited && r.matches(&view))
            .max_by_key(|r| r.priority)
            .map(|r| (r.id.clone(), view.region(r.region, r.lines)))
    }

    /// A rate-limit rule won: `blocked` + `rate_limited`, with the reset time
    /// the words on screen give.
    pub(super) fn apply_limit(&mut self, screen: &dyn Screen, effects: &mut Vec<Effect>) {
        let Some((rule, words)) = self.limit_on_screen(screen) else {
            return;
        };
        let source = format!("screen:{rule}");
        self.screen_raised = false;
        let events = self.with_axes(&source, |axes| {
            if axes.pane.attention == signaltty_protocol::pane::Attention::InputRequired {
                axes.clear("screen");
            }
            axes.rate_limit_said(&words, &source);
        });
        self.worked_since_blocked = false;
        if !events.is_empty() {
            effects.push(Effect::Publish(events));
        }
    }

    /// A hook ends the turn (`done` or `failed`) while the screen shows the
    /// usage limit: the turn was stopped by it, so the pane waits for the
    /// reset instead.
    pub(super) fn turn_end_reads_limit(
        &self,
        checked: &mut CheckedHook<'_, '_>,
        screen: &dyn Screen,
    ) {
        if !checked.ends_turn() {
            return;
        }
        if let Some((_, words)) = self.limit_on_screen(screen) {
            checked.read_as_rate_limited(words);
        }
    }
}
