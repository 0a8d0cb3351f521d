//! The bundled screen rules against screens of each agent, and manifest loading.

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
    // Compiled once for every test: debug builds compile regexes slowly.
    static SET: std::sync::OnceLock<AgentSet> = std::sync::OnceLock::new();
    let set = SET.get_or_init(AgentSet::bundled_only);
    assert!(set.failures.is_empty(), "{:?}", set.failures);
    let (_, rules) = set.rules_for(kind, process);
    classify(&rules, &View::new(screen, title)).map(|i| (rules[i].state, rules[i].id.clone()))
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

#[test]
fn user_manifests_replace_bundled_rules_and_bad_files_are_listed_and_skipped() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("10-claude.toml"),
        "[agent]\nkind = \"claude\"\n[[screen]]\nid = \"mine\"\nstate = \"working\"\nregex = ['busy']\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("20-broken.toml"),
        "[agent]\nkind = \"martian\"\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("30-aider.toml"),
        "[agent]\nkind = \"generic\"\nbinaries = [\"aider\"]\n[[screen]]\nid = \"aider_busy\"\nstate = \"working\"\nregex = ['Thinking']\n",
    )
    .expect("write");
    std::fs::write(dir.path().join("notes.txt"), "ignored").expect("write");
    let set = AgentSet::load(Some(dir.path())).expect("loads");
    assert_eq!(set.user.len(), 2);
    assert_eq!(set.failures.len(), 1);
    assert_eq!(set.failures[0].file, "20-broken.toml");
    assert!(set.failures[0].error.contains("unknown agent kind"));

    let (source, rules) = set.rules_for(AgentKind::Claude, "claude");
    assert_eq!(source, RuleSource::User);
    assert_eq!(
        rules.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["mine"],
        "never merged"
    );
    let (source, rules) = set.rules_for(AgentKind::Generic, "aider");
    assert_eq!((source, rules.len()), (RuleSource::User, 1));
    assert_eq!(
        set.rules_for(AgentKind::Generic, "bash").0,
        RuleSource::None,
        "scoped by binaries"
    );
    assert_eq!(
        set.rules_for(AgentKind::Codex, "codex").0,
        RuleSource::Bundled
    );

    assert!(
        AgentSet::load(Some(&dir.path().join("missing"))).is_ok(),
        "a missing dir is no manifests"
    );
    let file = dir.path().join("notes.txt");
    assert!(
        AgentSet::load(Some(&file)).is_err(),
        "a dir that cannot be listed fails"
    );
}

#[test]
fn detection_honours_manifest_binaries_before_builtins() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("wrap.toml"),
        "[agent]\nkind = \"codex\"\nbinaries = [\"codex-wrap\", \"cx-*\"]\n",
    )
    .expect("write");
    let set = AgentSet::load(Some(dir.path())).expect("loads");
    assert_eq!(set.detect("codex-wrap"), Some(AgentKind::Codex));
    assert_eq!(set.detect("cx-7"), Some(AgentKind::Codex));
    assert_eq!(set.detect("claude"), Some(AgentKind::Claude));
    assert_eq!(set.detect("bash"), None);
}

/// The screen fixtures of Pi, OpenCode and Cursor, by rule id
/// (docs/screen-rules.md#how-to-test-it).
#[test]
fn the_spec_fixtures_pass() {
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

/// Every file of `manifests/` is embedded, parses, and ends with the idle
/// fallback every bundled file has (docs/screen-rules.md#bundled-rules).
#[test]
fn every_bundled_file_is_embedded_valid_and_ends_with_the_idle_fallback() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifests");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("manifests dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    on_disk.sort();
    let set = AgentSet::bundled_only();
    assert!(set.failures.is_empty(), "{:?}", set.failures);
    let embedded: Vec<String> = set.bundled.iter().map(|m| m.file.clone()).collect();
    assert_eq!(embedded, on_disk);
    for m in &set.bundled {
        let last = m.screen.last().expect("rules");
        assert_eq!(
            (last.id.as_str(), last.priority),
            ("idle_fallback", -1000),
            "{}",
            m.file
        );
    }
}

/// The kind a fixture directory's agent name stands for: a kind of its own,
/// else that of the bundled manifest naming it as a binary (a generic agent
/// such as `grok`, whose rules are scoped to that program).
fn fixture_kind(agent: &str) -> Option<AgentKind> {
    AgentKind::parse(agent).or_else(|| {
        let set = AgentSet::bundled_only();
        set.bundled.iter().find(|m| m.names(agent)).map(|m| m.kind)
    })
}

