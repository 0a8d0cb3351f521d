//! The size limits of docs/ARCHITECTURE.md#the-server-crates-folders: no
//! source file of the server, the wire types or the model crate passes 600
//! lines, tests included, and the Supervisor's own file stays under 400. A
//! file that grows past them is split along what it does, not at a line.

use std::path::{Path, PathBuf};

const MAX_LINES: usize = 600;
const SUPERVISOR_MAX_LINES: usize = 400;

/// The crates the rule covers, as folders beside this crate's manifest.
const CRATES: [&str; 3] = ["actors", "protocol", "model"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| panic!("{} has no parent", env!("CARGO_MANIFEST_DIR")))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .count()
}

#[test]
fn no_source_file_passes_600_lines() {
    let root = root();
    let mut files = Vec::new();
    for krate in CRATES {
        rust_files(&root.join(krate).join("src"), &mut files);
    }
    assert!(
        files.len() > 100,
        "found only {} files under {}",
        files.len(),
        root.display()
    );
    let mut long: Vec<String> = files
        .iter()
        .map(|f| (lines(f), f))
        .filter(|(n, _)| *n > MAX_LINES)
        .map(|(n, f)| {
            format!(
                "{} ({n} lines)",
                f.strip_prefix(&root).unwrap_or(f).display()
            )
        })
        .collect();
    long.sort();
    assert!(
        long.is_empty(),
        "over {MAX_LINES} lines, split by what they do: {long:#?}"
    );
}

#[test]
fn the_supervisor_stays_under_400_lines() {
    let path = root().join("actors/src/actors/supervisor.rs");
    let n = lines(&path);
    assert!(
        n < SUPERVISOR_MAX_LINES,
        "{} has {n} lines: move a concern into actors/supervisor/",
        path.display()
    );
}
