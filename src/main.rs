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

mod cli;
mod client;
mod follow;
mod logger;
mod serve;

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
    /// Close a workspace and everything in it (workspace.close).
    Close {
        /// Workspace id or handle.
        workspace: String,
        /// Signal for each live child (INT TERM KILL HUP QUIT WINCH USR1 USR2).
        #[arg(long, default_value = "TERM")]
        signal: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Server {
            log_file,
            detached,
            journal_rotate_bytes,
        } => serve::server(&cli.global, log_file, detached, journal_rotate_bytes),
        Command::Start => serve::start(&cli.global),
        Command::Stop { force } => serve::stop(&cli.global, force),
        Command::Status => cli::status(&cli.global),
        Command::Schema => cli::schema(&cli.global),
        Command::Workspace(cmd) => cli::workspace(&cli.global, cmd),
        Command::Events { from_seq, filters } => follow::events(&cli.global, from_seq, filters),
        Command::Journal(JournalCommand::Verify { state_dir }) => {
            follow::verify(&cli.global, state_dir)
        },
    };
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
