//! Snapshot tests: saving, the two generations, loading and moving aside a
//! file that cannot be used, and the scrollback tails.

use super::file::{load_at, utc_basic};
use super::*;
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

fn pane(id: &str) -> signaltty_protocol::pane::Pane {
    let mut p = crate::state::tests::pane(AgentKind::Claude);
    p.id = PaneId(id.into());
    p
}

fn snapshot(seq: u64, panes: &[&str]) -> Snapshot {
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

fn pid(id: &str) -> PaneId {
    PaneId(id.into())
}

/// Every file under `dir` (relative name → bytes), to check what changed.
fn listing(dir: &Path) -> BTreeMap<String, Vec<u8>> {
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

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn loaded_seq(loaded: Loaded) -> u64 {
    match loaded {
        Loaded::Snapshot(s) => s.seq.0,
        other => panic!("expected a snapshot, got {other:?}"),
    }
}

// ---- save and load --------------------------------------------------------

#[test]
fn a_saved_snapshot_loads_back_equal_with_its_tails() {
    let dir = tempfile::tempdir().unwrap();
    let snap = snapshot(7, &["pane_a", "pane_b"]);
    let tails = [(pid("pane_a"), "one\ntwo".to_owned())];
    save(dir.path(), &snap, &tails).unwrap();

    assert_eq!(load(dir.path()).unwrap(), Loaded::Snapshot(snap));
    assert_eq!(
        read_tail(dir.path(), &pid("pane_a")).as_deref(),
        Some("one\ntwo")
    );
    assert_eq!(read_tail(dir.path(), &pid("pane_b")), None);
    assert!(!dir.path().join("snapshot.tmp").exists());
}

#[test]
fn a_snapshot_is_written_as_pretty_json() {
    let dir = tempfile::tempdir().unwrap();
    save(dir.path(), &snapshot(1, &[]), &[]).unwrap();
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
    save(dir.path(), &snapshot(1, &[]), &[]).unwrap();
    assert!(!one.exists(), "a first save has no previous generation");

    save(dir.path(), &snapshot(2, &[]), &[]).unwrap();
    let previous: Snapshot = serde_json::from_slice(&fs::read(&one).unwrap()).unwrap();
    assert_eq!(previous.seq, Seq(1));
    assert_eq!(loaded_seq(load(dir.path()).unwrap()), 2);

    save(dir.path(), &snapshot(3, &[]), &[]).unwrap();
    let previous: Snapshot = serde_json::from_slice(&fs::read(&one).unwrap()).unwrap();
    assert_eq!(previous.seq, Seq(2));
    assert_eq!(loaded_seq(load(dir.path()).unwrap()), 3);
}

#[test]
fn a_crash_between_the_two_renames_loads_dot_one_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    save(dir.path(), &snapshot(5, &[]), &[]).unwrap();
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
    assert_eq!(read_tail(dir.path(), &pid("pane_a")), None);
}

#[test]
fn save_creates_the_state_dir_and_history_with_mode_0700_and_files_0600() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("state");
    save(
        &dir,
        &snapshot(1, &["pane_a"]),
        &[(pid("pane_a"), "x".into())],
    )
    .unwrap();
    save(
        &dir,
        &snapshot(2, &["pane_a"]),
        &[(pid("pane_a"), "y".into())],
    )
    .unwrap();

    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join("history")), 0o700);
    assert_eq!(mode(&dir.join("snapshot.json")), 0o600);
    assert_eq!(mode(&dir.join("snapshot.json.1")), 0o600);
    assert_eq!(mode(&tail_path(&dir, &pid("pane_a"))), 0o600);
}

#[test]
fn an_existing_state_dir_is_not_chmodded() {
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o750)).unwrap();
    save(dir.path(), &snapshot(1, &[]), &[]).unwrap();
    assert_eq!(mode(dir.path()), 0o750);
}

#[test]
fn a_stale_temp_file_with_wide_permissions_is_narrowed_before_use() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("snapshot.tmp");
    fs::write(&tmp, "left by a crash, and longer than nothing").unwrap();
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o644)).unwrap();
    save(dir.path(), &snapshot(1, &[]), &[]).unwrap();
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
        save(dir.path(), &snapshot(4, &[]), &[]).unwrap();
        save(dir.path(), &snapshot(5, &[]), &[]).unwrap();
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
    save(dir.path(), &snapshot(1, &[]), &[]).unwrap();
    save(dir.path(), &snapshot(2, &[]), &[]).unwrap();
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

// ---- tails ----------------------------------------------------------------

#[test]
fn a_tail_keeps_lines_oldest_first_joined_by_newlines() {
    assert_eq!(tail_of(["a", "b", "", "c"].into_iter()), "a\nb\n\nc");
    assert_eq!(tail_of(std::iter::empty()), "");
}

