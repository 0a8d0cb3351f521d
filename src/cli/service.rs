//! `signaltty service install|uninstall|status`: the systemd user units that
//! start the server on the first connection to its socket, and with `--web`
//! the web view's (docs/service.md). The units themselves are in
//! `service/units.rs`, the web view's flags in `service/web.rs`, `status` in
//! `service/status.rs`; what `stop` and the doctor share with this command
//! is `crate::systemd`.

mod ask;
use ask::*;
mod status;
mod units;
mod web;
pub use web::WebFlags;

use crate::args::Global;
use crate::cli::{EXIT_FAILED, fail, failure, resolve_socket};
use crate::systemd::{SERVICE, SOCKET, WEB};
use clap::Subcommand;
use serde_json::{Value, json};
use signaltty_model::Env;
use signaltty_model::client::{CallError, Client};
use signaltty_protocol::{ErrorCode, Method};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use units::Ownership;

/// `signaltty service …`.
#[derive(Debug, Subcommand)]
pub enum ServiceCommand {
    /// Write the systemd user units (signaltty.service, signaltty.socket) and
    /// enable the socket: the first connection starts the server. With
    /// --web, the web view's unit too (signaltty-web.service).
    Install {
        /// Replace unit files edited by hand or not written by signaltty, and
        /// install even while a server (or web view) not started by systemd
        /// runs.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        web: WebFlags,
    },
    /// Stop and disable the units and remove the unit files signaltty wrote.
    Uninstall {
        /// Only the web view's unit (signaltty-web.service): the server's
        /// units stay.
        #[arg(long)]
        web: bool,
    },
    /// Whether the units are installed, enabled and active, whether the
    /// running server was started by systemd, and where the web view listens.
    Status,
}

/// How long the server gets to answer a status probe.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Runs one `service` command; returns the exit code.
pub fn run(global: &Global, command: ServiceCommand) -> i32 {
    let result = match command {
        ServiceCommand::Install { force, web } => install(global, force, &web),
        ServiceCommand::Uninstall { web } => uninstall(web),
        ServiceCommand::Status => status::status(global),
    };
    match result {
        Ok(report) => {
            if global.json {
                say!("{}", report.json);
            } else {
                for line in &report.text {
                    say!("{line}");
                }
            }
            report.code
        },
        Err(message) => fail(&message),
    }
}

/// What a command did: its lines for people, its JSON, its exit code.
struct Report {
    text: Vec<String>,
    json: Value,
    code: i32,
}

/// [`crate::systemd::unit_dir`] for this process, or the error a command reports.
fn this_unit_dir() -> Result<PathBuf, String> {
    crate::systemd::unit_dir(&Env::from_process()).ok_or_else(|| {
        failure(
            ErrorCode::IoError,
            "neither XDG_CONFIG_HOME nor HOME is set to an absolute path: \
             cannot find the systemd user unit directory",
        )
    })
}

/// The socket the socket unit listens on, as this shell sees it: the server's
/// default path, whatever `SIGNALTTY_SOCKET` says.
fn unit_socket() -> PathBuf {
    let mut env = Env::from_process();
    env.signaltty_socket = None;
    env.socket_path(None).0
}

/// Notes about sockets this shell would not reach through the unit.
fn socket_warnings(global: &Global) -> Vec<String> {
    let mut out = Vec::new();
    if std::env::var_os("XDG_RUNTIME_DIR").is_none_or(|d| d.is_empty()) {
        out.push(
            "XDG_RUNTIME_DIR is not set here: the socket unit listens in systemd's runtime \
             directory (%t, normally /run/user/UID), which signaltty finds only when \
             XDG_RUNTIME_DIR is set"
                .to_owned(),
        );
    }
    let cli = resolve_socket(global);
    let unit = unit_socket();
    if cli != unit {
        out.push(format!(
            "this shell talks to {} (--socket or SIGNALTTY_SOCKET), but the socket unit listens \
             on {}",
            cli.display(),
            unit.display()
        ));
    }
    out
}

/// A unit file as it is on disk.
struct OnDisk {
    name: &'static str,
    path: PathBuf,
    /// Its content, when the file exists.
    text: Option<String>,
}

impl OnDisk {
    fn read(dir: &Path, name: &'static str) -> Result<OnDisk, String> {
        let path = dir.join(name);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => Some(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                return Err(failure(
                    ErrorCode::IoError,
                    format!("cannot read {}: {e}", path.display()),
                ));
            },
        };
        Ok(OnDisk { name, path, text })
    }

    fn ownership(&self) -> Option<Ownership> {
        self.text.as_deref().map(units::ownership)
    }
}

/// The running binary, canonicalized: what ExecStart= names.
fn current_binary() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| {
        failure(
            ErrorCode::IoError,
            format!("cannot find the signaltty binary: {e}"),
        )
    })?;
    std::fs::canonicalize(&exe).map_err(|e| {
        failure(
            ErrorCode::IoError,
            format!("cannot resolve {}: {e}", exe.display()),
        )
    })
}

