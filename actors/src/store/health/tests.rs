//! Tests of the storage health: errors named as a user reads them, the
//! reserve, a vanished directory, and the report a retry clears.

use super::{Reason, StorageHealth};
use nix::errno::Errno;
use signaltty_protocol::ErrorCode;
use std::io;

fn os(e: Errno) -> io::Error {
    io::Error::from_raw_os_error(e as i32)
}

#[test]
fn each_failed_write_is_named() {
    assert_eq!(Reason::of(&os(Errno::ENOSPC)), Reason::NoSpace);
    assert_eq!(Reason::of(&os(Errno::EDQUOT)), Reason::Quota);
    assert_eq!(Reason::of(&os(Errno::EROFS)), Reason::ReadOnly);
    assert_eq!(Reason::of(&os(Errno::EACCES)), Reason::ReadOnly);
    assert_eq!(Reason::of(&os(Errno::ENOENT)), Reason::Vanished);
    assert_eq!(Reason::of(&os(Errno::EIO)), Reason::Io);
    assert_eq!(Reason::of(&io::Error::other("odd")), Reason::Io);
}

#[test]
fn a_reported_failure_refuses_changes_until_a_write_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let health = StorageHealth::new(dir.path(), 0);
    assert!(health.check().is_ok());
    assert_eq!(health.status().state, "ok");

    let file = dir.path().join("audit.jsonl");
    health.report(&file, &os(Errno::ENOSPC));
    let since = health.trouble().unwrap().since;
    health.report(&file, &os(Errno::ENOSPC));
    assert_eq!(
        health.trouble().unwrap().since,
        since,
        "the first report keeps its time"
    );
    let trouble = health.check().unwrap_err();
    let error = trouble.to_error();
    assert_eq!(error.code(), ErrorCode::IoError);
    let details = error.details().unwrap();
    assert_eq!(details["reason"], "no_space");
    assert_eq!(details["path"], file.display().to_string());
    assert!(error.to_string().contains("nothing was changed"), "{error}");
    let status = health.status();
    assert_eq!(status.state, "degraded");
    assert_eq!(status.reason.as_deref(), Some("no_space"));

    assert!(health.clear());
    assert!(health.check().is_ok());
    assert!(!health.clear(), "nothing left to clear");
}

#[test]
fn below_the_reserve_or_without_a_directory_nothing_is_changed() {
    let dir = tempfile::tempdir().unwrap();
    let greedy = StorageHealth::new(dir.path(), u64::MAX);
    let trouble = greedy.check().unwrap_err();
    assert_eq!(trouble.reason, Reason::NoSpace);
    assert!(trouble.error.contains("reserve"), "{}", trouble.error);
    assert!(greedy.status().free_bytes.is_some());

    let gone = dir.path().join("gone");
    let vanished = StorageHealth::new(&gone, 0);
    assert_eq!(vanished.check().unwrap_err().reason, Reason::Vanished);
    assert_eq!(vanished.status().reason.as_deref(), Some("vanished"));
}
