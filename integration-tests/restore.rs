//! The world after a restart (docs/restore.md, docs/persistence.md#snapshots):
//! workspaces, tabs, layouts and panes come back from the snapshot plus the
//! journal's later events, whether the server stopped cleanly or was SIGKILLed
//! right after a reply; panes come back as tombstones with their names,
//! lineage, session ids and a restored tail, and no process starts.

use crate::support::life::{Life, state_dir};
use crate::support::{Client, DEADLINE, str_field, wait_until};
use serde_json::{Value, json};

/// A workspace with two tabs; the first holds `a` (renamed `web`, split
/// right with `b`), `b` reports a Claude session. Returns (handle, a, b).
fn build_world(c: &mut Client, cwd: &std::path::Path) -> (String, String, String) {
    let ws = c.call_ok(
        "workspace.create",
        json!({"name": "Restore Me", "cwd": cwd}),
    );
    let handle = str_field(&ws["workspace"], "handle").to_owned();
    let a = c.call_ok(
        "pane.spawn",
        json!({"workspace_id": handle, "argv": ["sh", "-c", "echo before-the-restart; exec cat"]}),
    );
    let a = str_field(&a["pane"], "id").to_owned();
    let b = c.call_ok(
        "pane.split",
        json!({"pane_id": a, "argv": ["cat"], "direction": "right"}),
    );
    let b = str_field(&b["pane"], "id").to_owned();
    c.call_ok("pane.rename", json!({"pane_id": a, "name": "web"}));
    c.call_ok(
        "report-session",
        json!({"pane_id": b, "agent_session_id": "sess-restore-1", "agent": "claude"}),
    );
    c.call_ok(
        "tab.create",
        json!({"workspace_id": handle, "title": "second"}),
    );
    // The first pane's output is on its screen before the world is read.
    wait_until("the first pane's output", DEADLINE, || {
        let r = c.call_ok("pane.read", json!({"pane_id": a, "mode": "screen"}));
        str_field(&r, "text")
            .contains("before-the-restart")
            .then_some(())
    });
    (handle, a, b)
}

/// Waits until a snapshot has written `pane`'s tail holding `text`.
#[track_caller]
fn wait_saved_tail(life: &Life, pane: &str, text: &str) {
    let tail = state_dir(&life.env)
        .join("history")
        .join(format!("{pane}.tail"));
    wait_until(
        &format!("{pane}'s saved tail to hold {text:?}"),
        DEADLINE,
        || {
            std::fs::read_to_string(&tail)
                .ok()
                .filter(|t| t.contains(text))
        },
    );
}

/// What must come back: the workspace object, its tabs and its panes'
/// persisted fields (everything but what a restart changes by design).
fn world(c: &mut Client, handle: &str) -> Value {
    let got = c.call_ok("workspace.get", json!({"workspace_id": handle}));
    let mut panes: Vec<Value> = got["panes"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|p| {
            json!({
                "id": p["id"], "name": p["name"], "tab_id": p["tab_id"], "cwd": p["cwd"],
                "argv": p["argv"], "pty_size": p["pty_size"], "title": p["title"],
                "agent": {
                    "kind": p["agent"]["kind"],
                    "agent_session_id": p["agent"]["agent_session_id"],
                    "resume_argv": p["agent"]["resume_argv"],
                },
                "lifecycle": p["lifecycle"], "attention": p["attention"],
            })
        })
        .collect();
    panes.sort_by(|x, y| x["id"].as_str().cmp(&y["id"].as_str()));
    let ws = &got["workspace"];
    json!({
        "workspace": {"id": ws["id"], "name": ws["name"], "handle": ws["handle"], "cwd": ws["cwd"],
                      "tabs": ws["tabs"], "active_tab_id": ws["active_tab_id"]},
        "tabs": got["tabs"],
        "panes": panes,
    })
}

fn pane(c: &mut Client, id: &str) -> Value {
    c.call_ok("pane.get", json!({"pane_id": id}))["pane"].clone()
}

/// Whether the last snapshot before the restart held the panes' tails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tails {
    /// A snapshot with tails was written: the output comes back.
    Saved,
    /// Killed before any snapshot: the structure comes back from the journal,
    /// the screens only with their restore marker.
    NotYet,
}

#[track_caller]
fn check_restored(c: &mut Client, before: &Value, handle: &str, a: &str, b: &str, tails: Tails) {
    let after = world(c, handle);
    assert_eq!(&after, before, "the world after the restart differs");
    // No process started: both panes are tombstones with an unknown exit code.
    let pa = pane(c, a);
    let pb = pane(c, b);
    assert_eq!(pa["live"], json!({"state": "exited", "code": null}), "{pa}");
    assert_eq!(pb["live"], json!({"state": "exited", "code": null}), "{pb}");
    // A reported session makes the pane resumable; a plain command restored.
    assert_eq!(pa["restore_state"], "RESTORED", "{pa}");
    assert_eq!(pb["restore_state"], "RESUMABLE", "{pb}");
    // The name resolves as before.
    assert_eq!(pane(c, "web")["id"], a);
    // The terminal shows what the pane last showed, then a restore marker.
    let screen = c.call_ok(
        "pane.read",
        json!({"pane_id": "web", "mode": "tail", "lines": 50}),
    );
    let text = str_field(&screen, "text");
    if tails == Tails::Saved {
        assert!(text.contains("before-the-restart"), "{text}");
    }
    assert!(text.contains("restored by signaltty at"), "{text}");
}

