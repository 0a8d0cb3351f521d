//! The folder-trust gate an agent shows when started in a folder it does not
//! know (docs/screen-rules.md#a-trust-gate-is-a-question): the pane is
//! `blocked` with `input_required`, read from the screen (no hook runs before
//! the folder is trusted); answered in the terminal, the agent gets ready and
//! the pane is `idle` with nothing to read. The other rigs accept the trust
//! beforehand; these take it away. Codex's gate (hook trust) is in the
//! resume tests.

use super::{Rig, agent_bin, press, wait_ready, wait_screen, wait_state, wait_until};
use serde_json::{Value, json};

/// Starts `program` in a pane of `rig`, its hooks installed as `agent`'s,
/// and answers its trust gate (`gate` on screen, read by `rule`) with
/// `keys`: blocked, then ready at `hint`, idle with nothing to read.
fn trust_gate_is_a_question(
    rig: &Rig,
    agent: &str,
    gate: &str,
    rule: &str,
    keys: &str,
    hint: &str,
) {
    rig.install_hooks(agent);
    let mut c = rig.server.client();
    let pane = rig.spawn(&mut c, json!([agent_bin(agent)]));
    wait_screen(&mut c, &pane, gate);
    let blocked = wait_state(&mut c, &pane, "blocked");
    assert_eq!(blocked["attention"], "input_required", "{blocked}");
    press(&mut c, &pane, keys);
    let idle = wait_ready(&mut c, &pane, hint);
    let life = rig.watch.until_idle(&pane);
    let blocked_by = life
        .iter()
        .find(|(_, name, _)| name == "blocked")
        .map(|(_, _, source)| source.clone());
    assert_eq!(blocked_by, Some(format!("screen:{rule}")), "{life:?}");
    let p = wait_until("nothing left to read", super::LONG, || {
        let p = crate::support::ok(c.call("pane.get", json!({"pane_id": pane})));
        (p["pane"]["attention"] == "none" && p["pane"]["lifecycle"] == "idle").then_some(p)
    });
    assert_eq!(p["pane"]["attention"], "none", "{idle} {p}");
}

/// Turns folder trust on in `<home>/<dir>/settings.json` (Gemini's and
/// Qwen's settings).
fn folder_trust_on(rig: &Rig, dir: &str) {
    let path = rig.home.join(dir).join("settings.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut settings: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    settings["security"]["folderTrust"] = json!({"enabled": true});
    std::fs::write(&path, settings.to_string()).unwrap_or_else(|e| panic!("{e}"));
}

/// Claude Code asks whether the folder is one you trust, "No, exit"
/// preselected: Down, then Enter.
#[test]
fn claude_folder_trust_gate_blocks_until_answered() {
    let rig = super::claude_rig();
    let state = rig.home.join(".claude").join(".claude.json");
    let text = std::fs::read_to_string(&state).unwrap_or_else(|e| panic!("{e}"));
    let mut v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    v["projects"] = json!({});
    std::fs::write(&state, v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    trust_gate_is_a_question(
        &rig,
        "claude",
        "Yes, I trust this folder",
        "live_blocked_form",
        "\x1b[B\r",
        "? for shortcuts",
    );
}

/// Gemini CLI with folder trust on: "1. Trust folder" preselected; it
/// restarts to apply it, below the answered dialog.
#[test]
fn gemini_folder_trust_gate_blocks_until_answered() {
    let rig = super::gemini_rig();
    folder_trust_on(&rig, ".gemini");
    trust_gate_is_a_question(
        &rig,
        "gemini",
        "Trust folder",
        "folder_trust",
        "\r",
        "Type your message",
    );
}

/// Qwen Code with folder trust on: "1. Trust folder" preselected; it ends
/// its session and starts a new one to apply it.
#[test]
fn qwen_folder_trust_gate_blocks_until_answered() {
    let rig = super::qwen::qwen_rig();
    folder_trust_on(&rig, ".qwen");
    trust_gate_is_a_question(
        &rig,
        "qwen",
        "Trust folder",
        "folder_trust",
        "\r",
        "Type your message",
    );
}
