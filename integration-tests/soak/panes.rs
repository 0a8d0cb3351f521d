//! The churner: panes coming and going. It keeps between 20 and 30 fake
//! agents live (exactly the target at a measurement), each in a tab of its
//! own in one of the soak's workspaces, replaces, adds or closes one at each
//! step, and after every fault makes the server's world match what it keeps:
//! tombstones a SIGKILL left, and anything a cut-off request made without an
//! answer, are closed.

use super::conn::{Conn, End, result};
use super::rng::Rng;
use super::shared::{Ack, LivePane, Role, Shared, lock};
use crate::support::agents::fake;
use crate::support::process::BIN;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The fewest and the most panes live between measurements.
const FEWEST: usize = 20;
const MOST: usize = 30;
/// How long the waiting reporter of an asker pane waits for an answer.
pub const WAIT_TIMEOUT_S: u64 = 5;

/// A step failed: the connection went (a fault; reconnect) or the soak failed.
type Step<T> = Result<T, End>;

pub fn churner(sh: Arc<Shared>) {
    let mut rng = Rng::new(sh.seed, 1);
    let mut conn: Option<Conn> = None;
    let mut reconciled = u64::MAX;
    let mut filled = false;
    let mut next_step = Instant::now() + sh.churn_every;
    while sh.running() {
        let Some(c) = conn.as_mut() else {
            conn = sh.connect("churner", Duration::from_secs(60));
            continue;
        };
        let outcome = (|| -> Step<()> {
            let epoch = sh.epoch();
            if epoch != reconciled && !sh.faulting() {
                reconcile(&sh, c)?;
                reconciled = epoch;
            }
            if !filled {
                // The start: the target at once.
                while sh.live_count() < sh.target_panes && sh.running() {
                    spawn(&sh, c, &mut rng)?;
                }
                filled = true;
            }
            if sh.quiet() {
                while sh.live_count() < sh.target_panes && sh.running() {
                    spawn(&sh, c, &mut rng)?;
                }
                while sh.live_count() > sh.target_panes && sh.running() {
                    close(&sh, c, &mut rng)?;
                }
                sh.park_if_quiet("churner");
                next_step = Instant::now() + sh.churn_every;
                return Ok(());
            }
            if sh.live_count() < FEWEST {
                return spawn(&sh, c, &mut rng);
            }
            if Instant::now() >= next_step {
                next_step += sh.churn_every;
                let n = sh.live_count();
                let roll = rng.below(4);
                if n >= MOST || (n > FEWEST && roll == 0) {
                    close(&sh, c, &mut rng)?;
                } else if roll == 1 {
                    spawn(&sh, c, &mut rng)?;
                } else {
                    close(&sh, c, &mut rng)?;
                    spawn(&sh, c, &mut rng)?;
                }
            }
            sh.pace(Duration::from_millis(50));
            Ok(())
        })();
        match outcome {
            Ok(()) => {},
            Err(e) if e.is_garbage() => sh.fail(format!("churner: {e:?}")),
            Err(_) => conn = None,
        }
    }
}

/// Starts one fake agent in a new tab of a soak workspace.
fn spawn(sh: &Shared, c: &mut Conn, rng: &mut Rng) -> Step<()> {
    let n = sh.pane_n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let ws = &sh.workspaces[rng.index(sh.workspaces.len())];
    let tab = match result(c.call("tab.create", json!({"workspace_id": ws}))?) {
        Ok(v) => text(&v["tab"]["id"]),
        Err(code) => {
            sh.count(&format!("tab.create refused {code}"));
            return Ok(());
        },
    };
    sh.ack(Ack::TabCreated(tab.clone()));
    let dir = sh.root.join("agents").join(n.to_string());
    if let Err(e) = std::fs::create_dir_all(&dir) {
        sh.fail(format!("cannot create {}: {e}", dir.display()));
        return Ok(());
    }
    let role = if rng.chance(0.25) {
        Role::Asks
    } else {
        Role::Hooks
    };
    let session = format!("soak-session-{n}");
    let params = json!({
        "workspace_id": ws,
        "tab_id": tab,
        "argv": ["bash", fake("soak-agent")],
        "env": {
            "SIGNALTTY_BIN": BIN,
            "SIGNALTTY_FAKE_SESSION": session,
            "SIGNALTTY_FAKE_DIR": dir.to_string_lossy(),
            "SIGNALTTY_FAKE_WAIT_TIMEOUT": WAIT_TIMEOUT_S.to_string(),
        },
    });
    sh.count("pane.spawn sent");
    match result(c.call("pane.spawn", params)?) {
        Ok(v) => {
            let id = text(&v["pane"]["id"]);
            sh.ack(Ack::PaneCreated {
                pane: id.clone(),
                tab: tab.clone(),
            });
            sh.count("panes spawned");
            lock(&sh.panes).push(LivePane {
                id,
                tab,
                role,
                session,
            });
            sh.max("most panes live", sh.live_count() as u64);
        },
        Err(code) => {
            sh.count(&format!("pane.spawn refused {code}"));
            close_tab(sh, c, &tab, None)?;
        },
    }
    Ok(())
}

