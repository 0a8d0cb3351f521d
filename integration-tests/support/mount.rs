//! A small tmpfs mounted for a test's lifetime (the tests that use it run
//! as root, as CI does), always unmounted, and a filler that takes every
//! free byte of it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A tmpfs mounted at a path for the test's lifetime.
pub struct Mount(PathBuf);

impl Mount {
    #[track_caller]
    pub fn tmpfs(at: &Path, options: &str) -> Mount {
        std::fs::create_dir_all(at).unwrap_or_else(|e| panic!("{}: {e}", at.display()));
        mount(&["-t", "tmpfs", "-o", options, "tmpfs"], at);
        Mount(at.to_path_buf())
    }

    #[track_caller]
    pub fn remount(&self, options: &str) {
        mount(&["-o", &format!("remount,{options}")], &self.0);
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[track_caller]
fn mount(args: &[&str], at: &Path) {
    let out = Command::new("mount")
        .args(args)
        .arg(at)
        .output()
        .unwrap_or_else(|e| panic!("cannot run mount: {e}"));
    assert!(
        out.status.success(),
        "mount {args:?} {} failed (these tests need root): {}",
        at.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Fills the filesystem of `dir` to the last byte with `dir/filler`;
/// removing the file gives the space back.
pub fn fill(dir: &Path) -> PathBuf {
    use std::io::Write;
    let path = dir.join("filler");
    let mut f = std::fs::File::create(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let chunk = vec![0u8; 64 * 1024];
    while f.write_all(&chunk).is_ok() {}
    for size in [4096usize, 512, 1] {
        while f.write_all(&chunk[..size]).is_ok() {}
    }
    let _ = f.sync_all();
    path
}
