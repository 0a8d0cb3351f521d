//! Tests of the builtin adapters: which agents have an answer channel, and
//! their resume commands.

use super::*;

/// Only Codex advertises an answer channel (docs/agents.md#adapters).
#[test]
fn only_codex_has_an_answer_channel() {
    for kind in [
        AgentKind::Claude,
        AgentKind::Opencode,
        AgentKind::Cursor,
        AgentKind::Pi,
        AgentKind::Generic,
        AgentKind::None,
    ] {
        assert_eq!(answer_channel(kind), None, "{kind:?}");
    }
    assert_eq!(
        answer_channel(AgentKind::Codex),
        Some(AnswerChannel::TypeText)
    );
}

#[test]
fn resume_commands_keep_the_program_path_and_cover_generic_agents() {
    let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        resume_argv(
            AgentKind::Claude,
            "s",
            &argv(&["/usr/local/bin/claude", "--model", "x"])
        ),
        Some(argv(&["/usr/local/bin/claude", "--resume", "s"]))
    );
    assert_eq!(
        resume_argv(AgentKind::Codex, "t", &argv(&["sh"])),
        Some(argv(&["codex", "resume", "t"]))
    );
    assert_eq!(
        resume_argv(AgentKind::Generic, "k", &argv(&["/opt/kiro/kiro-cli"])),
        Some(argv(&["/opt/kiro/kiro-cli", "chat", "--resume-id", "k"]))
    );
    assert_eq!(
        resume_argv(AgentKind::Generic, "d", &argv(&["droid"])),
        Some(argv(&["droid", "--resume", "d"]))
    );
    assert_eq!(
        resume_argv(AgentKind::Generic, "q", &argv(&["/opt/bin/qwen"])),
        Some(argv(&["/opt/bin/qwen", "--resume", "q"]))
    );
    assert_eq!(resume_argv(AgentKind::Generic, "x", &argv(&["bash"])), None);
    assert_eq!(resume_argv(AgentKind::None, "x", &argv(&["claude"])), None);
    assert_eq!(
        resume_argv(AgentKind::Gemini, "g1", &argv(&["gemini"])),
        Some(argv(&["gemini", "--resume=g1"]))
    );
}
