//! `signaltty completions SHELL` and `signaltty man [--dir DIR]`: both are
//! generated from the clap tree the CLI itself parses (`src/args.rs`), so they
//! can never describe a flag that does not exist.

use crate::args::Cli;
use crate::cli::fail_with;
use clap::CommandFactory;
use clap_complete::Shell;
use signaltty_protocol::ErrorCode;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The completion script for `shell`.
fn script(shell: Shell) -> Vec<u8> {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "signaltty", &mut script);
    script
}

/// Prints the completion script for `shell` on stdout, or with `install`
/// writes it where the shell loads a user's completions from.
pub fn completions(shell: Shell, install: bool) -> i32 {
    if install {
        return install_completions(shell);
    }
    // Generated whole, then written: a closed stdout (`completions bash |
    // head -3`) ends the command quietly instead of panicking in clap_complete.
    let _ = std::io::stdout().write_all(&script(shell));
    0
}

/// An absolute directory from the environment variable `var`.
fn env_dir(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

/// Where `shell` loads a user's completion script from, and what the user
/// still has to do for it to be loaded (docs/cli.md#installing).
pub fn completion_path(
    shell: Shell,
    var: impl Fn(&str) -> Option<PathBuf>,
) -> Result<(PathBuf, Option<&'static str>), String> {
    let home = var("HOME").ok_or("$HOME is not set")?;
    let data = var("XDG_DATA_HOME").unwrap_or_else(|| home.join(".local/share"));
    let config = var("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"));
    match shell {
        // bash-completion loads it on first use of the command.
        Shell::Bash => Ok((data.join("bash-completion/completions/signaltty"), None)),
        Shell::Fish => Ok((config.join("fish/completions/signaltty.fish"), None)),
        Shell::Zsh => Ok((
            var("ZDOTDIR").unwrap_or(home).join(".zfunc/_signaltty"),
            Some(
                "zsh loads it once ~/.zshrc has `fpath+=~/.zfunc` before `autoload -Uz compinit && compinit`",
            ),
        )),
        Shell::Elvish => Ok((
            config.join("elvish/lib/signaltty.elv"),
            Some("elvish loads it once ~/.config/elvish/rc.elv has `use signaltty`"),
        )),
        _ => Err(format!(
            "{shell} has no per-user completion folder: add the output of \
             `signaltty completions {shell}` to your profile instead"
        )),
    }
}

/// `completions SHELL --install`: the script written into the shell's user
/// completion folder, created if needed; a script already there is ours
/// and is replaced.
fn install_completions(shell: Shell) -> i32 {
    let (path, note) = match completion_path(shell, env_dir) {
        Ok(found) => found,
        Err(why) => return fail_with(ErrorCode::BadParams, why),
    };
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&path, script(shell)));
    match written {
        Ok(()) => {
            say!("wrote {}", path.display());
            if let Some(note) = note {
                say!("  {note}");
            }
            0
        },
        Err(e) => fail_with(
            ErrorCode::IoError,
            format!("cannot write {}: {e}", path.display()),
        ),
    }
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
