//! A state directory the server cannot write (docs/persistence.md#where-files-live):
//! at start it refuses with exit status 1 and a message naming the path and
//! the reason, before it listens, whether the directory was never made or
//! was made and has become read-only since. The test mounts a small tmpfs
//! (it runs as root in CI) and always unmounts it.

use crate::support::life::Life;
use crate::support::mount::Mount;

#[test]
fn a_state_dir_on_a_read_only_filesystem_is_refused_at_start_with_the_path_and_the_reason() {
    let mut life = Life::new(&[]);
    let state = life.env.state_home();
    let _mount = Mount::tmpfs(&state, "ro,size=1m");
    let stderr = life.start_refused(1);
    let dir = state.join("signaltty");
    assert!(
        stderr.contains(&format!(
            "cannot create the state directory {}",
            dir.display()
        )) && stderr.contains("Read-only file system"),
        "{stderr}"
    );
    assert!(!life.env.default_socket().exists(), "it never listened");
}

#[test]
fn a_state_dir_that_became_read_only_is_refused_at_start_and_keeps_its_files() {
    let mut life = Life::new(&[]);
    let state = life.env.state_home();
    let mount = Mount::tmpfs(&state, "size=4m");
    life.start();
    life.client()
        .call_ok("workspace.create", serde_json::json!({"name": "kept"}));
    life.stop();
    let journal = state.join("signaltty/audit.jsonl");
    let before = std::fs::read(&journal).unwrap_or_else(|e| panic!("{}: {e}", journal.display()));
    mount.remount("ro");
    let stderr = life.start_refused(1);
    assert!(stderr.contains("Read-only file system"), "{stderr}");
    assert!(
        stderr.contains(&state.join("signaltty").display().to_string()),
        "{stderr}"
    );
    mount.remount("rw");
    assert_eq!(
        std::fs::read(&journal).ok(),
        Some(before),
        "the journal is as it was"
    );
    life.start();
    let list = life
        .client()
        .call_ok("workspace.list", serde_json::json!({}));
    assert_eq!(list["workspaces"][0]["name"], "kept", "{list}");
    life.stop();
}
