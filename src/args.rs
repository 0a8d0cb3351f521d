//! The command line: every command and flag, as clap derives them. `main.rs`
//! dispatches; completions and man pages are generated from the same tree.

mod pane;
mod workspace;

pub use pane::{PaneCommand, TabCommand};
pub use workspace::{DiffCommand, ManageCommand, WorkspaceCommand};

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// signaltty: one background server that owns your agents' terminals and knows
/// which one is working, blocked, done or failed.
#[derive(Debug, Parser)]
#[command(name = "signaltty", version, about, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command takes.
#[derive(Debug, Clone, Args)]
pub struct Global {
    /// Socket path (default: $SIGNALTTY_SOCKET, else $XDG_RUNTIME_DIR/signaltty/signaltty.sock).
    #[arg(long, global = true, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// Print the raw JSON result instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Talk to this configured host's server over ssh (default:
    /// $SIGNALTTY_HOST, else this machine's; `signaltty host list`).
    #[arg(long, global = true, value_name = "NAME")]
    pub host: Option<String>,
    /// Colour the text output: auto (on a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, global = true, value_enum, default_value_t, value_name = "WHEN")]
    pub color: crate::paint::ColorWhen,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the server in the foreground.
    Server(crate::serve::ServerArgs),
    /// Start a background server unless one already answers; returns once it does.
    Start,
    /// Stop the server (server.shutdown).
    Stop {
        /// Stop even while panes are live.
        #[arg(long)]
        force: bool,
    },
    /// Replace the running server with a new binary in place, keeping every
    /// pane's process, screen and history (server.upgrade; docs/upgrade.md).
    Upgrade {
        /// The new binary (default: the path the server was started from).
        #[arg(long, value_name = "PATH")]
        binary: Option<PathBuf>,
    },
    /// Say which handoff records this binary reads (run by an upgrading server).
    #[command(name = "upgrade-probe", hide = true)]
    UpgradeProbe,
    /// Show the server's status (server.status).
    Status,
    /// Relay this machine's server on stdin and stdout, for `ssh HOST
    /// signaltty bridge` (starts the server first unless --no-start).
    Bridge(crate::cli::bridge::BridgeArgs),
    /// The machines reached over ssh: add, list, remove, check.
    #[command(subcommand)]
    Host(crate::cli::host::HostCommand),
    /// Show the live protocol contract (server.schema).
    Schema,
    /// The settings: effective values and their origins, the default config
    /// file, the file in use (no server needed).
    #[command(subcommand)]
    Config(crate::cli::config::ConfigCommand),
    /// Manage workspaces (workspace.*).
    #[command(subcommand)]
    Workspace(WorkspaceCommand),
    /// Create a workspace (unless --workspace names one) and start a pane in it.
    New {
        /// An existing workspace (id or handle) instead of a new one.
        #[arg(long)]
        workspace: Option<String>,
        /// Name of the new workspace.
        #[arg(long)]
        name: Option<String>,
        /// Title of the new tab (with --workspace).
        #[arg(long)]
        tab: Option<String>,
        /// Directory of the new workspace and pane (default: $HOME for the workspace).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// An environment variable for the pane's process; repeatable.
        #[arg(long = "env", value_name = "KEY=VALUE", value_parser = crate::cli::parse_env)]
        env: Vec<(String, String)>,
        /// The command (default: $SHELL).
        #[arg(last = true)]
        argv: Vec<String>,
    },
    /// The live board: every agent's state, questions answered with one key,
    /// any pane one keypress away (`?` shows the keys).
    Board(crate::cli::board::BoardArgs),
    /// The web and phone view: every pane and question in a browser, paired
    /// by a one-time link (`web pair`, `web sessions`, `web revoke`).
    Web(crate::cli::web::WebArgs),
    /// Attach this terminal to a pane: see its screen, type into it; Ctrl-\ detaches.
    Attach {
        /// Pane id or name (default: $SIGNALTTY_PANE).
        pane: Option<String>,
    },
    /// Drive panes (pane.*).
    #[command(subcommand)]
    Pane(PaneCommand),
    /// Manage tabs (tab.*).
    #[command(subcommand)]
    Tab(TabCommand),
    /// Git checkouts of a workspace's repository (worktree.*).
    #[command(subcommand)]
    Worktree(crate::cli::worktree::WorktreeCommand),
    /// Print state events as JSON lines and keep following them (subscribe).
    Events {
        /// Replay every matching event after this seq first.
        #[arg(long, value_name = "SEQ")]
        from_seq: Option<u64>,
        /// Stop after the replayed events instead of following live.
        #[arg(long, requires = "from_seq")]
        no_follow: bool,
        /// Event globs (`*`, `workspace.*`, `agent.done`); repeatable. Default: every event.
        #[arg(long = "filter", value_name = "GLOB")]
        filters: Vec<String>,
        /// Follow this machine's server and every configured host's at once;
        /// each event line gets `"host"` (seqs are per host: no --from-seq).
        #[arg(long, conflicts_with = "from_seq")]
        all_hosts: bool,
    },
    /// Inspect the event journal offline.
    #[command(subcommand)]
    Journal(JournalCommand),
    /// Report an agent hook (what installed hooks run; hook-event). Reads the hook's
    /// JSON from stdin when piped. Prints nothing on stdout unless --json, and
    /// exits 0 when no server runs: a hook never breaks its agent.
    HookEvent(crate::cli::hook::HookEventArgs),
    /// Store a notification on a pane and raise its attention (notify).
    Notify {
        /// Pane id or name (default: $SIGNALTTY_PANE).
        #[arg(long)]
        pane: Option<String>,
        /// Title.
        #[arg(long)]
        title: String,
        /// Body.
        #[arg(long)]
        body: Option<String>,
        /// info, warning or error.
        #[arg(long)]
        severity: Option<String>,
    },
    /// Record a pane's agent session (report-session).
    ReportSession {
        /// Pane id or name (default: $SIGNALTTY_PANE).
        #[arg(long)]
        pane: Option<String>,
        /// The agent's session id.
        #[arg(long)]
        session: String,
        /// The agent kind (default: the pane's).
        #[arg(long)]
        agent: Option<String>,
    },
    /// Wait until a pane reaches a state (wait).
    Wait {
        /// Pane id or name (default: $SIGNALTTY_PANE).
        pane: Option<String>,
        /// The pane, as a flag (the same as the argument).
        #[arg(long = "pane", value_name = "PANE", conflicts_with = "pane")]
        pane_flag: Option<String>,
        /// A lifecycle, an attention, seen, attention_cleared or exited;
        /// repeatable or comma-separated (`--until done,failed`).
        #[arg(long, required = true, value_delimiter = ',')]
        until: Vec<String>,
        /// Count only what happens after this point: the `wait_baseline` JSON
        /// that `pane get --json` and `pane submit --json` print (without it,
        /// a pane already in the state returns at once).
        #[arg(long, visible_alias = "after-baseline", value_name = "BASELINE_JSON")]
        after: Option<String>,
        /// Give up after this many seconds.
        #[arg(long)]
        timeout: Option<u64>,
    },
    /// What came back after the last start: per workspace and restore state,
    /// what can be resumed and the commands to resume it.
    Restore,
    /// List the panes that need a person, most urgent first (attention.pending).
    Attention {
        /// At most this many (per server).
        #[arg(long)]
        limit: Option<u64>,
        /// This machine's server and every configured host's; each item says its host.
        #[arg(long)]
        all_hosts: bool,
    },
    /// Acknowledge a pane: clears its attention unless a decision is pending (pane.mark_seen).
    MarkSeen {
        /// Pane id or name (default: $SIGNALTTY_PANE).
        pane: Option<String>,
    },
    /// Agent manifests: list, reload, or check a file (agents.*).
    #[command(subcommand)]
    Agents(AgentsCommand),
    /// Say why a pane is in its state and what would change it (pane.explain).
    Explain {
        /// Pane id or name (default: $SIGNALTTY_PANE).
        pane: Option<String>,
    },
    /// List the pending decisions of every pane, with their prompts and options.
    Decisions {
        /// This machine's server and every configured host's; each item says its host.
        #[arg(long)]
        all_hosts: bool,
    },
    /// Tasks: worker agents in their own git worktrees (task.*).
    #[command(subcommand)]
    Task(crate::cli::task::TaskCommand),
    /// Report a task's result from inside its worker (task.report).
    Report(crate::cli::task::ReportArgs),
    /// The agents' hook configuration: install, remove or check the managed
    /// hooks that report to signaltty (works without a server).
    #[command(subcommand)]
    Integration(IntegrationCommand),
    /// The systemd user units that start the server on the first connection to
    /// its socket: install, uninstall, status (docs/service.md).
    #[command(subcommand)]
    Service(crate::cli::service::ServiceCommand),
    /// Check the whole setup (server, socket, journal, snapshot, directories,
    /// agents and their hooks, service, config) and say how to fix what is wrong.
    /// Exits 1 when a check fails. Works without a server.
    Doctor {
        /// Look for the agents' hook files in this home instead of $HOME.
        #[arg(long, value_name = "DIR")]
        home: Option<PathBuf>,
    },
    /// Give an agent a prompt, wait for its turn to end and print what it
    /// answered (pane.ask). Exit status: 0 done, 4 blocked (the question is
    /// printed), 5 failed or interrupted, 6 timeout.
    Ask {
        /// Pane id or name.
        pane: String,
        /// The prompt.
        prompt: String,
        /// Give up after this many seconds (default 600).
        #[arg(long, value_name = "S")]
        timeout: Option<u64>,
        /// Refuse a busy pane (AGENT_BUSY) instead of waiting for its turn to end.
        #[arg(long)]
        only_if_idle: bool,
    },
    /// Answer a pane's pending decision (decision.answer): once or deny for a
    /// permission request, else an option id or its number.
    Answer {
        /// Pane id or name.
        pane: String,
        /// The option: its id (once, deny, …) or its 1-based number.
        option: String,
        /// Answer only if this is still the pending decision (default: whichever is).
        #[arg(long, value_name = "ID")]
        decision: Option<String>,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell),
    /// or with --install write it where the shell loads it from.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
        /// Write the script into the shell's user completion folder
        /// (bash: $XDG_DATA_HOME/bash-completion/completions), creating it.
        #[arg(long)]
        install: bool,
    },
    /// Print the man page, or with --dir write one page per command there
    /// (signaltty.1, signaltty-pane.1, signaltty-pane-spawn.1, …).
    Man {
        /// Write every page into this directory instead.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Pending decisions (decision.*): `decision answer` is `answer`.
    #[command(subcommand)]
    Decision(crate::cli::decision::DecisionCommand),
    /// Jump to the pane that needs a person most (focus.*).
    #[command(subcommand)]
    Focus(crate::cli::attention::FocusCommand),
    /// Layouts as launch trees: export a tab, start one in a new tab (layout.*).
    #[command(subcommand)]
    Layout(crate::cli::layout::LayoutCommand),
    /// The kept notifications, newest first (notification.list); `read` marks
    /// them read (notification.mark_read).
    Notifications(crate::cli::notifications::NotificationsArgs),
    /// Serve signaltty's tools to an agent over MCP (Model Context Protocol)
    /// on stdin and stdout (docs/mcp.md).
    Mcp,
}

