//! A turn interrupted with Esc before the agent answered. Claude Code fires
//! no hook for it (no `Stop`), puts the prompt back into its input box and
//! says nothing, so a pane its hooks made `working` stayed working until the
//! next prompt. Claude's rules include an `interrupted` reading, which has
//! the screen of its hooked, working pane looked at: the prompt back for
//! 1.5 s with no hook makes the pane `idle` (an interrupted turn has nothing
//! to read), and the next prompt is a turn like any other. Codex reports the
//! same Esc with its own `Interrupt` hook.
//!
//! Every other agent is checked the same way, each in two panes side by
//! side: one whose hooks report, one read from its screen alone
//! (docs/screen-rules.md#an-interrupted-turn-is-idle has what each says).

use super::{agent_bin, claude_rig, press, submit, wait_screen, wait_state, wait_until};
use crate::support::client::Client;
use crate::support::{ok, str_field};
use serde_json::{Value, json};

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

/// An agent as the interrupt tests drive it.
struct Agent {
    /// Its name for `signaltty integration install`, when it has hooks.
    hooks: Option<&'static str>,
    rig: fn() -> super::Rig,
    program: &'static str,
    /// Its arguments.
    args: &'static [&'static str],
    /// What its input box shows when it takes a prompt.
    ready: &'static str,
    /// What it shows while a turn runs.
    busy: &'static str,
    /// The source of the hooked pane's last state: the hook that said the
    /// turn was interrupted, or the screen rule that read it.
    hooked_source: &'static str,
    /// The rule that reads the interrupted turn from the screen alone, if
    /// one can.
    screen_rule: Option<&'static str>,
    /// What it draws last while it starts, before it reads keys, if the
    /// input box comes earlier.
    drawn: Option<&'static str>,
    /// Esc must be pressed twice (OpenCode's first Esc only arms it).
    esc_twice: bool,
}

/// Starts `agent` in a pane, its hooks reporting, or (`reported` false)
/// pointed at a socket where no server listens: read from its screen alone.
fn start(rig: &super::Rig, agent: &Agent, reported: bool) -> (Client, String) {
    let mut argv = vec![json!(agent_bin(agent.program))];
    argv.extend(agent.args.iter().map(|a| json!(a)));
    if !reported {
        let nowhere = rig.home.join("nowhere.sock");
        argv.insert(0, json!(format!("SIGNALTTY_SOCKET={}", nowhere.display())));
        argv.insert(0, json!("env"));
    }
    let mut c = rig.server.client();
    let pane = rig.spawn(&mut c, json!(argv));
    if let Some(drawn) = agent.drawn {
        wait_screen(&mut c, &pane, drawn);
    }
    super::wait_ready(&mut c, &pane, agent.ready);
    (c, pane)
}

/// A turn interrupted with Esc while the model has not answered: the pane
/// ends `idle` with nothing to read, never `done` or `failed`, with its
/// hooks and from its screen alone (the two panes run side by side on one
/// server and one model).
fn interrupted_turn_reads_idle(agent: &Agent) {
    let rig = (agent.rig)();
    rig.model.set(json!({"delay": 30.0, "final_delay": 0.3}));
    if let Some(name) = agent.hooks {
        rig.install_hooks(name);
    }
    let mut panes = Vec::new();
    for reported in [true, false] {
        if (reported && agent.hooks.is_none()) || (!reported && agent.screen_rule.is_none()) {
            continue;
        }
        let (mut c, pane) = start(&rig, agent, reported);
        submit(&mut c, &pane, "Create out.txt containing hello");
        wait_state(&mut c, &pane, "working");
        wait_screen(&mut c, &pane, agent.busy);
        panes.push((c, pane, reported));
    }
    for (c, pane, _) in &mut panes {
        press(c, pane, "\x1b");
        if agent.esc_twice {
            wait_screen(c, pane, "again to interrupt");
            press(c, pane, "\x1b");
        }
    }
    for (c, pane, reported) in &mut panes {
        let idle = wait_state(c, pane, "idle");
        assert_eq!(idle["attention"], "none", "{idle}");
        let life = rig.watch.until_idle(pane);
        let last = life.last().map(|(_, _, source)| source.as_str());
        if *reported {
            let states: Vec<&str> = life.iter().map(|(_, n, _)| n.as_str()).collect();
            assert!(
                !states.contains(&"done") && !states.contains(&"failed"),
                "{life:?}"
            );
            assert_eq!(last, Some(agent.hooked_source), "{life:?}");
        } else {
            never_done_but_for_a_frame(&life);
            let rule = format!("screen:{}", agent.screen_rule.unwrap_or_default());
            assert_eq!(last, Some(rule.as_str()), "{life:?}");
            assert!(
                life.iter().all(|(_, _, s)| s.starts_with("screen:")),
                "{life:?}"
            );
        }
    }
    assert!(!rig.work.join("out.txt").exists());
}

