//! The bundled screen rules against screens of each agent, and which agents
//! ask permission through a waiting reporter. Manifest loading and the captured
//! real screens have files of their own.

mod cut_screens;
mod limits;
mod manifests;
mod real_screens;

use super::screen::{ScreenState, View, classify};
use super::*;

/// What the bundled rules of `kind` say about `screen` with `title`.
fn state(kind: AgentKind, screen: &str, title: &str) -> Option<(ScreenState, String)> {
    state_of(kind, "", screen, title)
}

/// Like `state`, for a pane running `process` (generic rules are scoped by it).
fn state_of(
    kind: AgentKind,
    process: &str,
    screen: &str,
    title: &str,
) -> Option<(ScreenState, String)> {
    let set = bundled();
    let (_, rules) = set.rules_for(kind, process);
    classify(&rules, &View::new(screen, title)).map(|i| (rules[i].state, rules[i].id.clone()))
}

/// The bundled manifests, loaded once for every test: debug builds compile
/// regexes slowly.
fn bundled() -> &'static AgentSet {
    static SET: std::sync::OnceLock<AgentSet> = std::sync::OnceLock::new();
    let set = SET.get_or_init(AgentSet::bundled_only);
    assert!(set.failures.is_empty(), "{:?}", set.failures);
    set
}

fn says(kind: AgentKind, screen: &str, title: &str) -> ScreenState {
    state(kind, screen, title)
        .map(|(s, _)| s)
        .expect("a rule matches")
}

const RULE: &str = "────────────────────────────────────────";

#[test]
fn claude_screens() {
    use ScreenState::*;
    let prompt_box = format!("● Done. I fixed the bug.\n\n{RULE}\n❯ \n{RULE}\n  ? for shortcuts");
    assert_eq!(says(AgentKind::Claude, &prompt_box, "✳ Claude Code"), Idle);
    let working = format!(
        "● Let me look.\n\n✻ Cogitating… (12s · ↑ 1.2k tokens · esc to interrupt)\n\n{RULE}\n❯ \n{RULE}"
    );
    assert_eq!(says(AgentKind::Claude, &working, "Claude Code"), Working);
    assert_eq!(
        says(AgentKind::Claude, "anything", "⠂ Claude Code"),
        Working,
        "a spinner title"
    );
    let permission = format!(
        "● Bash(rm -rf build)\n{RULE}\n Bash command\n\n   rm -rf build\n\n Do you want to proceed?\n ❯ 1. Yes\n   2. No, and tell Claude what to do differently (esc)\n"
    );
    assert_eq!(says(AgentKind::Claude, &permission, "Claude Code"), Blocked);
    // Prose that mentions "yes" in a finished turn is not a question.
    let prose =
        format!("● Yes, the tests pass now. Do you want me to commit?\n\n{RULE}\n❯ \n{RULE}");
    assert_eq!(says(AgentKind::Claude, &prose, "✳ Claude Code"), Idle);
    // Claude's word for a turn cut short, as the last line above its box
    // (cut at the edge, or alone), and the same words of an earlier turn
    // with a new turn under way below them.
    for said in [
        "  ⎿  Interrupted · What should Claude do instead?",
        "  ⎿  Interrupted · What should Claude d…",
        "  ⎿  Interrupted",
    ] {
        let screen = format!("❯ Fix it\n{said}\n\n{RULE}\n❯ \n{RULE}\n  ? for shortcuts");
        assert_eq!(
            says(AgentKind::Claude, &screen, "✳ Claude Code"),
            Interrupted,
            "{said}"
        );
    }
    let again = format!(
        "  ⎿  Interrupted · What should Claude do instead?\n❯ Try again\n✻ Cogitating… (2s · esc to interrupt)\n\n{RULE}\n❯ \n{RULE}"
    );
    assert_eq!(says(AgentKind::Claude, &again, "Claude Code"), Working);
    let prose = format!("● The run was Interrupted by a signal.\n\n{RULE}\n❯ \n{RULE}");
    assert_eq!(says(AgentKind::Claude, &prose, "✳ Claude Code"), Idle);
    let transcript = "lots of text\n  Showing detailed transcript · ctrl+o to toggle";
    assert_eq!(says(AgentKind::Claude, transcript, "Claude Code"), Hold);
    assert_eq!(
        state(AgentKind::Claude, "", "")
            .map(|(_, id)| id)
            .as_deref(),
        Some("idle_fallback"),
        "a known agent with no sign reads as idle"
    );
}

