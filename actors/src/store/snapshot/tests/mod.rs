//! Snapshot tests: saving, the two generations, loading and moving aside a
//! file that cannot be used. The tails are tested in `tail.rs`, generated
//! damage to a saved snapshot in `generated.rs`.

mod generated;
mod tail;

use super::file::{load_at, utc_basic};
use super::tails::DEFAULT_TAIL_BYTES;
use super::*;
use signaltty_model::snapshot::{Peeked, peek, set_aside};
use signaltty_protocol::pane::AgentKind;
use signaltty_protocol::{PaneId, Seq};
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The time every moved-aside name in these tests is stamped with.
fn at() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_700_000_000)
}
const STAMP: &str = "20231114T221320";

pub(super) fn pane(id: &str) -> signaltty_protocol::pane::Pane {
    let mut p = crate::domain::state::tests::pane(AgentKind::Claude);
    p.id = PaneId(id.into());
    p
}

pub(super) fn snapshot(seq: u64, panes: &[&str]) -> Snapshot {
    Snapshot::new(
        Seq(seq),
        vec![],
        vec![],
        panes
            .iter()
            .map(|id| std::sync::Arc::new(pane(id)))
            .collect(),
    )
}

pub(super) fn pid(id: &str) -> PaneId {
    PaneId(id.into())
}

/// Every file under `dir` (relative name → bytes), to check what changed.
pub(super) fn listing(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.strip_prefix(root).unwrap().display().to_string();
            if path.is_dir() {
                out.insert(format!("{name}/"), vec![]);
                walk(root, &path, out);
            } else {
                out.insert(name, fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

pub(super) fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn loaded_seq(loaded: Loaded) -> u64 {
    match loaded {
        Loaded::Snapshot(s) => s.seq.0,
        other => panic!("expected a snapshot, got {other:?}"),
    }
}

/// Saves `snapshot` without any pane's tail.
pub(super) fn save_plain(dir: &Path, snapshot: &Snapshot) -> std::io::Result<()> {
    save(
        dir,
        snapshot,
        &mut TailFiles::default(),
        &[],
        TailBudget::Everything,
    )
    .map(|_| ())
}

// ---- save and load --------------------------------------------------------

#[test]
fn a_snapshot_is_written_as_pretty_json() {
    let dir = tempfile::tempdir().unwrap();
    save_plain(dir.path(), &snapshot(1, &[])).unwrap();
    let text = fs::read_to_string(dir.path().join("snapshot.json")).unwrap();
    assert!(text.starts_with("{\n  \"version\": 1,"), "{text}");
}

#[test]
fn shared_objects_are_written_as_the_objects_themselves() {
    let snap = snapshot(3, &["pane_a"]);
    let written: serde_json::Value =
        serde_json::from_slice(&serde_json::to_vec_pretty(&snap).unwrap()).unwrap();
    let pane = serde_json::to_value(&*snap.panes[0]).unwrap();
    assert_eq!(written["panes"], serde_json::json!([pane]));
}

#[test]
fn the_previous_generation_is_kept_as_dot_one_after_each_save() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("snapshot.json.1");
    save_plain(dir.path(), &snapshot(1, &[])).unwrap();
    assert!(!one.exists(), "a first save has no previous generation");

    save_plain(dir.path(), &snapshot(2, &[])).unwrap();
    let previous: Snapshot = serde_json::from_slice(&fs::read(&one).unwrap()).unwrap();
    assert_eq!(previous.seq, Seq(1));
    assert_eq!(loaded_seq(load(dir.path()).unwrap()), 2);

    save_plain(dir.path(), &snapshot(3, &[])).unwrap();
    let previous: Snapshot = serde_json::from_slice(&fs::read(&one).unwrap()).unwrap();
    assert_eq!(previous.seq, Seq(2));
    assert_eq!(loaded_seq(load(dir.path()).unwrap()), 3);
}

#[test]
fn a_crash_between_the_two_renames_loads_dot_one_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    save_plain(dir.path(), &snapshot(5, &[])).unwrap();
    fs::rename(
        dir.path().join("snapshot.json"),
        dir.path().join("snapshot.json.1"),
    )
    .unwrap();
    let before = listing(dir.path());

    assert_eq!(loaded_seq(load(dir.path()).unwrap()), 5);
    assert_eq!(listing(dir.path()), before);
}

#[test]
fn an_empty_or_missing_state_dir_loads_as_missing() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(load(dir.path()).unwrap(), Loaded::Missing);
    assert_eq!(
        load(&dir.path().join("not-created")).unwrap(),
        Loaded::Missing
    );
    assert_eq!(
        read_tail(dir.path(), &pid("pane_a"), DEFAULT_TAIL_BYTES),
        None
    );
}

