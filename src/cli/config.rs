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
    /// Print a complete config file: every key with its default, commented.
    Default,
    /// Print the path of the config file in use ($SIGNALTTY_CONFIG, else
    /// $XDG_CONFIG_HOME/signaltty/config.toml).
    Path,
}

/// Runs one `config` command; returns the exit code.
pub fn run(global: &Global, cmd: ConfigCommand) -> i32 {
    let env = Env::from_process();
    match cmd {
        ConfigCommand::Show => show(global, &env),
        ConfigCommand::Default => {
            print!("{}", settings::default_file(&env));
            0
        },
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
