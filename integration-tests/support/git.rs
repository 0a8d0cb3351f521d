//! Git for the tests that need a real repository: run it, and make one.

use std::path::Path;
use std::process::Command;

/// Runs git in `dir` without a prompt and returns its trimmed output,
/// failing the test on a non-zero exit.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .unwrap_or_else(|e| panic!("git {args:?}: {e}"));
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Makes `dir` (created if missing) a repository with one commit on `main`
/// holding `file` with `content`, and a committer configured.
pub fn init_repo(dir: &Path, file: &str, content: &str) {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.email", "t@example.com"]);
    git(dir, &["config", "user.name", "T"]);
    std::fs::write(dir.join(file), content).unwrap_or_else(|e| panic!("{e}"));
    git(dir, &["add", file]);
    git(dir, &["commit", "-q", "-m", "first"]);
}