#[test]
fn an_existing_state_dir_is_not_chmodded() {
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o750)).unwrap();
    save_plain(dir.path(), &snapshot(1, &[])).unwrap();
    assert_eq!(mode(dir.path()), 0o750);
}

#[test]
fn a_stale_temp_file_with_wide_permissions_is_narrowed_before_use() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("snapshot.tmp");
    fs::write(&tmp, "left by a crash, and longer than nothing").unwrap();
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o644)).unwrap();
    save_plain(dir.path(), &snapshot(1, &[])).unwrap();
    assert_eq!(mode(&dir.path().join("snapshot.json")), 0o600);
    assert_eq!(loaded_seq(load(dir.path()).unwrap()), 1);
}

// ---- moving aside ---------------------------------------------------------

/// Writes `bytes` as `snapshot.json` (with a good `.1` beside it when
/// `with_previous`), loads, and checks that exactly the rename to `name`
/// happened and the bytes are kept there. Returns the problem and the dir.
fn moved_aside(bytes: &[u8], with_previous: bool, name: &str) -> (LoadProblem, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    if with_previous {
        save_plain(dir.path(), &snapshot(4, &[])).unwrap();
        save_plain(dir.path(), &snapshot(5, &[])).unwrap();
    }
    fs::write(dir.path().join("snapshot.json"), bytes).unwrap();
    let mut expected = listing(dir.path());
    let original = expected.remove("snapshot.json").unwrap();
    expected.insert(name.to_owned(), original);

    let Loaded::MovedAside { problem, to } = load_at(dir.path(), at()).unwrap() else {
        panic!("expected the file to be moved aside");
    };
    assert_eq!(to, dir.path().join(name));
    assert_eq!(fs::read(&to).unwrap(), bytes);
    assert_eq!(listing(dir.path()), expected, "only the rename happened");

    // The next start finds no snapshot.json: it reads `.1` if there is one,
    // and leaves the moved file alone either way.
    let again = load_at(dir.path(), at()).unwrap();
    if with_previous {
        assert_eq!(loaded_seq(again), 4);
    } else {
        assert_eq!(again, Loaded::Missing);
    }
    assert_eq!(listing(dir.path()), expected);
    (problem, dir)
}

fn corrupt_name() -> String {
    format!("snapshot.corrupt-{STAMP}")
}

fn is_corrupt(problem: &LoadProblem) -> bool {
    matches!(problem, LoadProblem::Corrupt(_))
}

#[test]
fn garbage_is_moved_aside_as_corrupt_with_its_bytes() {
    let (problem, _dir) = moved_aside(b"\x00\xffnot json at all", false, &corrupt_name());
    assert!(is_corrupt(&problem), "{problem:?}");
}

#[test]
fn a_truncated_snapshot_is_moved_aside_as_corrupt_and_dot_one_is_not_used() {
    let good = serde_json::to_vec_pretty(&snapshot(9, &["pane_a", "pane_b"])).unwrap();
    let half = &good[..good.len() / 2];
    let (problem, _dir) = moved_aside(half, true, &corrupt_name());
    assert!(is_corrupt(&problem), "{problem:?}");
}

