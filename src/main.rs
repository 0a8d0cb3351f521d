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

mod args;
mod attach;
mod board;
mod cli;
mod config_cli;
mod decisions_cli;
mod diff_cli;
mod doctor;
mod follow;
mod integration_cli;
mod layout_cli;
mod logger;
mod manual;
mod mapping_cli;
mod notifications_cli;
mod paint;
mod panes_cli;
mod restore_cli;
mod serve;
mod service_cli;
mod state_cli;
mod systemd;
mod tasks_cli;
mod upgrade_cli;
mod worktree_cli;

use args::{AgentsCommand, Cli, Command, IntegrationCommand, JournalCommand};
pub use args::{Global, PaneCommand, TabCommand, WorkspaceCommand};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    paint::init(cli.global.color);
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
        Command::Completions { shell } => manual::completions(shell),
        Command::Man { dir } => manual::man(dir.as_deref()),
        Command::Start => serve::start(&cli.global),
        Command::Stop { force } => serve::stop(&cli.global, force),
        Command::Upgrade { binary } => upgrade_cli::upgrade(&cli.global, binary),
        Command::UpgradeProbe => serve::upgrade_probe(),
        Command::Status => cli::status(&cli.global),
        Command::Schema => cli::schema(&cli.global),
        Command::Config(cmd) => config_cli::run(&cli.global, cmd),
        Command::Workspace(cmd) => cli::workspace(&cli.global, cmd),
        Command::New {
            workspace,
            name,
            tab,
            cwd,
            env,
            argv,
        } => panes_cli::new(
            &cli.global,
            workspace,
            name,
            tab,
            cwd,
            mapping_cli::env_param(env),
            argv,
        ),
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
            pane_flag,
            until,
            after,
            timeout,
        } => state_cli::wait(&cli.global, pane.or(pane_flag), until, after, timeout),
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
        Command::Service(cmd) => service_cli::run(&cli.global, cmd),
        Command::Doctor { home } => doctor::run(&cli.global, home),
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
        Command::Decision(cmd) => mapping_cli::decision(&cli.global, cmd),
        Command::Focus(cmd) => mapping_cli::focus(&cli.global, cmd),
        Command::Layout(cmd) => layout_cli::run(&cli.global, cmd),
        Command::Notifications(args) => notifications_cli::run(&cli.global, args),
    };
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
