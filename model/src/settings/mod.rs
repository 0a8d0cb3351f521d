//! The effective settings of a server (and of the CLI that finds it): every
//! knob of [`knobs::KNOBS`] resolved from, highest first, a command-line flag,
//! an environment variable, the config file, and the default — each value
//! kept with where it came from. docs/configuration.md is the user's side.
//!
//! [`resolve`] is pure (the inputs are captured first); [`load`] reads the
//! file and calls it. Nothing here writes a file. A bad entry anywhere is a
//! [`Problem`] and that entry is skipped: the next source down decides.

pub mod file;
pub mod knobs;
pub mod limits;
#[cfg(test)]
mod tests;

use crate::env::{Env, SocketOrigin};
use knobs::{K, KNOBS, Kind, Knob, Value};
pub use limits::Limits;
use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The variable naming another config file.
pub const CONFIG_VAR: &str = "SIGNALTTY_CONFIG";

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Origin {
    Default,
    File { path: PathBuf, line: usize },
    Env { var: String },
    Flag { flag: String },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => write!(f, "default"),
            Origin::File { path, line } => write!(f, "file {}:{line}", path.display()),
            Origin::Env { var } => write!(f, "env ${var}"),
            Origin::Flag { flag } => write!(f, "flag {flag}"),
        }
    }
}

/// Where a problem is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Where {
    File {
        path: PathBuf,
        line: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        column: Option<usize>,
    },
    /// The file as a whole (it cannot be read).
    FileAll {
        path: PathBuf,
    },
    Env {
        var: String,
    },
    Flag {
        flag: String,
    },
}

/// Something wrong with one entry of one source; the entry was ignored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub at: Where,
    /// `section.key`, when the problem is about one knob.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            Where::File { path, line, column } => {
                write!(f, "{}:{line}", path.display())?;
                if let Some(c) = column {
                    write!(f, ":{c}")?;
                }
            },
            Where::FileAll { path } => write!(f, "{}", path.display())?,
            Where::Env { var } => write!(f, "${var}")?,
            Where::Flag { flag } => write!(f, "{flag}")?,
        }
        write!(f, ": {}", self.message)
    }
}

/// One knob's effective value.
#[derive(Debug, Clone)]
pub struct Effective {
    pub knob: &'static Knob,
    pub value: Value,
    pub origin: Origin,
}

/// The config file as the resolver sees it.
#[derive(Debug, Clone)]
pub enum FileInput {
    /// No file at the default path.
    Absent,
    /// The file's text.
    Text(String),
    /// The file exists (or was named) but cannot be read.
    Unreadable(String),
}

/// Everything the resolver looks at.
#[derive(Debug, Clone)]
pub struct Inputs<'a> {
    pub env: &'a Env,
    /// Values given on the command line.
    pub flags: &'a [(K, Value)],
    /// The config file in use and what is in it.
    pub file_path: PathBuf,
    pub file: FileInput,
}

/// Every knob resolved, plus what went wrong on the way.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The config file in use (it may not exist).
    pub file_path: PathBuf,
    /// Whether a file was there to read.
    pub file_found: bool,
    /// The file was there but none of it is used (syntax error, unreadable).
    pub file_ignored: bool,
    /// In [`KNOBS`] order.
    pub entries: Vec<Effective>,
    pub problems: Vec<Problem>,
}

/// The config file in use: `$SIGNALTTY_CONFIG`, else `<config dir>/config.toml`.
pub fn file_path(env: &Env) -> PathBuf {
    match env.var(CONFIG_VAR) {
        Some(p) => PathBuf::from(p),
        None => env.config_dir().join("config.toml"),
    }
}

/// Reads the config file (never writes it) and resolves every knob.
pub fn load(env: &Env, flags: &[(K, Value)]) -> Settings {
    let path = file_path(env);
    let named = env.var(CONFIG_VAR).is_some();
    let file = read_file(&path, named);
    resolve(&Inputs {
        env,
        flags,
        file_path: path,
        file,
    })
}

fn read_file(path: &Path, named: bool) -> FileInput {
    use std::io::Read;
    let mut f = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !named => return FileInput::Absent,
        Err(e) => return FileInput::Unreadable(format!("cannot open: {e}")),
    };
    let mut bytes = Vec::new();
    if let Err(e) = f
        .by_ref()
        .take(file::MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
    {
        return FileInput::Unreadable(format!("cannot read: {e}"));
    }
    if bytes.len() as u64 > file::MAX_FILE_BYTES {
        return FileInput::Unreadable(format!(
            "larger than {} bytes; not read",
            file::MAX_FILE_BYTES
        ));
    }
    match String::from_utf8(bytes) {
        Ok(text) => FileInput::Text(text),
        Err(e) => FileInput::Unreadable(format!(
            "not UTF-8 (at byte {}); not read",
            e.utf8_error().valid_up_to()
        )),
    }
}

