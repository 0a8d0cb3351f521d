//! The durable write: new content in place and no temporary file left.

use super::*;

#[test]
fn replace_writes_the_new_content_and_leaves_no_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("event-sequence.json");
    replace(&path, b"1").unwrap();
    replace(&path, b"4096").unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "4096");
    assert!(!dir.path().join("event-sequence.json.tmp").exists());
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
}
