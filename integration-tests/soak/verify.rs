//! The checks after the load: a replay from seq 0 read whole and indexed,
//! every acknowledged request found in it as its event, the recorder's
//! stream equal to it, the journal files equal to it, and what became of
//! the questions left to time out.

use super::conn::{Conn, Next, result};
use super::panes::text;
use super::shared::{Ack, Left};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::time::Duration;

/// What the replay holds, indexed by what the acknowledgements name.
#[derive(Default)]
pub struct Journal {
    pub seqs: Vec<u64>,
    pub by_name: BTreeMap<String, u64>,
    workspaces: HashSet<String>,
    workspace_names: HashSet<(String, String)>,
    tabs_created: HashMap<String, u32>,
    tabs_closed: HashMap<String, u32>,
    panes_created: HashMap<String, (String, u32)>,
    panes_closed: HashMap<String, u32>,
    panes_exited: HashSet<String>,
    answered: HashMap<String, (String, String, u32)>,
    cleared: HashMap<String, String>,
    replaced: HashSet<String>,
    hooks: HashMap<String, (String, u32)>,
}

impl Journal {
    fn index(&mut self, event: &str, p: &Value) {
        let bump = |m: &mut HashMap<String, u32>, k: String| *m.entry(k).or_default() += 1;
        match event {
            "workspace.created" => {
                self.workspaces.insert(text(&p["workspace"]["id"]));
            },
            "workspace.updated" => {
                self.workspace_names
                    .insert((text(&p["workspace"]["id"]), text(&p["workspace"]["name"])));
            },
            "tab.created" => bump(&mut self.tabs_created, text(&p["tab"]["id"])),
            "tab.closed" => bump(&mut self.tabs_closed, text(&p["tab_id"])),
            "pane.created" => {
                let slot = self
                    .panes_created
                    .entry(text(&p["pane"]["id"]))
                    .or_insert_with(|| (text(&p["pane"]["tab_id"]), 0));
                slot.1 += 1;
            },
            "pane.closed" => bump(&mut self.panes_closed, text(&p["pane_id"])),
            "pane.exited" => {
                self.panes_exited.insert(text(&p["pane_id"]));
            },
            "decision.answered" => {
                let slot = self
                    .answered
                    .entry(text(&p["decision_id"]))
                    .or_insert_with(|| (text(&p["pane_id"]), text(&p["option_id"]), 0));
                slot.2 += 1;
            },
            "decision.cleared" => {
                self.cleared
                    .insert(text(&p["decision_id"]), text(&p["reason"]));
            },
            "decision.created" => {
                if let Some(prev) = p["prev"].as_str() {
                    self.replaced.insert(prev.to_owned());
                }
            },
            "notification.created" => {
                let body = text(&p["notification"]["body"]);
                if body.starts_with("soak hook ") {
                    let slot = self
                        .hooks
                        .entry(body)
                        .or_insert_with(|| (text(&p["notification"]["pane_id"]), 0));
                    slot.1 += 1;
                }
            },
            _ => {},
        }
    }
}

/// A `subscribe {from_seq: 0}` read whole: it must be `complete`, return as
/// many events as it says, in strictly rising seqs up to `through`.
pub fn replay_from_zero(socket: &Path) -> Result<Journal, String> {
    let mut c = Conn::connect(socket, Duration::from_secs(120))
        .map_err(|e| format!("cannot connect for the final replay: {e}"))?;
    let reply = c
        .call("subscribe", json!({"from_seq": 0}))
        .map_err(|e| format!("the final subscribe: {e:?}"))
        .and_then(|r| result(r).map_err(|code| format!("the final subscribe: {code}")))?;
    if reply["replay"]["status"] != "complete" {
        return Err(format!("the replay from seq 0 is not complete: {reply}"));
    }
    let returned = reply["replay"]["returned"].as_u64().unwrap_or(0);
    let through = reply["replay"]["through"].as_u64().unwrap_or(0);
    let mut j = Journal::default();
    let mut last = 0;
    for _ in 0..returned {
        let e = match c.next() {
            Ok(Next::Event(e)) => e,
            other => return Err(format!("the final replay ended early: {other:?}")),
        };
        if e.seq <= last || e.seq > through {
            return Err(format!(
                "the final replay gave seq {} after {last} (through {through})",
                e.seq
            ));
        }
        last = e.seq;
        j.seqs.push(e.seq);
        *j.by_name.entry(e.event.clone()).or_default() += 1;
        j.index(&e.event, &e.payload);
    }
    if j.seqs.len() as u64 != returned {
        return Err(format!("{returned} announced, {} read", j.seqs.len()));
    }
    Ok(j)
}

