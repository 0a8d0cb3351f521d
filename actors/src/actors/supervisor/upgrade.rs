//! `server.upgrade` on the Supervisor (docs/upgrade.md): quiesce, hand every
//! pane over, let the journal settle, write the snapshot and the record, and
//! exec the new binary in place; on a failed exec, take everything back. The
//! new binary's side, answering the asking connection and adopting the
//! panes, is `takeover` here and `persist.rs`'s `adopt`.

use super::Supervisor;
use crate::actors::connection::ConnHandle;
use crate::actors::connection::reply::Reply;
use crate::actors::pane::{HandOver, HandedOver, TakeBack};
use crate::actors::supervisor::router::Routed;
use crate::error::Error;
use crate::os::listener::Accepting;
use crate::os::upgrade::record::{self, ListenerRecord, PaneRecord, Record, ReplyRecord};
use crate::os::upgrade::takeover::monotonic_ms;
use actix::prelude::*;
use signaltty_protocol::PaneId;
use signaltty_protocol::server::{ServerUpgradeParams, UpgradeReport};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::PathBuf;
use std::time::Duration;
use tokio::sync::oneshot;

/// How long in-flight requests get to be answered before the handover
/// goes on without them (their connections close at the exec).
pub const IN_FLIGHT_GRACE: Duration = Duration::from_secs(5);

/// The listening socket as the exec needs it.
#[derive(Debug, Clone)]
pub struct ListenerInfo {
    /// Its descriptor (kept open by the accept loop, paused meanwhile).
    pub fd: RawFd,
    /// Its path.
    pub path: PathBuf,
    /// Passed by a service manager.
    pub passed: bool,
}

/// An upgrade under way.
#[derive(Debug, Default)]
pub(super) struct Upgrading {
    /// Requests that arrived meanwhile: served if the exec fails.
    pub(super) held: Vec<oneshot::Sender<()>>,
    /// Told once no plain request but the upgrade is in flight.
    pub(super) idle: Vec<oneshot::Sender<()>>,
    /// Told once the journal has nothing pending.
    pub(super) settled: Vec<oneshot::Sender<()>>,
}

/// What the exec needs once the panes are handed over.
struct Handover {
    binary: PathBuf,
    conn: ConnHandle,
    id: String,
    requested_at_ms: u64,
    panes: Vec<(PaneId, HandedOver)>,
}

fn error(e: Error) -> Routed {
    Box::pin(actix::fut::ready(Reply::error(e)))
}

impl Supervisor {
    /// Serves `server.upgrade`.
    pub(super) fn upgrade(
        &mut self,
        p: ServerUpgradeParams,
        conn: ConnHandle,
        id: String,
    ) -> Routed {
        if self.shutting_down {
            return error(Error::ShuttingDown);
        }
        if self.upgrading.is_some() {
            return error(Error::BadParams("an upgrade is already under way".into()));
        }
        let Some(origin) = crate::os::upgrade::origin() else {
            return error(Error::BadParams(
                "this server was not started as `signaltty server`: it cannot exec in place".into(),
            ));
        };
        if self.listener.is_none() {
            return error(Error::BadParams(
                "this server has no socket of its own to hand over".into(),
            ));
        }
        let binary = p.binary.map_or_else(|| origin.exe.clone(), PathBuf::from);
        let requested_at_ms = monotonic_ms();
        let check = actix_rt::task::spawn_blocking(move || crate::os::upgrade::preflight(&binary));
        Box::pin(
            actix::fut::wrap_future::<_, Self>(check).then(move |checked, act, _ctx| {
                let (binary, version) = match checked {
                    Ok(Ok(b)) => b,
                    Ok(Err(e)) => return error(e),
                    Err(e) => return error(Error::Internal(format!("preflight failed: {e}"))),
                };
                if act.upgrading.is_some() || act.shutting_down {
                    return error(Error::BadParams("an upgrade is already under way".into()));
                }
                log::info!(
                    "upgrade to {} ({version}): checked in {} ms, quiescing",
                    binary.display(),
                    monotonic_ms().saturating_sub(requested_at_ms)
                );
                act.upgrading = Some(Upgrading::default());
                let _ = act.stop_accepting.send(Accepting::Paused);
                let idle = act.when_idle();
                Box::pin(
                    actix::fut::wrap_future::<_, Self>(async move {
                        let _ = tokio::time::timeout(IN_FLIGHT_GRACE, idle).await;
                        // One turn of the loop for the connections to write
                        // the replies they just received.
                        tokio::task::yield_now().await;
                    })
                    .then(move |(), act, _ctx| {
                        act.hand_over_panes(binary, conn, id, requested_at_ms)
                    }),
                )
            }),
        )
    }