/// Real screens the bundled rules are known to read wrong, each with why:
/// (fixture directory, file stem, reason). docs/agents.md shows them beside
/// the fidelity table. A miss not listed here fails the fixture test, and so
/// does a listed one the rules now read right (take it out).
const KNOWN_MISSES: &[(&str, &str, &str)] = &[];

/// Screens captured from the real agents at pinned versions by the real-agent
/// suite (`SIGNALTTY_CAPTURE_SCREENS=DIR`), one directory per agent and
/// version: the bundled rules must tell each state. A new agent release that
/// draws differently shows up here as a failing fixture. Prints the fidelity
/// table (right / total per agent and version; `--nocapture` shows it).
#[test]
fn the_real_agents_screens_are_classified_by_the_bundled_rules() {
    use ScreenState::*;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../integration-tests/fixtures/real-screens");
    let mut checked = 0;
    let mut table = vec![
        "| agent | version | screens right / total | known misses |".to_owned(),
        "|---|---|---|---|".to_owned(),
    ];
    let mut unexpected = Vec::new();
    let mut known_seen = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.sort();
    for dir in dirs {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (agent, version) = name.split_once('-').unwrap_or((&name, "?"));
        let kind = fixture_kind(agent).unwrap_or_else(|| panic!("{name}: unknown agent"));
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        let (mut right, mut total, mut known) = (0, 0, 0);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let (first, screen) = text.split_once('\n').unwrap_or((&text, ""));
            let title = first.strip_prefix("# title: ").unwrap_or_default();
            let state = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            // `blocked-hook-trust.txt` is a second blocked screen, and so on.
            let base = state.split('-').next().unwrap_or_default();
            let expected = match (state.as_str(), base) {
                ("hook-running", _) => Working,
                (_, "idle" | "done") => Idle,
                (_, "working") => Working,
                (_, "blocked") => Blocked,
                _ => panic!("{name}/{state}: no expected state for this file name"),
            };
            let got = state_of(kind, agent, screen, title);
            let listed = KNOWN_MISSES
                .iter()
                .any(|(d, f, _)| *d == name && *f == state);
            total += 1;
            checked += 1;
            if got.as_ref().map(|(s, _)| *s) == Some(expected) {
                right += 1;
                if listed {
                    unexpected.push(format!("{name}/{state}.txt is read right now: unlist it"));
                }
            } else if listed {
                known += 1;
                known_seen.push(format!("{name}/{state}"));
            } else {
                unexpected.push(format!(
                    "{name}/{state}.txt (title {title:?}): expected {expected:?}, got {got:?}"
                ));
            }
        }
        table.push(format!(
            "| {agent} | {version} | {right} / {total} | {known} |"
        ));
    }
    println!("{}", table.join("\n"));
    for (d, f, why) in KNOWN_MISSES {
        println!("known miss {d}/{f}.txt: {why}");
        if !known_seen.contains(&format!("{d}/{f}"))
            && !unexpected
                .iter()
                .any(|u| u.starts_with(&format!("{d}/{f}.")))
        {
            unexpected.push(format!(
                "{d}/{f}.txt is listed as a known miss but no such fixture exists"
            ));
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
    assert!(
        checked >= 15,
        "only {checked} real screens found under {}",
        root.display()
    );
}

/// Qwen Code's title states its turn, but a terminal that drops titles (or a
/// session name without the prefix) still reads the same from its screen.
#[test]
fn qwen_codes_real_screens_read_the_same_without_their_title() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../integration-tests/fixtures/real-screens/qwen-0.24.4");
    for (file, expected, rule) in [
        ("idle", ScreenState::Idle, "idle_fallback"),
        ("working", ScreenState::Working, "esc_to_cancel_working"),
        (
            "hook-running",
            ScreenState::Working,
            "esc_to_cancel_working",
        ),
        ("blocked", ScreenState::Blocked, "confirmation_prompt"),
        ("done", ScreenState::Idle, "idle_fallback"),
    ] {
        let text = std::fs::read_to_string(dir.join(format!("{file}.txt"))).unwrap_or_default();
        let screen = text.split_once('\n').map_or("", |(_, s)| s);
        let got = state_of(AgentKind::Generic, "qwen", screen, "");
        assert_eq!(got, Some((expected, rule.to_owned())), "{file}");
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
