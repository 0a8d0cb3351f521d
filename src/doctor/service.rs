//! The systemd user service: whether `signaltty.service` / `signaltty.socket`
//! are in the user's unit directory, and what `systemctl --user` says of
//! them. A small probe of its own for now; it is meant to be replaced by the
//! `signaltty service` module's once both are in the tree.

use super::command::{self, Ran};
use super::verdict::{self, Check, ServiceSeen};
use signaltty_actors::Env;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long each `systemctl` may take.
const SYSTEMCTL_DEADLINE: Duration = Duration::from_secs(3);

/// `$XDG_CONFIG_HOME/systemd/user`, else `~/.config/systemd/user`.
pub fn unit_dir(env: &Env) -> Option<PathBuf> {
    match (&env.xdg_config_home, &env.home) {
        (Some(d), _) if Path::new(d).is_absolute() => Some(PathBuf::from(d).join("systemd/user")),
        (_, Some(h)) if Path::new(h).is_absolute() => {
            Some(PathBuf::from(h).join(".config/systemd/user"))
        },
        _ => None,
    }
}

/// The service check.
pub fn probe(env: &Env) -> Check {
    verdict::service(&seen(env))
}

fn seen(env: &Env) -> ServiceSeen {
    let Some(dir) = unit_dir(env) else {
        return ServiceSeen::NotInstalled {
            dir: "~/.config/systemd/user ($HOME is not set)".to_owned(),
        };
    };
    let socket = dir.join("signaltty.socket").exists();
    let service = dir.join("signaltty.service").exists();
    if !socket && !service {
        return ServiceSeen::NotInstalled {
            dir: dir.display().to_string(),
        };
    }
    let unit = if socket {
        "signaltty.socket"
    } else {
        "signaltty.service"
    };
    // Both questions at once, on two threads: each has its own deadline.
    let enabled = std::thread::spawn(move || systemctl("is-enabled", unit));
    let active = systemctl("is-active", unit);
    let service_active = if socket {
        systemctl("is-active", "signaltty.service")
    } else {
        active.clone()
    };
    let enabled = enabled
        .join()
        .unwrap_or_else(|_| Err("the probe panicked".to_owned()));
    match (enabled, active, service_active) {
        (Ok(enabled), Ok(active), Ok(service_active)) => ServiceSeen::Units {
            unit,
            enabled,
            active,
            service_active,
        },
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => ServiceSeen::NoSystemctl(e),
    }
}

/// `systemctl --user <verb> <unit>`'s one-word answer. These verbs exit
/// non-zero for "disabled" or "inactive", which is still an answer; an
/// empty answer means systemctl could not ask the user manager.
fn systemctl(verb: &str, unit: &str) -> Result<String, String> {
    match command::run(
        OsStr::new("systemctl"),
        &["--user", verb, unit],
        SYSTEMCTL_DEADLINE,
    ) {
        Ran::Exited { stdout, .. } => match stdout.lines().next().map(str::trim) {
            Some(word) if !word.is_empty() => Ok(word.to_owned()),
            _ => Err("no answer from the user manager (no user session bus?)".to_owned()),
        },
        Ran::NotStarted(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err("systemctl is not installed".to_owned())
        },
        Ran::NotStarted(e) => Err(format!("cannot run systemctl: {e}")),
        Ran::TimedOut => Err(format!(
            "systemctl did not answer within {} s",
            SYSTEMCTL_DEADLINE.as_secs()
        )),
    }
}
