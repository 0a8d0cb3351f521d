//! What `spawn_child` gives the child that the PTY tests do not pin: the
//! open-file limit the server started with, the exec's search of the child's
//! own `PATH`, and a file without `#!` run by `/bin/sh`, as `execvp` runs it.

use super::*;
use crate::os::pty::SPAWN_LOCK;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Runs `argv` on a fresh PTY and returns what it printed and its exit code.
fn run(argv: &[&str], cwd: &Path, path: &str) -> (String, i32) {
    let spec = SpawnSpec {
        argv: argv.iter().map(|a| (*a).to_owned()).collect(),
        cwd: cwd.to_path_buf(),
        env: vec![("PATH".into(), path.into()), ("LC_ALL".into(), "C".into())],
        rows: 24,
        cols: 80,
    };
    let (pair, child) = {
        let _one_at_a_time = SPAWN_LOCK.lock();
        let pair = open_pty(24, 80).unwrap();
        let child = spawn_child(&spec, &pair.slave).unwrap();
        (pair, child)
    };
    drop(pair.slave);
    let flags = OFlag::from_bits_retain(fcntl(&pair.master, FcntlArg::F_GETFL).unwrap());
    fcntl(&pair.master, FcntlArg::F_SETFL(flags - OFlag::O_NONBLOCK)).unwrap();
    let mut master = File::from(pair.master);
    let mut out = Vec::new();
    // EIO once every process has closed the terminal.
    let _ = master.read_to_end(&mut out);
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    let code = match nix::sys::wait::waitpid(pid, None).unwrap() {
        nix::sys::wait::WaitStatus::Exited(_, code) => code,
        other => panic!("{other:?}"),
    };
    (String::from_utf8_lossy(&out).replace('\r', ""), code)
}

fn system_path() -> String {
    std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
}

#[test]
fn the_child_gets_the_open_file_limit_the_server_started_with() {
    let (soft, hard) = crate::os::limits::nofile().unwrap();
    assert!(soft > 64, "a soft limit of {soft} leaves nothing to test");
    crate::os::limits::pretend_started_with(soft - 7);
    let (out, code) = run(
        &["sh", "-c", "ulimit -Sn; ulimit -Hn"],
        Path::new("/"),
        &system_path(),
    );
    crate::os::limits::pretend_started_with(0);
    assert_eq!(code, 0, "{out}");
    let hard_text = if hard == libc::RLIM_INFINITY {
        "unlimited".to_owned()
    } else {
        hard.to_string()
    };
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [(soft - 7).to_string(), hard_text]
    );
    // Nothing remembered: the child keeps the server's own.
    let (out, _) = run(&["sh", "-c", "ulimit -Sn"], Path::new("/"), &system_path());
    assert_eq!(out.trim(), soft.to_string());
}

#[test]
fn a_bare_name_is_found_on_the_childs_path_and_a_file_without_shebang_runs_in_sh() {
    let dir = tempfile::tempdir().unwrap();
    let bin: PathBuf = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let tool = bin.join("tool");
    std::fs::write(&tool, "echo tool ran in \"$(pwd)\" with \"$1\"\nexit 3\n").unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("/nonexistent:{}:{}", bin.display(), system_path());
    let (out, code) = run(&["tool", "arg"], dir.path(), &path);
    assert_eq!(code, 3, "{out}");
    let cwd = dir.path().canonicalize().unwrap();
    assert_eq!(
        out.trim(),
        format!("tool ran in {} with arg", cwd.display())
    );
    let (out, code) = run(&["./bin/tool", "x"], dir.path(), "/nonexistent");
    assert_eq!(code, 3, "a path with a slash needs no PATH: {out}");
}

#[test]
fn exec_failures_come_back_as_errors_and_leave_no_child() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::write(&plain, "data\n").unwrap();
    let cases: [(&[&str], io::ErrorKind); 3] = [
        (&["no-such-program-signaltty"], io::ErrorKind::NotFound),
        (&["plain"], io::ErrorKind::PermissionDenied),
        (&["./plain"], io::ErrorKind::PermissionDenied),
    ];
    for (argv, kind) in cases {
        let spec = SpawnSpec {
            argv: argv.iter().map(|a| (*a).to_owned()).collect(),
            cwd: dir.path().to_path_buf(),
            env: vec![("PATH".into(), dir.path().display().to_string())],
            rows: 24,
            cols: 80,
        };
        let _one_at_a_time = SPAWN_LOCK.lock();
        let pair = open_pty(24, 80).unwrap();
        let error = spawn_child(&spec, &pair.slave).unwrap_err();
        assert_eq!(error.kind(), kind, "{argv:?}: {error}");
    }
    // Every failed child was reaped: none is left to wait for.
    let left = nix::sys::wait::waitpid(
        nix::unistd::Pid::from_raw(-1),
        Some(nix::sys::wait::WaitPidFlag::WNOHANG),
    );
    assert!(
        !matches!(left, Ok(nix::sys::wait::WaitStatus::Exited(..))),
        "{left:?}"
    );
}

#[test]
fn emfile_is_said_in_words_that_name_the_limit() {
    let said = open_files_error(io::Error::from_raw_os_error(libc::EMFILE)).to_string();
    assert!(said.contains("open-file limit"), "{said}");
    assert!(said.contains("LimitNOFILE"), "{said}");
    let other = open_files_error(io::Error::from_raw_os_error(libc::ENOENT));
    assert_eq!(other.kind(), io::ErrorKind::NotFound);
}
