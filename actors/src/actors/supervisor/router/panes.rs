//! Routing of `pane.*` (docs/methods.md#panes): validation and id resolution
//! here, the launch and placement in the owning Workspace actor, everything
//! about the running process in the Pane actor. Reads of the pane object come
//! from the projection.

use super::{Cx, Routed, answer, fail, ready};
use crate::actors::connection::ConnHandle;
use crate::actors::pane::{
    Attach, ClearPane, Detach, IsLive, Pane, ReadPane, ResizePane, SetName, SignalPane, WriteInput,
};
use crate::actors::workspace::{Arrangement, Rearrange, RemovePane};
use crate::domain::registry::PaneKey;
use crate::error::Error;
use actix::prelude::*;
use base64::Engine as _;
use signaltty_protocol::pane::{
    DetachedResult, MAX_INPUT_B64, MAX_READ_LINES, PaneAttachParams, PaneClearResult,
    PaneCloseParams, PaneGetResult, PaneInputParams, PaneInputResult, PaneReadParams,
    PaneReadResult, PaneRenameParams, PaneResizeParams, PaneResult, PaneSignalParams, PaneTarget,
    PaneWaitForOutputParams, PaneWaitForOutputResult, PtySize, ReadMode, SentResult,
};
use signaltty_protocol::pane::{PaneMoveParams, PaneSwapParams, TabsResult};
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::workspace::{ClosedResult, SplitDir};
use signaltty_protocol::{PaneId, PaneRef};
use std::time::{Duration, Instant};

/// `pane.get`: the pane object from the projection.
pub fn get(cx: &mut Cx<'_>, p: PaneTarget) -> Routed {
    let found = cx.registry.resolve(&p.pane_id).and_then(|id| {
        cx.events
            .projection()
            .pane(&id)
            .cloned()
            .ok_or(Error::NoSuchPane(id.0))
    });
    ready(found.map(|pane| {
        PaneGetResult {
            wait_baseline: cx
                .events
                .projection()
                .progress(&pane.id)
                .map(|p| p.baseline(&pane)),
            pane,
        }
    }))
}

/// Sends `msg` to a pane's actor and wraps its answer. A pane closed while the
/// request was on its way answers `NO_SUCH_PANE`: it no longer exists.
pub(super) fn ask_pane<M, T, R>(
    cx: &mut Cx<'_>,
    r: &(impl PaneKey + std::fmt::Display),
    msg: M,
    wrap: impl FnOnce(T) -> R + 'static,
) -> Routed
where
    M: Message<Result = Result<T, Error>> + Send + 'static,
    T: Send + 'static,
    R: serde::Serialize + 'static,
    Pane: Handler<M>,
{
    let entry = match cx.registry.pane(r) {
        Ok(e) => e,
        Err(e) => return fail(Err(e)),
    };
    let gone = Error::NoSuchPane(r.to_string());
    let asked = entry.addr.send(msg);
    answer(async move {
        asked
            .await
            .map_err(|_| gone)
            .and_then(|inner| inner)
            .map(wrap)
    })
}

/// `pane.read`.
pub fn read(cx: &mut Cx<'_>, p: PaneReadParams) -> Routed {
    let msg = ReadPane {
        mode: p.mode.unwrap_or(ReadMode::Tail),
        lines: p.lines.unwrap_or(200),
        after_seq: p.after_seq.unwrap_or(0),
        strip_ansi: p.strip_ansi.unwrap_or(true),
    };
    ask_pane(cx, &p.pane_id, msg, |r: PaneReadResult| r)
}

/// `pane.input`.
pub fn input(cx: &mut Cx<'_>, p: PaneInputParams) -> Routed {
    if p.data_b64.len() > MAX_INPUT_B64 {
        return fail(Err(Error::RateLimited(format!(
            "input too large: data_b64 is limited to {MAX_INPUT_B64} characters"
        ))));
    }
    let bytes = match base64::engine::general_purpose::STANDARD.decode(p.data_b64.as_bytes()) {
        Ok(b) => b,
        Err(e) => {
            return fail(Err(Error::BadParams(format!(
                "data_b64 is not valid base64: {e}"
            ))));
        },
    };
    // A hibernated agent is woken first and its input written once it is
    // ready (docs/restore.md#waking-up).
    if let Ok(entry) = cx.registry.pane(&p.pane_id)
        && super::wake::hibernated(cx, &entry.id)
    {
        let woken = match super::wake::wake_ready(cx, &entry.id, "input") {
            Ok(woken) => woken,
            Err(e) => return fail(Err(e)),
        };
        let gone = closed(&p.pane_id);
        return answer(async move {
            woken.await?;
            let n = entry
                .addr
                .send(WriteInput { bytes })
                .await
                .map_err(|_| gone)??;
            Ok(PaneInputResult { written: n as u64 })
        });
    }
    ask_pane(cx, &p.pane_id, WriteInput { bytes }, |n: usize| {
        PaneInputResult { written: n as u64 }
    })
}

