//! The process under the pane: what the process refresh sees of it (its
//! program, kind, version and cwd), and a new process started by a resume.

use super::{AgentTracker, Effect, Process, ProcessReport};
use signaltty_protocol::Event;
use signaltty_protocol::pane::{AgentKind, Lifecycle, LiveState, RestoreState};

impl AgentTracker {
    /// What the process refresh saw (docs/agents.md#process-detection): a
    /// generic pane is promoted to the agent it runs (never demoted; a
    /// wrapper's hint counts only when detection finds nothing), and the cwd
    /// follows the process.
    pub fn on_process(&mut self, seen: ProcessReport) -> Vec<Effect> {
        let mut effects = Vec::new();
        if !self.live() {
            return effects;
        }
        // A new program or kind, or rules that changed, gets one evaluation.
        if self.screen_context_changed() {
            self.arm_screen(&mut effects);
        }
        let ProcessReport {
            name,
            new_cwd,
            hint,
            packages,
        } = seen;
        let mut changed = false;
        if !self.pane.agent.kind.is_agent() {
            let detected = self.rules.current().detect(&name).or_else(|| {
                hint.as_deref()
                    .and_then(AgentKind::parse)
                    .filter(|k| k.is_agent())
            });
            if let Some(kind) = detected {
                self.pane.agent.kind = kind;
                changed = true;
            }
        }
        self.process_name = name;
        if self.learn_version(&packages) {
            changed = true;
            // A version now known to be checked lets an idle screen end a
            // hooked turn (`interrupt.rs`): a screen unchanged since is read
            // again.
            self.screen_seen = None;
            self.arm_screen(&mut effects);
        }
        if let Some(cwd) = new_cwd
            && cwd != self.pane.cwd
        {
            self.pane.cwd = cwd;
            changed = true;
        }
        if changed {
            effects.push(Effect::Publish(vec![Event::PaneUpdated {
                pane_id: self.pane.id.clone(),
                pane: self.pane.clone(),
            }]));
        }
        effects
    }

    /// A new process runs `argv` in this pane (`pane.resume`): unhooked, its
    /// own program, nothing typed, no inferred approvals, lifecycle `unknown`.
    /// The Pane adds `pane.created` to the published batch.
    pub fn on_process_started(&mut self, argv: &[String]) -> Vec<Effect> {
        let mut effects = Vec::new();
        self.process = Process::Live;
        self.hooked = false;
        self.screen_raised = false;
        self.worked_since_blocked = false;
        self.task_closed = false;
        self.screen_seen = None;
        self.question.reset();
        self.typed = false;
        self.arm_screen(&mut effects);
        self.forget_approvals(&mut effects);
        self.process_name = signaltty_model::agents::programs::name_of(argv);
        // The title was the old process's (a spinner read as working): the new
        // one starts with the title of a fresh spawn until it sets its own.
        self.pane.title = crate::domain::launch::initial_title(argv);
        self.pane.live = LiveState::Live;
        self.pane.restore_state = RestoreState::Live;
        let events = self.with_axes("resume", |axes| {
            axes.set_lifecycle(Lifecycle::Unknown, "resume");
        });
        effects.push(Effect::Publish(events));
        effects
    }
}
