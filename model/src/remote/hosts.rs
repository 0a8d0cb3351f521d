//! The hosts table of the config file: one `[hosts.NAME]` table per machine
//! reached over OpenSSH (docs/remote.md#hosts). Reading never fails as a
//! whole: a bad entry is a problem and is left out. Writing (`host add`,
//! `host remove`) edits the file in place with its comments and order kept,
//! refuses a file it cannot parse (saved state is never replaced by a failure
//! to read it), and replaces it atomically.

use serde::Serialize;
use std::path::{Path, PathBuf};

/// The config file's section of hosts (`[hosts.NAME]`).
pub const SECTION: &str = "hosts";

/// The name the local server goes by in fleet output (`"host": "local"`).
pub const LOCAL: &str = "local";

/// One configured host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Host {
    /// The name people type (`--host NAME`, `NAME:PANE`).
    pub name: String,
    /// Anything `ssh` takes as a destination: an alias of `~/.ssh/config`,
    /// `user@host`, `ssh://user@host:port`.
    pub dest: String,
    /// The remote `signaltty` (default: `signaltty` on the remote PATH).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote_bin: Option<String>,
    /// The remote server's socket (default: the remote's own default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote_socket: Option<String>,
    /// Extra `-o OPTION` given to ssh, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ssh_options: Vec<String>,
    /// An ssh config file given with `-F` instead of `~/.ssh/config`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ssh_config: Option<PathBuf>,
}

impl Host {
    /// The remote program, as configured or the default.
    pub fn program(&self) -> &str {
        self.remote_bin.as_deref().unwrap_or("signaltty")
    }
}

/// Whether `name` can name a host: 1 to 32 of `a-z 0-9 - _ .`, starting with
/// a letter or digit, and not `local` (the local server's name). A colon is
/// never allowed: `HOST:PANE` splits at the first one.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c);
    if name == LOCAL {
        return Err("`local` is the name of this machine's own server".into());
    }
    if name.is_empty() || name.len() > 32 {
        return Err(format!("host name {name:?} must be 1 to 32 characters"));
    }
    if !name.chars().all(ok_char) || !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(format!(
            "host name {name:?} may hold only lower-case letters, digits, `-`, `_` and `.`, \
             starting with a letter or digit"
        ));
    }
    Ok(())
}

/// What the hosts table of a file holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    /// In the file's order.
    pub hosts: Vec<Host>,
    /// Entries left out, and why (`hosts.NAME: …`).
    pub problems: Vec<String>,
}

impl Table {
    /// The host named `name`.
    pub fn get(&self, name: &str) -> Option<&Host> {
        self.hosts.iter().find(|h| h.name == name)
    }
}

/// Reads the hosts of a config file's text. A file TOML cannot parse gives
/// no hosts and one problem.
pub fn parse(text: &str) -> Table {
    let mut table = Table::default();
    let doc = match text.parse::<toml::Table>() {
        Ok(doc) => doc,
        Err(e) => {
            table
                .problems
                .push(format!("TOML syntax error: {}", e.message().trim_end()));
            return table;
        },
    };
    let Some(section) = doc.get(SECTION) else {
        return table;
    };
    let Some(section) = section.as_table() else {
        table
            .problems
            .push("`hosts` must be a section of tables ([hosts.NAME])".into());
        return table;
    };
    for (name, value) in section {
        match host(name, value) {
            Ok(h) => table.hosts.push(h),
            Err(why) => table.problems.push(format!("hosts.{name}: {why}")),
        }
    }
    table
}

