//! Config file edits: atomic replacement keeping the mode, failures and crashes
//! that leave the original, symlinks, FIFOs and directories, and concurrent or
//! locked writers.

use super::*;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "signaltty-file-{name}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

#[test]
fn an_update_replaces_atomically_and_keeps_the_mode() {
    let dir = temp_dir("mode");
    let path = dir.join("settings.json");
    fs::write(&path, b"old").unwrap_or_else(|e| panic!("{e}"));
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap_or_else(|e| panic!("{e}"));
    let (_, changed) = update(&path, |b| {
        assert_eq!(b, Some(&b"old"[..]));
        Ok(Edit::Write(b"new".to_vec()))
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(changed);
    assert_eq!(fs::read(&path).unwrap_or_default(), b"new");
    let mode = fs::metadata(&path)
        .map(|m| m.permissions().mode() & 0o777)
        .unwrap_or(0);
    assert_eq!(mode, 0o640);
    let leftovers: Vec<_> = fs::read_dir(&dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        leftovers
            .iter()
            .all(|n| !n.to_string_lossy().contains("signaltty-")),
        "{leftovers:?}"
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_failed_edit_leaves_the_file_and_the_same_bytes_are_not_rewritten() {
    let dir = temp_dir("keep");
    let path = dir.join("hooks.json");
    fs::write(&path, b"{invalid").unwrap_or_else(|e| panic!("{e}"));
    let err = update(&path, |_| Err("refused".into()));
    assert!(err.is_err());
    assert_eq!(fs::read(&path).unwrap_or_default(), b"{invalid");
    let mtime = fs::metadata(&path).and_then(|m| m.modified()).ok();
    let (_, changed) = update(&path, |b| Ok(Edit::Write(b.unwrap_or_default().to_vec())))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!changed);
    assert_eq!(fs::metadata(&path).and_then(|m| m.modified()).ok(), mtime);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_symlink_stays_a_link_and_its_target_is_edited() {
    let dir = temp_dir("link");
    let real = dir.join("real.json");
    fs::write(&real, b"a").unwrap_or_else(|e| panic!("{e}"));
    let link = dir.join("settings.json");
    std::os::unix::fs::symlink("real.json", &link).unwrap_or_else(|e| panic!("{e}"));
    update(&link, |_| Ok(Edit::Write(b"b".to_vec()))).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        fs::symlink_metadata(&link)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(false)
    );
    assert_eq!(fs::read(&real).unwrap_or_default(), b"b");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_fifo_or_a_directory_is_refused_without_hanging() {
    let dir = temp_dir("fifo");
    let fifo = dir.join("settings.json");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600))
        .unwrap_or_else(|e| panic!("{e}"));
    let err = update(&fifo, |_| Ok(Edit::Keep)).err().unwrap_or_default();
    assert!(err.contains("regular file"), "{err}");
    let _ = fs::remove_dir_all(&dir);
}

/// A writer that died between writing its temp file and the rename leaves
/// the original as it was, and the next writer is not disturbed.
#[test]
fn a_crash_before_the_rename_leaves_the_original() {
    let dir = temp_dir("crash");
    let path = dir.join("settings.json");
    fs::write(&path, b"original").unwrap_or_else(|e| panic!("{e}"));
    let orphan = side_file(&path, "signaltty-424242-0").unwrap_or_else(|e| panic!("{e}"));
    fs::write(&orphan, b"half-written").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(fs::read(&path).unwrap_or_default(), b"original");
    update(&path, |b| {
        assert_eq!(b, Some(&b"original"[..]));
        Ok(Edit::Write(b"next".to_vec()))
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(fs::read(&path).unwrap_or_default(), b"next");
    let _ = fs::remove_dir_all(&dir);
}

/// Two writers editing one file at once: the lock serialises them and
/// neither loses the other's change.
#[test]
fn concurrent_writers_keep_each_others_changes() {
    let dir = temp_dir("concurrent");
    let path = dir.join("hooks.json");
    let threads: Vec<_> = (0..2)
        .map(|w| {
            let path = path.clone();
            std::thread::spawn(move || {
                for i in 0..20 {
                    loop {
                        let done = update(&path, |b| {
                            let mut v: serde_json::Value = b
                                .and_then(|b| serde_json::from_slice(b).ok())
                                .unwrap_or_else(|| serde_json::json!({}));
                            v[format!("w{w}-{i}")] = serde_json::json!(true);
                            Ok(Edit::Write(serde_json::to_vec(&v).unwrap_or_default()))
                        });
                        match done {
                            Ok(_) => break,
                            Err(e) if e.contains("lock unavailable") => continue,
                            Err(e) => panic!("{e}"),
                        }
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap_or_else(|_| panic!("writer panicked"));
    }
    let v: serde_json::Value =
        serde_json::from_slice(&fs::read(&path).unwrap_or_default()).unwrap_or_default();
    assert_eq!(v.as_object().map(|o| o.len()), Some(40), "{v}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_held_lock_makes_a_writer_give_up_in_bounded_time() {
    let dir = temp_dir("lock");
    let path = dir.join("settings.json");
    let held = lock(&path).unwrap_or_else(|e| panic!("{e}"));
    // A second open file description conflicts with flock even in-process.
    let started = Instant::now();
    let err = update(&path, |_| Ok(Edit::Write(b"x".to_vec())))
        .err()
        .unwrap_or_default();
    assert!(err.contains("lock unavailable"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(2));
    drop(held);
    assert!(update(&path, |_| Ok(Edit::Write(b"x".to_vec()))).is_ok());
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn an_edit_leaves_no_lock_file_in_the_folder() {
    let dir = temp_dir("nolock");
    let path = dir.join("settings.json");
    let listing = || {
        let mut names: Vec<String> = fs::read_dir(&dir)
            .map(|d| {
                d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    assert!(update(&path, |_| Ok(Edit::Write(b"{}".to_vec()))).is_ok());
    assert_eq!(listing(), ["settings.json"]);
    // Unchanged, removed: still nothing beside it.
    assert!(update(&path, |_| Ok(Edit::Keep)).is_ok());
    assert_eq!(listing(), ["settings.json"]);
    assert!(update(&path, |_| Ok(Edit::Remove)).is_ok());
    assert!(listing().is_empty(), "{:?}", listing());
    // A lock file a killed writer left is taken over and removed.
    fs::write(dir.join(".settings.json.signaltty.lock"), b"").unwrap_or_default();
    assert!(update(&path, |_| Ok(Edit::Write(b"{}".to_vec()))).is_ok());
    assert_eq!(listing(), ["settings.json"]);
    let _ = fs::remove_dir_all(&dir);
}
