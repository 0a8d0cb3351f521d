//! Generated damage to a saved snapshot: cut, flipped or spliced, it parses
//! to a snapshot that saves back the same or to a problem, and loading it
//! uses it or moves it aside (docs/persistence.md#loading-a-snapshot), never
//! a panic.

use super::*;
use crate::testkit::generated::config;
use proptest::prelude::*;
use signaltty_model::snapshot::{LoadProblem, SNAPSHOT_VERSION, parse};

/// The bytes of a saved snapshot with two panes.
fn saved() -> Vec<u8> {
    serde_json::to_vec_pretty(&snapshot(7, &["pane_a", "pane_b"])).expect("a snapshot serialises")
}

/// One change to the file's bytes.
#[derive(Debug, Clone)]
enum Change {
    Truncate(prop::sample::Index),
    Flip(prop::sample::Index, u8),
    Cut(prop::sample::Index, prop::sample::Index),
    Splice(prop::sample::Index, String),
}

fn change() -> impl Strategy<Value = Change> {
    let text = prop_oneof![
        proptest::sample::select(
            &[
                "null",
                "1",
                "-1",
                "1e999",
                "\"x\"",
                "[]",
                "{}",
                "\"version\": 2,",
                ",",
                "\"",
                "\\u0000",
                "{\"id\": 1}",
                "true",
            ][..]
        )
        .prop_map(str::to_owned),
        ".{0,8}",
    ];
    prop_oneof![
        any::<prop::sample::Index>().prop_map(Change::Truncate),
        (any::<prop::sample::Index>(), 0u8..8).prop_map(|(i, bit)| Change::Flip(i, bit)),
        (any::<prop::sample::Index>(), any::<prop::sample::Index>())
            .prop_map(|(a, b)| Change::Cut(a, b)),
        (any::<prop::sample::Index>(), text).prop_map(|(i, t)| Change::Splice(i, t)),
    ]
}

fn changed(changes: &[Change]) -> Vec<u8> {
    let mut bytes = saved();
    for change in changes {
        let len = bytes.len();
        match change {
            Change::Truncate(i) => bytes.truncate(i.index(len + 1)),
            Change::Flip(i, bit) if len > 0 => bytes[i.index(len)] ^= 1 << bit,
            Change::Flip(..) => {},
            Change::Cut(a, b) => {
                let (a, b) = (a.index(len + 1), b.index(len + 1));
                bytes.drain(a.min(b)..a.max(b));
            },
            Change::Splice(i, text) => {
                let at = i.index(len + 1);
                bytes.splice(at..at, text.bytes());
            },
        }
    }
    bytes
}

/// A parse either gives a version-1 snapshot that saves and parses back the
/// same, or names a problem.
fn check(parsed: &Result<Snapshot, LoadProblem>) -> Result<(), TestCaseError> {
    match parsed {
        Ok(s) => {
            prop_assert_eq!(s.version, SNAPSHOT_VERSION);
            let again = parse(&serde_json::to_vec_pretty(s).expect("a snapshot serialises"));
            prop_assert_eq!(again.as_ref(), Ok(s));
        },
        Err(LoadProblem::Corrupt(why)) => prop_assert!(!why.is_empty()),
        Err(LoadProblem::Unsupported(v)) => prop_assert_ne!(*v, SNAPSHOT_VERSION),
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(512))]

    /// Any changes to a saved snapshot's bytes parse to a snapshot or a problem.
    #[test]
    fn a_damaged_snapshot_parses_or_names_its_problem(
        changes in proptest::collection::vec(change(), 0..4),
    ) {
        let bytes = changed(&changes);
        let parsed = parse(&bytes);
        if changes.is_empty() {
            prop_assert!(parsed.is_ok());
        }
        check(&parsed)?;
    }
}

proptest! {
    #![proptest_config(config(32))]

    /// Loading a damaged `snapshot.json` from a state directory uses what
    /// `parse` accepts and moves aside what it refuses, with the same problem.
    #[test]
    fn loading_a_damaged_snapshot_uses_it_or_moves_it_aside(
        changes in proptest::collection::vec(change(), 1..4),
    ) {
        let bytes = changed(&changes);
        let dir = tempfile::tempdir().expect("a temp dir");
        fs::write(dir.path().join("snapshot.json"), &bytes).expect("written");
        let loaded = load_at(dir.path(), at()).expect("the state dir reads");
        match (parse(&bytes), loaded) {
            (Ok(expected), Loaded::Snapshot(got)) => prop_assert_eq!(got, expected),
            (Err(problem), Loaded::MovedAside { problem: got, to }) => {
                prop_assert_eq!(got, problem);
                prop_assert_eq!(fs::read(&to).expect("moved aside"), bytes);
                prop_assert!(!dir.path().join("snapshot.json").exists());
            },
            (parsed, loaded) => {
                return Err(TestCaseError::fail(format!("parse {parsed:?} but load {loaded:?}")));
            },
        }
    }
}