/// A flag or variable value checked against the knob's kind.
fn check(knob: &Knob, value: Value) -> Result<Value, String> {
    match (knob.kind, value) {
        (Kind::Int { min, max, unit }, Value::Int(n)) => {
            if (min..=max).contains(&n) {
                Ok(Value::Int(n))
            } else {
                Err(format!(
                    "{n} is out of range: expected {} from {min} to {max}",
                    unit.describe()
                ))
            }
        },
        (Kind::Path, Value::Path(p)) if !p.as_os_str().is_empty() => Ok(Value::Path(p)),
        (Kind::Filter, Value::Text(t)) if !t.trim().is_empty() => Ok(Value::Text(t)),
        (Kind::Bool, Value::Bool(b)) => Ok(Value::Bool(b)),
        (_, v) => Err(format!("unexpected value {v}")),
    }
}

/// An environment variable's text as a value of `knob`'s kind.
fn from_env(knob: &Knob, raw: &std::ffi::OsStr) -> Result<Value, String> {
    match knob.kind {
        Kind::Int { min, max, unit } => {
            let text = raw.to_str().unwrap_or("").trim();
            match text.parse::<u64>() {
                Ok(n) => check(knob, Value::Int(n)),
                Err(_) => Err(format!(
                    "\"{}\" is not {} from {min} to {max}; ignored",
                    raw.to_string_lossy(),
                    unit.describe()
                )),
            }
        },
        Kind::Path => Ok(Value::Path(PathBuf::from(raw))),
        Kind::Filter => match raw.to_str() {
            Some(t) => check(knob, Value::Text(t.trim().to_owned())),
            None => Err("not UTF-8; ignored".to_owned()),
        },
        Kind::Bool => match raw.to_str().map(str::trim) {
            Some("true" | "1") => Ok(Value::Bool(true)),
            Some("false" | "0") => Ok(Value::Bool(false)),
            _ => Err(format!(
                "\"{}\" is not true or false; ignored",
                raw.to_string_lossy()
            )),
        },
    }
}

/// Resolves every knob: flag > variable > file > default (the agents dir:
/// variable > flag). Pure: the same inputs give the same settings.
pub fn resolve(inputs: &Inputs<'_>) -> Settings {
    let mut problems = Vec::new();
    let path = &inputs.file_path;
    let (parsed, file_found) = match &inputs.file {
        FileInput::Absent => (file::Parsed::default(), false),
        FileInput::Text(text) => (file::parse(path, text), true),
        FileInput::Unreadable(why) => {
            problems.push(Problem {
                at: Where::FileAll { path: path.clone() },
                key: None,
                message: format!("{why}; the whole file is ignored"),
            });
            (
                file::Parsed {
                    unreadable: true,
                    ..file::Parsed::default()
                },
                true,
            )
        },
    };
    problems.extend(parsed.problems.iter().cloned());
    let mut entries = Vec::with_capacity(KNOBS.len());
    for knob in KNOBS {
        let mut flag = None;
        if let Some((_, v)) = inputs.flags.iter().find(|(id, _)| *id == knob.id) {
            let name = knob.flag.unwrap_or("flag").to_owned();
            match check(knob, v.clone()) {
                Ok(v) => flag = Some((v, Origin::Flag { flag: name })),
                Err(message) => problems.push(Problem {
                    at: Where::Flag { flag: name },
                    key: Some(knob.name()),
                    message: format!("{message}; ignored"),
                }),
            }
        }
        let mut env = None;
        for var in knob.env {
            let Some(raw) = inputs.env.var(var) else {
                continue;
            };
            match from_env(knob, raw) {
                Ok(v) => {
                    env = Some((
                        v,
                        Origin::Env {
                            var: (*var).to_owned(),
                        },
                    ));
                    break;
                },
                Err(message) => problems.push(Problem {
                    at: Where::Env {
                        var: (*var).to_owned(),
                    },
                    key: Some(knob.name()),
                    message,
                }),
            }
        }
        // A key given twice is a TOML error, so there is at most one entry.
        let from_file = parsed.entries.iter().find(|e| e.id == knob.id).map(|e| {
            (
                e.value.clone(),
                Origin::File {
                    path: path.clone(),
                    line: e.line,
                },
            )
        });
        let (first, second) = if knob.env_beats_flag {
            (env, flag)
        } else {
            (flag, env)
        };
        let (value, origin) = first
            .or(second)
            .or(from_file)
            .unwrap_or_else(|| (knobs::default_value(knob.id, inputs.env), Origin::Default));
        entries.push(Effective {
            knob,
            value,
            origin,
        });
    }
    Settings {
        file_path: path.clone(),
        file_found,
        file_ignored: parsed.unreadable,
        entries,
        problems,
    }
}

