//! The `signaltty` command: the server (`signaltty server`) and the CLI, where
//! every command is one method call on the socket.

/// Prints a line on stdout. A closed stdout (`signaltty schema | head -1`) is not
/// an error worth a panic: the reader has what it wanted.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod attach;
mod board;
mod cli;
mod client;
mod decisions_cli;
mod diff_cli;
mod follow;
mod integration_cli;
mod logger;
mod panes_cli;
mod restore_cli;
mod serve;
mod state_cli;
mod tasks_cli;
mod worktree_cli;

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// signaltty: one background server that owns your agents' terminals and knows
/// which one is working, blocked, done or failed.
#[derive(Debug, Parser)]
#[command(name = "signaltty", version, about, propagate_version = true)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

/// Flags every command takes.
#[derive(Debug, Clone, Args)]
struct Global {
    /// Socket path (default: $SIGNALTTY_SOCKET, else $XDG_RUNTIME_DIR/signaltty/signaltty.sock).
    #[arg(long, global = true, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Print the raw JSON result instead of text.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the server in the foreground.
    Server {
        /// Also write the log to this file.
        #[arg(long, value_name = "PATH")]
        log_file: Option<PathBuf>,
        /// Leave the terminal's session (used by `signaltty start`).
        #[arg(long, hide = true)]
        detached: bool,
        /// Rotate the journal past this many bytes (tests shrink it).
        #[arg(long, hide = true, value_name = "BYTES")]
        journal_rotate_bytes: Option<u64>,
        /// Look at panes' processes this often (default 10 s; tests shorten it).
        #[arg(long, hide = true, value_name = "MS")]
        process_refresh_ms: Option<u64>,
        /// Write a due snapshot this often (default 2 s; tests lengthen it).
        #[arg(long, hide = true, value_name = "MS")]
        snapshot_interval_ms: Option<u64>,
        /// Read agent manifests from this directory ($SIGNALTTY_AGENTS_DIR wins;
        /// default $XDG_CONFIG_HOME/signaltty/agents).
        #[arg(long, value_name = "DIR")]
        agents_dir: Option<PathBuf>,
        /// Cursor approval inference wait (default 10 s; tests shorten it).
        #[arg(long, hide = true, value_name = "MS")]
        cursor_approval_ms: Option<u64>,
        /// Tasks running at once at most (default 4, or $SIGNALTTY_MAX_PARALLEL_TASKS;
        /// 0 refuses every start).
        #[arg(long, value_name = "N")]
        max_tasks: Option<usize>,
        /// A working task whose worker prints and reports nothing this long
        /// needs input (default 600, or $SIGNALTTY_WORKER_SILENT_TIMEOUT_S; 0: never).
        #[arg(long, value_name = "S")]
        worker_silent_timeout: Option<u64>,
    },
    /// Start a background server unless one already answers; returns once it does.
    Start,
    /// Stop the server (server.shutdown).
    Stop {
        /// Stop even while panes are live.
        #[arg(long)]
        force: bool,
    },
    /// Show the server's status (server.status).
    Status,
    /// Show the live protocol contract (server.schema).
    Schema,
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
        /// The command (default: $SHELL).
        #[arg(last = true)]
        argv: Vec<String>,
    },
    /// The live board: every agent's state, questions answered with one key,
    /// any pane one keypress away (`?` shows the keys).
    Board(board::BoardArgs),
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
    Worktree(worktree_cli::WorktreeCommand),
    /// Print state events as JSON lines and keep following them (subscribe).
    Events {
        /// Replay every matching event after this seq first.
        #[arg(long, value_name = "SEQ")]
        from_seq: Option<u64>,
        /// Event globs (`*`, `workspace.*`, `agent.done`); repeatable. Default: every event.
        #[arg(long = "filter", value_name = "GLOB")]
        filters: Vec<String>,
    },
    /// Inspect the event journal offline.
    #[command(subcommand)]
    Journal(JournalCommand),
    /// Report an agent hook (what installed hooks run; hook-event). Reads the hook's
    /// JSON from stdin when piped. Prints nothing on stdout unless --json, and
    /// exits 0 when no server runs: a hook never breaks its agent.
    HookEvent {
        /// claude, codex, opencode, cursor, pi, gemini, generic or none.
        #[arg(long)]
        agent: String,
        /// The native hook name (Stop, PermissionRequest, session.idle, …).
        #[arg(long)]
        event: String,
        /// Pane id or name (default: $SIGNALTTY_PANE, else found from this process's parents).
        #[arg(long)]
        pane: Option<String>,
        /// Read the payload from stdin even when it is a terminal.
        #[arg(long)]
        payload_stdin: bool,
        /// An explicit notification body.
        #[arg(long)]
        message: Option<String>,
        /// The notification title.
        #[arg(long)]
        title: Option<String>,
        /// info, warning or error.
        #[arg(long)]
        severity: Option<String>,
        /// A decision: {"id", "prompt", "options": [{"id", "label"}]}.
        #[arg(long)]
        decision: Option<String>,
        /// Permission reporter: wait for Allow once / Deny from a person and print
        /// the provider's verdict JSON; print nothing when nobody answers.
        #[arg(long, visible_alias = "wait-for-answer")]
        wait: bool,
        /// With --wait: seconds the server waits for an answer (1-120, default 120).
        #[arg(long, value_name = "S")]
        wait_timeout: Option<u64>,
        /// The payload JSON as an argument (what Codex's `notify` appends).
        payload: Option<String>,
    },
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
        /// A lifecycle, an attention, seen, attention_cleared or exited; repeatable.
        #[arg(long, required = true)]
        until: Vec<String>,
        /// A wait_baseline (JSON, from `pane get --json`): only newer transitions count.
        #[arg(long)]
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
        /// At most this many.
        #[arg(long)]
        limit: Option<u64>,
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
    Decisions,
    /// Tasks: worker agents in their own git worktrees (task.*).
    #[command(subcommand)]
    Task(tasks_cli::TaskCommand),
    /// Report a task's result from inside its worker (task.report).
    Report(tasks_cli::ReportArgs),
    /// The agents' hook configuration: install, remove or check the managed
    /// hooks that report to signaltty (works without a server).
    #[command(subcommand)]
    Integration(IntegrationCommand),
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
}