#[test]
fn codex_screens() {
    use ScreenState::*;
    let working = "› fix the bug\n\n• Working (12s • esc to interrupt)\n\n› ";
    assert_eq!(says(AgentKind::Codex, working, ""), Working);
    let done = "› fix the bug\n\n• I fixed it.\n\n› ";
    assert_eq!(
        says(AgentKind::Codex, done, "proj"),
        Idle,
        "any other title reads idle"
    );
    assert_eq!(says(AgentKind::Codex, "", "⠙ proj"), Working);
    assert_eq!(says(AgentKind::Codex, "", "Action Required"), Blocked);
    let trust = "> You are in /home/me/proj\n\n  Do you trust the contents of this directory? Working with untrusted contents\n  1. Yes, continue\n  2. No, quit";
    assert_eq!(
        says(AgentKind::Codex, trust, ""),
        Blocked,
        "the trust prompt"
    );
    let approval = "› run the tests\n\n  Allow command?\n  $ cargo test\n  Press enter to confirm or esc to cancel";
    assert_eq!(says(AgentKind::Codex, approval, ""), Blocked);
    // A [y/n] question under a prompt the user is typing at does not block.
    let typing = "Earlier: proceed? [y/n]\n› draft a reply";
    assert_eq!(says(AgentKind::Codex, typing, ""), Idle);
}

#[test]
fn pi_screens() {
    use ScreenState::*;
    assert_eq!(says(AgentKind::Pi, "── ⠋ Working ──────────", ""), Working);
    assert_eq!(says(AgentKind::Pi, "Working...", ""), Working);
    assert_eq!(says(AgentKind::Pi, "> done, what next?", ""), Idle);
}

#[test]
fn a_screen_that_matches_nothing_changes_nothing() {
    let set = AgentSet::bundled_only();
    let (source, rules) = set.rules_for(AgentKind::Generic, "bash");
    assert_eq!(source, RuleSource::None);
    assert_eq!(classify(&rules, &View::new("$ ls", "bash")), None);
}

/// The screen fixtures of Pi, OpenCode and Cursor, by rule id
/// (docs/screen-rules.md#how-to-test-it).
#[test]
fn the_reference_fixtures_pass() {
    use ScreenState::*;
    let id = |kind, screen: &str| {
        state(kind, screen, "")
            .map(|(_, id)| id)
            .unwrap_or_default()
    };
    assert_eq!(
        state(AgentKind::Pi, "> fix the tests\n\nWorking...\n", ""),
        Some((Working, "working_literal".into()))
    );
    assert_eq!(
        id(AgentKind::Pi, "> fix\n── ⠹ Working ────────\n> "),
        "working_border"
    );
    assert_eq!(
        state(AgentKind::Pi, "⠙ Working on it", ""),
        Some((Idle, "idle_fallback".into()))
    );

    assert_eq!(
        id(AgentKind::Opencode, "△ Permission required"),
        "permission_required"
    );
    assert_eq!(
        id(AgentKind::Opencode, "↑↓ select  enter confirm  esc dismiss"),
        "dialog_required"
    );
    assert_eq!(
        id(AgentKind::Opencode, "enter confirm  esc dismiss"),
        "idle_fallback"
    );
    assert_eq!(
        id(AgentKind::Opencode, "thinking… esc to interrupt"),
        "interrupt_hint_working"
    );
    assert_eq!(id(AgentKind::Opencode, "■■■■⬝⬝⬝⬝"), "progress_bar_working");
    assert_eq!(id(AgentKind::Opencode, "■■■"), "idle_fallback");
    assert_eq!(
        says(
            AgentKind::Opencode,
            "△ Permission required\nesc to interrupt",
            ""
        ),
        Blocked
    );

    assert_eq!(
        id(
            AgentKind::Cursor,
            "Write to this file?\n  Proceed (y)\n  Reject & propose changes (p)"
        ),
        "write_file_approval"
    );
    for prompt in [
        "  Allow read(/etc/hosts) (y)",
        "→ Run cargo test (y)",
        "Keep (n)",
    ] {
        assert_eq!(id(AgentKind::Cursor, prompt), "approval_prompt", "{prompt}");
    }
    assert_eq!(
        id(AgentKind::Cursor, "output\n  ctrl+c to stop"),
        "stop_hint_working"
    );
    let old_hint = format!("  ctrl+c to stop\n{}", "line\n".repeat(8));
    assert_eq!(
        id(AgentKind::Cursor, &old_hint),
        "idle_fallback",
        "only the last 6 lines count"
    );
    assert_eq!(
        id(AgentKind::Cursor, "2 background tasks"),
        "background_task_status_working"
    );
    assert_eq!(id(AgentKind::Cursor, "0 background tasks"), "idle_fallback");
    assert_eq!(id(AgentKind::Cursor, "⬢ Generating"), "spinner_working");
}

