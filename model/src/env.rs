//! The environment values the path rules read, captured once, and the rules
//! themselves: where the socket, the state, data and config directories and
//! the agents directory are (docs/configuration.md). Both the server and every
//! client resolve paths here, so they always agree.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Where the socket path came from. An explicit path's parent directory belongs
/// to the user and is never checked or chmod'ed; the default one is ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocketOrigin {
    /// `--socket` or `SIGNALTTY_SOCKET`.
    Explicit,
    /// `$XDG_RUNTIME_DIR/signaltty/` or `/tmp/signaltty-<uid>/`.
    Default,
}

/// The environment values the path rules read, captured once.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// `SIGNALTTY_SOCKET`.
    pub signaltty_socket: Option<OsString>,
    /// `XDG_RUNTIME_DIR`.
    pub xdg_runtime_dir: Option<OsString>,
    /// `XDG_STATE_HOME`.
    pub xdg_state_home: Option<OsString>,
    /// `HOME`.
    pub home: Option<OsString>,
    /// `XDG_CONFIG_HOME`.
    pub xdg_config_home: Option<OsString>,
    /// `SIGNALTTY_AGENTS_DIR`.
    pub signaltty_agents_dir: Option<OsString>,
    /// `XDG_DATA_HOME`.
    pub xdg_data_home: Option<OsString>,
    /// The real user id.
    pub uid: u32,
    /// Every variable the settings table names (`SIGNALTTY_*`, `RUST_LOG`),
    /// plus `SIGNALTTY_CONFIG`; empty ones left out.
    pub vars: BTreeMap<String, OsString>,
}

impl Env {
    /// Reads the process environment. An empty variable counts as unset.
    pub fn from_process() -> Env {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        Env {
            signaltty_socket: var("SIGNALTTY_SOCKET"),
            xdg_runtime_dir: var("XDG_RUNTIME_DIR"),
            xdg_state_home: var("XDG_STATE_HOME"),
            home: var("HOME"),
            xdg_config_home: var("XDG_CONFIG_HOME"),
            signaltty_agents_dir: var("SIGNALTTY_AGENTS_DIR"),
            xdg_data_home: var("XDG_DATA_HOME"),
            uid: nix::unistd::getuid().as_raw(),
            vars: crate::settings::knobs::KNOBS
                .iter()
                .flat_map(|k| k.env.iter().copied())
                .chain([crate::settings::CONFIG_VAR])
                .filter_map(|name| var(name).map(|v| (name.to_owned(), v)))
                .collect(),
        }
    }

    /// A captured variable, set and not empty.
    pub fn var(&self, name: &str) -> Option<&OsString> {
        self.vars.get(name)
    }

    /// Sets a captured variable (tests build environments with this).
    pub fn with_var(mut self, name: &str, value: impl Into<OsString>) -> Env {
        let value = value.into();
        if !value.is_empty() {
            self.vars.insert(name.to_owned(), value);
        }
        self
    }

    /// The default socket, ignoring overrides: `$XDG_RUNTIME_DIR/signaltty/signaltty.sock`,
    /// else `/tmp/signaltty-<uid>/signaltty.sock`.
    pub fn default_socket(&self) -> PathBuf {
        let dir = match &self.xdg_runtime_dir {
            Some(d) if Path::new(d).is_absolute() => PathBuf::from(d).join("signaltty"),
            _ => PathBuf::from(format!("/tmp/signaltty-{}", self.uid)),
        };
        dir.join("signaltty.sock")
    }

    /// The config directory: `$XDG_CONFIG_HOME/signaltty`, else
    /// `$HOME/.config/signaltty`, else `/tmp/signaltty-config`.
    pub fn config_dir(&self) -> PathBuf {
        match (&self.xdg_config_home, &self.home) {
            (Some(d), _) if Path::new(d).is_absolute() => PathBuf::from(d).join("signaltty"),
            (_, Some(h)) if Path::new(h).is_absolute() => {
                PathBuf::from(h).join(".config/signaltty")
            },
            _ => PathBuf::from("/tmp/signaltty-config"),
        }
    }

    /// The agents directory when nothing overrides it: `$XDG_CONFIG_HOME/signaltty/agents`,
    /// else `$HOME/.config/signaltty/agents`, else none.
    pub fn default_agents_dir(&self) -> Option<PathBuf> {
        match (&self.xdg_config_home, &self.home) {
            (Some(d), _) if Path::new(d).is_absolute() => {
                Some(PathBuf::from(d).join("signaltty/agents"))
            },
            (_, Some(h)) if Path::new(h).is_absolute() => {
                Some(PathBuf::from(h).join(".config/signaltty/agents"))
            },
            _ => None,
        }
    }

    /// The socket path: `flag` > `SIGNALTTY_SOCKET` > `$XDG_RUNTIME_DIR/signaltty/signaltty.sock`
    /// > `/tmp/signaltty-<uid>/signaltty.sock`.
    pub fn socket_path(&self, flag: Option<&Path>) -> (PathBuf, SocketOrigin) {
        if let Some(p) = flag.filter(|p| !p.as_os_str().is_empty()) {
            return (p.to_path_buf(), SocketOrigin::Explicit);
        }
        if let Some(p) = &self.signaltty_socket {
            return (PathBuf::from(p), SocketOrigin::Explicit);
        }
        (self.default_socket(), SocketOrigin::Default)
    }

    /// The state directory: `$XDG_STATE_HOME/signaltty`, else `$HOME/.local/state/signaltty`,
    /// else `/tmp/signaltty-state`. Relative XDG values are ignored, as the XDG spec says.
    pub fn state_dir(&self) -> PathBuf {
        match (&self.xdg_state_home, &self.home) {
            (Some(d), _) if Path::new(d).is_absolute() => PathBuf::from(d).join("signaltty"),
            (_, Some(h)) if Path::new(h).is_absolute() => {
                PathBuf::from(h).join(".local/state/signaltty")
            },
            _ => PathBuf::from("/tmp/signaltty-state"),
        }
    }

    /// The agents directory: `$SIGNALTTY_AGENTS_DIR` > `flag` >
    /// `$XDG_CONFIG_HOME/signaltty/agents` > `$HOME/.config/signaltty/agents`.
    pub fn agents_dir(&self, flag: Option<&Path>) -> Option<PathBuf> {
        if let Some(d) = &self.signaltty_agents_dir {
            return Some(PathBuf::from(d));
        }
        if let Some(d) = flag {
            return Some(d.to_path_buf());
        }
        self.default_agents_dir()
    }

    /// The data directory: `$XDG_DATA_HOME/signaltty`, else
    /// `$HOME/.local/share/signaltty`, else `/tmp/signaltty-data`.
    pub fn data_dir(&self) -> PathBuf {
        match (&self.xdg_data_home, &self.home) {
            (Some(d), _) if Path::new(d).is_absolute() => PathBuf::from(d).join("signaltty"),
            (_, Some(h)) if Path::new(h).is_absolute() => {
                PathBuf::from(h).join(".local/share/signaltty")
            },
            _ => PathBuf::from("/tmp/signaltty-data"),
        }
    }

    /// The home directory, when set and absolute.
    pub fn home_dir(&self) -> Option<PathBuf> {
        self.home
            .as_ref()
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    }
}

#[cfg(test)]
mod tests;
