//! The capped log file: one predecessor kept past the cap, and an existing file
//! appended to, counted and made private.

use super::*;
use std::os::unix::fs::PermissionsExt;

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn passing_the_cap_keeps_one_predecessor_and_never_more() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("server.log");
    let log = RotatingFile::open(&path, 100).unwrap_or_else(|e| panic!("{e}"));
    let line = [b'a'; 39];
    let mut line = line.to_vec();
    line.push(b'\n');
    log.write_record(&line).unwrap_or_else(|e| panic!("{e}"));
    log.write_record(&line).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(files(dir.path()), ["server.log"], "80 bytes fit in 100");
    log.write_record(b"third\n")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(files(dir.path()), ["server.log"], "86 bytes still fit");
    log.write_record(&line).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(files(dir.path()), ["server.log", "server.log.1"]);
    let old = std::fs::read(predecessor(&path)).unwrap_or_default();
    assert_eq!(old.len(), 86, "the predecessor holds whole records");
    assert_eq!(std::fs::read(&path).unwrap_or_default(), line);
    for n in 0..20 {
        log.write_record(format!("line {n:032}\n").as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(files(dir.path()), ["server.log", "server.log.1"]);
    for p in [path.clone(), predecessor(&path)] {
        let meta = std::fs::metadata(&p).unwrap_or_else(|e| panic!("{e}"));
        assert!(meta.len() <= 100, "{} is {} bytes", p.display(), meta.len());
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    }
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(text.ends_with("line 00000000000000000000000000000019\n"));
}

#[test]
fn an_existing_file_is_appended_to_and_counted_and_made_private() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("server.log");
    std::fs::write(&path, [b'x'; 90]).unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))
        .unwrap_or_else(|e| panic!("{e}"));
    let log = RotatingFile::open(&path, 100).unwrap_or_else(|e| panic!("{e}"));
    let mode = std::fs::metadata(&path).map(|m| m.permissions().mode() & 0o777);
    assert_eq!(mode.ok(), Some(0o600));
    log.write_record(b"0123456789ab\n")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        std::fs::read(predecessor(&path)).unwrap_or_default().len(),
        90
    );
    // A record bigger than the cap goes whole into a file of its own.
    let big = vec![b'b'; 250];
    log.write_record(&big).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(std::fs::read(&path).unwrap_or_default(), big);
    assert_eq!(files(dir.path()), ["server.log", "server.log.1"]);
}
