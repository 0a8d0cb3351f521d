//! The new binary's side of an in-place upgrade: what the previous image of
//! this process left (the envelope, its descriptors and the record), turned
//! into a listener, adopted PTYs and terminals, before the runtime starts.
//!
//! ```text
//!   envelope ──claim──▶ listener ─────────────────────────▶ Bound (socket kept)
//!                       masters ──pty::adopt(pid)──▶ AdoptedPane ──▶ Pane::adopted
//!                       reply ─────────────────────▶ the asking connection, answered
//!   record ──read──▶ ok: terminals imported, evidence carried
//!                    unreadable: every process let go, snapshot restore (said)
//! ```
//!
//! A pane whose terminal does not import keeps its process on a blank
//! terminal; one whose PTY cannot be adopted keeps its process running (its
//! master stays open, so it is never hung up) and becomes a tombstone; both
//! are reported.

use super::fds::{self, Claimed};
use super::record::Carried;
use super::record::{self, Envelope, FDS_ENV, RECORD_ENV, Record};
use crate::os::pty::{Pty, PtySink};
use signaltty_model::term::Terminal;
use signaltty_protocol::PaneId;
use signaltty_protocol::server::{UpgradeReport, UpgradedPane};
use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;

/// One handed-over pane, ready for its actor; `S` is what its PTY's sink
/// needs to reach the actor once it runs.
pub struct AdoptedPane<S> {
    /// The pane object.
    pub pane: signaltty_protocol::pane::Pane,
    /// Its tracker's evidence.
    pub carry: crate::domain::state::tracker::Carry,
    /// Its output offset: the next byte read continues it.
    pub output_offset: u64,
    /// The terminal as it was.
    pub term: Terminal,
    /// Its PTY, adopted; none when its process had exited or could not be
    /// adopted (the pane object is a tombstone then).
    pub pty: Option<(Pty, S)>,
}

impl<S> std::fmt::Debug for AdoptedPane<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdoptedPane")
            .field("pane", &self.pane.id)
            .field("pty", &self.pty.as_ref().map(|(p, _)| p.pid()))
            .finish_non_exhaustive()
    }
}

/// What the new binary took over.
#[derive(Debug)]
pub struct Takeover<S> {
    /// The listening socket, its path, and whether a service manager owns
    /// it; taken by the server's start.
    pub listener: Option<(UnixListener, PathBuf, bool)>,
    /// The handed-over panes by id (none after a fallback).
    pub panes: HashMap<PaneId, AdoptedPane<S>>,
    /// The asking connection and its request id.
    pub reply: Option<(UnixStream, String)>,
    /// Upgrades this process has been through, this one included.
    pub upgrades: u64,
    /// The report; `took_ms` is set when it is answered.
    pub report: UpgradeReport,
    /// When the request was received, in milliseconds of the monotonic clock.
    pub requested_at_ms: u64,
    /// Masters of processes that could not be adopted, held open so that
    /// they are never hung up.
    pub kept: Vec<OwnedFd>,
}

impl<S> Takeover<S> {
    /// The panes whose process this binary continues.
    pub fn live(&self) -> std::collections::HashSet<PaneId> {
        self.panes
            .iter()
            .filter(|(_, p)| p.pty.is_some())
            .map(|(id, _)| id.clone())
            .collect()
    }
}

/// Milliseconds on the system's monotonic clock (`CLOCK_MONOTONIC`, counted
/// from boot). An upgrade's durations (`took_ms`, `longest_unread_ms`) are
/// measured on it: it runs on across the exec, which an `Instant` cannot
/// cross, and no step of the wall clock moves it.
pub fn monotonic_ms() -> u64 {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC).map_or(0, |t| {
        let secs = u64::try_from(t.tv_sec()).unwrap_or(0);
        let millis = u64::try_from(t.tv_nsec()).unwrap_or(0) / 1_000_000;
        secs.saturating_mul(1000).saturating_add(millis)
    })
}

/// What the environment says of an upgrade: the record's path and the
/// envelope's text. Read it before the environment is cleaned.
#[derive(Debug, Clone)]
pub struct Named {
    path: PathBuf,
    text: String,
}

