//! The agent programs: one executable per kind, detected back from a command
//! line, and resume commands that keep the original program.

use super::*;
use signaltty_protocol::pane::{AgentInfo, Attention, Lifecycle, LiveState, PtySize};
use signaltty_protocol::{PaneId, TabId, Timestamp, WorkspaceId};

fn v(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| (*a).to_owned()).collect()
}

/// A pane of `argv` a restart took, as it comes back.
fn restored(argv: Vec<String>) -> Pane {
    let at = Timestamp::from_unix_millis(1_796_000_000_000);
    Pane {
        id: PaneId::from_random(1),
        workspace_id: WorkspaceId::from_random(2),
        tab_id: TabId::from_random(3),
        name: None,
        title: "sh".into(),
        cwd: "/src".into(),
        argv,
        pty_size: PtySize::DEFAULT,
        live: LiveState::Exited { code: None },
        restore_state: RestoreState::Restored,
        agent: AgentInfo {
            kind: AgentKind::Generic,
            agent_session_id: None,
            resume_argv: None,
            model: None,
            config_env: None,
            version: None,
            fidelity: None,
        },
        lifecycle: Lifecycle::Exited,
        last_lifecycle: Lifecycle::Idle,
        lifecycle_since: None,
        last_run_secs: None,
        attention: Attention::None,
        attention_since: None,
        resets_at: None,
        last_message: None,
        created_at: at.clone(),
        last_activity_at: at,
        last_seen_at: None,
        parent_pane_id: None,
        root_pane_id: None,
        label: None,
        relationship: None,
        task_id: None,
        pending_decision: None,
        hibernation: None,
    }
}

#[test]
fn a_restart_makes_an_interactive_shell_or_a_session_resumable_and_nothing_else() {
    let shell = restored(v(&["bash", "--norc", "--noprofile"]));
    assert!(comes_back_resumable(&shell));
    assert_eq!(resume_command(&shell), Some(shell.argv.clone()));
    let command = restored(v(&["sh", "-c", "exec cat"]));
    assert!(!comes_back_resumable(&command));
    assert_eq!(resume_command(&command), None);
    let mut agent = restored(v(&["claude"]));
    agent.agent.resume_argv = Some(v(&["claude", "--resume", "s"]));
    assert!(comes_back_resumable(&agent));
}

#[test]
fn every_agent_kind_has_one_executable_and_it_is_detected_back() {
    for kind in AgentKind::ALL {
        match executable(kind) {
            Some(name) => assert_eq!(detect_kind(&[name.to_owned()]), kind),
            None => assert!(!kind.is_agent(), "{kind:?} has no executable"),
        }
    }
}

#[test]
fn a_resume_keeps_an_absolute_original_with_the_same_basename_and_nothing_else() {
    let resume = v(&["codex", "resume", "s1"]);
    // Kept: the user's selected binary.
    assert_eq!(
        resolve_resume_argv(&v(&["/opt/ai/bin/codex", "--model", "x"]), &resume),
        v(&["/opt/ai/bin/codex", "resume", "s1"])
    );
    // Not kept: relative, bare, a shell, another basename.
    for original in [
        v(&["./bin/codex"]),
        v(&["codex", "--fast"]),
        v(&["/bin/bash"]),
        v(&["/usr/local/bin/codex-wrapper"]),
    ] {
        assert_eq!(
            resolve_resume_argv(&original, &resume),
            resume,
            "{original:?}"
        );
    }
    // An explicit path in the resume command stays authoritative.
    let explicit = v(&["/srv/agents/codex", "resume", "s1"]);
    assert_eq!(
        resolve_resume_argv(&v(&["/opt/codex"]), &explicit),
        explicit
    );
    // Launch flags of the original are never copied.
    let kept = resolve_resume_argv(
        &v(&["/opt/claude", "--dangerously"]),
        &v(&["claude", "--resume", "s"]),
    );
    assert!(!kept.iter().any(|a| a == "--dangerously"), "{kept:?}");
}

#[test]
fn an_interactive_shell_is_one_whose_options_run_nothing() {
    for shell in [
        v(&["bash"]),
        v(&["/bin/bash", "--norc", "--noprofile"]),
        v(&["zsh", "-l"]),
        v(&["bash", "--rcfile", "/home/me/.x", "-i"]),
        v(&["bash", "-o", "vi"]),
        v(&["fish", "--login"]),
        v(&["bash", "--"]),
    ] {
        assert!(interactive_shell(&shell), "{shell:?}");
    }
    for command in [
        v(&["sh", "-c", "make"]),
        v(&["bash", "-lc", "make"]),
        v(&["fish", "--command=ls"]),
        v(&["fish", "--command", "ls"]),
        v(&["bash", "script.sh"]),
        v(&["bash", "--", "script.sh"]),
        v(&["python3"]),
        v(&[]),
    ] {
        assert!(!interactive_shell(&command), "{command:?}");
    }
}

#[test]
fn a_refused_resume_says_why_in_words_that_fit_the_pane() {
    let mut pane = restored(v(&["sh", "-c", "make test"]));
    let said = not_resumable_because(&pane);
    assert!(
        said.contains("it ran `sh -c make test`, a command"),
        "{said}"
    );
    assert!(!said.contains("its agent"), "{said}");
    pane.argv = v(&["bash"]);
    pane.restore_state = RestoreState::Exited;
    assert!(not_resumable_because(&pane).contains("its shell exited by itself"));
    pane.argv = v(&["claude"]);
    pane.agent.kind = AgentKind::Claude;
    let said = not_resumable_because(&pane);
    assert!(said.contains("its agent reported no session"), "{said}");
    assert!(said.contains("signaltty new -- claude"), "{said}");
}