#[derive(Debug, Subcommand)]
pub enum IntegrationCommand {
    /// Write the managed hooks into an agent's config (claude, codex, opencode, cursor, gemini, pi, qwen, kilo, all).
    Install(IntegrationArgs),
    /// Remove the managed hooks, and nothing else.
    Uninstall(IntegrationArgs),
    /// What each agent's config holds: installed, needs repair, not installed, disabled, invalid.
    Status(IntegrationArgs),
    /// Register `signaltty mcp` as an MCP server in an agent's user config
    /// (claude, codex, gemini, all; docs/mcp.md#installing-it).
    #[command(name = "install-mcp")]
    InstallMcp(McpArgs),
    /// Remove signaltty's MCP server entry, and nothing else.
    #[command(name = "uninstall-mcp")]
    UninstallMcp(McpArgs),
}

#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// claude, codex, gemini or all.
    pub agent: String,
    /// Use this home instead of $HOME (and ignore CLAUDE_CONFIG_DIR, CODEX_HOME).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct IntegrationArgs {
    /// claude, codex, opencode, cursor, gemini, pi, qwen, kilo or all.
    pub agent: Option<String>,
    /// Every agent.
    #[arg(long)]
    pub all: bool,
    /// Use this home instead of $HOME (and ignore CLAUDE_CONFIG_DIR, CODEX_HOME, OPENCODE_CONFIG_DIR).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum AgentsCommand {
    /// The active manifests and the files skipped (agents.list).
    List,
    /// Re-read the agents directory and swap the whole set (agents.reload).
    Reload,
    /// Validate a manifest (no server needed); with a screen text on stdin, show
    /// which of its rules match it.
    Check {
        /// The manifest file.
        file: PathBuf,
        /// The pane title to match `title` rules against.
        #[arg(long)]
        title: Option<String>,
    },
    /// Record every distinct screen of an agent's pane as screen fixtures
    /// while you drive it, each named after what the rules read on it
    /// (docs/agents.md, "Recording a new version's screens"). Ctrl-C stops.
    Record(RecordArgs),
}

#[derive(Debug, clap::Args)]
pub struct RecordArgs {
    /// The agent's name: the program started (without `-- ARGV`) and the
    /// directory's `<agent>-<version>` prefix.
    pub agent: String,
    /// Record this pane (id or name) instead of starting the agent in a new one.
    #[arg(long)]
    pub pane: Option<String>,
    /// Where the `<agent>-<version>/` directory goes (default: here).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Stop after this many seconds (default: at Ctrl-C or when the pane's process exits).
    #[arg(long = "for", value_name = "SECS")]
    pub duration: Option<u64>,
    /// The command to start, when it is not just AGENT.
    #[arg(last = true, value_name = "ARGV")]
    pub argv: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum JournalCommand {
    /// Check the journal files: records parse, seqs increase, retention and
    /// reservation agree. Exits 1 when something is wrong.
    Verify {
        /// The state directory (default: $XDG_STATE_HOME/signaltty).
        #[arg(long, value_name = "DIR")]
        state_dir: Option<PathBuf>,
    },
}