fn host(name: &str, value: &toml::Value) -> Result<Host, String> {
    check_name(name)?;
    let t = value
        .as_table()
        .ok_or_else(|| "must be a table ([hosts.NAME])".to_owned())?;
    let text = |key: &str| -> Result<Option<String>, String> {
        match t.get(key) {
            None => Ok(None),
            Some(toml::Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
            Some(other) => Err(format!("`{key}` must be a non-empty string, found {other}")),
        }
    };
    for key in t.keys() {
        if !KEYS.contains(&key.as_str()) {
            return Err(format!(
                "unknown key `{key}`; a host has: {}",
                KEYS.join(", ")
            ));
        }
    }
    let dest = text("dest")?.ok_or_else(|| "has no `dest` (the ssh destination)".to_owned())?;
    let ssh_options = match t.get("ssh_options") {
        None => Vec::new(),
        Some(toml::Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                toml::Value::String(s) if !s.is_empty() => Ok(s.clone()),
                other => Err(format!("`ssh_options` holds strings, found {other}")),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(format!("`ssh_options` must be an array, found {other}")),
    };
    let ssh_config = text("ssh_config")?
        .map(|p| crate::settings::file::check_path(&p))
        .transpose()?;
    Ok(Host {
        name: name.to_owned(),
        dest,
        remote_bin: text("remote_bin")?,
        remote_socket: text("remote_socket")?,
        ssh_options,
        ssh_config,
    })
}

const KEYS: &[&str] = &[
    "dest",
    "remote_bin",
    "remote_socket",
    "ssh_options",
    "ssh_config",
];

/// Reads the hosts of the file at `path`; a missing file has none.
pub fn load(path: &Path) -> Table {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Table::default(),
        Err(e) => Table {
            hosts: Vec::new(),
            problems: vec![format!("cannot read {}: {e}", path.display())],
        },
    }
}

/// `text` with `host` added as `[hosts.NAME]`, or why not (the name is
/// taken, the text is not TOML).
pub fn with_host(text: &str, host: &Host) -> Result<String, String> {
    check_name(&host.name)?;
    let mut doc = editable(text)?;
    let hosts = doc
        .entry(SECTION)
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_mut()
        .ok_or_else(|| "`hosts` in the config file is not a section".to_owned())?;
    if hosts.contains_key(&host.name) {
        return Err(format!(
            "a host named {:?} is already configured (`signaltty host remove {}` first)",
            host.name, host.name
        ));
    }
    let mut t = toml_edit::Table::new();
    t.insert("dest", toml_edit::value(host.dest.as_str()));
    if let Some(bin) = &host.remote_bin {
        t.insert("remote_bin", toml_edit::value(bin.as_str()));
    }
    if let Some(socket) = &host.remote_socket {
        t.insert("remote_socket", toml_edit::value(socket.as_str()));
    }
    if !host.ssh_options.is_empty() {
        let items: toml_edit::Array = host.ssh_options.iter().map(String::as_str).collect();
        t.insert("ssh_options", toml_edit::value(items));
    }
    if let Some(cfg) = &host.ssh_config {
        t.insert(
            "ssh_config",
            toml_edit::value(cfg.to_string_lossy().as_ref()),
        );
    }
    hosts.insert(&host.name, toml_edit::Item::Table(t));
    Ok(doc.to_string())
}

/// `text` without `[hosts.NAME]`, or why not (no such host, not TOML).
pub fn without_host(text: &str, name: &str) -> Result<String, String> {
    let mut doc = editable(text)?;
    let removed = doc
        .get_mut(SECTION)
        .and_then(toml_edit::Item::as_table_like_mut)
        .and_then(|t| t.remove(name));
    if removed.is_none() {
        return Err(format!("no host named {name:?} is configured"));
    }
    Ok(doc.to_string())
}

fn editable(text: &str) -> Result<toml_edit::DocumentMut, String> {
    text.parse::<toml_edit::DocumentMut>().map_err(|e| {
        format!(
            "the config file is not valid TOML, so it is left as it is: {}",
            e.message().trim_end()
        )
    })
}

/// Applies `edit` to the file at `path` (missing: empty) and replaces the
/// file atomically: a temporary file beside it, synced, then renamed over it
/// with the old file's mode. The folder is made when missing.
pub fn edit_file(
    path: &Path,
    edit: impl FnOnce(&str) -> Result<String, String>,
) -> Result<(), String> {
    use std::io::Write as _;
    use std::os::unix::fs::PermissionsExt as _;
    let (text, mode) = match std::fs::read_to_string(path) {
        Ok(text) => {
            let mode = std::fs::metadata(path).map_or(0o600, |m| m.permissions().mode() & 0o7777);
            (text, mode)
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (String::new(), 0o600),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let new = edit(&text)?;
    let dir = path
        .parent()
        .ok_or_else(|| format!("{} has no folder", path.display()))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let name = path
        .file_name()
        .map_or("config.toml".into(), |n| n.to_string_lossy());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.set_permissions(std::fs::Permissions::from_mode(mode))?;
        f.write_all(new.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("cannot write {}: {e}", path.display()));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