    /// A receiver told once no plain request but the upgrade is in flight.
    fn when_idle(&mut self) -> oneshot::Receiver<()> {
        let (tx, rx) = oneshot::channel();
        if self.in_flight <= 1 {
            let _ = tx.send(());
        } else if let Some(up) = &mut self.upgrading {
            up.idle.push(tx);
        }
        rx
    }

    /// A plain request was answered.
    pub(super) fn request_done(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if self.in_flight <= 1
            && let Some(up) = &mut self.upgrading
        {
            for tx in up.idle.drain(..) {
                let _ = tx.send(());
            }
        }
    }

    /// The journal acknowledged a batch.
    pub(super) fn journal_moved(&mut self) {
        if self.events.settled()
            && let Some(up) = &mut self.upgrading
        {
            for tx in up.settled.drain(..) {
                let _ = tx.send(());
            }
        }
    }

    fn hand_over_panes(
        &mut self,
        binary: PathBuf,
        conn: ConnHandle,
        id: String,
        requested_at_ms: u64,
    ) -> Routed {
        let asks: Vec<_> = self
            .registry
            .panes()
            .map(|e| (e.id.clone(), e.addr.send(HandOver)))
            .collect();
        Box::pin(
            actix::fut::wrap_future::<_, Self>(async move {
                let mut handed = Vec::new();
                for (id, ask) in asks {
                    match ask.await {
                        Ok(Ok(h)) => handed.push((id, h)),
                        Ok(Err(e)) => log::error!("upgrade: pane {id} was not handed over: {e}"),
                        Err(e) => log::error!("upgrade: pane {id} did not answer: {e}"),
                    }
                }
                handed
            })
            .then(move |panes, act, _ctx| {
                log::debug!(
                    "upgrade: {} pane(s) handed over at {} ms",
                    panes.len(),
                    monotonic_ms().saturating_sub(requested_at_ms)
                );
                let handover = Handover {
                    binary,
                    conn,
                    id,
                    requested_at_ms,
                    panes,
                };
                act.settle_then_exec(handover)
            }),
        )
    }

    /// Waits until the journal has nothing pending, then execs.
    fn settle_then_exec(&mut self, handover: Handover) -> Routed {
        if self.events.settled() {
            return Box::pin(actix::fut::ready(self.exec(handover)));
        }
        let (tx, rx) = oneshot::channel();
        if let Some(up) = &mut self.upgrading {
            up.settled.push(tx);
        }
        Box::pin(
            actix::fut::wrap_future::<_, Self>(rx)
                .then(move |_, act, _ctx| act.settle_then_exec(handover)),
        )
    }