/// Every acknowledged request whose event is missing, doubled or different,
/// one line each.
pub fn missing_acks(acks: &[Ack], j: &Journal) -> Vec<String> {
    let once = |n: Option<&u32>| n == Some(&1);
    let mut problems = Vec::new();
    for ack in acks {
        let fine = match ack {
            Ack::WorkspaceCreated(id) => j.workspaces.contains(id),
            Ack::WorkspaceRenamed { id, name } => {
                j.workspace_names.contains(&(id.clone(), name.clone()))
            },
            Ack::TabCreated(tab) => once(j.tabs_created.get(tab)),
            Ack::PaneCreated { pane, tab } => j.panes_created.get(pane) == Some(&(tab.clone(), 1)),
            Ack::PaneClosed(pane) => once(j.panes_closed.get(pane)),
            Ack::TabClosed { tab, pane } => {
                once(j.tabs_closed.get(tab))
                    && pane.as_ref().is_none_or(|p| once(j.panes_closed.get(p)))
            },
            Ack::Answered {
                pane,
                decision,
                option,
            } => j.answered.get(decision) == Some(&(pane.clone(), option.clone(), 1)),
            // A reporter sends its hook again when an upgrade closed the
            // connection unanswered: the notification may then be there twice.
            Ack::Hook { pane, body } => {
                j.hooks.get(body).is_some_and(|(p, n)| p == pane && *n >= 1)
            },
        };
        if !fine {
            problems.push(format!("{ack:?}"));
        }
    }
    problems
}

/// How the questions left to time out ended.
#[derive(Debug, Default)]
pub struct LeftEnds {
    pub timed_out: u64,
    pub cleared_otherwise: BTreeMap<String, u64>,
    pub replaced: u64,
    pub pane_gone: u64,
    pub answered: u64,
    /// Open at the end, but a fault or the end of the load came within its
    /// wait: nothing was left to time it out.
    pub excused: u64,
    pub open: Vec<String>,
}

pub fn left_ends(left: &[Left], j: &Journal, excused: impl Fn(&Left) -> bool) -> LeftEnds {
    let mut ends = LeftEnds::default();
    for l in left {
        if let Some(reason) = j.cleared.get(&l.decision) {
            if reason == "native_cancelled" {
                ends.timed_out += 1;
            } else {
                *ends.cleared_otherwise.entry(reason.clone()).or_default() += 1;
            }
        } else if j.replaced.contains(&l.decision) {
            ends.replaced += 1;
        } else if j.panes_closed.contains_key(&l.pane) || j.panes_exited.contains(&l.pane) {
            ends.pane_gone += 1;
        } else if j.answered.contains_key(&l.decision) {
            ends.answered += 1;
        } else if excused(l) {
            ends.excused += 1;
        } else {
            ends.open.push(l.decision.clone());
        }
    }
    ends
}

/// The seqs of the journal files, oldest generation first.
pub fn file_seqs(state: &Path) -> Result<Vec<u64>, String> {
    let mut seqs = Vec::new();
    for name in ["audit.jsonl.1", "audit.jsonl"] {
        let path = state.join(name);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        for line in text.lines() {
            #[derive(serde::Deserialize)]
            struct Seq {
                seq: u64,
            }
            let s: Seq = serde_json::from_str(line)
                .map_err(|e| format!("{}: a line that is not a record ({e})", path.display()))?;
            seqs.push(s.seq);
        }
    }
    Ok(seqs)
}
