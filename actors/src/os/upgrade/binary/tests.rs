//! Tests of the pre-flight check of an upgrade's binary: what passes, what is
//! refused, and reading ELF headers.

use super::*;
use std::os::unix::fs::PermissionsExt;

fn executable(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn refused(result: Result<PathBuf, Error>) -> String {
    match result {
        Err(Error::BadParams(why)) => why,
        other => panic!("expected BAD_PARAMS, got {other:?}"),
    }
}

#[test]
fn the_running_binary_and_a_script_pass() {
    let this = this_machine().unwrap();
    let exe = std::env::current_exe().unwrap();
    assert_eq!(
        check(&exe, this).unwrap(),
        std::fs::canonicalize(&exe).unwrap()
    );
    let dir = tempfile::tempdir().unwrap();
    let script = executable(dir.path(), "wrapper", b"#!/bin/sh\nexec signaltty \"$@\"\n");
    assert!(check(&script, this).is_ok());
}

#[test]
fn missing_directories_unexecutable_and_foreign_binaries_are_refused() {
    let this = this_machine().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let missing = refused(check(&dir.path().join("gone"), this));
    assert!(
        missing.contains("gone") && missing.contains("No such file"),
        "{missing}"
    );
    assert!(refused(check(dir.path(), this)).contains("not a regular file"));

    let head = head_of(&std::env::current_exe().unwrap()).unwrap();
    let plain = dir.path().join("plain");
    std::fs::write(&plain, &head).unwrap();
    std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).unwrap();
    // root may execute a file without an x bit only if some x bit is set.
    assert!(refused(check(&plain, this)).contains("not executable"));

    let mut foreign = head.clone();
    let other = if this.machine == 183 { 62u16 } else { 183u16 };
    let bytes = if this.data == 2 {
        other.to_be_bytes()
    } else {
        other.to_le_bytes()
    };
    foreign[18..20].copy_from_slice(&bytes);
    let foreign = executable(dir.path(), "foreign", &foreign);
    let why = refused(check(&foreign, this));
    assert!(why.contains("another machine"), "{why}");

    let text = executable(dir.path(), "text", b"just some text, not a program\n");
    assert!(refused(check(&text, this)).contains("neither an ELF program"));
}

#[test]
fn elf_headers_are_read_in_their_byte_order() {
    let mut h = vec![0u8; 20];
    h[..4].copy_from_slice(b"\x7fELF");
    h[4] = 2;
    h[5] = 1;
    h[18..20].copy_from_slice(&62u16.to_le_bytes());
    assert_eq!(
        kind_of(&h),
        Kind::Elf(Machine {
            class: 2,
            data: 1,
            machine: 62
        })
    );
    h[5] = 2;
    h[18..20].copy_from_slice(&22u16.to_be_bytes());
    assert_eq!(
        kind_of(&h),
        Kind::Elf(Machine {
            class: 2,
            data: 2,
            machine: 22
        })
    );
    h[5] = 9;
    assert_eq!(kind_of(&h), Kind::Other);
    assert_eq!(kind_of(b"\x7fELF"), Kind::Other, "too short");
    assert_eq!(kind_of(b"#!/bin/sh"), Kind::Script);
}
