//! The tracker's side of hibernation (docs/restore.md#hibernation): the
//! agent stopped by signaltty is not an exit. Its lifecycle, attention and
//! session stay as they were; only the process is gone.

use super::{AgentTracker, Process};
use signaltty_protocol::pane::{Hibernation, LiveState, RestoreState};
use signaltty_protocol::{Event, Timestamp};

impl AgentTracker {
    /// The agent exited with `code` after the hibernation stop:
    /// `pane.hibernated` with the pane, its record and `HIBERNATED`.
    pub fn on_hibernated(&mut self, code: Option<i32>, record: Hibernation) -> Vec<Event> {
        self.process = Process::Gone;
        self.pane.live = LiveState::Exited { code };
        self.pane.restore_state = RestoreState::Hibernated;
        self.pane.hibernation = Some(Box::new(record));
        self.pane.last_activity_at = Timestamp::now();
        vec![Event::PaneHibernated {
            pane_id: self.pane.id.clone(),
            pane: self.pane.clone(),
        }]
    }
}
