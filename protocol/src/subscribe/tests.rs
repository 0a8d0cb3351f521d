//! Event globs: `*`, prefixes and exact names.

use super::glob_matches;

#[test]
fn globs_match_star_prefix_and_exact_names() {
    assert!(glob_matches("*", "workspace.created"));
    assert!(glob_matches("workspace.*", "workspace.created"));
    assert!(glob_matches("workspace.*", "workspace"));
    assert!(!glob_matches("workspace.*", "workspaces.created"));
    assert!(!glob_matches("workspace.*", "tab.created"));
    assert!(glob_matches("tab.closed", "tab.closed"));
    assert!(!glob_matches("tab.closed", "tab.created"));
    assert!(glob_matches(
        "workspace.turn_started",
        "workspace.turn_started"
    ));
}
