//! `signaltty doctor`: one report of what is wrong and how to fix it
//! (docs/doctor.md). The probes (`server.rs`, `files.rs`, `agents.rs`,
//! `service.rs`) gather facts, each group on a thread of its own with a
//! deadline; `verdict.rs` turns facts into checks and renders them. Nothing
//! here writes anything but a probe file in the state and data directories.

mod agents;
mod files;
mod server;
mod service;
mod verdict;

use crate::args::Global;
use crate::cli::EXIT_FAILED;
use signaltty_model::Env;
use signaltty_model::integration::Roots;
use signaltty_protocol::Timestamp;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use verdict::{Check, Privacy, Verdict};

/// No group of probes may take longer than this; one that does is reported
/// as a failed check and left behind (the process exits without it).
const GROUP_DEADLINE: Duration = Duration::from_secs(8);

/// The text output's width.
const WIDTH: usize = 80;

/// Runs every check and prints the report; exit status 1 when one failed.
pub fn run(global: &Global, home: Option<PathBuf>) -> i32 {
    let checks = checks(global, home);
    if global.json {
        let out = serde_json::json!({"ok": verdict::healthy(&checks), "checks": checks});
        say!("{out}");
    } else {
        use std::io::Write as _;
        let text = coloured(&verdict::render(&checks, WIDTH), crate::paint::current());
        let _ = std::io::stdout().write_all(text.as_bytes());
    }
    if verdict::healthy(&checks) {
        0
    } else {
        EXIT_FAILED
    }
}

/// The report with each line's verdict word in its colour, when `paint`
/// colours (`--color`, `NO_COLOR`; docs/cli.md). Only a verdict line starts
/// at column 0 with a verdict word; the rest is left as it is.
fn coloured(text: &str, paint: crate::paint::Paint) -> String {
    use ratatui::style::Color;
    let words = [
        (Verdict::Ok, Color::Green, false),
        (Verdict::Warn, Color::Yellow, true),
        (Verdict::Fail, Color::Red, true),
        (Verdict::Skip, Color::DarkGray, false),
    ];
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let word = words.iter().find(|(v, _, _)| {
            line.strip_prefix(v.word())
                .is_some_and(|rest| rest.starts_with(' '))
        });
        match word {
            Some((v, colour, bold)) => {
                out.push_str(&paint.paint(v.word(), *colour, *bold));
                out.push_str(&line[v.word().len()..]);
            },
            None => out.push_str(line),
        }
    }
    out
}

/// Runs `f` on a thread of its own; its result arrives on the receiver.
fn spawn<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> mpsc::Receiver<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx
}

/// Waits for a group's result until `until`.
fn collect<T>(rx: &mpsc::Receiver<T>, until: Instant) -> Option<T> {
    rx.recv_timeout(until.saturating_duration_since(Instant::now()))
        .ok()
}

/// The check standing in for a group that did not finish in time.
fn late(name: &str) -> Check {
    Check::new(
        name,
        Verdict::Fail,
        format!(
            "the probe did not finish within {} s",
            GROUP_DEADLINE.as_secs()
        ),
    )
    .fix("something blocks it (a hung filesystem or program?): run the doctor again to see if it persists")
}

/// Every check, in report order.
fn checks(global: &Global, home: Option<PathBuf>) -> Vec<Check> {
    let env = Env::from_process();
    let until = Instant::now() + GROUP_DEADLINE;
    let agent_list = agents::list();
    let programs: Vec<(&'static str, Vec<String>)> = agent_list
        .iter()
        .map(|(a, names)| (a.name(), names.clone()))
        .collect();
    let generic: Vec<String> = agent_list
        .iter()
        .filter(|(a, _)| matches!(a, signaltty_model::integration::agent::Agent::Program(_)))
        .flat_map(|(_, names)| names.clone())
        .collect();

    let socket = server::socket(&env, global.socket.as_deref());
    let server_rx = spawn(move || {
        let mut checks = server::probe(&socket, &generic);
        checks.insert(1, server::permissions(&socket));
        checks
    });

    let state_dir = env.state_dir();
    let data_dir = env.data_dir();
    let files_rx = spawn(move || {
        let missing = (
            Verdict::Skip,
            "not created yet (the server creates it at its first start)",
        );
        let mut checks = vec![
            files::journal(&state_dir),
            files::snapshot(&state_dir),
            files::private_dir("state dir", &state_dir, missing, Privacy::Private),
            files::disk("state disk", &state_dir),
        ];
        if data_dir.exists() {
            checks.push(files::private_dir(
                "data dir",
                &data_dir,
                missing,
                Privacy::NotWritableByOthers,
            ));
            checks.push(files::disk("data disk", &data_dir));
        }
        let hooks = agents::last_hooks(&state_dir, &programs, &Timestamp::now());
        (checks, hooks)
    });

    let roots = Roots::new(home.as_deref(), |k| std::env::var(k).ok());
    let path = std::env::var_os("PATH");
    let agent_rxs: Vec<_> = match &roots {
        Ok(roots) => agent_list
            .into_iter()
            .map(|(agent, names)| {
                let (roots, path) = (roots.clone(), path.clone());
                (
                    agent.name(),
                    spawn(move || agents::probe(agent, names, &roots, path.as_deref())),
                )
            })
            .collect(),
        Err(_) => Vec::new(),
    };

    let service_env = env.clone();
    let service_rx = spawn(move || service::probe(&service_env));
    let config = files::config(&env);

    let mut out = collect(&server_rx, until).unwrap_or_else(|| vec![late("server")]);
    let (file_checks, hooks) = collect(&files_rx, until)
        .map(|(c, h)| (c, Some(h)))
        .unwrap_or_else(|| (vec![late("state files")], None));
    out.extend(file_checks);
    if let Err(e) = &roots {
        out.push(Check::new("agents", Verdict::Skip, e.clone()));
    }
    let mut hook_checks = Vec::new();
    for (name, rx) in agent_rxs {
        let Some(facts) = collect(&rx, until) else {
            out.push(late(&format!("agent {name}")));
            continue;
        };
        let shown_exe = facts.exe.as_ref().map(|p| p.display().to_string());
        let executable = facts
            .executables
            .first()
            .map(String::as_str)
            .unwrap_or(name);
        out.push(verdict::agent(
            name,
            executable,
            shown_exe.as_deref(),
            facts.version.as_ref(),
            facts.integration.as_ref().map_err(String::as_str),
        ));
        let installed = facts
            .integration
            .as_ref()
            .is_ok_and(|i| i.status == "installed");
        // `hooks` is `None` when the state files' group ran late (reported
        // there), `Some(None)` when there is no journal: nothing ever fired.
        if let Some(journal) = &hooks {
            let last = journal.as_ref().and_then(|m| m.get(name));
            if installed || last.is_some() {
                hook_checks.push(verdict::hooks(name, installed, facts.exe.is_some(), last));
            }
        }
    }
    out.extend(hook_checks);
    out.push(collect(&service_rx, until).unwrap_or_else(|| late("service")));
    out.push(config);
    out
}

#[cfg(test)]
mod tests;