#[test]
fn a_tail_fills_exactly_64_kib_counting_a_newline_per_line() {
    let newest = "n".repeat(MAX_TAIL_BYTES - 2);
    // "" costs 1 and `newest` costs MAX - 1: exactly the cap, both kept.
    let tail = tail_of(["dropped", "", newest.as_str()].into_iter());
    assert_eq!(tail, format!("\n{newest}"));
    // "x" costs 2: one byte over, so only the newest line is kept.
    let tail = tail_of(["x", newest.as_str()].into_iter());
    assert_eq!(tail, newest);
    // One line of MAX - 1 bytes costs exactly the cap.
    let whole = "w".repeat(MAX_TAIL_BYTES - 1);
    assert_eq!(tail_of([whole.as_str()].into_iter()), whole);
}

#[test]
fn a_tail_stops_at_the_first_older_line_that_does_not_fit() {
    let big = "b".repeat(MAX_TAIL_BYTES);
    let tail = tail_of(["small", big.as_str(), "new1", "new2"].into_iter());
    assert_eq!(tail, "new1\nnew2");
}

#[test]
fn a_single_line_over_the_cap_keeps_its_last_bytes_on_a_char_boundary() {
    // 1 + 2 * 40_000 bytes: the last MAX - 1 (odd) bytes would start inside
    // an `é`, so one byte fewer is kept.
    let line = format!("b{}", "é".repeat(40_000));
    let tail = tail_of(["older", line.as_str()].into_iter());
    assert_eq!(tail, "é".repeat((MAX_TAIL_BYTES - 2) / 2));

    let ascii = format!("start{}end", "a".repeat(MAX_TAIL_BYTES));
    let tail = tail_of([ascii.as_str()].into_iter());
    assert_eq!(tail.len(), MAX_TAIL_BYTES - 1);
    assert!(tail.ends_with("aend"));
}

#[test]
fn tails_of_panes_that_no_longer_exist_are_pruned_and_other_files_kept() {
    let dir = tempfile::tempdir().unwrap();
    let tails = [
        (pid("pane_a"), "a".to_owned()),
        (pid("pane_b"), "b".to_owned()),
        (pid("pane_c"), "c".to_owned()),
    ];
    save(
        dir.path(),
        &snapshot(1, &["pane_a", "pane_b", "pane_c"]),
        &tails,
    )
    .unwrap();
    let history = dir.path().join("history");
    fs::write(history.join("notes.txt"), "not ours").unwrap();
    fs::write(history.join("pane_d.tail.tmp"), "left by a crash").unwrap();

    // pane_a has a new tail, pane_b is in the snapshot without one (it keeps
    // its file), pane_c is gone.
    let tails = [(pid("pane_a"), "a2".to_owned())];
    save(dir.path(), &snapshot(2, &["pane_a", "pane_b"]), &tails).unwrap();

    let names: Vec<String> = listing(&history).into_keys().collect();
    assert_eq!(names, ["notes.txt", "pane_a.tail", "pane_b.tail"]);
    assert_eq!(read_tail(dir.path(), &pid("pane_a")).as_deref(), Some("a2"));
    assert_eq!(read_tail(dir.path(), &pid("pane_b")).as_deref(), Some("b"));
}

#[test]
fn an_empty_tail_removes_the_panes_file() {
    let dir = tempfile::tempdir().unwrap();
    let snap = snapshot(1, &["pane_a"]);
    save(dir.path(), &snap, &[(pid("pane_a"), "a".into())]).unwrap();
    save(dir.path(), &snap, &[(pid("pane_a"), String::new())]).unwrap();
    assert!(!tail_path(dir.path(), &pid("pane_a")).exists());
    assert_eq!(read_tail(dir.path(), &pid("pane_a")), None);
}

#[test]
fn a_tail_path_cannot_leave_the_history_dir() {
    let dir = Path::new("/state");
    assert_eq!(
        tail_path(dir, &pid("../../etc/pane_x")),
        Path::new("/state/history/etcpane_x.tail")
    );
}

#[test]
fn save_recreates_a_missing_history_dir() {
    let dir = tempfile::tempdir().unwrap();
    save(dir.path(), &snapshot(1, &[]), &[]).unwrap();
    fs::remove_dir(dir.path().join("history")).unwrap();
    save(
        dir.path(),
        &snapshot(2, &["pane_a"]),
        &[(pid("pane_a"), "a".into())],
    )
    .unwrap();
    assert_eq!(read_tail(dir.path(), &pid("pane_a")).as_deref(), Some("a"));
}
