//! The agent programs: one executable per kind, detected back from a command
//! line, and resume commands that keep the original program.

use super::*;

fn v(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| (*a).to_owned()).collect()
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