#[test]
fn the_world_comes_back_after_a_sigkill_right_after_the_last_reply() {
    let mut life = Life::new(&[]);
    life.start();
    let cwd = life.env.home();
    let (handle, a, b, before) = {
        let mut c = life.client();
        let (handle, a, b) = build_world(&mut c, &cwd);
        let before = world(&mut c, &handle);
        (handle, a, b, before)
    };
    // No snapshot can have caught the last changes: the journal carries them.
    life.kill9();
    life.start();
    let mut c = life.client();
    check_restored(&mut c, &before, &handle, &a, &b, Tails::NotYet);
}

#[test]
fn the_world_comes_back_after_a_clean_stop_through_its_snapshot() {
    let mut life = Life::new(&[]);
    life.start();
    let cwd = life.env.home();
    let mut c = life.client();
    let (handle, a, b) = build_world(&mut c, &cwd);
    // A snapshot with its tails is written every 2 s when due: wait for one
    // that holds the first pane's tail, then stop cleanly.
    wait_saved_tail(&life, &a, "before-the-restart");
    // Read last: the panes' states may have moved meanwhile (a screen rule).
    let before = world(&mut c, &handle);
    drop(c);
    life.stop();
    let snapshot = state_dir(&life.env).join("snapshot.json");
    let saved: Value = serde_json::from_slice(&std::fs::read(&snapshot).unwrap()).unwrap();
    assert_eq!(saved["version"], 1, "{saved}");
    life.start();
    let mut c = life.client();
    check_restored(&mut c, &before, &handle, &a, &b, Tails::Saved);
    // And again: a tombstone of a tombstone is the same tombstone.
    drop(c);
    life.kill9();
    life.start();
    let mut c = life.client();
    assert_eq!(world(&mut c, &handle), before);
    assert_eq!(pane(&mut c, &b)["restore_state"], "RESUMABLE");
}

#[test]
fn a_pane_that_exited_before_the_restart_comes_back_exited_with_its_code() {
    let mut life = Life::new(&[]);
    life.start();
    let id = {
        let mut c = life.client();
        let ws = c.call_ok("workspace.create", json!({"name": "exits"}));
        let p = c.call_ok(
            "pane.spawn",
            json!({"workspace_id": ws["workspace"]["id"], "argv": ["sh", "-c", "exit 3"]}),
        );
        let id = str_field(&p["pane"], "id").to_owned();
        wait_until("the pane's exit", DEADLINE, || {
            let p = pane(&mut c, &id);
            (p["live"]["state"] == "exited").then_some(())
        });
        id
    };
    life.kill9();
    life.start();
    let mut c = life.client();
    let p = pane(&mut c, &id);
    assert_eq!(p["live"], json!({"state": "exited", "code": 3}), "{p}");
    assert_eq!(p["restore_state"], "EXITED", "{p}");
}

