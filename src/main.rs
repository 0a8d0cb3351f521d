//! The `signaltty` command: the server (`signaltty server`) and the CLI, where
//! every command is one method call on the socket. This file only routes:
//! one arm per command, calling that command's one function.

// Every line on stdout goes through `say!` (or a write whose error is
// handled): `println!` panics on a closed stdout (`signaltty … | head -1`).
#![cfg_attr(not(test), deny(clippy::print_stdout))]

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
mod launch;
mod logger;
mod mcp;
mod paint;
mod remote;
mod serve;
mod systemd;
mod web;

use args::{Cli, Command, JournalCommand, WorkspaceCommand};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    paint::init(cli.global.color);
    if let Err(code) = remote::take_pane_host(&mut cli.global, &mut cli.command) {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let global = &cli.global;
    if let Some(code) = remote::forward(global, &cli.command) {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let code = match cli.command {
        Command::Server(args) => serve::server(global, args),
        Command::UpgradeProbe => serve::upgrade_probe(),
        Command::Start => cli::server::start(global),
        Command::Stop { force } => cli::server::stop(global, force),
        Command::Status => cli::server::status(global),
        Command::Bridge(args) => cli::bridge::run(global, args),
        Command::Host(cmd) => cli::host::run(global, cmd),
        Command::Schema => cli::server::schema(global),
        Command::Upgrade { binary } => cli::upgrade::upgrade(global, binary),
        Command::Completions { shell, install } => cli::manual::completions(shell, install),
        Command::Man { dir } => cli::manual::man(dir.as_deref()),
        Command::Config(cmd) => cli::config::run(global, cmd),
        Command::Workspace(WorkspaceCommand::Manage(cmd)) => cli::workspace::run(global, cmd),
        Command::Workspace(WorkspaceCommand::Diff(cmd)) => cli::diff::run(global, cmd),
        Command::New {
            workspace,
            name,
            tab,
            cwd,
            env,
            argv,
        } => cli::pane::new(global, workspace, name, tab, cwd, env, argv),
        Command::Pane(cmd) => cli::pane::run(global, cmd),
        Command::Attach { pane } => cli::pane::attach(global, pane),
        Command::MarkSeen { pane } => cli::pane::mark_seen(global, pane),
        Command::Tab(cmd) => cli::tab::run(global, cmd),
        Command::Board(args) => cli::board::run(global, args),
        Command::Web(args) => cli::web::run(global, args),
        Command::Worktree(cmd) => cli::worktree::run(global, cmd),
        Command::Layout(cmd) => cli::layout::run(global, cmd),
        Command::Notifications(args) => cli::notifications::run(global, args),
        Command::Events {
            from_seq,
            no_follow,
            filters,
            all_hosts: false,
        } => cli::events::events(global, from_seq, no_follow, filters),
        Command::Events {
            no_follow,
            filters,
            all_hosts: true,
            ..
        } => cli::events::all_hosts(global, no_follow, filters),
        Command::Journal(JournalCommand::Verify { state_dir }) => {
            cli::events::verify(global, state_dir)
        },
        Command::HookEvent(args) => cli::hook::hook_event(global, args),
        Command::ReportSession {
            pane,
            session,
            agent,
        } => cli::hook::report_session(global, pane, session, agent),
        Command::Notify {
            pane,
            title,
            body,
            severity,
        } => cli::attention::notify(global, pane, title, body, severity),
        Command::Wait {
            pane,
            pane_flag,
            until,
            after,
            timeout,
        } => cli::attention::wait(global, pane.or(pane_flag), until, after, timeout),
        Command::Attention { limit, all_hosts } => {
            cli::attention::attention(global, limit, all_hosts)
        },
        Command::Focus(cmd) => cli::attention::focus(global, cmd),
        Command::Explain { pane } => cli::attention::explain(global, pane),
        Command::Decisions { all_hosts } => cli::decision::list(global, all_hosts),
        Command::Answer {
            pane,
            option,
            decision,
        } => cli::decision::answer(global, &pane, &option, decision),
        Command::Ask {
            pane,
            prompt,
            timeout,
            only_if_idle,
        } => cli::ask::ask(global, Some(pane), prompt, timeout, only_if_idle),
        Command::Decision(cmd) => cli::decision::run(global, cmd),
        Command::Restore => cli::restore::restore(global),
        Command::Task(cmd) => cli::task::run(global, cmd),
        Command::Report(args) => cli::task::report(global, args),
        Command::Agents(cmd) => cli::agents::run(global, cmd),
        Command::Integration(cmd) => cli::integration::run(global, cmd),
        Command::Service(cmd) => cli::service::run(global, cmd),
        Command::Doctor { home } => cli::doctor::run(global, home),
        Command::Mcp => mcp::run(global),
    };
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
