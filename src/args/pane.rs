//! `signaltty pane …` and `signaltty tab …`.

use clap::Subcommand;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum PaneCommand {
    /// Start a pane in an empty tab of a workspace (pane.spawn).
    Spawn {
        /// Workspace id or handle.
        workspace: String,
        /// An empty tab of that workspace.
        #[arg(long)]
        tab: Option<String>,
        /// Directory (default: the workspace's).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// An environment variable for the process; repeatable.
        #[arg(long = "env", value_name = "KEY=VALUE", value_parser = crate::cli::parse_env)]
        env: Vec<(String, String)>,
        /// The pane this one was started from (lineage; id or name).
        #[arg(long, value_name = "PANE")]
        parent_pane: Option<String>,
        /// A human label (at most 128 characters).
        #[arg(long)]
        label: Option<String>,
        /// How it relates to its parent (default subagent when a parent is given).
        #[arg(long, value_parser = ["fork", "subagent"], requires = "parent_pane")]
        relationship: Option<String>,
        /// The agent kind (claude, codex, …) instead of detecting it from the command.
        #[arg(long, value_name = "KIND")]
        agent_hint: Option<String>,
        /// The command (default: $SHELL).
        #[arg(last = true)]
        argv: Vec<String>,
    },
    /// Split a pane: a new pane beside it in its tab (pane.split).
    Split {
        /// Pane id or name (default: $SIGNALTTY_PANE).
        pane: Option<String>,
        /// right or down.
        #[arg(long, default_value = "right")]
        direction: String,
        /// Directory (default: the split pane's).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// An environment variable for the process; repeatable.
        #[arg(long = "env", value_name = "KEY=VALUE", value_parser = crate::cli::parse_env)]
        env: Vec<(String, String)>,
        /// The command (default: $SHELL).
        #[arg(last = true)]
        argv: Vec<String>,
    },
    /// List the panes of a workspace (workspace.get), or with none given the
    /// panes of every workspace, grouped by workspace.
    List {
        /// Workspace id or handle (default: every workspace).
        workspace: Option<String>,
        /// This machine's server and every configured host's
        /// (`signaltty host list`); each pane says its host.
        #[arg(long)]
        all_hosts: bool,
    },
    /// Name a pane, or clear its name with --clear (pane.rename).
    Rename {
        /// Pane id or name.
        pane: String,
        /// The new name.
        name: Option<String>,
        /// Remove the name.
        #[arg(long)]
        clear: bool,
    },
    /// Trade places with another pane (pane.swap).
    Swap {
        /// Pane id or name.
        pane: String,
        /// The other pane.
        target: String,
    },
    /// Move a pane next to another one (pane.move).
    Move {
        /// Pane id or name.
        pane: String,
        /// The pane to split.
        target: String,
        /// right or down.
        #[arg(long, default_value = "right")]
        direction: String,
    },
    /// Clear a pane's screen and history (pane.clear).
    Clear {
        /// Pane id or name.
        pane: Option<String>,
    },
    /// Wait until a line of the pane matches (pane.wait_for_output).
    WaitOutput {
        /// Pane id or name.
        pane: String,
        /// Text a line must contain (a regex with --regex).
        pattern: String,
        /// Treat the pattern as a regex.
        #[arg(long)]
        regex: bool,
        /// screen, tail or rendered.
        #[arg(long, default_value = "tail")]
        mode: String,
        /// rendered: only lines after this cursor.
        #[arg(long)]
        after_seq: Option<u64>,
        /// Match the text with its escape sequences (strip_ansi: false).
        #[arg(long)]
        raw: bool,
        /// How many lines each read looks at (screen, tail; default 200).
        #[arg(long)]
        lines: Option<u64>,
        /// Give up after this many seconds.
        #[arg(long, default_value_t = 3600)]
        timeout: u64,
    },
    /// Attach this terminal to a pane (pane.attach); the same as `attach`.
    Attach {
        /// Pane id or name (default: $SIGNALTTY_PANE).
        pane: Option<String>,
    },
    /// Acknowledge a pane (pane.mark_seen); the same as `mark-seen`.
    MarkSeen {
        /// Pane id or name (default: $SIGNALTTY_PANE).
        pane: Option<String>,
    },
    /// Type a prompt into an agent and press Enter, safely (pane.submit): refused
    /// while the agent works or asks something.
    Submit {
        /// Pane id or name (default: $SIGNALTTY_PANE).
        pane: Option<String>,
        /// The prompt.
        #[arg(long, conflicts_with = "stdin")]
        text: Option<String>,
        /// Read the prompt from stdin.
        #[arg(long)]
        stdin: bool,
        /// Pause between the paste and Enter (default 300).
        #[arg(long, value_name = "MS")]
        submit_delay_ms: Option<u64>,
        /// Seconds to wait for the agent to take the prompt (default 5).
        #[arg(long, value_name = "S")]
        stall_timeout: Option<u64>,
    },
    /// Start an exited agent again with its resume command, in the same pane (pane.resume).
    Resume {
        /// Pane id or name (default: $SIGNALTTY_PANE).
        pane: Option<String>,
    },
    /// Show a pane (pane.get).
    Get {
        /// Pane id or name (default: $SIGNALTTY_PANE).
        pane: Option<String>,
    },
    /// Print a pane's screen or history (pane.read).
    Read {
        /// Pane id or name (default: $SIGNALTTY_PANE).
        pane: Option<String>,
        /// screen, tail or rendered.
        #[arg(long, default_value = "tail")]
        mode: String,
        /// How many lines (max 5000).
        #[arg(long)]
        lines: Option<u64>,
        /// rendered: only lines after this cursor.
        #[arg(long)]
        after_seq: Option<u64>,
    },
    /// Type text into a pane (pane.input): what a plain shell takes; an
    /// agent's prompt goes with `pane submit`.
    Input {
        /// Pane id or name (default: $SIGNALTTY_PANE).
        pane: Option<String>,
        /// The text.
        #[arg(long, conflicts_with = "stdin", required_unless_present = "stdin")]
        text: Option<String>,
        /// Read the text from stdin (any size: sent in several pane.input calls).
        #[arg(long)]
        stdin: bool,
        /// Press Enter after the text.
        #[arg(long)]
        enter: bool,
    },
    /// Resize a pane (pane.resize).
    Resize {
        /// Pane id or name.
        pane: Option<String>,
        /// Columns.
        #[arg(long)]
        cols: u16,
        /// Rows.
        #[arg(long)]
        rows: u16,
    },
    /// Send a signal to a pane's process (pane.signal).
    Signal {
        /// Pane id or name.
        pane: Option<String>,
        /// INT TERM KILL HUP QUIT WINCH USR1 USR2.
        #[arg(long, default_value = "INT")]
        signal: String,
        /// Signal the whole process group.
        #[arg(long)]
        group: bool,
    },
    /// Close a pane and hang up its process (pane.close).
    Close {
        /// Pane id or name.
        pane: Option<String>,
        /// Signal for the process.
        #[arg(long, default_value = "TERM")]
        signal: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum TabCommand {
    /// Add a tab to a workspace (tab.create).
    Create {
        /// Workspace id or handle.
        workspace: String,
        /// Title.
        #[arg(long)]
        title: Option<String>,
    },
    /// Close a tab and its panes (tab.close).
    Close {
        /// Tab id.
        tab: String,
        /// Signal for each process.
        #[arg(long, default_value = "TERM")]
        signal: String,
    },
    /// Rearrange a tab's panes (tab.set_layout). The layout is a tab's
    /// `layout` JSON (docs/objects.md#layout), e.g. as `workspace get --json`
    /// prints it.
    SetLayout {
        /// Tab id.
        tab: String,
        /// Layout JSON, or `-` to read it from standard input.
        layout: String,
    },
    /// Move one divider (tab.set_ratio).
    SetRatio {
        /// Tab id.
        tab: String,
        /// Path from the root, e.g. 0,1 (empty for the root).
        #[arg(long, value_delimiter = ',')]
        path: Vec<u8>,
        /// The first side's share.
        #[arg(long)]
        ratio: f32,
    },
}
