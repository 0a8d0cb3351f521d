//! Which server a person's action goes to. Every action on a pane or a task
//! is sent to the worker of the host that owns it, so the keys mean the same
//! on every host; `Tab` asks the selected pane's host first and, when
//! nothing needs you there, the other live hosts in turn; Enter attaches
//! through the pane's host's link. The choices are pure functions of the
//! model, tested without a server.

use super::App;
use super::actions::{Done, Job};
use super::model::{self, Board};
use crate::attach::RawMode;
use signaltty_protocol::PaneId;
use signaltty_protocol::state::{Decision, DecisionOption};
use std::sync::{Arc, Mutex};

/// The host whose worker does `job`: the pane's or the task's; `Tab` the
/// selected pane's.
pub fn host_of_job(board: &Board, job: &Job) -> usize {
    match job {
        Job::Answer { pane, .. }
        | Job::Submit { pane, .. }
        | Job::Resume { pane }
        | Job::Close { pane }
        | Job::MarkSeen { pane } => board.host_of_pane(pane),
        Job::TaskDiff { task } | Job::Finish { task, .. } => board.host_of_task(task),
        Job::NextUnread => board.selected_host(),
    }
}

/// The answer a number key, `y` or `n` sends: to the selected pane's
/// question with the option `choose` picks; with none there, to the oldest
/// waiting question, whose pane is then selected so the person sees what was
/// answered. `Err`: why nothing can be answered.
pub fn answer_job(
    board: &mut Board,
    choose: impl Fn(&Decision) -> Option<&DecisionOption>,
) -> Result<Job, &'static str> {
    let target = board.answer_target().map(|p| p.id.clone());
    if let Some(id) = target.filter(|id| board.selected.as_ref() != Some(id)) {
        board.select(&id);
    }
    let in_terminal = "this question is answered in the terminal: Enter attaches";
    let pane = board
        .selected_pane()
        .ok_or("no question waits for an answer here")?;
    let Some(d) = &pane.pending_decision else {
        return Err(if model::asks_in_terminal(pane) {
            in_terminal
        } else {
            "no question waits for an answer (Tab: the next pane that needs you)"
        });
    };
    if !d.answerable {
        return Err(in_terminal);
    }
    let option = choose(d).ok_or("the question has no such option")?;
    Ok(Job::Answer {
        pane: pane.id.clone(),
        decision: d.id.clone(),
        option: option.id.clone(),
        label: option.label.clone(),
    })
}

/// The hosts `Tab` asks, in turn: the selected pane's first, then the
/// others after it in fleet order, only those that are live (a host that is
/// down would hold the tour up for ssh's timeout). A single-host board
/// always asks its server, as it always has.
pub fn unread_order(board: &Board) -> Vec<usize> {
    let n = board.host_count();
    let start = board.selected_host();
    (0..n)
        .map(|i| (start + i) % n)
        .filter(|h| n == 1 || board.is_live(*h))
        .collect()
}

impl App {
    /// Hands `job` to the worker of the host it is for. On a board of
    /// several hosts, a host that is down is refused at once: its worker
    /// would wait for ssh to give up, and the answer would land on a
    /// question that may have changed since.
    pub(super) fn run_job(&mut self, job: Job) {
        let host = host_of_job(&self.board, &job);
        if self.board.several_hosts() && !self.board.is_live(host) {
            let text = self.on_host(host, "not connected; try again once it is".into());
            self.board.say(text, true);
            return;
        }
        match self.servers.get(host) {
            Some(server) => server.worker.run(job),
            None => self.board.say("no such host", true),
        }
    }

    /// Answers as `answer_job` decides, or says why not.
    pub(super) fn answer(&mut self, choose: impl Fn(&Decision) -> Option<&DecisionOption>) {
        match answer_job(&mut self.board, choose) {
            Ok(job) => self.run_job(job),
            Err(why) => self.board.say(why, true),
        }
    }

    /// `Tab`: asks the hosts for the next pane that needs you, one at a time.
    pub(super) fn next_unread(&mut self) {
        self.unread_tour = unread_order(&self.board);
        if !self.ask_next_unread() {
            self.board.say("no host is connected", true);
        }
    }

    /// Asks the next host of the tour; `false` when none is left.
    fn ask_next_unread(&mut self) -> bool {
        if self.unread_tour.is_empty() {
            return false;
        }
        let host = self.unread_tour.remove(0);
        match self.servers.get(host) {
            Some(server) => {
                server.worker.run(Job::NextUnread);
                true
            },
            None => self.ask_next_unread(),
        }
    }

    /// A worker's outcome: the pane to select, the diff to show, the line to
    /// say (named after its host when there are several). A `Tab` that found
    /// nothing on one host goes on to the next.
    pub(super) fn done(&mut self, host: usize, done: Done) {
        if done.next_unread {
            if done.select.is_none() && self.ask_next_unread() {
                return;
            }
            self.unread_tour.clear();
        }
        if let Some(pane) = &done.select {
            self.board.select(pane);
        }
        if let Some(diff) = done.diff {
            self.board.task_diff = Some(*diff);
        }
        if !done.text.is_empty() {
            let text = self.on_host(host, done.text);
            self.board.say(text, done.error);
        }
    }

    /// `text` about `host`, named after it when the board shows several.
    pub(super) fn on_host(&self, host: usize, text: String) -> String {
        if self.board.several_hosts() {
            format!("{}: {text}", self.board.host_name(host))
        } else {
            text
        }
    }

    /// Attaches the terminal to `pane`, through its host's link, until the
    /// person detaches.
    pub(super) fn attach_here(&self, pane: &PaneId) -> Result<&'static str, String> {
        let host = self.board.host_of_pane(pane);
        let server = self.servers.get(host).ok_or("no such host")?;
        let raw: Arc<Mutex<Option<RawMode>>> = Arc::new(Mutex::new(None));
        crate::attach::session(&server.target, &pane.0, &raw)
    }
}

#[cfg(test)]
mod tests;
