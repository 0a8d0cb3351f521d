//! Completions and man pages: the clap tree is consistent and every visible
//! command gets a page.

use super::*;

#[test]
fn the_command_tree_is_consistent() {
    // clap's own checks: duplicate flags, bad defaults, conflicting names.
    Cli::command().debug_assert();
}

#[test]
fn every_visible_command_gets_a_page() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pages = write_pages(dir.path()).expect("pages");
    let names: Vec<String> = pages
        .iter()
        .filter_map(|p| p.file_name()?.to_str().map(str::to_owned))
        .collect();
    for want in [
        "signaltty.1",
        "signaltty-pane.1",
        "signaltty-pane-spawn.1",
        "signaltty-task-start.1",
        "signaltty-completions.1",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
    // Hidden flags stay out of the pages.
    let server = std::fs::read_to_string(dir.path().join("signaltty-server.1")).expect("page");
    assert!(server.contains("max\\-tasks"), "{server}");
    assert!(!server.contains("journal\\-rotate\\-bytes"), "{server}");
}
