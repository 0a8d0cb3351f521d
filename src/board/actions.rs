//! What the board asks the server to do, on a worker thread of its own: a
//! call may take seconds (`pane.submit` waits for the agent to take the
//! prompt), and the board keeps drawing meanwhile. Each job's outcome comes
//! back as a line for the status area; the events it causes arrive through
//! the subscription like anyone else's.

use super::Input;
use crate::cli::failure;
use signaltty_model::client::Target;
use signaltty_model::client::{CallError, Client};
use signaltty_protocol::pane::{PaneCloseParams, PaneTarget};
use signaltty_protocol::state::{DecisionAnswerParams, FocusNextUnreadParams, PaneSubmitParams};
use signaltty_protocol::task::{TaskDiffResult, TaskFinishParams, TaskFinishResult, TaskTarget};
use signaltty_protocol::{Method, PaneId, PaneRef, TaskId};
use std::sync::mpsc::{Receiver, Sender, channel};

/// One thing to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    Answer {
        pane: PaneId,
        decision: String,
        option: String,
        label: String,
    },
    Submit {
        pane: PaneId,
        text: String,
    },
    Resume {
        pane: PaneId,
    },
    Close {
        pane: PaneId,
    },
    MarkSeen {
        pane: PaneId,
    },
    NextUnread,
    /// `task.diff`: the diff stat shown for the task.
    TaskDiff {
        task: TaskId,
    },
    /// `task.finish`: merge, else discard.
    Finish {
        task: TaskId,
        label: String,
        merge: bool,
    },
}

/// How a job ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Done {
    pub text: String,
    pub error: bool,
    /// A pane to select (`focus.next_unread`).
    pub select: Option<PaneId>,
    /// A task's diff stat to show (`task.diff`).
    pub diff: Option<Box<TaskDiffResult>>,
    /// The answer to `focus.next_unread` (a board of several hosts asks the
    /// next host when this one has nothing).
    pub next_unread: bool,
}

/// The worker of one host: jobs in, outcomes out, in order.
pub struct Worker {
    jobs: Sender<Job>,
}

impl Worker {
    /// The worker of the board's host `host`, whose outcomes say it.
    pub fn start(host: usize, socket: Target, out: Sender<Input>) -> Worker {
        let (jobs, rx) = channel();
        std::thread::spawn(move || work(host, socket, rx, out));
        Worker { jobs }
    }

    /// A worker that does nothing with its jobs but hand them to the
    /// receiver (tests look at where a job went).
    #[cfg(test)]
    pub fn detached() -> (Worker, Receiver<Job>) {
        let (jobs, rx) = channel();
        (Worker { jobs }, rx)
    }

    pub fn run(&self, job: Job) {
        let _ = self.jobs.send(job);
    }
}

fn work(host: usize, socket: Target, jobs: Receiver<Job>, out: Sender<Input>) {
    let mut client: Option<Client> = None;
    while let Ok(job) = jobs.recv() {
        // One connection, made again after a failure (the server restarted).
        let done = match client.as_mut() {
            Some(c) => perform(c, &job),
            None => match Client::open(&socket) {
                Ok(c) => perform(client.insert(c), &job),
                Err(e) => Err(e),
            },
        };
        let mut done = done.unwrap_or_else(|e| {
            client = None;
            Done {
                text: failure(e.code, e.message),
                error: true,
                ..said("")
            }
        });
        done.next_unread = job == Job::NextUnread;
        if out.send(Input::Done(host, done)).is_err() {
            return;
        }
    }
}

fn target(pane: &PaneId) -> PaneRef {
    PaneRef(pane.0.clone())
}

fn said(text: impl Into<String>) -> Done {
    Done {
        text: text.into(),
        error: false,
        select: None,
        diff: None,
        next_unread: false,
    }
}

fn perform(c: &mut Client, job: &Job) -> Result<Done, CallError> {
    match job {
        Job::Answer {
            pane,
            decision,
            option,
            label,
        } => {
            c.call(Method::DecisionAnswer(DecisionAnswerParams {
                pane_id: target(pane),
                decision_id: decision.clone(),
                option_id: option.clone(),
            }))?;
            Ok(said(format!("answered \"{label}\"")))
        },
        Job::Submit { pane, text } => {
            c.call(Method::PaneSubmit(PaneSubmitParams {
                pane_id: target(pane),
                text: text.clone(),
                submit_delay_ms: None,
                stall_timeout_s: None,
            }))?;
            Ok(said("prompt submitted"))
        },
        Job::Resume { pane } => {
            c.call(Method::PaneResume(PaneTarget {
                pane_id: target(pane),
            }))?;
            Ok(said("resumed"))
        },
        Job::Close { pane } => {
            c.call(Method::PaneClose(PaneCloseParams {
                pane_id: target(pane),
                signal: None,
            }))?;
            Ok(said("pane closed"))
        },
        Job::MarkSeen { pane } => {
            c.call(Method::PaneMarkSeen(PaneTarget {
                pane_id: target(pane),
            }))?;
            Ok(said("marked seen"))
        },
        Job::NextUnread => {
            let r = c.call(Method::FocusNextUnread(FocusNextUnreadParams {}))?;
            let next = r["pane_id"].as_str().map(|s| PaneId(s.to_owned()));
            Ok(match next {
                Some(pane) => Done {
                    select: Some(pane),
                    ..said("")
                },
                None => said("nothing needs you"),
            })
        },
        Job::TaskDiff { task } => {
            let r = c.call(Method::TaskDiff(TaskTarget {
                task_id: task.clone(),
            }))?;
            let diff: TaskDiffResult = parse(r, "task.diff")?;
            let text = format!(
                "{} file(s) changed, +{} -{}",
                diff.files.len(),
                diff.added,
                diff.removed
            );
            Ok(Done {
                diff: Some(Box::new(diff)),
                ..said(text)
            })
        },
        Job::Finish { task, label, merge } => {
            let r = c.call(Method::TaskFinish(TaskFinishParams {
                task_id: task.clone(),
                mode: if *merge { "merge" } else { "discard" }.into(),
                target_ref: None,
                delete_branch: None,
                ignore_dirty: None,
            }))?;
            let done: TaskFinishResult = parse(r, "task.finish")?;
            let mut text = match &done.merge {
                Some(m) => format!(
                    "merged {label} into {} at {}",
                    m.target,
                    m.sha.get(..10).unwrap_or(&m.sha)
                ),
                None => format!("discarded {label}"),
            };
            if let Some(e) = &done.cleanup_error {
                text.push_str(&format!(" (cleanup: {e})"));
            }
            Ok(said(text))
        },
    }
}

/// A reply's result as `T`; an unexpected shape is an error like any other.
fn parse<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
    what: &str,
) -> Result<T, CallError> {
    serde_json::from_value(value).map_err(|e| CallError {
        code: signaltty_protocol::ErrorCode::BadProtocol,
        message: format!("unexpected {what} reply: {e}"),
    })
}
