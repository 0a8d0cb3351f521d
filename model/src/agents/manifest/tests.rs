//! Manifest parsing: a full manifest's fields, and a bad field rejecting the
//! whole file.

use super::*;

#[test]
fn a_full_manifest_parses_and_bad_fields_reject_the_file() {
    let text = r#"
[agent]
kind = "codex"
display_name = "Codex (wrap)"
binaries = ["codex-wrap", "muse-bin-*"]
future_field = 1

[session]
key = "thread_id"
resume = ["codex", "resume", "{session_id}"]

[lifecycle.SomeFutureHook]
lifecycle = "working"
attention = "unread"
message = "future says hi"

[[screen]]
id = "approval"
state = "blocked"
regex = ['Allow\? \[y/n\]']
"#;
    let m = Manifest::parse("wrap.toml", text, false).expect("valid");
    assert_eq!(m.kind, AgentKind::Codex);
    assert!(m.names("codex-wrap") && m.names("muse-bin-7") && !m.names("codex"));
    assert_eq!(
        m.resume_for("t1"),
        Some(vec!["codex".into(), "resume".into(), "t1".into()])
    );
    assert_eq!(
        m.lifecycle["SomeFutureHook"].lifecycle,
        Some(Lifecycle::Working)
    );
    assert_eq!(m.screen[0].id, "approval");
    assert_eq!(m.vocabulary, None);
    let qwen = "[agent]\nkind = \"generic\"\nbinaries = [\"qwen\"]\nvocabulary = \"claude\"";
    let m = Manifest::parse("qwen.toml", qwen, false).expect("valid");
    assert_eq!(m.vocabulary, Some(AgentKind::Claude));

    for (bad, why) in [
        ("[agent]\nkind = \"martian\"", "unknown agent kind"),
        ("[agent]\nkind = \"pi\"\nbinaries = [\"\"]", "empty"),
        (
            "[agent]\nkind = \"pi\"\n[lifecycle.X]\nlifecycle = \"sleepy\"",
            "bad lifecycle",
        ),
        (
            "[agent]\nkind = \"pi\"\n[lifecycle.X]\nattention = \"loud\"",
            "bad attention",
        ),
        (
            "[agent]\nkind = \"pi\"\n[[screen]]\nid = \"r1\"\nstate = \"idle\"\nregex = ['(']",
            "'r1'",
        ),
        ("not toml [", "TOML"),
        (
            "[agent]\nkind = \"pi\"\nbinaries = [\"p\"]\nvocabulary = \"claude\"",
            "generic",
        ),
        (
            "[agent]\nkind = \"generic\"\nvocabulary = \"claude\"",
            "binaries",
        ),
        (
            "[agent]\nkind = \"generic\"\nbinaries = [\"q\"]\nvocabulary = \"generic\"",
            "not an agent with hooks",
        ),
        ("[session]\nkey = \"x\"", "[agent]"),
    ] {
        let e = Manifest::parse("bad.toml", bad, false).expect_err(bad);
        assert!(e.contains(why), "{bad}: {e}");
    }
}