    /// Writes the snapshot and the record and execs; returns only when the
    /// exec failed, after taking everything back.
    fn exec(&mut self, handover: Handover) -> Reply {
        let Handover {
            binary,
            conn,
            id,
            requested_at_ms,
            panes,
        } = handover;
        // Each pane's state moves into the record; the masters stay here,
        // to be taken back should the exec not happen.
        let mut masters = Vec::new();
        let panes: Vec<PaneRecord> = panes
            .into_iter()
            .map(|(pane, h)| {
                let fd = h.master.as_ref().map(AsRawFd::as_raw_fd);
                if let (Some(master), Some(pid)) = (h.master, h.pid) {
                    masters.push((pane, master, pid));
                }
                PaneRecord {
                    fd,
                    pid: h.pid,
                    unread_since_ms: h.unread_since_ms,
                    carried: h.carried,
                }
            })
            .collect();
        if self.shutting_down {
            // A SIGTERM during the handover: stopping wins.
            return self.take_back(masters, "the server began to shut down".into());
        }
        let Some(listener) = self.listener.clone() else {
            return self.take_back(masters, "no listener".into());
        };
        let Some(origin) = crate::os::upgrade::origin() else {
            return self.take_back(masters, "no origin".into());
        };
        let Some(dir) = self.snapshots.dir.clone() else {
            return self.take_back(masters, "no state directory".into());
        };
        // Every event up to the head is durable: the snapshot at the head
        // plus an empty journal suffix is the world the record continues.
        let since = |at: u64| monotonic_ms().saturating_sub(at);
        log::debug!("upgrade: settled at {} ms", since(requested_at_ms));
        self.save_snapshot_now();
        log::debug!("upgrade: snapshot at {} ms", since(requested_at_ms));
        let record = Record {
            version: record::VERSION,
            from_version: self.config.version.clone(),
            binary: binary.display().to_string(),
            requested_at_ms,
            seq: self.events.head().0,
            listener: ListenerRecord {
                fd: listener.fd,
                path: listener.path.clone(),
                passed: listener.passed,
            },
            upgrades: self.upgrades,
            reply: Some(ReplyRecord {
                fd: conn.socket,
                id,
            }),
            panes,
        };
        // Beside the socket when that directory is private (a tmpfs under
        // XDG_RUNTIME_DIR, usually): megabytes that never need a disk.
        let record_dir = record::private_dir(&listener.path).unwrap_or(dir);
        let path = match record::write(&record_dir, &record) {
            Ok(p) => p,
            Err(e) => {
                return self.take_back(masters, format!("cannot write the handoff record: {e}"));
            },
        };
        log::debug!("upgrade: record at {} ms", since(requested_at_ms));
        let envelope = record.envelope();
        let mut env: Vec<_> = std::env::vars_os()
            .filter(|(k, _)| !crate::os::activation::MANAGER_VARS.iter().any(|m| k == m))
            .collect();
        env.push((record::RECORD_ENV.into(), path.clone().into_os_string()));
        env.push((record::FDS_ENV.into(), envelope.to_env().into()));
        // The children of the next binary get the limit the first one started with.
        if let Some(soft) = crate::os::limits::started_with() {
            env.push((
                crate::domain::launch::UPGRADE_NOFILE_VAR.into(),
                soft.to_string().into(),
            ));
        }
        if let Some(notify) = &origin.notify_socket {
            env.push(("NOTIFY_SOCKET".into(), notify.clone()));
            if let Ok(notifier) = crate::os::activation::Notifier::from_value(notify) {
                notifier.reloading();
            }
        }
        let mut args = origin.args.clone();
        if let Some(first) = args.first_mut() {
            *first = binary.clone().into_os_string();
        }
        log::info!(
            "upgrade: handing {} pane(s) to {} at seq {}",
            record.panes.len(),
            binary.display(),
            record.seq
        );
        log::logger().flush();
        let failed = crate::os::upgrade::fds::exec(&binary, &args, &env, &envelope.fds());
        let _ = std::fs::remove_file(&path);
        self.take_back(masters, format!("the exec failed: {failed}"))
    }

    /// The exec did not happen: every pane takes its master back, held
    /// requests are served, connections are accepted again.
    fn take_back(&mut self, masters: Vec<(PaneId, OwnedFd, u32)>, why: String) -> Reply {
        log::error!("upgrade: {why}; this server goes on as it was");
        for (id, master, pid) in masters {
            match self.registry.pane(&id) {
                Ok(entry) => entry.addr.do_send(TakeBack { master, pid }),
                Err(_) => log::error!("upgrade: pane {id} is gone; its process is let go"),
            }
        }
        if let Some(up) = self.upgrading.take() {
            for tx in up.held {
                let _ = tx.send(());
            }
        }
        if !self.shutting_down {
            let _ = self.stop_accepting.send(Accepting::Open);
        }
        Reply::error(Error::Internal(format!("upgrade failed: {why}")))
    }