impl Settings {
    /// The effective entry of `id`.
    pub fn get(&self, id: K) -> Option<&Effective> {
        self.entries.iter().find(|e| e.knob.id == id)
    }

    /// An integer knob (its default when the entry is somehow missing).
    pub fn int(&self, id: K) -> u64 {
        match self.get(id).map(|e| &e.value) {
            Some(Value::Int(n)) => *n,
            _ => match knobs::default_value(id, &Env::default()) {
                Value::Int(n) => n,
                _ => 0,
            },
        }
    }

    /// A true-or-false knob.
    pub fn bool(&self, id: K) -> bool {
        match self.get(id).map(|e| &e.value) {
            Some(Value::Bool(b)) => *b,
            _ => matches!(knobs::default_value(id, &Env::default()), Value::Bool(true)),
        }
    }

    fn count(&self, id: K) -> usize {
        usize::try_from(self.int(id)).unwrap_or(usize::MAX)
    }

    fn millis(&self, id: K) -> Duration {
        Duration::from_millis(self.int(id))
    }

    /// A path knob, `None` when unset.
    pub fn path(&self, id: K) -> Option<PathBuf> {
        match self.get(id).map(|e| &e.value) {
            Some(Value::Path(p)) => Some(p.clone()),
            _ => None,
        }
    }

    /// The socket and whether the user chose it.
    pub fn socket(&self, env: &Env) -> (PathBuf, SocketOrigin) {
        match (self.get(K::Socket), self.path(K::Socket)) {
            (Some(e), Some(p)) if e.origin != Origin::Default => (p, SocketOrigin::Explicit),
            _ => (env.default_socket(), SocketOrigin::Default),
        }
    }

    /// The limits the server runs with.
    pub fn limits(&self) -> Limits {
        Limits {
            slow_subscriber_bytes: self.int(K::SlowSubscriber),
            max_queued_bytes: self.int(K::MaxQueued),
            ring_events: self.count(K::Ring),
            subscriber_mailbox: self.count(K::Mailbox),
            shutdown_grace: self.millis(K::ShutdownGrace),
            journal_rotate_bytes: self.int(K::JournalRotate),
            state_dir_reserve_bytes: self.int(K::JournalReserve),
            hold_events: self.count(K::JournalHold),
            process_refresh: self.millis(K::ProcessRefresh),
            cursor_approval_wait: self.millis(K::CursorApproval),
            snapshot_interval: self.millis(K::SnapshotInterval),
            history_tail_bytes: self.count(K::HistoryTailBytes),
            restore_max_parallel: self.count(K::RestoreMaxParallel),
            restore_start_wait: self.millis(K::RestoreStartWait),
            hibernate_after: Duration::from_secs(self.int(K::HibernateAfter)),
            auto_continue_margin: Duration::from_secs(self.int(K::AutoContinueMargin)),
            max_parallel_tasks: self.count(K::MaxParallelTasks),
            worker_silent_timeout: Duration::from_secs(self.int(K::WorkerSilent)),
            worktree_git_deadline: self.millis(K::WorktreeGit),
            merge_timeout: self.millis(K::MergeTimeout),
        }
    }
}

/// A complete config file: every key with its default and one comment line.
/// Keys whose default is derived from the environment (paths) are written
/// commented out, so the file parses back to exactly the defaults.
pub fn default_file(env: &Env) -> String {
    let mut out = String::from(
        "# signaltty configuration (docs/configuration.md). Every key is optional.\n\
         # Precedence: command-line flag > environment variable > this file > default.\n",
    );
    for section in knobs::sections() {
        out.push_str(&format!("\n[{section}]\n"));
        for knob in KNOBS.iter().filter(|k| k.section == section) {
            let overrides: Vec<String> = knob
                .env
                .iter()
                .map(|v| format!("${v}"))
                .chain(knob.flag.map(str::to_owned))
                .collect();
            let also = if overrides.is_empty() {
                String::new()
            } else {
                format!(" [{}]", overrides.join(", "))
            };
            out.push_str(&format!("# {}{also}\n", knob.doc));
            match knobs::default_value(knob.id, env) {
                Value::Int(n) => out.push_str(&format!("{} = {n}\n", knob.key)),
                Value::Bool(b) => out.push_str(&format!("{} = {b}\n", knob.key)),
                Value::Text(t) => out.push_str(&format!("{} = {}\n", knob.key, quote(&t))),
                Value::Path(p) => out.push_str(&format!(
                    "# {} = {}\n",
                    knob.key,
                    quote(&p.to_string_lossy())
                )),
                Value::Unset => out.push_str(&format!("# {} = \"/path\"\n", knob.key)),
            }
        }
    }
    out
}

/// A TOML basic string.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
