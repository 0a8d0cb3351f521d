//! `signaltty completions SHELL` and `signaltty man [--dir DIR]`: both are
//! generated from the clap tree the CLI itself parses (`src/args.rs`), so they
//! can never describe a flag that does not exist.

use crate::args::Cli;
use crate::cli::fail_with;
use clap::CommandFactory;
use signaltty_protocol::ErrorCode;
use std::path::{Path, PathBuf};

/// Prints the completion script for `shell` on stdout.
pub fn completions(shell: clap_complete::Shell) -> i32 {
    let mut cmd = Cli::command();
    let mut out = std::io::stdout().lock();
    clap_complete::generate(shell, &mut cmd, "signaltty", &mut out);
    0
}

/// Prints the top page on stdout, or writes every page into `dir`.
pub fn man(dir: Option<&Path>) -> i32 {
    match dir {
        None => {
            let page = clap_mangen::Man::new(Cli::command());
            let mut out = std::io::stdout().lock();
            match page.render(&mut out) {
                Ok(()) => 0,
                // A closed pipe (`signaltty man | head`) is not worth a message.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
                Err(e) => fail_with(
                    ErrorCode::IoError,
                    format!("cannot write the man page: {e}"),
                ),
            }
        },
        Some(dir) => match write_pages(dir) {
            Ok(pages) => {
                say!("wrote {} man pages to {}", pages.len(), dir.display());
                0
            },
            Err(e) => fail_with(
                ErrorCode::IoError,
                format!("cannot write man pages to {}: {e}", dir.display()),
            ),
        },
    }
}

/// Writes one page per visible command (`signaltty-pane-spawn.1`, …) into
/// `dir`, creating it, and returns the pages written.
fn write_pages(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    clap_mangen::generate_to(Cli::command(), dir)?;
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("signaltty") && n.ends_with(".1"))
        })
        .collect();
    pages.sort();
    Ok(pages)
}

#[cfg(test)]
mod tests {
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
}