/// `pane.resize`.
pub fn resize(cx: &mut Cx<'_>, p: PaneResizeParams) -> Routed {
    let size = PtySize::clamped(p.cols, p.rows);
    ask_pane(cx, &p.pane_id, ResizePane { size }, |pane| PaneResult {
        pane,
    })
}

/// `pane.signal`.
pub fn signal(cx: &mut Cx<'_>, p: PaneSignalParams) -> Routed {
    let msg = SignalPane {
        signal: p.signal,
        group: p.group.unwrap_or(false),
    };
    ask_pane(cx, &p.pane_id, msg, |()| SentResult { sent: true })
}

/// `pane.close`: hang up the process, drop the pane from its tab; its
/// workspace's actor forgets it in the registry.
pub fn close(cx: &mut Cx<'_>, p: PaneCloseParams) -> Routed {
    let id = match cx.registry.resolve(&p.pane_id) {
        Ok(id) => id,
        Err(e) => return fail(Err(e)),
    };
    let Some(workspace) = cx
        .registry
        .pane_by_id(&id)
        .and_then(|e| cx.registry.workspace_addr(&e.workspace))
    else {
        return fail(Err(Error::NoSuchPane(id.0)));
    };
    let signal = p.signal.unwrap_or(SignalName::Term);
    let removed = super::ask(
        workspace,
        RemovePane {
            pane_id: id,
            signal,
        },
    );
    answer(async move { removed.await.map(|()| ClosedResult { closed: true }) })
}

/// `pane.attach`: register the connection as a viewer; the reply carries the
/// snapshot and the offset it covers.
pub fn attach(cx: &mut Cx<'_>, conn: &ConnHandle, p: PaneAttachParams) -> Routed {
    let entry = match cx.registry.pane(&p.pane_id) {
        Ok(e) => e,
        Err(e) => return fail(Err(e)),
    };
    let size = match (p.cols, p.rows) {
        (Some(cols), Some(rows)) => Some(PtySize::clamped(cols, rows)),
        _ => None,
    };
    let pane_id = entry.addr.clone();
    let msg = Attach {
        conn: conn.id,
        viewer: conn.pty.clone(),
        size,
        mark_seen: p.mark_seen.unwrap_or(true),
        watch: p.watch.unwrap_or(false),
    };
    // Recorded now, so the connection's going away detaches it; a pane that
    // refuses (or went) has no viewer to detach, which is harmless.
    // An interactive attach wakes a hibernated agent; a watch (the board's
    // preview) does not (docs/restore.md#waking-up).
    let woken = if !msg.watch && super::wake::hibernated(cx, &entry.id) {
        match super::wake::resume(cx, &entry.id, "attach") {
            Ok(woken) => Some(woken),
            Err(e) => return fail(Err(e)),
        }
    } else {
        None
    };
    cx.registry.attach(conn.id, &entry.id);
    let gone = closed(&p.pane_id);
    answer(async move {
        if let Some(woken) = woken {
            woken.await?;
        }
        pane_id
            .send(msg)
            .await
            .map_err(|_| gone)
            .and_then(|inner| inner)
    })
}

/// `pane.detach`: forget the viewer; the process is untouched.
pub fn detach(cx: &mut Cx<'_>, conn: &ConnHandle, p: PaneTarget) -> Routed {
    let entry = match cx.registry.pane(&p.pane_id) {
        Ok(e) => e,
        Err(e) => return fail(Err(e)),
    };
    entry.addr.do_send(Detach { conn: conn.id });
    cx.registry.detach(conn.id, &entry.id);
    ready(Ok(DetachedResult { detached: true }))
}

/// The error for a pane whose actor stopped while a request was on its way: it
/// was closed meanwhile, so it no longer exists.
fn closed(pane: &PaneRef) -> Error {
    Error::NoSuchPane(pane.0.clone())
}

/// `pane.rename`: a unique name, usable wherever a pane id is; `null` clears it.
pub fn rename(cx: &mut Cx<'_>, p: PaneRenameParams) -> Routed {
    let Some(name) = p.name else {
        return fail(Err(Error::BadParams(
            "name is required (null clears it)".into(),
        )));
    };
    let entry = match cx.registry.pane(&p.pane_id) {
        Ok(e) => e,
        Err(e) => return fail(Err(e)),
    };
    // Validated and reserved now, in the routing turn, so two renames cannot
    // take one name.
    if let Err(e) = cx.registry.set_pane_name(&entry.id, name.as_deref()) {
        return fail(Err(e));
    }
    ask_pane(cx, &entry.id, SetName { name }, |pane| PaneResult { pane })
}

/// `pane.clear`.
pub fn clear(cx: &mut Cx<'_>, p: PaneTarget) -> Routed {
    ask_pane(cx, &p.pane_id, ClearPane, |output_offset| PaneClearResult {
        cleared: true,
        output_offset,
    })
}

/// How often `pane.wait_for_output` reads the pane again.
pub const WAIT_POLL: Duration = Duration::from_millis(100);

