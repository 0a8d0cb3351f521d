//! `signaltty integration install|uninstall|status`: the agents' hook files,
//! edited by the same library the server uses at launch (docs/integrations.md);
//! `install-mcp|uninstall-mcp`: signaltty's MCP server entry in the agents'
//! user config (docs/mcp.md#installing-it). Works without a server.

use crate::args::{Global, IntegrationCommand, McpArgs};
use crate::cli::fail_with;
use serde_json::{Value, json};
use signaltty_model::integration::agent::Agent;
use signaltty_model::integration::{self, Report, Roots, Status};
use signaltty_protocol::ErrorCode;
use std::path::{Path, PathBuf};

/// What the command was asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Install,
    Uninstall,
    Status,
}

/// `signaltty integration …`; the exit status is 1 when any agent failed.
pub fn run(global: &Global, cmd: IntegrationCommand) -> i32 {
    let (action, args) = match cmd {
        IntegrationCommand::Install(a) => (Action::Install, a),
        IntegrationCommand::Uninstall(a) => (Action::Uninstall, a),
        IntegrationCommand::Status(a) => (Action::Status, a),
        IntegrationCommand::InstallMcp(a) => return mcp(global, true, a),
        IntegrationCommand::UninstallMcp(a) => return mcp(global, false, a),
    };
    apply(global, action, args.agent, args.all, args.home)
}

/// Runs the command on the agents named.
fn apply(
    global: &Global,
    action: Action,
    agent: Option<String>,
    all: bool,
    home: Option<PathBuf>,
) -> i32 {
    let chosen = match integration::agent::named(agent.as_deref(), all) {
        Ok(a) => a,
        Err(e) => return fail_with(ErrorCode::BadParams, e),
    };
    if action != Action::Status && agent.is_none() && !all {
        return fail_with(
            ErrorCode::BadParams,
            "name an agent (claude, codex, opencode, cursor, gemini, pi, qwen, kilo) or --all",
        );
    }
    let roots = match Roots::new(home.as_deref(), |k| std::env::var(k).ok()) {
        Ok(r) => r,
        Err(e) => return fail_with(ErrorCode::BadParams, e),
    };
    let reporter = integration::reporter();
    let text = !global.json;
    let mut failed = false;
    let mut items = Vec::new();
    let mcp_kinds: Vec<_> = chosen
        .iter()
        .filter_map(|a| match a {
            Agent::Kind(k) if integration::mcp::AGENTS.contains(k) => Some(*k),
            _ => None,
        })
        .collect();
    for agent in chosen {
        let item = match action {
            Action::Install => match &reporter {
                Ok(r) => report(agent, agent.install(&roots, r), &roots, "installed", text),
                Err(e) => report(agent, Err(e.clone()), &roots, "installed", text),
            },
            Action::Uninstall => report(agent, agent.uninstall(&roots), &roots, "removed", text),
            Action::Status => {
                let path = reporter
                    .clone()
                    .unwrap_or_else(|_| PathBuf::from("signaltty"));
                match agent.status(&roots, &path) {
                    Ok((file, status)) => status_item(agent, &file, &status, text),
                    // Only for a kind that is not installable, which
                    // `agents` never returns.
                    Err(e) => report(agent, Err(e), &roots, "installed", text),
                }
            },
        };
        failed |= item.get("error").is_some();
        items.push(item);
    }
    let mcp = if action == Action::Status {
        let path = reporter.unwrap_or_else(|_| PathBuf::from("signaltty"));
        mcp_status(&mcp_kinds, &roots, &path, text)
    } else {
        Vec::new()
    };
    if global.json {
        let out = match action {
            Action::Status => json!({"agents": items, "mcp": mcp, "manifests": manifests()}),
            _ => json!({"results": items}),
        };
        say!("{out}");
    }
    i32::from(failed)
}

/// One install/uninstall result, printed in text mode as it is made.
fn report(
    agent: Agent,
    done: Result<Report, String>,
    roots: &Roots,
    verb: &str,
    text: bool,
) -> Value {
    let name = agent.name();
    match done {
        Ok(r) => {
            if text {
                let what = if r.changed { verb } else { "unchanged" };
                say!("{name}: {what} ({})", r.file.display());
                if let Some(n) = &r.notice {
                    say!("  note: {n}");
                }
            }
            let mut v = json!({"agent": name, "file": r.file, "changed": r.changed});
            if let Some(n) = r.notice {
                v["notice"] = json!(n);
            }
            v
        },
        Err(e) => {
            eprintln!("signaltty: {name}: {e}");
            json!({"agent": name, "file": agent.file(roots), "changed": false, "error": e})
        },
    }
}