/// Writes `text` to `path` (0644) through a temporary file and a rename.
fn write_unit(path: &Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension("signaltty-tmp");
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .mode(0o644)
            .open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        failure(
            ErrorCode::IoError,
            format!("cannot write {}: {e}", path.display()),
        )
    })
}

/// `signaltty service install`.
fn install(global: &Global, force: bool, web: &WebFlags) -> Result<Report, String> {
    let dir = this_unit_dir()?;
    let exe = current_binary()?;
    let path_env = std::env::var("PATH").ok();
    // The web view's flags first, by `signaltty web`'s own rules: a refusal
    // writes nothing.
    let web_plan = if web.web { Some(web::plan(web)?) } else { None };
    let mut wanted = vec![
        (SERVICE, units::service_unit(&exe, path_env.as_deref())?),
        (SOCKET, units::socket_unit()),
    ];
    if let Some(plan) = &web_plan {
        wanted.push((
            WEB,
            units::web_unit(&exe, &plan.words, path_env.as_deref())?,
        ));
    }
    let socket = unit_socket();
    let running = who_answers(&socket);
    let mut text = Vec::new();
    let mut warnings = socket_warnings(global);
    let manual = match &running {
        Running::Manual(pid) => {
            let who = pid.map_or_else(String::new, |p| format!(" (pid {p})"));
            if !force {
                // Not a wire code (`ErrorCode` has none for it): the words
                // `service install` has always refused with.
                return Err(format!(
                    "ALREADY_RUNNING: a signaltty server not started by systemd{who} answers on \
                     {}: stop it first (`signaltty stop`), or pass --force to install anyway",
                    socket.display()
                ));
            }
            warnings.push(format!(
                "a signaltty server not started by systemd{who} answers on {}: the socket unit \
                 is enabled but not started",
                socket.display()
            ));
            true
        },
        Running::Unclear(why) => {
            warnings.push(format!(
                "something listens on {} but did not answer as a signaltty server: {why}",
                socket.display()
            ));
            false
        },
        Running::Nothing | Running::Listening | Running::Systemd(_) => false,
    };
    let web_held = web_plan.is_some() && web::held(force, &mut warnings)?;
    if web_plan.is_none()
        && let Some(note) = web::stale_note(&dir, &exe)
    {
        warnings.push(note);
    }

    // Look at every file before writing any: a refusal changes nothing.
    let mut plan = Vec::new();
    for (name, content) in &wanted {
        let disk = OnDisk::read(&dir, name)?;
        let action = match (disk.text.as_deref(), disk.ownership()) {
            (None, _) => "created",
            (Some(t), _) if t == content => "unchanged",
            (Some(_), Some(Ownership::Ours)) => "updated",
            (Some(_), Some(o)) if force => {
                warnings.push(format!(
                    "replaced {} ({}) because of --force",
                    disk.path.display(),
                    if o == Ownership::Edited {
                        "edited by hand"
                    } else {
                        "not written by signaltty"
                    }
                ));
                "replaced"
            },
            (Some(_), o) => {
                let why = if o == Some(Ownership::Edited) {
                    "was edited after signaltty wrote it"
                } else {
                    "was not written by signaltty"
                };
                // Not a wire code either, as ALREADY_RUNNING above.
                return Err(format!(
                    "REFUSED: {} {why}; keep it, or pass --force to replace it",
                    disk.path.display()
                ));
            },
        };
        plan.push((disk, content, action));
    }
    std::fs::create_dir_all(&dir).map_err(|e| {
        failure(
            ErrorCode::IoError,
            format!("cannot create {}: {e}", dir.display()),
        )
    })?;
    let mut files = Vec::new();
    for (disk, content, action) in &plan {
        if *action != "unchanged" {
            write_unit(&disk.path, content)?;
        }
        text.push(format!("{action}: {}", disk.path.display()));
        files.push(json!({"unit": disk.name, "path": disk.path, "action": action}));
    }
    let changed_unit = |server: bool| {
        plan.iter()
            .any(|(d, _, a)| (d.name != WEB) == server && *a != "unchanged")
    };
    let (server_changed, web_changed) = (changed_unit(true), changed_unit(false));
    let changed = server_changed || web_changed;

    let mut commands: Vec<Vec<&str>> = Vec::new();
    if changed {
        commands.push(vec!["daemon-reload"]);
    }
    if manual {
        commands.push(vec!["enable", SOCKET]);
    } else {
        // Unchanged files: enable only what is not enabled and listening yet.
        let settled = !server_changed
            && query("is-enabled", SOCKET).as_deref() == Some("enabled")
            && query("is-active", SOCKET).as_deref() == Some("active");
        if !settled {
            commands.push(vec!["enable", "--now", SOCKET]);
        }
    }
    if let Some((_, _, action)) = plan.iter().find(|(d, _, _)| d.name == WEB) {
        commands.extend(web::start_commands(action, manual || web_held));
    }
    if server_changed && let Running::Systemd(pid) = &running {
        warnings.push(format!(
            "the running server{} keeps its old unit until it restarts (`signaltty stop`; the \
             next command starts the new one)",
            pid.map_or_else(String::new, |p| format!(" (pid {p})"))
        ));
    }
    let mut ran = Vec::new();
    let mut todo = run_all(&commands, &mut ran, &mut text);
    if manual {
        todo.push("signaltty stop".to_owned());
        todo.push(format!("systemctl --user start {SOCKET}"));
    }
    if web_plan.is_some() && (manual || web_held) {
        todo.push(format!("systemctl --user start {WEB}"));
    }
    if commands.is_empty() {
        text.push("already installed and enabled: nothing changed".to_owned());
    } else if todo.is_empty() {
        text.push(format!(
            "installed: the first connection to {} starts the server",
            socket.display()
        ));
    } else {
        text.push("the unit files are written; to finish, run:".to_owned());
        text.extend(todo.iter().map(|c| format!("  {c}")));
    }
    if let Some(plan) = &web_plan {
        text.push(format!(
            "web view: {} ({WEB}); pair a browser with `signaltty web pair`",
            plan.url
        ));
    }
    text.extend(warnings.iter().map(|w| format!("note: {w}")));
    Ok(Report {
        text,
        json: json!({
            "unit_dir": dir,
            "exec_start": exe,
            "socket": socket,
            "files": files,
            "changed": changed,
            "web": web_plan.as_ref().map(|p| json!({
                "unit": WEB,
                "listen": p.listen,
                "url": p.url,
                "args": p.words,
            })),
            "systemctl": ran,
            "todo": todo,
            "warnings": warnings,
        }),
        code: 0,
    })
}

