//! A turn interrupted with Esc before the agent answered. Claude Code fires
//! no hook for it (no `Stop`), puts the prompt back into its input box and
//! says nothing, so a pane its hooks made `working` stayed working until the
//! next prompt. Claude's rules include an `interrupted` reading, which has
//! the screen of its hooked, working pane looked at: the prompt back for
//! 1.5 s with no hook makes the pane `idle` (an interrupted turn has nothing
//! to read), and the next prompt is a turn like any other. Codex reports the
//! same Esc with its own `Interrupt` hook.

use super::{agent_bin, claude_rig, press, submit, wait_screen, wait_state, wait_until};
use crate::support::{ok, str_field};
use serde_json::json;

#[test]
fn claude_interrupted_before_it_answers_reads_idle_with_its_hooks() {
    let rig = claude_rig();
    // A model slow enough that the turn is surely mid-way when Esc comes.
    rig.model.set(json!({"delay": 30.0, "final_delay": 0.3}));
    let (mut c, pane) = rig.ready("claude", json!([agent_bin("claude")]), "? for shortcuts");
    // The screen overrides hooks only on a checked version, which the
    // process refresh learns within 10 s of the start.
    wait_until("the version to be known", super::LONG, || {
        let p = ok(c.call("pane.get", json!({"pane_id": pane})));
        (p["pane"]["agent"]["fidelity"] == "checked").then_some(())
    });
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    wait_screen(&mut c, &pane, "esc to interrupt");
    press(&mut c, &pane, "\x1b");
    let idle = wait_state(&mut c, &pane, "idle");
    assert_eq!(idle["attention"], "none", "{idle}");
    let explain = ok(c.call("pane.explain", json!({"pane_id": pane})));
    assert_eq!(explain["hooked"], true, "{explain}");
    let source = str_field(&explain["lifecycle"], "source");
    assert_eq!(source, "screen:live_prompt_box", "{explain}");
    // The prompt is back in Claude's input box: Enter sends it again, a
    // turn like any other.
    rig.model.set(json!({"delay": 2.0, "final_delay": 0.3}));
    press(&mut c, &pane, "\r");
    wait_state(&mut c, &pane, "working");
    let d = super::pending_decision(&mut c, &pane);
    super::allow_once_and_finish(&rig, &mut c, &pane, &d);
}

/// Codex reports Esc mid-turn itself: its `Interrupt` hook ends the turn
/// `idle`, with nothing to read.
#[test]
fn codex_interrupted_before_it_answers_reads_idle_by_its_hook() {
    let rig = super::codex_rig();
    rig.model.set(json!({"delay": 30.0, "final_delay": 0.3}));
    let (mut c, pane) = rig.ready("codex", super::codex_argv(), "Ask Codex to do anything");
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    wait_screen(&mut c, &pane, "esc to interrupt");
    press(&mut c, &pane, "\x1b");
    let idle = wait_until("the interrupt to end the turn", super::LONG, || {
        let p = ok(c.call("pane.get", json!({"pane_id": pane})));
        (p["pane"]["lifecycle"] == "idle").then(|| p["pane"].clone())
    });
    assert_eq!(idle["attention"], "none", "{idle}");
    let life = rig.watch.lifecycle(&pane);
    assert_eq!(
        life.last().map(|(_, _, source)| source.as_str()),
        Some("hook:codex:Interrupt"),
        "{life:?}"
    );
}