/// Closes one live pane: `pane.close` then `tab.close`, or `tab.close` alone.
fn close(sh: &Shared, c: &mut Conn, rng: &mut Rng) -> Step<()> {
    let pane = {
        let mut panes = lock(&sh.panes);
        if panes.is_empty() {
            return Ok(());
        }
        let i = rng.index(panes.len());
        panes.swap_remove(i)
    };
    if rng.chance(0.5) {
        match result(c.call("pane.close", json!({"pane_id": pane.id}))?) {
            Ok(_) => {
                sh.ack(Ack::PaneClosed(pane.id.clone()));
                sh.count("panes closed");
                close_tab(sh, c, &pane.tab, None)
            },
            Err(code) => {
                sh.count(&format!("pane.close refused {code}"));
                close_tab(sh, c, &pane.tab, Some(&pane.id))
            },
        }
    } else {
        close_tab(sh, c, &pane.tab, Some(&pane.id))
    }
}

/// `tab.close`, which closes the pane it holds (`pane`, when it has one).
fn close_tab(sh: &Shared, c: &mut Conn, tab: &str, pane: Option<&str>) -> Step<()> {
    match result(c.call("tab.close", json!({"tab_id": tab}))?) {
        Ok(_) => {
            if pane.is_some() {
                sh.count("panes closed");
            }
            sh.ack(Ack::TabClosed {
                tab: tab.to_owned(),
                pane: pane.map(str::to_owned),
            });
        },
        Err(code) => sh.count(&format!("tab.close refused {code}")),
    }
    Ok(())
}

/// After a fault: every tab of the soak's workspaces that holds no pane the
/// churner keeps live, with its live process, is closed; so is a kept pane
/// whose process is gone (a SIGKILL's tombstones).
fn reconcile(sh: &Shared, c: &mut Conn) -> Step<()> {
    let mut keep = HashSet::new();
    for ws in &sh.workspaces {
        let got = match result(c.call("workspace.get", json!({"workspace_id": ws}))?) {
            Ok(v) => v,
            Err(code) => {
                sh.fail(format!("workspace.get {ws} after a fault: {code}"));
                return Ok(());
            },
        };
        let kept: HashSet<String> = lock(&sh.panes).iter().map(|p| p.id.clone()).collect();
        let mut tabs_kept = HashSet::new();
        for pane in got["panes"].as_array().into_iter().flatten() {
            let id = text(&pane["id"]);
            let alive = pane["live"]["state"] == "live";
            if kept.contains(&id) && alive {
                keep.insert(id);
                tabs_kept.insert(text(&pane["tab_id"]));
            }
        }
        for tab in got["tabs"].as_array().into_iter().flatten() {
            let id = text(&tab["id"]);
            if tabs_kept.contains(&id) {
                continue;
            }
            let held: Vec<String> = got["panes"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["tab_id"] == id.as_str())
                .map(|p| text(&p["id"]))
                .collect();
            sh.add("panes closed after a fault", held.len() as u64);
            close_tab(sh, c, &id, held.first().map(String::as_str))?;
        }
    }
    lock(&sh.panes).retain(|p| keep.contains(&p.id));
    Ok(())
}

/// A JSON string as an owned `String` (empty when it is not one).
pub fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_owned()
}