/// Codex with hooks reports its own `Interrupt`; from the screen alone its
/// "■ Conversation interrupted" above the composer tells.
#[test]
fn codex_interrupted_before_it_answers_reads_idle() {
    interrupted_turn_reads_idle(&Agent {
        hooks: Some("codex"),
        rig: super::codex_rig,
        program: "codex",
        args: &["--no-daemon", "--dangerously-bypass-hook-trust"],
        ready: "Ask Codex to do anything",
        busy: "esc to interrupt",
        hooked_source: "hook:codex:Interrupt",
        screen_rule: Some("conversation_interrupted"),
        drawn: None,
        esc_twice: false,
    });
}

/// Gemini CLI fires AfterAgent for the cancelled turn as for any other;
/// its "ℹ Request cancelled." on screen makes that turn end `idle`.
#[test]
fn gemini_interrupted_before_it_answers_reads_idle() {
    interrupted_turn_reads_idle(&Agent {
        hooks: Some("gemini"),
        rig: super::gemini_rig,
        args: &[],
        program: "gemini",
        ready: "Type your message",
        busy: "esc to cancel",
        hooked_source: "hook:gemini:AfterAgent",
        screen_rule: Some("request_cancelled"),
        drawn: None,
        esc_twice: false,
    });
}

/// OpenCode ends the aborted turn with a `MessageAbortedError`: its plugin
/// reports the error's name, read as an interruption, not a failure.
#[test]
fn opencode_interrupted_before_it_answers_reads_idle() {
    interrupted_turn_reads_idle(&Agent {
        hooks: Some("opencode"),
        rig: super::opencode_rig,
        args: &[],
        program: "opencode",
        ready: "Ask anything",
        busy: "esc interrupt",
        hooked_source: "hook:opencode:session.error",
        screen_rule: Some("interrupted_footer"),
        drawn: None,
        esc_twice: true,
    });
}

/// Kilo Code, OpenCode's descendant, the same through the same plugin.
#[test]
fn kilo_interrupted_before_it_answers_reads_idle() {
    interrupted_turn_reads_idle(&Agent {
        hooks: Some("kilo"),
        rig: super::kilo::kilo_rig,
        args: &[],
        program: "kilo",
        ready: "Ask anything",
        busy: "esc interrupt",
        hooked_source: "hook:generic:session.error",
        screen_rule: Some("interrupted_footer"),
        drawn: None,
        esc_twice: true,
    });
}

/// Pi's run ends with an `aborted` model reply, which its extension
/// reports with the turn's end.
#[test]
fn pi_interrupted_before_it_answers_reads_idle() {
    interrupted_turn_reads_idle(&Agent {
        hooks: Some("pi"),
        rig: super::pi_rig,
        args: &[],
        program: "pi",
        ready: "(auto)",
        busy: "Working",
        hooked_source: "hook:pi:agent_end",
        screen_rule: Some("operation_aborted"),
        drawn: None,
        esc_twice: false,
    });
}

/// Grok CLI (no hooks) leaves the unanswered prompt as the conversation's
/// last line.
#[test]
fn grok_interrupted_before_it_answers_reads_idle() {
    interrupted_turn_reads_idle(&Agent {
        hooks: None,
        rig: super::grok::grok_rig,
        args: &[],
        program: "grok",
        ready: "Ask me anything",
        busy: "esc to interrupt",
        hooked_source: "",
        screen_rule: Some("prompt_unanswered"),
        drawn: Some(super::grok::LOGO),
        esc_twice: false,
    });
}

/// Qwen Code, interrupted before the model answered, puts the prompt back
/// into its input box and fires no Stop (only its idle Notification): with
/// its hooks, the idle prompt that stays so ends the turn. From its screen
/// alone nothing tells this from a finished turn
/// (docs/screen-rules.md#an-interrupted-turn-is-idle).
#[test]
fn qwen_interrupted_before_it_answers_reads_idle_with_its_hooks() {
    interrupted_turn_reads_idle(&Agent {
        hooks: Some("qwen"),
        rig: super::qwen::qwen_rig,
        args: &[],
        program: "qwen",
        ready: "Type your message",
        busy: "esc to cancel",
        hooked_source: "screen:idle_fallback",
        screen_rule: None,
        drawn: None,
        esc_twice: false,
    });
}

/// A turn interrupted after the model began to answer (its tool ran, the
/// final reply slow), read from the screen alone: the agent's own word
/// ("⎿ Interrupted · What should Claude do instead?", "●︎ Request
/// cancelled.") makes the pane `idle` with nothing to read. `argv` runs the
/// agent with no hook reaching signaltty.
fn interrupted_after_an_answer_reads_idle(rig: &super::Rig, argv: Value, ready: &str, rule: &str) {
    rig.model.set(json!({"delay": 1.0, "final_delay": 30.0}));
    let mut c = rig.server.client();
    let pane = rig.spawn(&mut c, argv);
    super::wait_ready(&mut c, &pane, ready);
    submit(&mut c, &pane, "Create out.txt containing hello");
    // Its own permission prompt, answered in the terminal (Allow once is
    // preselected).
    let blocked = wait_state(&mut c, &pane, "blocked");
    assert_eq!(blocked["attention"], "input_required", "{blocked}");
    press(&mut c, &pane, "\r");
    let out = rig.work.join("out.txt");
    wait_until("the tool to write out.txt", super::LONG, || {
        out.exists().then_some(())
    });
    wait_state(&mut c, &pane, "working");
    press(&mut c, &pane, "\x1b");
    ends_idle_from_the_screen(rig, &mut c, &pane, rule);
}

