//! `signaltty workspace …`: the workspace's own commands and its git ones,
//! each group run by its own module; both are flattened into one level, so
//! `workspace diff` sits beside `workspace create`.

use clap::Subcommand;
use std::path::PathBuf;

/// `signaltty workspace …`.
#[derive(Debug, Subcommand)]
pub enum WorkspaceCommand {
    // create, list, get, rename, auto-resume, close.
    #[command(flatten)]
    Manage(ManageCommand),
    // refresh-git, diff, file-diff.
    #[command(flatten)]
    Diff(DiffCommand),
}

/// The workspace's own commands (`cli/workspace.rs`).
#[derive(Debug, Subcommand)]
pub enum ManageCommand {
    /// Create a workspace (workspace.create).
    Create {
        /// Label; the handle is derived from it.
        #[arg(long)]
        name: Option<String>,
        /// Default directory for new panes (default: $HOME).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
    },
    /// List workspaces (workspace.list).
    List,
    /// Show one workspace with its tabs and panes (workspace.get).
    Get {
        /// Workspace id or handle.
        workspace: String,
    },
    /// Rename a workspace; its handle stays (workspace.rename).
    Rename {
        /// Workspace id or handle.
        workspace: String,
        /// The new name.
        name: String,
    },
    /// Whether the workspace's resumable agents start again by themselves after
    /// a restart, a few at a time (workspace.set_auto_resume; off by default).
    AutoResume {
        /// Workspace id or handle.
        workspace: String,
        /// on or off.
        #[arg(value_parser = ["on", "off"])]
        state: String,
    },
    /// After how long idle the workspace's agents are hibernated: stopped the
    /// way they save their session, woken by their next prompt, input or
    /// attach (workspace.set_hibernate; docs/restore.md#hibernation).
    Hibernate {
        /// Workspace id or handle.
        workspace: String,
        /// Seconds (90), a duration (30s, 5m, 1h) or off.
        #[arg(value_parser = hibernate_after)]
        after: u64,
    },
    /// Whether a pane of the workspace that waits at its usage limit is given
    /// its continue prompt once the limit resets, plus a margin
    /// (workspace.set_auto_continue; docs/states.md#auto-continue; off by
    /// default).
    AutoContinue {
        /// Workspace id or handle.
        workspace: String,
        /// on or off.
        #[arg(value_parser = ["on", "off"])]
        state: String,
        /// The prompt to type instead of the agent's own ("continue").
        #[arg(long)]
        prompt: Option<String>,
    },
    /// Close a workspace and everything in it (workspace.close).
    Close {
        /// Workspace id or handle.
        workspace: String,
        /// Signal for each live child (INT TERM KILL HUP QUIT WINCH USR1 USR2).
        #[arg(long, default_value = "TERM")]
        signal: String,
    },
}

/// The workspace's git commands: its diffs and its git cache (`cli/diff.rs`).
#[derive(Debug, Subcommand)]
pub enum DiffCommand {
    /// Recompute the workspace's git cache: branch and dirty (workspace.refresh_git).
    RefreshGit {
        /// Workspace id or handle.
        workspace: String,
    },
    /// Changed files with line counts, against HEAD or the turn's start (workspace.diff).
    Diff {
        /// Workspace id or handle.
        workspace: String,
        /// Compare with the checkout when the latest agent turn started.
        #[arg(long)]
        turn: bool,
    },
    /// One file's diff, against HEAD or the turn's start (workspace.file_diff).
    FileDiff {
        /// Workspace id or handle.
        workspace: String,
        /// The file, relative to the checkout root.
        path: String,
        /// Compare with the checkout when the latest agent turn started.
        #[arg(long)]
        turn: bool,
    },
}

/// A hibernation idle time: seconds (`90`), a duration in seconds, minutes
/// or hours (`30s`, `5m`, `1h`), or `off` (0).
pub fn hibernate_after(text: &str) -> Result<u64, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("off") {
        return Ok(0);
    }
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((at, _)) => text.split_at(at),
        None => (text, ""),
    };
    let per = match unit {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        _ => return Err(format!("{text:?}: give seconds (90), 30s, 5m, 1h or off")),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(per))
        .ok_or_else(|| format!("{text:?}: give seconds (90), 30s, 5m, 1h or off"))
}

#[cfg(test)]
mod tests;