#[test]
fn what_was_closed_stays_closed_and_names_and_handles_stay_unique() {
    let mut life = Life::new(&[]);
    life.start();
    let cwd = life.env.home();
    let (handle, a) = {
        let mut c = life.client();
        let (handle, a, _) = build_world(&mut c, &cwd);
        let gone = c.call_ok("workspace.create", json!({"name": "Gone"}));
        c.call_ok(
            "workspace.close",
            json!({"workspace_id": gone["workspace"]["id"]}),
        );
        (handle, a)
    };
    life.kill9();
    life.start();
    let mut c = life.client();
    let list = c.call_ok("workspace.list", json!({}));
    let names: Vec<&str> = list["workspaces"]
        .as_array()
        .map(|ws| ws.iter().filter_map(|w| w["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(names, vec!["Restore Me"], "{list}");
    // The restored handle is taken, so a new workspace of that name gets the next one.
    let again = c.call_ok("workspace.create", json!({"name": "Restore Me"}));
    assert_ne!(str_field(&again["workspace"], "handle"), handle);
    // The restored name is taken too.
    let other = c.call_ok(
        "pane.spawn",
        json!({"workspace_id": handle, "argv": ["cat"]}),
    );
    let r = c.call(
        "pane.rename",
        json!({"pane_id": other["pane"]["id"], "name": "web"}),
    );
    assert!(!r.ok, "a restored pane's name must stay unique: {r:?}");
    // A restored pane can be closed like any other, and its name is free then.
    c.call_ok("pane.close", json!({"pane_id": a}));
    c.call_ok(
        "pane.rename",
        json!({"pane_id": other["pane"]["id"], "name": "web"}),
    );
}

#[test]
fn a_restored_plain_shell_resumes_in_its_cwd_on_request() {
    let mut life = Life::new(&[]);
    life.start();
    let cwd = life.env.home().join("project");
    std::fs::create_dir_all(&cwd).unwrap();
    let (id, cmd) = {
        let mut c = life.client();
        let ws = c.call_ok("workspace.create", json!({"name": "shells", "cwd": cwd}));
        // Options that run nothing still make an interactive shell.
        let p = c.call_ok(
            "pane.spawn",
            json!({"workspace_id": ws["workspace"]["id"], "argv": ["bash", "--norc", "--noprofile"]}),
        );
        let t = c.call_ok("tab.create", json!({"workspace_id": ws["workspace"]["id"]}));
        // A command is not run again by itself.
        let q = c.call_ok(
            "pane.spawn",
            json!({"workspace_id": ws["workspace"]["id"], "tab_id": t["tab"]["id"],
                   "argv": ["sh", "-c", "exec cat"]}),
        );
        (
            str_field(&p["pane"], "id").to_owned(),
            str_field(&q["pane"], "id").to_owned(),
        )
    };
    life.kill9();
    life.start();
    let mut c = life.client();
    assert_eq!(pane(&mut c, &id)["restore_state"], "RESUMABLE");
    assert_eq!(pane(&mut c, &cmd)["restore_state"], "RESTORED");
    // One count everywhere: the status, `signaltty status` and `restore`.
    let status = c.call_ok("server.status", json!({}));
    assert_eq!(status["restore"]["resumable"], 1, "{status}");
    assert_eq!(status["restore"]["restored"], 1, "{status}");
    let out = life.env.cli(&["status"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("restored 2 pane(s) waiting: 1 resumable"),
        "{text}"
    );
    // `signaltty restore` says what came back and how to resume it.
    let out = life.env.cli(&["restore"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("restored from the journal alone"), "{text}");
    assert!(
        text.contains("live 0  resumable 1  restored 1  exited 0"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "resume with its shell: signaltty pane resume {id}"
        )),
        "{text}"
    );
    assert_eq!(text.matches("signaltty pane resume").count(), 1, "{text}");
    let out = life.env.cli(&["--json", "restore"]);
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let panes = listed["workspaces"][0]["panes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let shell = panes.iter().find(|p| p["pane_id"] == id.as_str());
    assert_eq!(
        shell.map(|p| &p["resumable_as"]),
        Some(&json!("its shell")),
        "{listed}"
    );
    // The command's refusal talks about the command, not about an agent.
    let refused = c.call("pane.resume", json!({"pane_id": cmd}));
    let message = refused
        .error
        .as_ref()
        .map(|e| e.message.clone())
        .unwrap_or_default();
    assert!(
        message.contains("it ran `sh -c exec cat`, a command"),
        "{refused:?}"
    );
    assert!(!message.contains("agent reported"), "{message}");
    let resumed = c.call_ok("pane.resume", json!({"pane_id": id}));
    assert_eq!(resumed["pane"]["restore_state"], "LIVE", "{resumed}");
    assert_eq!(resumed["pane"]["live"]["state"], "live", "{resumed}");
    c.call_ok(
        "pane.input",
        json!({"pane_id": id, "data_b64": base64_of("echo \"here:$PWD\"\r")}),
    );
    let want = format!("here:{}", cwd.display());
    wait_until("the resumed shell's answer", DEADLINE, || {
        let r = c.call_ok(
            "pane.read",
            json!({"pane_id": id, "mode": "tail", "lines": 50}),
        );
        str_field(&r, "text").contains(&want).then_some(())
    });
    // Resumed once is live: a second resume is refused.
    let again = c.call("pane.resume", json!({"pane_id": id}));
    assert!(!again.ok, "{again:?}");
}

#[test]
fn a_session_live_in_another_pane_is_not_resumed_twice() {
    let mut life = Life::new(&[]);
    life.start();
    let mut c = life.client();
    let ws = c.call_ok("workspace.create", json!({"name": "twice"}));
    let live = c.call_ok(
        "pane.spawn",
        json!({"workspace_id": ws["workspace"]["id"], "argv": ["cat"]}),
    );
    let live = str_field(&live["pane"], "id").to_owned();
    let ended = c.call_ok(
        "pane.split",
        json!({"pane_id": live, "argv": ["sh", "-c", "exit 0"]}),
    );
    let ended = str_field(&ended["pane"], "id").to_owned();
    wait_until("the second pane's exit", DEADLINE, || {
        (pane(&mut c, &ended)["live"]["state"] == "exited").then_some(())
    });
    for p in [&live, &ended] {
        c.call_ok(
            "report-session",
            json!({"pane_id": p, "agent_session_id": "sess-twice", "agent": "claude"}),
        );
    }
    let r = c.call("pane.resume", json!({"pane_id": ended}));
    let error = r.error.clone().expect("an error");
    assert!(
        error.message.contains("already live") && error.message.contains(&live),
        "{r:?}"
    );
}

fn base64_of(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}

#[test]
fn a_corrupt_snapshot_is_moved_aside_said_loudly_and_the_journal_restores_the_world() {
    let mut life = Life::new(&[]);
    life.start();
    let handle = {
        let mut c = life.client();
        let ws = c.call_ok("workspace.create", json!({"name": "Still Here"}));
        c.call_ok(
            "pane.spawn",
            json!({"workspace_id": ws["workspace"]["id"], "argv": ["cat"]}),
        );
        str_field(&ws["workspace"], "handle").to_owned()
    };
    life.kill9();
    let dir = state_dir(&life.env);
    let garbage = b"{\"version\": 1, \"workspaces\": [ this is not json".to_vec();
    std::fs::write(dir.join("snapshot.json"), &garbage).unwrap();
    life.start();
    let mut c = life.client();
    // The world comes back from the journal alone.
    let got = c.call_ok("workspace.get", json!({"workspace_id": handle}));
    assert_eq!(got["panes"].as_array().map(Vec::len), Some(1), "{got}");
    // The unreadable file was moved aside, byte for byte, never overwritten.
    let moved: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("snapshot.corrupt-")
        })
        .collect();
    assert_eq!(
        moved.len(),
        1,
        "{:?}",
        std::fs::read_dir(&dir).unwrap().collect::<Vec<_>>()
    );
    assert_eq!(std::fs::read(moved[0].path()).unwrap(), garbage);
    // It is said where a person looks: server.status and `signaltty status`.
    let status = c.call_ok("server.status", json!({}));
    let problem = str_field(&status["restore"], "problem");
    assert!(problem.contains("snapshot.corrupt-"), "{status}");
    assert_eq!(status["restore"]["restored"], 1, "{status}");
    let out = life.env.cli(&["status"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("! restore: unreadable snapshot"), "{text}");
    assert!(
        text.contains("restored 1 pane(s) waiting: 0 resumable"),
        "{text}"
    );
    let out = life.env.cli(&["pane", "list", &handle]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[exited, restored]"), "{text}");
    // At the next start it is no news any more, but the kept file is still said.
    drop(c);
    life.stop();
    life.start();
    let mut c = life.client();
    let status = c.call_ok("server.status", json!({}));
    assert!(status["restore"]["problem"].is_null(), "{status}");
    let kept = status["restore"]["set_aside"][0]
        .as_str()
        .unwrap_or_default();
    assert!(kept.contains("snapshot.corrupt-"), "{status}");
    let out = life.env.cli(&["status"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("! kept for you to look at:"), "{text}");
}

#[test]
fn a_corrupt_snapshot_without_a_journal_that_proves_the_world_starts_empty_and_says_so() {
    let mut life = Life::new(&[]);
    life.start();
    {
        let mut c = life.client();
        c.call_ok("workspace.create", json!({"name": "Lost"}));
    }
    life.stop();
    let dir = state_dir(&life.env);
    // Both generations unreadable, and the journal's files gone: nothing can
    // prove the world (docs/persistence.md#loading-a-snapshot).
    std::fs::write(dir.join("snapshot.json"), b"{ torn").unwrap();
    let _ = std::fs::remove_file(dir.join("snapshot.json.1"));
    for name in ["audit.jsonl", "audit.jsonl.1"] {
        let _ = std::fs::remove_file(dir.join(name));
    }
    life.start();
    let mut c = life.client();
    let list = c.call_ok("workspace.list", json!({}));
    assert_eq!(
        list["workspaces"].as_array().map(Vec::len),
        Some(0),
        "{list}"
    );
    let status = c.call_ok("server.status", json!({}));
    let problem = str_field(&status["restore"], "problem");
    assert!(problem.contains("snapshot.corrupt-"), "{status}");
    let kept = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("snapshot.corrupt-")
        })
        .map(|e| std::fs::read(e.path()).unwrap())
        .collect::<Vec<_>>();
    assert_eq!(
        kept,
        vec![b"{ torn".to_vec()],
        "the bad file is kept as it was"
    );
}

#[test]
fn a_missing_history_dir_or_a_stray_tail_costs_only_the_screens_and_old_cursors_read_dropped() {
    let mut life = Life::new(&[]);
    life.start();
    let cwd = life.env.home();
    let mut c = life.client();
    let (handle, a, b) = build_world(&mut c, &cwd);
    wait_saved_tail(&life, &a, "before-the-restart");
    let cursor = c.call_ok(
        "pane.read",
        json!({"pane_id": a, "mode": "rendered", "lines": 50}),
    )["next_seq"]
        .as_u64()
        .unwrap_or(0);
    let before = world(&mut c, &handle);
    drop(c);
    life.stop();
    let history = state_dir(&life.env).join("history");
    std::fs::remove_dir_all(&history).unwrap();
    life.start();
    let mut c = life.client();
    check_restored(&mut c, &before, &handle, &a, &b, Tails::NotYet);
    // A cursor handed out before the restart reads as dropped
    // (docs/restore.md#tombstones).
    let read = c.call_ok(
        "pane.read",
        json!({"pane_id": a, "mode": "rendered", "after_seq": cursor, "lines": 50}),
    );
    assert_eq!(read["dropped"], true, "{read}");
    // A tail whose pane is gone is ignored at the next start.
    drop(c);
    life.stop();
    std::fs::create_dir_all(&history).unwrap();
    std::fs::write(
        history.join("pane_0000000000000000000000000000dead.tail"),
        "stray",
    )
    .unwrap();
    life.start();
    let mut c = life.client();
    assert_eq!(world(&mut c, &handle), before);
}

#[test]
fn a_snapshot_of_an_unknown_version_is_moved_aside_not_overwritten() {
    let mut life = Life::new(&[]);
    life.start();
    life.stop();
    let dir = state_dir(&life.env);
    let newer = br#"{"version": 2, "workspaces": [], "from_the_future": true}"#.to_vec();
    std::fs::write(dir.join("snapshot.json"), &newer).unwrap();
    life.start();
    let mut c = life.client();
    let status = c.call_ok("server.status", json!({}));
    assert!(
        str_field(&status["restore"], "problem").contains("unknown version 2"),
        "{status}"
    );
    // A new snapshot is written beside it, and the newer file is kept intact.
    c.call_ok("workspace.create", json!({"name": "after"}));
    wait_until("a new snapshot", DEADLINE, || {
        let s: Value =
            serde_json::from_slice(&std::fs::read(dir.join("snapshot.json")).ok()?).ok()?;
        (s["version"] == 1 && s["workspaces"].as_array().is_some_and(|w| !w.is_empty()))
            .then_some(())
    });
    let kept: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("snapshot.unsupported-")
        })
        .collect();
    assert_eq!(kept.len(), 1);
    assert_eq!(std::fs::read(kept[0].path()).unwrap(), newer);
}

/// A small seeded generator (xorshift64*), so a failing run can be repeated.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// What the replies said the world is: workspace handles, and per pane its
/// workspace, name and session.
#[derive(Debug, Default)]
struct Expected {
    workspaces: std::collections::BTreeMap<String, String>,
    panes: std::collections::BTreeMap<String, (String, Option<String>, Option<String>)>,
}

/// One random structural change; the model follows only a successful reply.
fn random_change(c: &mut Client, rng: &mut Rng, model: &mut Expected, n: usize) {
    let pane_ids: Vec<String> = model.panes.keys().cloned().collect();
    let pick = |rng: &mut Rng| pane_ids[rng.below(pane_ids.len() as u64) as usize].clone();
    match rng.below(6) {
        0 => {
            let ws = c.call_ok("workspace.create", json!({"name": format!("Random {n}")}));
            let id = str_field(&ws["workspace"], "id").to_owned();
            model
                .workspaces
                .insert(id, str_field(&ws["workspace"], "handle").to_owned());
        },
        1 if !model.workspaces.is_empty() => {
            let ids: Vec<&String> = model.workspaces.keys().collect();
            let ws = ids[rng.below(ids.len() as u64) as usize].clone();
            let r = c.call("pane.spawn", json!({"workspace_id": ws, "argv": ["cat"]}));
            if let Some(p) = r.result {
                model
                    .panes
                    .insert(str_field(&p["pane"], "id").to_owned(), (ws, None, None));
            }
        },
        2 if !pane_ids.is_empty() => {
            let source = pick(rng);
            let p = c.call_ok("pane.split", json!({"pane_id": source, "argv": ["cat"]}));
            let ws = model.panes[&source].0.clone();
            model
                .panes
                .insert(str_field(&p["pane"], "id").to_owned(), (ws, None, None));
        },
        3 if !pane_ids.is_empty() => {
            let id = pick(rng);
            let name = format!("p{n}");
            c.call_ok("pane.rename", json!({"pane_id": id, "name": name}));
            if let Some(entry) = model.panes.get_mut(&id) {
                entry.1 = Some(name);
            }
        },
        4 if !pane_ids.is_empty() => {
            let id = pick(rng);
            let session = format!("sess-{n}");
            c.call_ok(
                "report-session",
                json!({"pane_id": id, "agent_session_id": session, "agent": "codex"}),
            );
            if let Some(entry) = model.panes.get_mut(&id) {
                entry.2 = Some(session);
            }
        },
        5 if pane_ids.len() > 2 => {
            let id = pick(rng);
            c.call_ok("pane.close", json!({"pane_id": id}));
            model.panes.remove(&id);
        },
        _ => {
            let ws = c.call_ok("workspace.create", json!({"name": format!("Random {n}")}));
            let id = str_field(&ws["workspace"], "id").to_owned();
            model
                .workspaces
                .insert(id, str_field(&ws["workspace"], "handle").to_owned());
        },
    }
}

#[track_caller]
fn check_model(c: &mut Client, model: &Expected, round: usize, seed: u64) {
    for (id, handle) in &model.workspaces {
        let got = c.call("workspace.get", json!({"workspace_id": id}));
        let Some(got) = got.result else {
            panic!("round {round} (seed {seed}): workspace {id} ({handle}) is gone");
        };
        assert_eq!(
            got["workspace"]["handle"],
            handle.as_str(),
            "round {round} seed {seed}"
        );
    }
    for (id, (ws, name, session)) in &model.panes {
        let p = c.call("pane.get", json!({"pane_id": id}));
        let Some(p) = p.result else {
            panic!("round {round} (seed {seed}): pane {id} is gone");
        };
        let p = &p["pane"];
        assert_eq!(
            p["workspace_id"],
            ws.as_str(),
            "round {round} seed {seed}: {p}"
        );
        assert_eq!(
            p["name"].as_str(),
            name.as_deref(),
            "round {round} seed {seed}: {p}"
        );
        assert_eq!(
            p["agent"]["agent_session_id"].as_str(),
            session.as_deref(),
            "round {round} seed {seed}: {p}"
        );
    }
}

#[test]
fn every_change_that_had_a_reply_survives_sigkill_at_any_moment() {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(7, |d| d.as_nanos() as u64)
        | 1;
    let mut rng = Rng(seed);
    let mut life = Life::new(&[]);
    let mut model = Expected::default();
    let mut n = 0;
    for round in 0..7 {
        life.start();
        let mut c = life.client();
        check_model(&mut c, &model, round, seed);
        let changes = 5 + rng.below(15) as usize;
        for _ in 0..changes {
            n += 1;
            random_change(&mut c, &mut rng, &mut model, n);
        }
        // Killed at once, or within 50 ms of the last reply, or while a
        // snapshot may be being written (after 2 s).
        match round % 3 {
            0 => {},
            1 => std::thread::sleep(std::time::Duration::from_millis(rng.below(50))),
            _ => std::thread::sleep(std::time::Duration::from_millis(1900 + rng.below(300))),
        }
        drop(c);
        life.kill9();
    }
    life.start();
    let mut c = life.client();
    check_model(&mut c, &model, 7, seed);
}

/// The seq of `snapshot.json`, if there is one.
fn snapshot_seq(life: &Life) -> Option<u64> {
    let bytes = std::fs::read(state_dir(&life.env).join("snapshot.json")).ok()?;
    serde_json::from_slice::<Value>(&bytes).ok()?["seq"].as_u64()
}

/// Renames `pane` `count` times (`{prefix}0` … ); returns the last name.
fn renames(c: &mut Client, pane: &str, prefix: &str, count: usize) -> String {
    let mut last = String::new();
    for i in 0..count {
        last = format!("{prefix}{i}");
        c.call_ok("pane.rename", json!({"pane_id": pane, "name": last}));
    }
    last
}

/// The titles of the notifications in `snapshot.json`, oldest first, once a
/// snapshot at or past `seq` is written.
fn saved_notifications(life: &Life, seq: u64) -> Vec<String> {
    wait_until("a snapshot at the head", DEADLINE, || {
        snapshot_seq(life).filter(|s| *s >= seq).map(|_| ())
    });
    let bytes = std::fs::read(state_dir(&life.env).join("snapshot.json")).unwrap_or_default();
    let saved: Value = serde_json::from_slice(&bytes).unwrap_or_default();
    saved["notifications"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|n| str_field(n, "title").to_owned())
        .collect()
}

#[test]
fn notifications_survive_a_sigkill_and_a_clean_restart_in_order() {
    let mut life = Life::new(&[]);
    life.start();
    let cwd = life.env.home();
    let mut c = life.client();
    let (_, a, _) = build_world(&mut c, &cwd);
    for title in ["build failed", "tests pass", "review ready"] {
        c.call_ok(
            "notify",
            json!({"pane_id": a, "title": title, "body": "details"}),
        );
    }
    // No snapshot can have seen them yet: they come back from the journal.
    drop(c);
    life.kill9();
    life.start();
    let head = life.client().call_ok("server.status", json!({}))["seq"]
        .as_u64()
        .unwrap_or(0);
    let expected = ["build failed", "tests pass", "review ready"];
    assert_eq!(saved_notifications(&life, head), expected);
    // And from the snapshot alone: a change after a clean restart makes the
    // stop write a new snapshot, which still holds them.
    life.stop();
    life.start();
    life.client()
        .call_ok("pane.rename", json!({"pane_id": a, "name": "after"}));
    life.stop();
    assert_eq!(saved_notifications(&life, head + 1), expected);
}

#[test]
fn the_journal_rotating_between_snapshots_loses_nothing_at_a_sigkill() {
    // 16 KiB files: each phase of renames (about 1 KiB of journal each) wants
    // a rotation, which waits for the snapshot that covers what it discards.
    let mut life = Life::new(&["--journal-rotate-bytes", "16384"]);
    life.start();
    let cwd = life.env.home();
    let mut c = life.client();
    let (handle, a, _) = build_world(&mut c, &cwd);
    for phase in 0..3 {
        renames(&mut c, &a, &format!("r{phase}-"), 30);
        let head = c.call_ok("server.status", json!({}))["seq"]
            .as_u64()
            .unwrap_or(0);
        wait_until("a snapshot at the head", DEADLINE, || {
            snapshot_seq(&life).filter(|s| *s >= head).map(|_| ())
        });
    }
    let last = renames(&mut c, &a, "final-", 25);
    let before = world(&mut c, &handle);
    drop(c);
    life.kill9();
    let dir = state_dir(&life.env);
    assert!(
        dir.join("audit.jsonl.1").exists(),
        "the journal never rotated"
    );
    life.start();
    let mut c = life.client();
    assert_eq!(world(&mut c, &handle), before);
    assert_eq!(pane(&mut c, &a)["name"], last.as_str());
    let status = c.call_ok("server.status", json!({}));
    assert!(status["restore"]["problem"].is_null(), "{status}");
}

#[test]
fn a_burst_past_the_hard_cap_says_exactly_what_the_restore_could_not_prove() {
    // 4 KiB files, and no snapshot but the one a clean stop writes: a burst
    // far past four files makes the rotation go ahead to keep the disk
    // bounded, and the restore after a SIGKILL says what it could not prove.
    let mut life = Life::new(&[
        "--journal-rotate-bytes",
        "4096",
        "--snapshot-interval-ms",
        "3600000",
    ]);
    life.start();
    let cwd = life.env.home();
    let (handle, a) = {
        let mut c = life.client();
        let (handle, a, _) = build_world(&mut c, &cwd);
        (handle, a)
    };
    life.stop();
    assert!(
        snapshot_seq(&life).is_some(),
        "a clean stop writes the snapshot"
    );
    life.start();
    let mut c = life.client();
    renames(&mut c, &a, "burst-", 80);
    drop(c);
    life.kill9();
    life.start();
    let mut c = life.client();
    let status = c.call_ok("server.status", json!({}));
    let problem = str_field(&status["restore"], "problem");
    assert!(
        problem.contains("the journal holds events only after seq"),
        "{status}"
    );
    // What the snapshot holds is back all the same.
    let got = c.call_ok("workspace.get", json!({"workspace_id": handle}));
    assert_eq!(got["panes"].as_array().map(Vec::len), Some(2), "{got}");
}

#[test]
fn two_hundred_panes_in_twenty_workspaces_come_back_with_their_layouts_and_tails() {
    let mut life = Life::new(&[]);
    life.start();
    let mut c = life.client();
    let mut handles = Vec::new();
    let mut last_pane = String::new();
    for w in 0..20 {
        let ws = c.call_ok("workspace.create", json!({"name": format!("fleet {w}")}));
        handles.push(str_field(&ws["workspace"], "handle").to_owned());
        let first = c.call_ok(
            "pane.spawn",
            json!({"workspace_id": ws["workspace"]["id"], "argv": ["sh", "-c", format!("echo pane-{w}-0; exec cat")]}),
        );
        let first = str_field(&first["pane"], "id").to_owned();
        for p in 1..10 {
            let dir = if p % 2 == 0 { "down" } else { "right" };
            let next = c.call_ok(
                "pane.split",
                json!({"pane_id": first, "direction": dir, "argv": ["sh", "-c", format!("echo pane-{w}-{p}; exec cat")]}),
            );
            last_pane = str_field(&next["pane"], "id").to_owned();
        }
    }
    // The last pane's output has reached a snapshot's tail.
    wait_saved_tail(&life, &last_pane, "pane-19-9");
    let before: Vec<Value> = handles.iter().map(|h| world(&mut c, h)).collect();
    drop(c);
    life.kill9();
    life.start();
    let mut c = life.client();
    let after: Vec<Value> = handles.iter().map(|h| world(&mut c, h)).collect();
    assert_eq!(after, before);
    let status = c.call_ok("server.status", json!({}));
    assert_eq!(status["panes"], 200, "{status}");
    assert_eq!(status["restore"]["restored"], 200, "{status}");
    let r = c.call_ok(
        "pane.read",
        json!({"pane_id": last_pane, "mode": "tail", "lines": 20}),
    );
    assert!(str_field(&r, "text").contains("pane-19-9"), "{r}");
}

/// A `claude` that resumes anything and waits: enough to be auto-resumed.
fn fake_claude(life: &mut Life) -> std::path::PathBuf {
    let bin = life.env.root().join("fake-bin");
    let script = bin.join("claude");
    let written = std::fs::create_dir_all(&bin)
        .and_then(|()| std::fs::write(&script, "#!/bin/sh\necho \"resumed $*\"\nexec cat\n"));
    if let Err(e) = written {
        panic!("cannot write the fake claude: {e}");
    }
    crate::support::process::set_mode(&script, 0o755);
    let path = std::env::var("PATH").unwrap_or_default();
    life.env
        .set_var("PATH", format!("{}:{path}", bin.display()));
    bin
}

#[test]
fn a_resume_that_cannot_launch_fails_and_leaves_the_tombstone_and_its_tail() {
    let mut life = Life::new(&[]);
    let bin = fake_claude(&mut life);
    life.start();
    let mut c = life.client();
    let ws = c.call_ok("workspace.create", json!({"name": "gone agent"}));
    let p = c.call_ok(
        "pane.spawn",
        json!({"workspace_id": ws["workspace"]["id"], "argv": [bin.join("claude")]}),
    );
    let p = str_field(&p["pane"], "id").to_owned();
    c.call_ok(
        "pane.input",
        json!({"pane_id": p, "data_b64": base64_of("last words\r")}),
    );
    c.call_ok(
        "report-session",
        json!({"pane_id": p, "agent_session_id": "sess-gone", "agent": "claude"}),
    );
    wait_saved_tail(&life, &p, "last words");
    drop(c);
    life.kill9();
    // The agent was uninstalled meanwhile.
    std::fs::remove_file(bin.join("claude")).unwrap();
    life.start();
    let mut c = life.client();
    let r = c.call("pane.resume", json!({"pane_id": p}));
    let error = r.error.clone().expect("the launch fails");
    assert_eq!(
        error.code,
        signaltty_protocol::ErrorCode::SpawnFailed,
        "{r:?}"
    );
    let after = pane(&mut c, &p);
    assert_eq!(after["restore_state"], "RESUMABLE", "{after}");
    assert_eq!(after["live"]["state"], "exited", "{after}");
    let read = c.call_ok(
        "pane.read",
        json!({"pane_id": p, "mode": "tail", "lines": 50}),
    );
    let text = str_field(&read, "text");
    assert!(
        text.contains("last words") && text.contains("restored by signaltty"),
        "{text}"
    );
}

#[test]
fn auto_resume_starts_an_opted_in_workspaces_agents_a_few_at_a_time() {
    let mut life = Life::new(&[]);
    fake_claude(&mut life);
    life.start();
    let (on, off, on_panes, off_pane) = {
        let mut c = life.client();
        let on = c.call_ok("workspace.create", json!({"name": "auto on"}));
        let on = str_field(&on["workspace"], "id").to_owned();
        let off = c.call_ok("workspace.create", json!({"name": "auto off"}));
        let off = str_field(&off["workspace"], "id").to_owned();
        let first = c.call_ok("pane.spawn", json!({"workspace_id": on, "argv": ["cat"]}));
        let first = str_field(&first["pane"], "id").to_owned();
        let mut on_panes = vec![first.clone()];
        for _ in 0..5 {
            let p = c.call_ok("pane.split", json!({"pane_id": first, "argv": ["cat"]}));
            on_panes.push(str_field(&p["pane"], "id").to_owned());
        }
        let off_pane = c.call_ok("pane.spawn", json!({"workspace_id": off, "argv": ["cat"]}));
        let off_pane = str_field(&off_pane["pane"], "id").to_owned();
        for (i, p) in on_panes.iter().chain([&off_pane]).enumerate() {
            c.call_ok(
                "report-session",
                json!({"pane_id": p, "agent_session_id": format!("auto-{i}"), "agent": "claude"}),
            );
        }
        let set = c.call_ok(
            "workspace.set_auto_resume",
            json!({"workspace_id": on, "auto_resume": true}),
        );
        assert_eq!(set["workspace"]["auto_resume"], true, "{set}");
        (on, off, on_panes, off_pane)
    };
    life.kill9();
    life.start();
    let mut c = life.client();
    // Every pane of the opted-in workspace comes back live, with its session.
    for p in &on_panes {
        wait_until("an auto-resumed pane", DEADLINE, || {
            let got = pane(&mut c, p);
            (got["restore_state"] == "LIVE").then_some(())
        });
        // Its exact session was resumed: the command's words are on screen.
        wait_until("the resumed agent's output", DEADLINE, || {
            let r = c.call_ok(
                "pane.read",
                json!({"pane_id": p, "mode": "tail", "lines": 20}),
            );
            str_field(&r, "text")
                .contains("resumed --resume auto-")
                .then_some(())
        });
    }
    // The other workspace's agent waits for a person.
    assert_eq!(pane(&mut c, &off_pane)["restore_state"], "RESUMABLE");
    let _ = (on, off);
    // Never more than three were starting at once: from its resumed
    // pane.created until its first prompt (or exit), in seq order.
    let reply = c.call_ok(
        "subscribe",
        json!({"from_seq": 0, "events": ["pane.created", "agent.*"]}),
    );
    let returned = reply["replay"]["returned"].as_u64().unwrap_or(0);
    let frames: Vec<_> = (0..returned).map(|_| c.next_event()).collect();
    let mut starting = std::collections::BTreeSet::new();
    let mut most = 0;
    for f in &frames {
        // `pane.created` names its pane inside the pane object.
        let pane_id = f.payload["pane_id"]
            .as_str()
            .or_else(|| f.payload["pane"]["id"].as_str())
            .unwrap_or_default()
            .to_owned();
        if f.event == "pane.created" && f.payload["resumed"] == true {
            starting.insert(pane_id);
            most = most.max(starting.len());
        } else if [
            "agent.idle",
            "agent.blocked",
            "agent.done",
            "agent.failed",
            "agent.exited",
        ]
        .contains(&f.event.as_str())
        {
            starting.remove(&pane_id);
        }
    }
    eprintln!("auto-resume: at most {most} starting at once");
    assert!((1..=3).contains(&most), "{most} were starting at once");
}

/// Forty panes print a full tail each (3 MB, past one save's 2 MiB budget
/// for whole files) and then nothing happens: the saves that follow the
/// first one at once still write every tail (docs/persistence.md), so after
/// a SIGKILL each pane comes back showing its last line.
#[test]
fn a_burst_of_full_tails_past_one_saves_budget_is_saved_by_the_next_ones() {
    let mut life = Life::new(&[]);
    life.env.set_var("SIGNALTTY_LOG", "debug");
    life.start();
    let mut c = life.client();
    let ws = c.call_ok("workspace.create", json!({"name": "burst"}));
    let mut panes = Vec::new();
    for n in 0..40 {
        let script = format!(
            "seq -f 'pane {n} line %06g of a full tail' 1 2500; echo burst-{n}-end; exec cat"
        );
        let tab = c.call_ok("tab.create", json!({"workspace_id": ws["workspace"]["id"]}));
        let pane = c.call_ok(
            "pane.spawn",
            json!({"workspace_id": ws["workspace"]["id"], "tab_id": tab["tab"]["id"],
                   "argv": ["sh", "-c", script]}),
        );
        panes.push(str_field(&pane["pane"], "id").to_owned());
    }
    for (n, pane) in panes.iter().enumerate() {
        wait_saved_tail(&life, pane, &format!("burst-{n}-end"));
    }
    let log = std::fs::read_to_string(life.env.root().join("server-1.stderr"))
        .unwrap_or_else(|e| panic!("the server's log: {e}"));
    assert!(
        log.lines().any(|l| l.contains("snapshot at seq")
            && !l.contains(" 0 deferred")
            && l.contains(" deferred")),
        "no save left tails to the next one:\n{log}"
    );
    drop(c);
    life.kill9();
    life.start();
    let mut c = life.client();
    for (n, pane) in panes.iter().enumerate() {
        let r = c.call_ok(
            "pane.read",
            json!({"pane_id": pane, "mode": "tail", "lines": 5}),
        );
        assert!(
            str_field(&r, "text").contains(&format!("burst-{n}-end")),
            "{pane}: {r}"
        );
    }
}