/// Generic rule sets apply only to the programs they name.
#[test]
fn generic_rule_sets_are_scoped_to_their_programs() {
    use ScreenState::*;
    let copilot_blocked = state_of(
        AgentKind::Generic,
        "copilot",
        "Run this command?\n enter to confirm · esc to cancel",
        "",
    );
    assert_eq!(copilot_blocked.map(|(s, _)| s), Some(Blocked));
    let gemini = state_of(
        AgentKind::Gemini,
        "node",
        "│ Apply this change?\n ❯ 1. Yes",
        "",
    );
    assert_eq!(
        gemini.map(|(s, _)| s),
        Some(Blocked),
        "by kind, whatever the program"
    );
    assert_eq!(
        state_of(
            AgentKind::Generic,
            "copilot",
            "Thinking (esc to cancel)",
            ""
        )
        .map(|(s, _)| s),
        Some(Working)
    );
    assert_eq!(
        state_of(
            AgentKind::Generic,
            "droid",
            "> yes, allow\nenter to select · esc to cancel · ↑↓ to navigate",
            ""
        )
        .map(|(s, _)| s),
        Some(Blocked)
    );
    assert_eq!(
        state_of(
            AgentKind::Generic,
            "agy",
            "⠋ Thinking\n──────── esc to cancel",
            ""
        )
        .map(|(s, _)| s),
        Some(Working)
    );
    assert_eq!(
        state_of(AgentKind::Generic, "bash", "esc to cancel", ""),
        None,
        "a shell has no rules"
    );
}

#[test]
fn muse_screens() {
    use ScreenState::*;
    let muse = |screen: &str| state_of(AgentKind::Generic, "muse-bin-2", screen, "");
    assert_eq!(
        muse("◆ Working (3s · esc to interrupt)").map(|(s, _)| s),
        Some(Working)
    );
    assert_eq!(
        muse("done\n⟩ \nsonnet · high · ~/proj")
            .map(|(_, id)| id)
            .as_deref(),
        Some("idle_prompt")
    );
    assert_eq!(
        muse("Do you trust this workspace?\n  Trust and continue").map(|(s, _)| s),
        Some(Blocked)
    );
    assert_eq!(
        muse("Run tests?\n  Allow once\n  Allow for this session\n  Deny")
            .map(|(_, id)| id)
            .as_deref(),
        Some("blocked_approval")
    );
    assert_eq!(
        muse("pick one\nenter to select · tab for an optional note · esc to interrupt")
            .map(|(_, id)| id)
            .as_deref(),
        Some("pick_request_blocked"),
        "a question with an interrupt hint is not work"
    );
    assert_eq!(
        muse("/theme\nenter confirm · esc go back").map(|(s, _)| s),
        Some(Hold)
    );
}