#[derive(Debug, Subcommand)]
enum IntegrationCommand {
    /// Write the managed hooks into an agent's config (claude, codex, opencode, cursor, gemini, pi, qwen, kilo, all).
    Install(IntegrationArgs),
    /// Remove the managed hooks, and nothing else.
    Uninstall(IntegrationArgs),
    /// What each agent's config holds: installed, needs repair, not installed, disabled, invalid.
    Status(IntegrationArgs),
}

#[derive(Debug, clap::Args)]
struct IntegrationArgs {
    /// claude, codex, opencode, cursor, gemini, pi, qwen, kilo or all.
    agent: Option<String>,
    /// Every agent.
    #[arg(long)]
    all: bool,
    /// Use this home instead of $HOME (and ignore CLAUDE_CONFIG_DIR, CODEX_HOME, OPENCODE_CONFIG_DIR).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum PaneCommand {
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
        /// The command (default: $SHELL).
        #[arg(last = true)]
        argv: Vec<String>,
    },
    /// List the panes of a workspace (workspace.get).
    List {
        /// Workspace id or handle.
        workspace: String,
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
        /// Give up after this many seconds.
        #[arg(long, default_value_t = 3600)]
        timeout: u64,
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
    /// Type text into a pane (pane.input).
    Input {
        /// Pane id or name.
        pane: Option<String>,
        /// The text.
        #[arg(long)]
        text: String,
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
enum TabCommand {
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
    /// Rearrange a tab's panes (tab.set_layout). The layout is the JSON of
    /// data-model.md §4.1, e.g. as printed by `workspace get --json`.
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

#[derive(Debug, Subcommand)]
enum AgentsCommand {
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
}

#[derive(Debug, Subcommand)]
enum JournalCommand {
    /// Check the journal files: records parse, seqs increase, retention and
    /// reservation agree. Exits 1 when something is wrong.
    Verify {
        /// The state directory (default: $XDG_STATE_HOME/signaltty).
        #[arg(long, value_name = "DIR")]
        state_dir: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum WorkspaceCommand {
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
    /// Close a workspace and everything in it (workspace.close).
    Close {
        /// Workspace id or handle.
        workspace: String,
        /// Signal for each live child (INT TERM KILL HUP QUIT WINCH USR1 USR2).
        #[arg(long, default_value = "TERM")]
        signal: String,
    },
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Server {
            log_file,
            detached,
            journal_rotate_bytes,
            process_refresh_ms,
            snapshot_interval_ms,
            agents_dir,
            cursor_approval_ms,
            max_tasks,
            worker_silent_timeout,
        } => serve::server(
            &cli.global,
            serve::ServerArgs {
                log_file,
                session: if detached {
                    serve::Session::Detach
                } else {
                    serve::Session::Inherit
                },
                journal_rotate_bytes,
                process_refresh_ms,
                snapshot_interval_ms,
                agents_dir,
                cursor_approval_ms,
                max_tasks,
                worker_silent_timeout,
            },
        ),
        Command::Start => serve::start(&cli.global),
        Command::Stop { force } => serve::stop(&cli.global, force),
        Command::Status => cli::status(&cli.global),
        Command::Schema => cli::schema(&cli.global),
        Command::Workspace(cmd) => cli::workspace(&cli.global, cmd),
        Command::New {
            workspace,
            name,
            tab,
            cwd,
            argv,
        } => panes_cli::new(&cli.global, workspace, name, tab, cwd, argv),
        Command::Pane(cmd) => panes_cli::pane(&cli.global, cmd),
        Command::Attach { pane } => attach::attach(&cli.global, pane),
        Command::Board(args) => board::run(&cli.global, args),
        Command::Tab(cmd) => panes_cli::tab(&cli.global, cmd),
        Command::Worktree(cmd) => worktree_cli::worktree(&cli.global, cmd),
        Command::Events { from_seq, filters } => follow::events(&cli.global, from_seq, filters),
        Command::Journal(JournalCommand::Verify { state_dir }) => {
            follow::verify(&cli.global, state_dir)
        },
        Command::HookEvent {
            agent,
            event,
            pane,
            payload_stdin,
            message,
            title,
            severity,
            decision,
            wait,
            wait_timeout,
            payload,
        } => state_cli::hook_event(
            &cli.global,
            state_cli::HookArgs {
                agent,
                event,
                pane,
                payload_stdin,
                payload_arg: payload,
                message,
                title,
                severity,
                decision,
                wait,
                wait_timeout,
            },
        ),
        Command::Notify {
            pane,
            title,
            body,
            severity,
        } => state_cli::notify(&cli.global, pane, title, body, severity),
        Command::ReportSession {
            pane,
            session,
            agent,
        } => state_cli::report_session(&cli.global, pane, session, agent),
        Command::Wait {
            pane,
            until,
            after,
            timeout,
        } => state_cli::wait(&cli.global, pane, until, after, timeout),
        Command::Attention { limit } => state_cli::attention(&cli.global, limit),
        Command::Restore => restore_cli::restore(&cli.global),
        Command::MarkSeen { pane } => state_cli::mark_seen(&cli.global, pane),
        Command::Explain { pane } => state_cli::explain(&cli.global, pane),
        Command::Decisions => decisions_cli::list(&cli.global),
        Command::Task(cmd) => tasks_cli::run(&cli.global, cmd),
        Command::Report(args) => tasks_cli::report(&cli.global, args),
        Command::Integration(cmd) => {
            use integration_cli::Action;
            let (action, args) = match cmd {
                IntegrationCommand::Install(a) => (Action::Install, a),
                IntegrationCommand::Uninstall(a) => (Action::Uninstall, a),
                IntegrationCommand::Status(a) => (Action::Status, a),
            };
            integration_cli::run(&cli.global, action, args.agent, args.all, args.home)
        },
        Command::Answer {
            pane,
            option,
            decision,
        } => decisions_cli::answer(&cli.global, &pane, &option, decision),
        Command::Agents(AgentsCommand::List) => state_cli::agents(&cli.global, false),
        Command::Agents(AgentsCommand::Reload) => state_cli::agents(&cli.global, true),
        Command::Agents(AgentsCommand::Check { file, title }) => {
            state_cli::agents_check(&file, title)
        },
    };
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