/// Claude Code with no hooks (`--setting-sources project,local`).
#[test]
fn claude_interrupted_after_it_answered_reads_idle_from_the_screen() {
    let rig = claude_rig();
    let argv = claude_unhooked();
    interrupted_after_an_answer_reads_idle(&rig, argv, "? for shortcuts", "interrupted_turn");
}

/// Qwen Code, its hooks pointed at a socket where no server listens.
#[test]
fn qwen_interrupted_after_it_answered_reads_idle_from_the_screen() {
    let rig = super::qwen::qwen_rig();
    let argv = qwen_unreported(&rig);
    interrupted_after_an_answer_reads_idle(&rig, argv, "Type your message", "request_cancelled");
}

/// Interrupted before the model answered, read from the screen alone: the
/// agent says nothing and puts the prompt back into its box; the prompt
/// `pane.submit` pasted (or, `typed`, keys written through `pane.input`, as
/// an attached terminal does), seen there at the turn's end, makes the pane
/// `idle` with nothing to read.
fn prompt_put_back_reads_idle(rig: &super::Rig, argv: Value, ready: &str, busy: &str, typed: bool) {
    rig.model.set(json!({"delay": 30.0, "final_delay": 0.3}));
    let mut c = rig.server.client();
    let pane = rig.spawn(&mut c, argv);
    super::wait_ready(&mut c, &pane, ready);
    let prompt = "Create out.txt containing hello";
    if typed {
        for word in prompt.split_inclusive(' ') {
            press(&mut c, &pane, word);
        }
        wait_screen(&mut c, &pane, prompt);
        press(&mut c, &pane, "\r");
    } else {
        submit(&mut c, &pane, prompt);
    }
    wait_state(&mut c, &pane, "working");
    wait_screen(&mut c, &pane, busy);
    press(&mut c, &pane, "\x1b");
    ends_idle_from_the_screen(rig, &mut c, &pane, "prompt_put_back");
}

#[test]
fn claude_prompt_put_back_reads_idle_from_the_screen() {
    let rig = claude_rig();
    let argv = claude_unhooked();
    prompt_put_back_reads_idle(&rig, argv, "? for shortcuts", "esc to interrupt", false);
}

#[test]
fn claude_typed_prompt_put_back_reads_idle_from_the_screen() {
    let rig = claude_rig();
    let argv = claude_unhooked();
    prompt_put_back_reads_idle(&rig, argv, "? for shortcuts", "esc to interrupt", true);
}

#[test]
fn qwen_prompt_put_back_reads_idle_from_the_screen() {
    let rig = super::qwen::qwen_rig();
    let argv = qwen_unreported(&rig);
    prompt_put_back_reads_idle(&rig, argv, "Type your message", "esc to cancel", false);
}

/// Claude Code with no hooks: user settings, where they are installed, not
/// read.
fn claude_unhooked() -> Value {
    json!([agent_bin("claude"), "--setting-sources", "project,local"])
}

/// Qwen Code with its hooks installed but pointed at a socket where no
/// server listens: read from its screen alone.
fn qwen_unreported(rig: &super::Rig) -> Value {
    rig.install_hooks("qwen");
    let nowhere = rig.home.join("nowhere.sock");
    json!([
        "env",
        format!("SIGNALTTY_SOCKET={}", nowhere.display()),
        agent_bin("qwen")
    ])
}

/// The pane ends `idle` with nothing to read, every state from its screen
/// and the last from `rule`, never `failed` and `done` at most for a frame.
fn ends_idle_from_the_screen(rig: &super::Rig, c: &mut Client, pane: &str, rule: &str) {
    let idle = wait_state(c, pane, "idle");
    assert_eq!(idle["attention"], "none", "{idle}");
    let life = rig.watch.until_idle(pane);
    let last = life.last().map(|(_, _, source)| source.clone());
    assert_eq!(last, Some(format!("screen:{rule}")), "{life:?}");
    assert!(
        life.iter().all(|(_, _, s)| s.starts_with("screen:")),
        "{life:?}"
    );
    never_done_but_for_a_frame(&life);
}

/// From the screen alone, the frame between the turn's working sign and the
/// agent's word may read `done` (OpenCode's footer says "interrupted" a
/// moment after its progress bar goes); the word then takes it back
/// (docs/screen-rules.md#an-interrupted-turn-is-idle). Such a `done` must be
/// the one just before the final `idle`, at most 2 s before it; nothing may
/// read `failed`.
fn never_done_but_for_a_frame(life: &[(u128, String, String)]) {
    let n = life.len();
    for (i, (at, name, _)) in life.iter().enumerate() {
        assert_ne!(name, "failed", "{life:?}");
        if name == "done" {
            let corrected = i + 2 == n && life[n - 1].0 - at <= 2_000_000;
            assert!(corrected, "a done that stayed: {life:?}");
        }
    }
}
