//! Pure parts of launching a pane (docs/panes.md#entry-points,
//! docs/panes.md#the-child-environment): the new pane object and what its
//! process is started with ([`build_pane`]), the child environment,
//! relative-executable anchoring, the agent kind of a command, and the captured
//! config env. No I/O: the router checks the filesystem (the cwd) on a blocking
//! thread before it calls these.

pub use signaltty_model::agents::programs::{detect_kind, resume_command};
use signaltty_protocol::pane::{
    AgentInfo, AgentKind, Attention, Lifecycle, LiveState, Pane, PtySize, Relationship,
    RestoreState,
};
use signaltty_protocol::{PaneId, TabId, Timestamp, WorkspaceId};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// The variables a service manager or an in-place upgrade hands the server,
/// which no child ever inherits (docs/panes.md#the-child-environment):
/// systemd's socket activation and readiness, and the upgrade's record and
/// descriptor envelope (docs/upgrade.md).
pub const MANAGER_VARS: &[&str] = &[
    "LISTEN_PID",
    "LISTEN_FDS",
    "LISTEN_FDNAMES",
    "NOTIFY_SOCKET",
    UPGRADE_RECORD_VAR,
    UPGRADE_FDS_VAR,
    UPGRADE_NOFILE_VAR,
];

/// Names an in-place upgrade's record file.
pub const UPGRADE_RECORD_VAR: &str = "SIGNALTTY_UPGRADE";
/// Carries an in-place upgrade's descriptor envelope.
pub const UPGRADE_FDS_VAR: &str = "SIGNALTTY_UPGRADE_FDS";
/// Carries the soft open-file limit the server was first started with across
/// an in-place upgrade (docs/panes.md#how-many-panes).
pub const UPGRADE_NOFILE_VAR: &str = "SIGNALTTY_UPGRADE_NOFILE";

/// What to run in a new PTY.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnSpec {
    /// The program and its arguments. A bare `argv[0]` is looked up in the `PATH`
    /// of `env`.
    pub argv: Vec<String>,
    /// The working directory; it must exist.
    pub cwd: PathBuf,
    /// The complete child environment, built by the caller (docs/panes.md#the-child-environment). Nothing of
    /// the server's environment is inherited.
    pub env: Vec<(String, String)>,
    /// The terminal height.
    pub rows: u16,
    /// The terminal width.
    pub cols: u16,
}

/// Everything a new pane is made of: the request's checked params and what the
/// server supplies (its id, its environment, the socket, the time).
#[derive(Debug, Clone)]
pub struct PaneRecipe<'a> {
    /// The new pane's id.
    pub id: PaneId,
    /// Its workspace.
    pub workspace: WorkspaceId,
    /// The command as requested (a relative executable is anchored at `cwd`).
    pub argv: Vec<String>,
    /// Its working directory: absolute and, checked by the caller, a directory.
    pub cwd: PathBuf,
    /// Its clamped size.
    pub size: PtySize,
    /// The agent kind, from a hint or the command.
    pub kind: AgentKind,
    /// The request's `env` overrides.
    pub request_env: BTreeMap<String, String>,
    /// The pane it was started from, with that pane's root.
    pub parent: Option<Lineage>,
    /// How it relates to its parent (default: a sub-agent).
    pub relationship: Option<Relationship>,
    /// A human label.
    pub label: Option<String>,
    /// The task it works for.
    pub task_id: Option<String>,
    /// The server's environment, filtered for the child.
    pub server_env: Vec<(String, String)>,
    /// The socket the child reports to.
    pub socket: &'a Path,
    /// Now.
    pub now: Timestamp,
}

/// Where a child pane comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lineage {
    /// The pane it was started from.
    pub parent: PaneId,
    /// The first pane of its family.
    pub root: PaneId,
}

/// Builds the pane object (not yet in a tab: its Workspace places it) and the
/// spawn of its process from `recipe`.
pub fn build_pane(recipe: PaneRecipe<'_>) -> (Pane, SpawnSpec) {
    let PaneRecipe {
        id,
        workspace,
        argv,
        cwd,
        size,
        kind,
        request_env,
        parent,
        relationship,
        label,
        task_id,
        server_env,
        socket,
        now,
    } = recipe;
    let argv = anchor_argv(argv, &cwd);
    let mut env_in = request_env.clone();
    // The server's own context wins over the request's overrides.
    if let Some(lineage) = &parent {
        env_in.insert("SIGNALTTY_PARENT_PANE".into(), lineage.parent.0.clone());
    }
    if let Some(task) = &task_id {
        env_in.insert("SIGNALTTY_TASK".into(), task.clone());
    }
    let env = child_env(server_env, &env_in, id.as_str(), socket);
    let pane = Pane {
        id,
        workspace_id: workspace,
        tab_id: TabId(String::new()),
        name: None,
        title: initial_title(&argv),
        cwd: cwd.to_string_lossy().into_owned(),
        argv: argv.clone(),
        pty_size: size,
        live: LiveState::Live,
        restore_state: RestoreState::Live,
        agent: AgentInfo {
            kind,
            agent_session_id: None,
            resume_argv: None,
            model: None,
            config_env: config_env(&request_env, &cwd),
            version: None,
            fidelity: None,
        },
        lifecycle: Lifecycle::Unknown,
        last_lifecycle: Lifecycle::Unknown,
        lifecycle_since: Some(now.clone()),
        last_run_secs: None,
        attention: Attention::None,
        attention_since: None,
        resets_at: None,
        last_message: None,
        created_at: now.clone(),
        last_activity_at: now,
        last_seen_at: None,
        relationship: parent
            .as_ref()
            .map(|_| relationship.unwrap_or(Relationship::Subagent)),
        parent_pane_id: parent.as_ref().map(|l| l.parent.clone()),
        root_pane_id: parent.map(|l| l.root),
        label,
        task_id,
        pending_decision: None,
        hibernation: None,
    };
    let spec = SpawnSpec {
        argv,
        cwd,
        env,
        rows: size.rows,
        cols: size.cols,
    };
    (pane, spec)
}