/// Working, blocked and idle for every bundled generic rule set.
#[test]
fn every_generic_rule_set_tells_working_blocked_and_idle() {
    use ScreenState::*;
    let cases: &[(&str, &str, ScreenState)] = &[
        ("gemini", "⠏ Thinking… (esc to cancel, 3s)", Working),
        (
            "gemini",
            "│ Allow execution of: 'ls'?\n│ ● 1. Yes, allow once",
            Blocked,
        ),
        ("gemini", "> Type your message", Idle),
        ("copilot", "◎ Waiting for background agents", Working),
        (
            "copilot",
            "Run this command?\n enter to confirm · esc to cancel",
            Blocked,
        ),
        ("copilot", "> ", Idle),
        ("droid", "⠋ Thinking (esc to stop)", Working),
        (
            "droid",
            "Pick one\nenter select · esc cancel · ↑↓ navigate",
            Blocked,
        ),
        ("droid", "> ", Idle),
        ("kilo", "Thinking... esc interrupt", Working),
        ("kilo", "△ Permission required\nAllow edit?", Blocked),
        ("kilo", "> ", Idle),
        (
            "qodercli",
            "⠋ Generating a plan (esc to cancel, 4s)",
            Working,
        ),
        ("qodercli", "Shell awaiting input", Blocked),
        ("qodercli", "> ", Idle),
        ("agy", "⠙ Reading files\n─────────── esc to cancel", Working),
        (
            "agy",
            "Run ls?\n↑/↓ Navigate · tab Amend · enter Select",
            Blocked,
        ),
        ("agy", "? for shortcuts", Idle),
        ("kimi", "⠋ thinking...", Working),
        (
            "kimi",
            "Run this command?\n  ▶ approve  reject  revise\n↵ confirm  ←→ choose",
            Blocked,
        ),
        ("kimi", "> ", Idle),
        ("kiro", "◔ Reading files\nesc to cancel", Working),
        (
            "kiro",
            "Tool requires approval\n  Yes, single permission\n  Trust, always allow",
            Blocked,
        ),
        (
            "kiro",
            "Ask a question or describe a task\n/copy to clipboard",
            Idle,
        ),
        ("amp", "╰ claude thinking ───", Working),
        ("amp", "Run this command?\n  git push", Blocked),
        ("amp", "> ", Idle),
        ("hermes", "Running checks\n  ctrl+c to interrupt", Working),
        (
            "hermes",
            "⚠ dangerous command: rm -rf /\n ▸ 1. Allow once\n   2. Deny\n enter to confirm",
            Blocked,
        ),
        ("hermes", "> ", Idle),
        (
            "grok",
            "  / Thinking... (3s · ↑ 1.2k tokens · esc to interrupt)",
            Working,
        ),
        (
            "grok",
            "  Do you want to proceed with this operation?\n   1. Yes\n   3. No\n  ↑↓ navigate • Enter select • Esc cancel",
            Blocked,
        ),
        (
            "grok",
            "  │ ❯ Ask me anything... │\n  ⏸ auto-edit: off",
            Idle,
        ),
    ];
    for (program, screen, expected) in cases {
        // Gemini CLI has a kind of its own; its rules apply to that kind.
        let kind = if *program == "gemini" {
            AgentKind::Gemini
        } else {
            AgentKind::Generic
        };
        let got = state_of(kind, program, screen, "");
        assert_eq!(
            got.as_ref().map(|(s, _)| *s),
            Some(*expected),
            "{program}: {screen:?} → {got:?}"
        );
    }
}

#[test]
fn only_claude_and_codex_ask_permission_through_a_waiting_reporter() {
    use crate::agents::vocabulary::asks_permission;
    assert!(asks_permission(AgentKind::Claude, "PermissionRequest"));
    assert!(asks_permission(AgentKind::Codex, "PermissionRequest"));
    assert!(!asks_permission(AgentKind::Claude, "Notification"));
    assert!(!asks_permission(AgentKind::Claude, "permissionrequest"));
    for kind in [
        AgentKind::Cursor,
        AgentKind::Gemini,
        AgentKind::Opencode,
        AgentKind::Pi,
        AgentKind::Generic,
        AgentKind::None,
    ] {
        assert!(!asks_permission(kind, "PermissionRequest"), "{kind:?}");
    }
}
