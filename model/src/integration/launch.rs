//! Automatic setup at launch (docs/integrations.md#automatic-setup-at-launch,
//! docs/methods.md#the-integration-object): before a pane runs a supported
//! agent directly, its hooks are installed, and an interactive local Codex gets
//! `--no-daemon` when it supports it (Codex's shared daemon would otherwise run
//! every pane's hooks with the first pane's environment). A setup failure is
//! reported, never fatal: the launch goes on.

use super::{Roots, install, reporter};
use signaltty_protocol::pane::{AgentKind, Integration};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long the Codex `--no-daemon` probe may run.
pub const PROBE_DEADLINE: Duration = Duration::from_millis(500);

/// What a launch should do: the integration report for the reply, and the argv
/// to execute when it differs from the stored one.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Prepared {
    pub integration: Option<Integration>,
    pub exec_argv: Option<Vec<String>>,
}

/// The agent a launch runs, from the real executable's name only (never a
/// hint or a manifest: those cannot authorise writing a user's config).
pub fn agent_of(argv: &[String]) -> Option<AgentKind> {
    let name = Path::new(argv.first()?).file_name()?.to_str()?;
    match name {
        "claude" => Some(AgentKind::Claude),
        "codex" => Some(AgentKind::Codex),
        "opencode" => Some(AgentKind::Opencode),
        "cursor-agent" => Some(AgentKind::Cursor),
        "gemini" => Some(AgentKind::Gemini),
        "pi" => Some(AgentKind::Pi),
        _ => None,
    }
}

/// Whether this launch turns user hooks off (Claude `--bare`, `--setting-sources`
/// without `user`; OpenCode `--pure`).
pub fn disables_hooks(agent: AgentKind, argv: &[String]) -> bool {
    let args = &argv[argv.len().min(1)..];
    match agent {
        AgentKind::Claude => {
            let lacks_user = |list: &str| !list.split(',').any(|s| s.trim() == "user");
            args.iter().enumerate().any(|(i, a)| {
                a == "--bare"
                    || a.strip_prefix("--setting-sources=").is_some_and(lacks_user)
                    || (a == "--setting-sources" && args.get(i + 1).is_some_and(|l| lacks_user(l)))
            })
        },
        AgentKind::Opencode => args.iter().any(|a| a == "--pure"),
        AgentKind::Codex
        | AgentKind::Cursor
        | AgentKind::Gemini
        | AgentKind::Pi
        | AgentKind::Generic
        | AgentKind::None => false,
    }
}

/// How a Codex command line relates to the per-pane runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodexRuntime {
    /// Not an interactive session (a utility, help, version): leave it.
    Unchanged,
    /// Already `--no-daemon`.
    Isolated,
    /// An interactive local session that needs `--no-daemon`.
    Local,
    /// `--remote`: hooks run elsewhere.
    Remote,
    /// Arguments we do not understand.
    Unsupported,
}

const CODEX_VALUE_OPTIONS: &[&str] = &[
    "-c",
    "--config",
    "--enable",
    "--disable",
    "-m",
    "--model",
    "--local-provider",
    "-p",
    "--profile",
    "-s",
    "--sandbox",
    "-C",
    "--cd",
    "--add-dir",
    "-a",
    "--ask-for-approval",
    "--remote-auth-token-env",
];
const CODEX_FLAGS: &[&str] = &[
    "--oss",
    "--approve-for-me",
    "--dangerously-bypass-approvals-and-sandbox",
    "--dangerously-bypass-hook-trust",
    "--worktree",
    "--search",
    "--no-alt-screen",
    "--strict-config",
    "--last",
    "--all",
    "--include-non-interactive",
];
const CODEX_UTILITIES: &[&str] = &[
    "agents",
    "exec",
    "e",
    "review",
    "login",
    "logout",
    "mcp",
    "plugin",
    "app-server",
    "remote-control",
    "completion",
    "update",
    "doctor",
    "sandbox",
    "debug",
    "apply",
    "a",
    "queue",
    "archive",
    "delete",
    "migrate-rollouts",
    "unarchive",
    "cloud",
    "exec-server",
    "features",
    "help",
];