/// Variables never passed to a child: removed from the server's environment,
/// and refused (`BAD_PARAMS`) as request overrides. The server sets its own
/// `SIGNALTTY_SOCKET`.
pub const ENV_BLOCKED: &[&str] = &["LD_PRELOAD", "LD_LIBRARY_PATH", "SIGNALTTY_SOCKET"];

/// Checks a request's `env` overrides (docs/panes.md): every override is
/// passed to the child except the blocked names, and each key must be an
/// environment name (not empty, no `=` or NUL) with a value without NUL.
/// The error names every offending key, so nothing is ever dropped silently.
pub fn check_overrides(request: &BTreeMap<String, String>) -> Result<(), String> {
    let mut refused = Vec::new();
    let mut bad_keys = Vec::new();
    let mut bad_values = Vec::new();
    for (k, v) in request {
        if k.is_empty() || k.contains('=') || k.contains('\0') {
            bad_keys.push(format!("{k:?}"));
        } else if ENV_BLOCKED.contains(&k.as_str()) {
            refused.push(k.clone());
        }
        if v.contains('\0') {
            bad_values.push(format!("{k:?}"));
        }
    }
    let mut why = Vec::new();
    if !refused.is_empty() {
        why.push(format!(
            "env {} cannot be overridden (always removed; the server sets its own SIGNALTTY_SOCKET)",
            refused.join(", ")
        ));
    }
    if !bad_keys.is_empty() {
        why.push(format!(
            "env keys {} are not environment names (empty, or containing = or NUL)",
            bad_keys.join(", ")
        ));
    }
    if !bad_values.is_empty() {
        why.push(format!(
            "env values of {} contain NUL",
            bad_values.join(", ")
        ));
    }
    if why.is_empty() {
        Ok(())
    } else {
        Err(why.join("; "))
    }
}

/// The only request variables a pane remembers (re-applied by `pane.resume`).
pub const CONFIG_ENV_KEYS: &[&str] = &["CLAUDE_CONFIG_DIR", "CODEX_HOME", "OPENCODE_CONFIG_DIR"];

/// Builds a child's environment: the server's minus the block list, then the
/// request overrides (checked by [`check_overrides`]; a blocked name is skipped
/// here too), `TERM=xterm-256color` when nobody set it, then `SIGNALTTY_PANE`
/// and `SIGNALTTY_SOCKET`, which always win.
pub fn child_env(
    server: impl IntoIterator<Item = (String, String)>,
    request: &BTreeMap<String, String>,
    pane_id: &str,
    socket: &Path,
) -> Vec<(String, String)> {
    let mut env: BTreeMap<String, String> = server
        .into_iter()
        // The service manager's variables are addressed to the server alone.
        .filter(|(k, _)| {
            !ENV_BLOCKED.contains(&k.as_str())
                && !MANAGER_VARS.contains(&k.as_str())
        })
        .collect();
    for (k, v) in request {
        if !ENV_BLOCKED.contains(&k.as_str()) {
            env.insert(k.clone(), v.clone());
        }
    }
    env.entry("TERM".to_owned())
        .or_insert_with(|| "xterm-256color".to_owned());
    env.insert("SIGNALTTY_PANE".to_owned(), pane_id.to_owned());
    env.insert(
        "SIGNALTTY_SOCKET".to_owned(),
        socket.to_string_lossy().into_owned(),
    );
    env.into_iter().collect()
}

/// Makes a relative executable containing `/` absolute against `cwd`, lexically
/// normalised, so a later cwd change cannot redirect a resume. Bare names stay
/// for the PATH lookup.
pub fn anchor_argv(mut argv: Vec<String>, cwd: &Path) -> Vec<String> {
    if let Some(first) = argv.first_mut()
        && first.contains('/')
        && !Path::new(first.as_str()).is_absolute()
    {
        *first = normalise(&cwd.join(first.as_str()))
            .to_string_lossy()
            .into_owned();
    }
    argv
}

fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {},
            Component::ParentDir => {
                out.pop();
            },
            other => out.push(other),
        }
    }
    out
}

/// A pane's title at spawn: the basename of `argv[0]`, or `shell`.
pub fn initial_title(argv: &[String]) -> String {
    argv.first()
        .and_then(|p| Path::new(p).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "shell".to_owned())
}

/// The config env a pane remembers: only the three config-dir variables, made
/// absolute against `cwd`. `None` when there are none.
pub fn config_env(
    request: &BTreeMap<String, String>,
    cwd: &Path,
) -> Option<BTreeMap<String, String>> {
    let kept: BTreeMap<String, String> = request
        .iter()
        .filter(|(k, _)| CONFIG_ENV_KEYS.contains(&k.as_str()))
        .map(|(k, v)| {
            let p = Path::new(v);
            let abs = if p.is_absolute() {
                p.to_path_buf()
            } else {
                normalise(&cwd.join(p))
            };
            (k.clone(), abs.to_string_lossy().into_owned())
        })
        .collect();
    (!kept.is_empty()).then_some(kept)
}

#[cfg(test)]
mod tests;
