//! `signaltty config show|default|path`: the effective settings and where
//! each came from, a complete default config file, and the file in use. No
//! server is needed: this resolves exactly as `signaltty server` does, less
//! the server-only flags (docs/configuration.md).

use crate::args::Global;
use crate::cli::{EXIT_FAILED, socket_flag};
use clap::Subcommand;
use serde_json::json;
use signaltty_model::Env;
use signaltty_model::settings::{self, Origin, Problem, Settings};

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Every setting, its effective value and where it came from (default,
    /// file:line, env or flag), then any problems; exits 1 when there are some.
    Show,
    /// Print a complete config file: every key with its default, commented;
    /// with --write, write it to the config file's path instead.
    Default {
        /// Write the file (creating its folder) instead of printing it; an
        /// existing file is kept unless --force.
        #[arg(long)]
        write: bool,
        /// With --write: replace an existing file.
        #[arg(long, requires = "write")]
        force: bool,
    },
    /// Print the path of the config file in use ($SIGNALTTY_CONFIG, else
    /// $XDG_CONFIG_HOME/signaltty/config.toml).
    Path,
}

/// Runs one `config` command; returns the exit code.
pub fn run(global: &Global, cmd: ConfigCommand) -> i32 {
    let env = Env::from_process();
    match cmd {
        ConfigCommand::Show => show(global, &env),
        ConfigCommand::Default { write: false, .. } => {
            use std::io::Write as _;
            // A closed stdout (`config default | head`) ends it quietly.
            let _ = std::io::stdout().write_all(settings::default_file(&env).as_bytes());
            0
        },
        ConfigCommand::Default { write: true, force } => write_default(global, &env, force),
        ConfigCommand::Path => {
            let path = settings::file_path(&env);
            if global.json {
                say!("{}", json!({"path": path, "exists": path.exists()}));
            } else {
                say!("{}", path.display());
            }
            0
        },
    }
}

/// `config default --write [--force]`: the default file at the config
/// path ($SIGNALTTY_CONFIG, else $XDG_CONFIG_HOME/signaltty/config.toml),
/// its folder created; a file already there is never replaced without
/// `--force` (docs/configuration.md#the-file).
fn write_default(global: &Global, env: &Env, force: bool) -> i32 {
    use std::io::Write as _;
    let path = settings::file_path(env);
    let text = settings::default_file(env);
    let written = (|| {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .create_new(!force)
            .truncate(true)
            .open(&path)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()
    })();
    match written {
        Ok(()) if global.json => {
            say!("{}", json!({"path": path, "written": true}));
            0
        },
        Ok(()) => {
            say!("wrote {}", path.display());
            0
        },
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => crate::cli::fail(&format!(
            "{} already exists: kept as it is (`signaltty config default --write --force` \
             replaces it; `signaltty config default` prints the defaults)",
            path.display()
        )),
        Err(e) => crate::cli::fail(&format!("cannot write {}: {e}", path.display())),
    }
}

/// The settings this CLI sees, with the log filter checked too.
fn resolve(global: &Global, env: &Env) -> (Settings, Vec<Problem>) {
    let settings = settings::load(env, &socket_flag(global));
    let mut problems = settings.problems.clone();
    problems.extend(crate::logger::filter_problem(&settings));
    (settings, problems)
}

/// An origin, short enough for the table (the file's path is shown above it).
fn short_origin(origin: &Origin) -> String {
    match origin {
        Origin::Default => "default".to_owned(),
        Origin::File { line, .. } => format!("file:{line}"),
        Origin::Env { var } => format!("${var}"),
        Origin::Flag { flag } => flag.clone(),
    }
}

const KEY_WIDTH: usize = 33;
const VALUE_WIDTH: usize = 10;
const WIDTH: usize = 80;

/// One row of the table; an origin that does not fit goes on a line of its own.
fn row(key: &str, value: &str, origin: &str) -> Vec<String> {
    let one = format!("{key:<KEY_WIDTH$} {value:<VALUE_WIDTH$} {origin}");
    if one.chars().count() <= WIDTH {
        return vec![one.trim_end().to_owned()];
    }
    vec![
        format!("{key:<KEY_WIDTH$} {value}"),
        format!("{:KEY_WIDTH$} from {origin}", ""),
    ]
}

fn show(global: &Global, env: &Env) -> i32 {
    let (settings, problems) = resolve(global, env);
    if global.json {
        let rows: Vec<_> = settings
            .entries
            .iter()
            .map(|e| json!({"key": e.knob.name(), "value": e.value, "origin": e.origin}))
            .collect();
        let problems: Vec<_> = problems
            .iter()
            .map(|p| json!({"at": p.at, "key": p.key, "message": p.message, "text": p.to_string()}))
            .collect();
        say!(
            "{}",
            json!({
                "file": {"path": settings.file_path, "found": settings.file_found},
                "settings": rows,
                "problems": problems,
            })
        );
    } else {
        let state = if settings.file_found {
            "read"
        } else {
            "not found: defaults apply"
        };
        say!("config file: {} ({state})", settings.file_path.display());
        for line in row("KEY", "VALUE", "FROM") {
            say!("{line}");
        }
        for e in &settings.entries {
            for line in row(
                &e.knob.name(),
                &e.value.to_string(),
                &short_origin(&e.origin),
            ) {
                say!("{line}");
            }
        }
        if !problems.is_empty() {
            say!("");
            say!(
                "{} problem(s); each entry named is ignored:",
                problems.len()
            );
            for p in &problems {
                say!("  {p}");
            }
        }
    }
    if problems.is_empty() { 0 } else { EXIT_FAILED }
}

#[cfg(test)]
mod tests;