/// The upgrade variables, when this process was started by an upgrade.
pub fn named_by_env() -> Option<Named> {
    Some(Named {
        path: PathBuf::from(std::env::var_os(RECORD_ENV)?),
        text: std::env::var(FDS_ENV).unwrap_or_default(),
    })
}

/// A new sink for an adopted PTY, and what reaches it to its pane's actor.
pub type MakeSink<'a, S> = &'a dyn Fn() -> (Box<dyn PtySink>, S);

/// Takes over what an upgrade left (`named`), adopting each PTY with a sink
/// from `sink`. Fails only when the listening socket cannot be found:
/// nothing can be served then.
pub fn take_over<S>(named: Named, sink: MakeSink<'_, S>) -> Result<Takeover<S>, String> {
    let Named { path, text } = named;
    let envelope = match Envelope::parse(&text) {
        Ok(e) => e,
        Err(e) => return Err(format!("{FDS_ENV} is unreadable ({e}): {text:?}")),
    };
    let mut claimed = fds::claim(&envelope);
    for missing in &claimed.missing {
        log::error!("upgrade: {missing}");
    }
    let Some(listener) = claimed.listener.take() else {
        return Err("the listening socket did not cross the exec".into());
    };
    let (listener, socket) =
        crate::os::activation::listener_from(listener, "the socket handed over by the upgrade")?;
    let read_at = monotonic_ms();
    let read = record::read(&path).and_then(|r| {
        if r.envelope() == envelope {
            Ok(r)
        } else {
            Err("the record does not name the descriptors that crossed the exec".into())
        }
    });
    if let Ok(r) = &read {
        log::debug!(
            "upgrade: the new binary read the record at {} ms (took {} ms)",
            read_at.saturating_sub(r.requested_at_ms),
            monotonic_ms().saturating_sub(read_at)
        );
    }
    Ok(match read {
        Ok(record) => continue_from(record, claimed, (listener, socket), sink),
        Err(why) => fall_back(why, &envelope, claimed, (listener, socket)),
    })
}

/// The record is unreadable: every process is let go and the snapshot
/// restore runs as after a restart.
fn fall_back<S>(
    why: String,
    envelope: &Envelope,
    mut claimed: Claimed,
    (listener, socket): (UnixListener, PathBuf),
) -> Takeover<S> {
    log::error!(
        "upgrade: {why}; restoring from the snapshot instead, as after a restart \
         ({} process(es) let go)",
        claimed.panes.len()
    );
    let panes: Vec<(OwnedFd, u32)> = claimed.panes.drain().map(|(_, p)| p).collect();
    let report = UpgradeReport {
        to_version: env!("CARGO_PKG_VERSION").to_owned(),
        pid: std::process::id(),
        fallback: Some(why),
        problems: std::mem::take(&mut claimed.missing),
        ..UpgradeReport::default()
    };
    let_go(panes);
    let passed = envelope.managed;
    if passed {
        crate::os::activation::mark_socket_activated();
    }
    Takeover {
        listener: Some((listener, socket, passed)),
        panes: HashMap::new(),
        reply: claimed
            .reply
            .zip(envelope.reply.as_ref().map(|(_, id)| id.clone()))
            .map(|(fd, id)| (UnixStream::from(fd), id)),
        upgrades: 1,
        report,
        requested_at_ms: monotonic_ms(),
        kept: Vec::new(),
    }
}

