//! Manifest parsing: a full manifest's fields, and a bad field rejecting the
//! whole file, by example and over generated and mutated manifests.

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

// Generated inputs: the bundled manifests mutated, and TOML-ish text.

use crate::generated::config;
use proptest::prelude::*;

/// Pieces of manifest text, right and wrong, for the parser to meet in any
/// order.
const PIECES: &[&str] = &[
    "[agent]\n",
    "[session]\n",
    "[[screen]]\n",
    "[lifecycle.Stop]\n",
    "[lifecycle.\"Some Hook\"]\n",
    "kind = \"claude\"\n",
    "kind = \"generic\"\n",
    "kind = \"nobody\"\n",
    "binaries = [\"x\", \"y-*\"]\n",
    "binaries = [\"*\"]\n",
    "vocabulary = \"claude\"\n",
    "key = \"session_id\"\n",
    "resume = [\"x\", \"--resume\", \"{session_id}\"]\n",
    "id = \"a\"\n",
    "state = \"working\"\n",
    "state = \"blocked\"\n",
    "priority = 100\n",
    "priority = -1\n",
    "region = \"bottom\"\n",
    "region = \"title\"\n",
    "lines = 3\n",
    "regex = ['^x']\n",
    "regex = ['(']\n",
    "regex = ['(?m)^[ \\t]*\\d+$', 'a{2,}']\n",
    "lifecycle = \"done\"\n",
    "attention = \"unread\"\n",
    "message = \"hi\"\n",
    "= \"\n",
    "[\n",
    "'''\n",
    "\"\"\"\n",
    "x = {a = 1}\n",
    "\n",
];

fn toml_ish() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            4 => proptest::sample::select(PIECES).prop_map(str::to_owned),
            1 => "[ -~]{0,12}\n?",
        ],
        0..24,
    )
    .prop_map(|pieces| pieces.concat())
}

/// One change to a manifest's bytes.
#[derive(Debug, Clone)]
enum Change {
    Flip(prop::sample::Index, u8),
    Cut(prop::sample::Index, prop::sample::Index),
    Insert(prop::sample::Index, String),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        (any::<prop::sample::Index>(), 0u8..8).prop_map(|(i, bit)| Change::Flip(i, bit)),
        (any::<prop::sample::Index>(), any::<prop::sample::Index>())
            .prop_map(|(a, b)| Change::Cut(a, b)),
        (any::<prop::sample::Index>(), toml_ish()).prop_map(|(i, text)| Change::Insert(i, text)),
    ]
}

fn apply(bytes: &mut Vec<u8>, change: &Change) {
    match change {
        Change::Flip(i, bit) if !bytes.is_empty() => {
            let at = i.index(bytes.len());
            bytes[at] ^= 1 << bit;
        },
        Change::Flip(..) => {},
        Change::Cut(a, b) => {
            let (a, b) = (a.index(bytes.len() + 1), b.index(bytes.len() + 1));
            bytes.drain(a.min(b)..a.max(b));
        },
        Change::Insert(i, text) => {
            let at = i.index(bytes.len() + 1);
            bytes.splice(at..at, text.bytes());
        },
    }
}

/// A parsed manifest has the fields validation promises.
fn check(parsed: Result<Manifest, String>) -> Result<(), TestCaseError> {
    match parsed {
        Ok(m) => {
            prop_assert!(m.binaries.iter().all(|b| !b.is_empty() && b != "*"));
        },
        Err(e) => prop_assert!(!e.is_empty()),
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    /// Any TOML-ish text is a manifest or a reason, never a panic.
    #[test]
    fn toml_ish_text_parses_or_is_rejected(text in toml_ish()) {
        check(Manifest::parse("gen.toml", &text, false))?;
    }

    /// Every bundled manifest parses, and after any changes to its bytes it
    /// is still a manifest or a reason.
    #[test]
    fn a_mutated_bundled_manifest_parses_or_is_rejected(
        which in any::<prop::sample::Index>(),
        changes in proptest::collection::vec(change(), 1..4),
    ) {
        let (file, text) = super::super::BUNDLED[which.index(super::super::BUNDLED.len())];
        prop_assert!(Manifest::parse(file, text, true).is_ok(), "{file} parses");
        let mut bytes = text.as_bytes().to_vec();
        for c in &changes {
            apply(&mut bytes, c);
        }
        check(Manifest::parse(file, &String::from_utf8_lossy(&bytes), true))?;
    }
}