fn status_item(agent: Agent, file: &Path, status: &Status, text: bool) -> Value {
    let name = agent.name();
    let mut v = json!({
        "agent": name,
        "status": status.as_str(),
        "installed": *status == Status::Installed,
        "file": file,
    });
    let detail = match status {
        Status::Invalid(e) => {
            v["detail"] = json!(e);
            format!("  ({e})")
        },
        _ => String::new(),
    };
    if text {
        say!(
            "{name:<9} {:<14} {}{detail}",
            status.as_str(),
            file.display()
        );
    }
    v
}

/// Whether each agent's user config starts this binary as its `signaltty`
/// MCP server (docs/mcp.md#installing-it).
fn mcp_status(
    kinds: &[signaltty_protocol::pane::AgentKind],
    roots: &Roots,
    binary: &Path,
    text: bool,
) -> Vec<Value> {
    use signaltty_model::integration::mcp;
    if text && !kinds.is_empty() {
        say!("MCP server (signaltty integration install-mcp):");
    }
    kinds
        .iter()
        .map(|&kind| {
            let file = mcp::file(kind, roots).unwrap_or_default();
            let (status, detail) = match mcp::installed(kind, roots, binary) {
                Ok(true) => ("installed", None),
                Ok(false) => ("not installed", None),
                Err(e) => ("invalid", Some(e)),
            };
            if text {
                let more = detail
                    .as_ref()
                    .map(|e| format!("  ({e})"))
                    .unwrap_or_default();
                say!("  {:<9} {status:<14} {}{more}", kind.name(), file.display());
            }
            let mut v = json!({"agent": kind.name(), "status": status, "file": file});
            if let Some(e) = detail {
                v["detail"] = json!(e);
            }
            v
        })
        .collect()
}

/// The user's manifests, each checked (docs/integrations.md).
fn manifests() -> Value {
    let env = signaltty_model::Env::from_process();
    let Some(dir) = env.agents_dir(None) else {
        return json!([]);
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "toml"));
    files.sort();
    files
        .iter()
        .map(|path| {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let parsed = std::fs::read_to_string(path)
                .map_err(|e| e.to_string())
                .and_then(|t| signaltty_model::agents::manifest::Manifest::parse(&name, &t, false));
            let manifest = match parsed {
                Ok(m) => json!({"file": path, "ok": true, "kind": m.kind}),
                Err(e) => json!({"file": path, "ok": false, "error": e}),
            };
            json!({"name": name, "manifest": manifest})
        })
        .collect()
}

/// `integration install-mcp|uninstall-mcp AGENT`: the entry that starts
/// this very binary as `signaltty mcp`; the exit status is 1 when any agent
/// failed.
fn mcp(global: &Global, install: bool, args: McpArgs) -> i32 {
    use signaltty_model::integration::mcp;
    let chosen = match mcp::named(&args.agent) {
        Ok(a) => a,
        Err(e) => return fail_with(ErrorCode::BadParams, e),
    };
    let roots = match Roots::new(args.home.as_deref(), |k| std::env::var(k).ok()) {
        Ok(r) => r,
        Err(e) => return fail_with(ErrorCode::BadParams, e),
    };
    // The same check as the hooks' command: an absolute, executable file.
    let binary = integration::reporter();
    let text = !global.json;
    let mut failed = false;
    let mut items = Vec::new();
    for kind in chosen {
        let done = match (&binary, install) {
            (Ok(b), true) => mcp::install(kind, &roots, b),
            (Err(e), true) => Err(e.clone()),
            (_, false) => mcp::uninstall(kind, &roots),
        };
        let verb = if install { "installed" } else { "removed" };
        let item = match done {
            Ok(r) => {
                if text {
                    let what = if r.changed { verb } else { "unchanged" };
                    say!("{}: MCP server {what} ({})", kind.name(), r.file.display());
                }
                json!({"agent": kind.name(), "file": r.file, "changed": r.changed})
            },
            Err(e) => {
                eprintln!("signaltty: {}: {e}", kind.name());
                let file = mcp::file(kind, &roots).ok();
                json!({"agent": kind.name(), "file": file, "changed": false, "error": e})
            },
        };
        failed |= item.get("error").is_some();
        items.push(item);
    }
    if global.json {
        say!("{}", json!({ "results": items }));
    }
    i32::from(failed)
}