#[test]
fn json_that_is_not_an_object_is_moved_aside_as_corrupt() {
    // `[1]` matters most: serde would build a version-1 snapshot from it.
    for bytes in [&b"[1]"[..], b"1", b"\"snapshot\"", b"null"] {
        let (problem, _dir) = moved_aside(bytes, false, &corrupt_name());
        assert_eq!(
            problem,
            LoadProblem::Corrupt("not a JSON object".into()),
            "{}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn wrong_types_or_a_missing_version_are_moved_aside_as_corrupt() {
    for bytes in [
        &br#"{"version": 1, "seq": "seven"}"#[..],
        br#"{"version": 1, "panes": {}}"#,
        br#"{"version": "1"}"#,
        br#"{"version": -1}"#,
        br#"{"seq": 3}"#,
    ] {
        let (problem, _dir) = moved_aside(bytes, true, &corrupt_name());
        assert!(
            is_corrupt(&problem),
            "{}: {problem:?}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn a_version_2_snapshot_with_unknown_fields_is_moved_aside_as_unsupported() {
    let bytes = br#"{"version": 2, "panes": {"a": "new shape"}, "galaxies": [1, 2]}"#;
    let name = format!("snapshot.unsupported-{STAMP}");
    let (problem, _dir) = moved_aside(bytes, true, &name);
    assert_eq!(problem, LoadProblem::Unsupported(2));
}

#[test]
fn a_moved_aside_name_already_taken_gets_a_suffix_and_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join(corrupt_name());
    let second = dir.path().join(format!("{}-2", corrupt_name()));
    fs::write(&base, "first").unwrap();
    fs::write(&second, "second").unwrap();
    fs::write(dir.path().join("snapshot.json"), "third").unwrap();

    let loaded = load_at(dir.path(), at()).unwrap();
    let third = dir.path().join(format!("{}-3", corrupt_name()));
    assert!(
        matches!(&loaded, Loaded::MovedAside { to, .. } if *to == third),
        "{loaded:?}"
    );
    assert_eq!(fs::read_to_string(&base).unwrap(), "first");
    assert_eq!(fs::read_to_string(&second).unwrap(), "second");
    assert_eq!(fs::read_to_string(&third).unwrap(), "third");
}

#[test]
fn a_bad_dot_one_without_snapshot_json_is_moved_aside_too() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("snapshot.json.1"), r#"{"version": 3}"#).unwrap();
    let loaded = load_at(dir.path(), at()).unwrap();
    let to = dir.path().join(format!("snapshot.unsupported-{STAMP}"));
    assert_eq!(
        loaded,
        Loaded::MovedAside {
            problem: LoadProblem::Unsupported(3),
            to: to.clone()
        }
    );
    assert_eq!(fs::read_to_string(&to).unwrap(), r#"{"version": 3}"#);
    assert!(!dir.path().join("snapshot.json.1").exists());
    assert_eq!(load_at(dir.path(), at()).unwrap(), Loaded::Missing);
}

#[test]
fn a_save_after_a_move_aside_starts_a_new_current_and_keeps_the_moved_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("snapshot.json"), r#"{"version": 2}"#).unwrap();
    let Loaded::MovedAside { to, .. } = load_at(dir.path(), at()).unwrap() else {
        panic!("expected a move aside");
    };
    save_plain(dir.path(), &snapshot(1, &[])).unwrap();
    save_plain(dir.path(), &snapshot(2, &[])).unwrap();
    assert_eq!(fs::read_to_string(&to).unwrap(), r#"{"version": 2}"#);
    assert_eq!(loaded_seq(load(dir.path()).unwrap()), 2);
}

#[test]
fn utc_basic_formats_the_epoch_a_leap_day_and_a_recent_time() {
    let secs = |s: u64| UNIX_EPOCH + Duration::from_secs(s);
    assert_eq!(utc_basic(UNIX_EPOCH), "19700101T000000");
    assert_eq!(utc_basic(secs(951_827_696)), "20000229T123456");
    assert_eq!(utc_basic(secs(1_700_000_000)), STAMP);
    assert_eq!(
        utc_basic(secs(1_700_000_000) + Duration::from_millis(999)),
        STAMP
    );
}

#[test]
fn peek_says_what_load_would_find_and_moves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(peek(dir.path()), Peeked::Missing);
    save_plain(dir.path(), &snapshot(7, &["pane_a"])).unwrap();
    match peek(dir.path()) {
        Peeked::Usable { file, snapshot } => {
            assert_eq!(file, dir.path().join("snapshot.json"));
            assert_eq!(snapshot.seq, Seq(7));
        },
        other => panic!("expected a usable snapshot, got {other:?}"),
    }
    fs::write(dir.path().join("snapshot.json"), r#"{"version": 9}"#).unwrap();
    let before = listing(dir.path());
    assert!(matches!(
        peek(dir.path()),
        Peeked::Unusable {
            problem: LoadProblem::Unsupported(9),
            ..
        }
    ));
    fs::write(dir.path().join("snapshot.json"), "not json").unwrap();
    assert!(matches!(
        peek(dir.path()),
        Peeked::Unusable {
            problem: LoadProblem::Corrupt(_),
            ..
        }
    ));
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        listing(dir.path()).keys().collect::<Vec<_>>()
    );
    assert!(set_aside(dir.path()).unwrap().is_empty());
    let Loaded::MovedAside { to, .. } = load_at(dir.path(), at()).unwrap() else {
        panic!("expected a move aside");
    };
    assert_eq!(set_aside(dir.path()).unwrap(), vec![to]);
}