fn continue_from<S>(
    record: Record,
    mut claimed: Claimed,
    (listener, socket): (UnixListener, PathBuf),
    sink: MakeSink<'_, S>,
) -> Takeover<S> {
    let mut report = UpgradeReport {
        from_version: record.from_version.clone(),
        to_version: env!("CARGO_PKG_VERSION").to_owned(),
        binary: record.binary.clone(),
        pid: std::process::id(),
        seq: record.seq,
        problems: std::mem::take(&mut claimed.missing),
        ..UpgradeReport::default()
    };
    if record.listener.passed {
        crate::os::activation::mark_socket_activated();
    }
    let mut kept = Vec::new();
    let mut panes = HashMap::new();
    let now = monotonic_ms();
    for handed in record.panes {
        let Carried {
            mut pane,
            carry,
            output_offset,
            term,
        } = handed.carried;
        let id = pane.id.clone();
        let size = pane.pty_size;
        let term = match Terminal::import(term) {
            Ok(t) => t,
            Err(e) => {
                report.problems.push(format!(
                    "pane {id}: its screen and history could not be restored ({e}); \
                     it goes on on a blank terminal"
                ));
                Terminal::new(size.rows, size.cols)
            },
        };
        let master = handed.fd.and_then(|fd| claimed.panes.remove(&fd));
        let pty = match master {
            Some((master, pid)) => match adopt(master, pid, sink) {
                Ok(adopted) => {
                    report.longest_unread_ms = report
                        .longest_unread_ms
                        .max(now.saturating_sub(handed.unread_since_ms));
                    report.panes.push(UpgradedPane {
                        pane_id: id.0.clone(),
                        pid: Some(pid),
                        output_offset,
                    });
                    Some(adopted)
                },
                Err((master, e)) => {
                    report.problems.push(format!(
                        "pane {id} (process {pid}): its terminal could not be adopted ({e}); \
                         the process is left running, and the pane restored without it"
                    ));
                    kept.push(master);
                    None
                },
            },
            None => None,
        };
        // Its waiting reporter's connection closed with the exec.
        crate::store::restore::reporter_gone(&mut pane);
        if pty.is_none() {
            // As the restore makes it in the projection.
            crate::store::restore::tombstone(&mut pane);
            report.panes.push(UpgradedPane {
                pane_id: id.0.clone(),
                pid: None,
                output_offset,
            });
        }
        panes.insert(
            id,
            AdoptedPane {
                pane,
                carry,
                output_offset,
                term,
                pty,
            },
        );
    }
    // Masters named by the envelope that no pane claimed.
    for (_, (master, pid)) in claimed.panes.drain() {
        report.problems.push(format!(
            "process {pid}: handed over without a pane; left running"
        ));
        kept.push(master);
    }
    for problem in &report.problems {
        log::warn!("upgrade: {problem}");
    }
    log::debug!(
        "upgrade: record read, {} PTY(s) adopted at {} ms",
        panes.len(),
        monotonic_ms().saturating_sub(record.requested_at_ms)
    );
    Takeover {
        listener: Some((listener, socket, record.listener.passed)),
        panes,
        reply: record
            .reply
            .and_then(|r| claimed.reply.take().map(|fd| (UnixStream::from(fd), r.id))),
        upgrades: record.upgrades + 1,
        report,
        requested_at_ms: record.requested_at_ms,
        kept,
    }
}

/// Lets go of processes this binary cannot continue (its record was
/// unreadable) as a restart does: each is adopted and closed at once, so the
/// PTY layer hangs its session up, kills what is left after the grace and
/// reaps it (`Pty::close`). One that cannot be adopted is hung up by its
/// master closing.
fn let_go(panes: Vec<(OwnedFd, u32)>) {
    for (master, pid) in panes {
        match crate::os::pty::adopt(master, pid, Box::new(Discard)) {
            Ok(pty) => pty.close(nix::sys::signal::Signal::SIGHUP),
            Err(e) => log::warn!("upgrade: process {pid} could not be adopted to let it go: {e}"),
        }
    }
}

/// The sink of a PTY being let go: its output and exit go nowhere.
struct Discard;

impl crate::os::pty::PtySink for Discard {
    fn output(&mut self, _chunk: Vec<u8>) -> crate::os::pty::Flow {
        crate::os::pty::Flow::Read
    }
    fn output_ended(&mut self) {}
    fn exited(&mut self, _code: Option<i32>) {}
}

/// Adopts `master` and `pid` (a duplicate is adopted; on failure the
/// original comes back, still open, with why).
fn adopt<S>(
    master: OwnedFd,
    pid: u32,
    sink: MakeSink<'_, S>,
) -> Result<(Pty, S), (OwnedFd, std::io::Error)> {
    let dup = match master.try_clone() {
        Ok(d) => d,
        Err(e) => return Err((master, e)),
    };
    let (sink, reach) = sink();
    match crate::os::pty::adopt(dup, pid, sink) {
        Ok(pty) => Ok((pty, reach)),
        Err(e) => Err((master, e)),
    }
}
