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
mod tests;