/// `pane.wait_for_output`: reads every 100 ms until a line matches, the process
/// has exited with no match in a final read (`PANE_EXITED`), or the time is up.
pub fn wait_for_output(cx: &mut Cx<'_>, p: PaneWaitForOutputParams) -> Routed {
    let matcher = match Matcher::new(&p.pattern, p.regex.unwrap_or(false)) {
        Ok(m) => m,
        Err(e) => return fail(Err(e)),
    };
    let entry = match cx.registry.pane(&p.pane_id) {
        Ok(e) => e,
        Err(e) => return fail(Err(e)),
    };
    let timeout = Duration::from_secs(p.timeout_s.unwrap_or(3600));
    let Some(deadline) = Instant::now().checked_add(timeout) else {
        return fail(Err(Error::BadParams("timeout_s is too large".into())));
    };
    let mode = p.mode.unwrap_or(ReadMode::Tail);
    let lines = p.lines.unwrap_or(200);
    let strip_ansi = p.strip_ansi.unwrap_or(true);
    let mut after = p.after_seq.unwrap_or(0);
    let id = entry.id.clone();
    let addr = entry.addr;
    let waited = async move {
        let gone = || Error::NoSuchPane(id.0.clone());
        loop {
            let live = addr.send(IsLive).await.map_err(|_| gone())?;
            // Rendered polls read the whole cap so a burst cannot step past a match.
            let want = if mode == ReadMode::Rendered {
                MAX_READ_LINES
            } else {
                lines
            };
            let read = addr
                .send(ReadPane {
                    mode,
                    lines: want,
                    after_seq: after,
                    strip_ansi,
                })
                .await
                .map_err(|_| gone())??;
            if let Some(line) = read.text.lines().find(|l| matcher.is_match(l)) {
                return Ok(PaneWaitForOutputResult {
                    matched_line: line.to_owned(),
                    read,
                });
            }
            if !live {
                return Err(Error::PaneExited {
                    pane: id.0.clone(),
                    written: None,
                });
            }
            if mode == ReadMode::Rendered {
                after = match (read.dropped, read.next_seq) {
                    (Some(true), _) => 0,
                    (_, Some(next)) => next,
                    _ => after,
                };
            }
            if Instant::now() >= deadline {
                return Err(Error::Timeout {
                    what: "waiting for output".into(),
                    written: None,
                });
            }
            tokio::time::sleep(WAIT_POLL.min(deadline.saturating_duration_since(Instant::now())))
                .await;
        }
    };
    answer(waited)
}

/// A substring or a regex.
enum Matcher {
    Text(String),
    Regex(regex::Regex),
}

impl Matcher {
    fn new(pattern: &str, regex: bool) -> Result<Matcher, Error> {
        if pattern.is_empty() {
            return Err(Error::BadParams("match must not be empty".into()));
        }
        if regex {
            regex::Regex::new(pattern)
                .map(Matcher::Regex)
                .map_err(|e| Error::BadParams(format!("invalid regex: {e}")))
        } else {
            Ok(Matcher::Text(pattern.to_owned()))
        }
    }

    fn is_match(&self, line: &str) -> bool {
        match self {
            Matcher::Text(t) => line.contains(t.as_str()),
            Matcher::Regex(r) => r.is_match(line),
        }
    }
}

/// `pane.swap` / `pane.move`: both panes must be distinct and in one workspace.
fn rearrange(
    cx: &mut Cx<'_>,
    a: &PaneRef,
    b: &PaneRef,
    arrangement: impl FnOnce(PaneId, PaneId) -> Arrangement,
) -> Routed {
    let (ea, eb) = match (cx.registry.pane(a), cx.registry.pane(b)) {
        (Ok(ea), Ok(eb)) => (ea, eb),
        (Err(e), _) | (_, Err(e)) => return fail(Err(e)),
    };
    if ea.workspace != eb.workspace {
        return fail(Err(Error::BadParams(
            "the panes are in different workspaces".into(),
        )));
    }
    let Some(workspace) = cx.registry.workspace_addr(&ea.workspace) else {
        return fail(Err(Error::NoSuchPane(ea.id.0)));
    };
    let msg = Rearrange {
        arrangement: arrangement(ea.id, eb.id),
    };
    let rearranged = super::ask(workspace, msg);
    answer(async move { rearranged.await.map(|(tabs, _moved)| TabsResult { tabs }) })
}

/// `pane.swap`.
pub fn swap(cx: &mut Cx<'_>, p: PaneSwapParams) -> Routed {
    rearrange(cx, &p.pane_id, &p.target_pane_id, Arrangement::Swap)
}

/// `pane.move`.
pub fn move_pane(cx: &mut Cx<'_>, p: PaneMoveParams) -> Routed {
    let dir = p.direction.unwrap_or(SplitDir::Right);
    rearrange(cx, &p.pane_id, &p.target_pane_id, |pane, target| {
        Arrangement::Move { pane, target, dir }
    })
}