    /// How the last upgrade went, for `server.status`.
    pub(super) fn upgrade_status(&self) -> (u64, Option<UpgradeReport>) {
        (self.upgrades, self.last_upgrade.clone())
    }
}

/// Starts the actor of a pane an upgrade handed over, on `arbiter`, and
/// lets its PTY's reader deliver to it. Returns its address and process id
/// (0 without a process).
pub(super) fn start_adopted(
    adopted: crate::os::upgrade::takeover::AdoptedPane<super::PaneReach>,
    arbiter: &actix::ArbiterHandle,
    slot: &signaltty_model::term::TailSlot,
    events: Recipient<crate::actors::publish::Publish>,
    pty_out: crate::actors::publish::PtyOut,
    config: std::sync::Arc<crate::config::Config>,
) -> (Addr<crate::actors::pane::Pane>, u32) {
    let crate::os::upgrade::takeover::AdoptedPane {
        pane,
        carry,
        output_offset,
        term,
        pty,
    } = adopted;
    let (pty, addr_tx, pid) = match pty {
        Some((pty, tx)) => {
            let pid = pty.pid();
            let pty: Box<dyn crate::actors::pane::PtyHandle> = Box::new(pty);
            (Some(pty), Some(tx), pid)
        },
        None => (None, None, 0),
    };
    let filled = slot.clone();
    let addr = crate::actors::pane::Pane::start_in_arbiter(arbiter, move |_| {
        crate::actors::pane::Pane::adopted(
            pane,
            carry,
            term,
            output_offset,
            pty,
            events,
            pty_out,
            &config,
        )
        .with_tail_slot(&filled)
    });
    if let Some(tx) = addr_tx {
        // The loop has waited for this: output continues from here.
        tx.send(addr.clone());
    }
    (addr, pid)
}

impl Supervisor {
    /// After the panes were adopted: records how the upgrade went and
    /// answers the connection that asked for it, on the same socket.
    pub(super) fn answer_upgrade(&mut self, ctx: &mut Context<Self>) {
        let Some(mut t) = self.takeover.take() else {
            return;
        };
        for (id, pane) in t.panes.drain() {
            t.report.problems.push(format!(
                "pane {id}: handed over but not in the restored world"
            ));
            if let Some((pty, _)) = pane.pty
                && let Ok(master) = pty.release()
            {
                // Its process is kept running, as every pane that cannot be
                // continued: the master stays open.
                crate::os::upgrade::fds::keep(vec![master]);
            }
        }
        crate::os::upgrade::fds::keep(std::mem::take(&mut t.kept));
        t.report.took_ms = monotonic_ms().saturating_sub(t.requested_at_ms);
        let report = t.report;
        match &report.fallback {
            Some(why) => log::warn!("upgrade: took over by restoring the snapshot: {why}"),
            None => log::info!(
                "upgrade from {} done in {} ms: {} pane(s), the longest unread {} ms",
                report.from_version,
                report.took_ms,
                report.panes.len(),
                report.longest_unread_ms
            ),
        }
        self.last_upgrade = Some(report.clone());
        let Some((stream, id)) = t.reply else {
            return;
        };
        let value = serde_json::to_value(&report).unwrap_or(serde_json::Value::Null);
        let line = signaltty_protocol::Response::ok(id, value).to_line();
        let stream = stream
            .set_nonblocking(true)
            .and_then(|()| tokio::net::UnixStream::from_std(stream));
        match stream {
            Ok(stream) => {
                let conn = crate::actors::connection::Connection::start(
                    stream,
                    crate::actors::connection::Hub::of(&ctx.address()),
                    self.config.limits.clone(),
                );
                conn.do_send(crate::actors::connection::Say(bytes::Bytes::from(line)));
            },
            Err(e) => log::warn!("upgrade: cannot answer the connection that asked: {e}"),
        }
    }
}