/// `signaltty service uninstall`.
fn uninstall(web_only: bool) -> Result<Report, String> {
    let dir = this_unit_dir()?;
    let names: &[&'static str] = if web_only {
        &[WEB]
    } else {
        &[WEB, SOCKET, SERVICE]
    };
    let disks = names
        .iter()
        .map(|name| OnDisk::read(&dir, name))
        .collect::<Result<Vec<_>, _>>()?;
    let mut text = Vec::new();
    let mut files = Vec::new();
    let ours: Vec<&OnDisk> = disks
        .iter()
        .filter(|d| matches!(d.ownership(), Some(Ownership::Ours | Ownership::Edited)))
        .collect();
    for d in disks
        .iter()
        .filter(|d| !ours.iter().any(|o| o.name == d.name))
    {
        let state = if d.text.is_some() {
            text.push(format!(
                "kept: {} (not written by signaltty)",
                d.path.display()
            ));
            "kept"
        } else {
            "absent"
        };
        files.push(json!({"unit": d.name, "path": d.path, "action": state}));
    }
    let mut ran = Vec::new();
    let mut todo = Vec::new();
    if !ours.is_empty() {
        let mut disable = vec!["disable", "--now"];
        disable.extend(ours.iter().map(|d| d.name));
        let missing = matches!(systemctl(&["--version"]), Ctl::Missing);
        if !missing {
            todo = run_all(&[disable], &mut ran, &mut text);
            if !todo.is_empty() {
                // The units may still run: their files stay until they are stopped.
                todo.push("signaltty service uninstall".to_owned());
                text.push("the unit files are kept; to finish, run:".to_owned());
                text.extend(todo.iter().map(|c| format!("  {c}")));
                return Ok(Report {
                    text,
                    json: json!({"unit_dir": dir, "files": files, "systemctl": ran, "todo": todo}),
                    code: EXIT_FAILED,
                });
            }
        } else {
            text.push("systemctl is not installed: nothing to stop".to_owned());
        }
        for d in &ours {
            std::fs::remove_file(&d.path).map_err(|e| {
                failure(
                    ErrorCode::IoError,
                    format!("cannot remove {}: {e}", d.path.display()),
                )
            })?;
            text.push(format!("removed: {}", d.path.display()));
            files.push(json!({"unit": d.name, "path": d.path, "action": "removed"}));
        }
        if !missing {
            todo = run_all(&[vec!["daemon-reload"]], &mut ran, &mut text);
        }
    } else {
        text.push(if web_only {
            format!("{WEB} is not installed: nothing to do")
        } else {
            "signaltty's units are not installed: nothing to do".to_owned()
        });
    }
    if !todo.is_empty() {
        text.push("to finish, run:".to_owned());
        text.extend(todo.iter().map(|c| format!("  {c}")));
    }
    Ok(Report {
        text,
        json: json!({"unit_dir": dir, "files": files, "systemctl": ran, "todo": todo}),
        code: 0,
    })
}