/// Classifies a Codex argv (docs/integrations.md#codex-and-its-daemon).
pub fn codex_runtime(argv: &[String]) -> CodexRuntime {
    let mut isolated = false;
    let mut i = 1;
    let mut positional_seen = false;
    while i < argv.len() {
        let a = argv[i].as_str();
        if a == "--" {
            break;
        }
        if !a.starts_with('-') || a == "-" {
            if !positional_seen && CODEX_UTILITIES.contains(&a) {
                return CodexRuntime::Unchanged;
            }
            positional_seen = true;
            i += 1;
            continue;
        }
        match a {
            "-h" | "--help" | "-V" | "--version" => return CodexRuntime::Unchanged,
            "--no-daemon" => isolated = true,
            "--remote" => return CodexRuntime::Remote,
            _ if a.starts_with("--remote=") => return CodexRuntime::Remote,
            "--image" | "-i" => {
                // One or more following values.
                let values = argv[i + 1..]
                    .iter()
                    .take_while(|v| !v.starts_with('-'))
                    .count();
                if values == 0 {
                    return CodexRuntime::Unsupported;
                }
                i += values;
            },
            _ if a.starts_with("--image=") || (a.starts_with("-i") && a.len() > 2) => {},
            _ if CODEX_VALUE_OPTIONS.contains(&a) => {
                if i + 1 >= argv.len() {
                    return CodexRuntime::Unsupported;
                }
                i += 1;
            },
            _ if CODEX_FLAGS.contains(&a) => {},
            _ if a.starts_with("--") && a.contains('=') => {
                let name = a.split('=').next().unwrap_or_default();
                if !CODEX_VALUE_OPTIONS.contains(&name) {
                    return CodexRuntime::Unsupported;
                }
            },
            // A short value option glued to its value: `-mgpt-5`.
            _ if !a.starts_with("--")
                && CODEX_VALUE_OPTIONS
                    .iter()
                    .any(|o| o.len() == 2 && a.starts_with(o)) => {},
            _ => return CodexRuntime::Unsupported,
        }
        i += 1;
    }
    if isolated {
        CodexRuntime::Isolated
    } else {
        CodexRuntime::Local
    }
}

/// Runs `<codex> --no-daemon --version` in its own process group with nothing
/// attached, in `cwd`, for at most `PROBE_DEADLINE`; whether it succeeded.
fn probe_no_daemon(program: &str, cwd: &Path, env: &[(String, String)]) -> bool {
    use std::os::unix::process::CommandExt as _;
    let child = Command::new(program)
        .args(["--no-daemon", "--version"])
        .current_dir(cwd)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
    let Ok(mut child) = child else {
        return false;
    };
    let until = Instant::now() + PROBE_DEADLINE;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
            _ => break None,
        }
    };
    // The whole group goes, whatever it started.
    if let Ok(pid) = i32::try_from(child.id()) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let _ = child.wait();
    status.is_some_and(|s| s.success())
}

/// Prepares a launch of `argv` in `cwd` with the request's `env` (filtered
/// overrides) and the child's whole environment `child_env`. Blocking: run it
/// off the event loop.
pub fn prepare(
    argv: &[String],
    env: &BTreeMap<String, String>,
    cwd: &Path,
    child_env: &[(String, String)],
) -> Prepared {
    let Some(agent) = agent_of(argv) else {
        return Prepared::default();
    };
    let name = agent.name();
    if disables_hooks(agent, argv) {
        return Prepared {
            integration: Some(Integration {
                agent: name.to_owned(),
                status: "disabled".to_owned(),
                changed: false,
                file: None,
                notice: Some(format!(
                    "{name}: this launch disables user hooks/plugins; status integration is unavailable."
                )),
            }),
            exec_argv: None,
        };
    }
    let server_var = |k: &str| std::env::var(k).ok();
    let explicit = server_var("SIGNALTTY_INTEGRATION_HOME")
        .filter(|h| !h.is_empty())
        .map(std::path::PathBuf::from);
    let installed = Roots::new(explicit.as_deref(), server_var)
        .map(|roots| roots.for_launch(env, cwd))
        .and_then(|roots| reporter().and_then(|r| install(agent, &roots, &r)));
    let mut integration = match installed {
        Ok(report) => Integration {
            agent: name.to_owned(),
            status: "configured".to_owned(),
            changed: report.changed,
            file: Some(report.file.to_string_lossy().into_owned()),
            notice: report.notice,
        },
        Err(e) => Integration {
            agent: name.to_owned(),
            status: "error".to_owned(),
            changed: false,
            file: None,
            notice: Some(format!(
                "{name} status setup failed: {e}. The terminal remains available."
            )),
        },
    };
    let mut exec_argv = None;
    if agent == AgentKind::Codex {
        let runtime_notice = match codex_runtime(argv) {
            CodexRuntime::Unchanged | CodexRuntime::Isolated => None,
            CodexRuntime::Local => {
                if probe_no_daemon(&argv[0], cwd, child_env) {
                    let mut with = argv.to_vec();
                    with.insert(1, "--no-daemon".to_owned());
                    exec_argv = Some(with);
                    None
                } else {
                    Some(
                        "Codex cannot confirm --no-daemon support; update Codex for reliable per-pane status. The original command remains available.",
                    )
                }
            },
            CodexRuntime::Remote => {
                Some("Codex uses a remote app-server; terminal hook attribution is unavailable.")
            },
            CodexRuntime::Unsupported => Some(
                "Codex arguments are not recognized for pane-local runtime setup; status integration is unavailable. The original command remains available.",
            ),
        };
        if let Some(prefix) = runtime_notice {
            integration.notice = Some(match integration.notice.take() {
                Some(n) => format!("{prefix} {n}"),
                None => prefix.to_owned(),
            });
            if integration.status != "error" {
                integration.status = "disabled".to_owned();
            }
        }
    }
    Prepared {
        integration: Some(integration),
        exec_argv,
    }
}

#[cfg(test)]
mod tests;
