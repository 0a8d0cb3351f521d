//! A spawn that fails leaves the home directory as it was (issue 26): an
//! agent that is not installed gets no hook file, no folder, no lock file
//! written for it (docs/integrations.md#automatic-setup-at-launch).

use crate::support::{TestEnv, TestServer};
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Every entry under `root`: its path, mode and bytes (a symlink's target).
fn tree(root: &Path) -> BTreeMap<String, (u32, Vec<u8>)> {
    let mut all = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let name = path
                .strip_prefix(root)
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            let mode = meta.permissions().mode();
            let bytes = if meta.file_type().is_symlink() {
                std::fs::read_link(&path)
                    .map(|t| t.into_os_string().into_encoded_bytes())
                    .unwrap_or_default()
            } else if meta.is_dir() {
                todo.push(path.clone());
                Vec::new()
            } else {
                std::fs::read(&path).unwrap_or_default()
            };
            all.insert(name, (mode, bytes));
        }
    }
    all
}

#[test]
fn a_spawn_that_fails_leaves_the_home_byte_for_byte_as_it_was() {
    let mut env = TestEnv::new();
    // A PATH with no agent on it.
    env.set_var("PATH", "/usr/bin:/bin");
    let home = env.home();
    // A home a user has lived in: a config of theirs, an agent folder.
    std::fs::create_dir_all(home.join(".config")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(home.join(".bashrc"), "alias ll='ls -l'\n").unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(home.join(".claude")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(home.join(".claude/CLAUDE.md"), "be brief\n").unwrap_or_else(|e| panic!("{e}"));
    let server = TestServer::start_in(env);
    let before = tree(&home);
    for agent in ["claude", "codex", "gemini", "opencode"] {
        let out = server.cli(&["new", "--name", agent, "--", agent]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains("SPAWN_FAILED"),
            "`signaltty new -- {agent}` without {agent} installed: {out:?}"
        );
        let after = tree(&home);
        let changed: Vec<&String> = before
            .keys()
            .chain(after.keys())
            .filter(|k| before.get(*k) != after.get(*k))
            .collect();
        assert!(
            changed.is_empty(),
            "a failed spawn of {agent} changed the home: {changed:?}"
        );
    }
}
