//! The systemd user service: whether `signaltty.service` / `signaltty.socket`
//! (and the web view's `signaltty-web.service`) are in the user's unit
//! directory, and what `systemctl --user` says of them, through the helpers
//! `signaltty service` uses too (`crate::systemd`).

use super::verdict::{self, Check, ServiceSeen, WebSeen};
use crate::systemd::WEB;
use signaltty_model::Env;
use std::path::Path;

/// The service check.
pub fn probe(env: &Env) -> Check {
    verdict::service(&seen(env))
}

fn seen(env: &Env) -> ServiceSeen {
    let Some(dir) = crate::systemd::unit_dir(env) else {
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
    // The questions on three threads: each has its own deadline.
    let enabled = std::thread::spawn(move || crate::systemd::ask("is-enabled", unit));
    let web_file = dir.join(WEB);
    let web = std::thread::spawn(move || web_seen(&web_file));
    let active = crate::systemd::ask("is-active", unit);
    let service_active = if socket {
        crate::systemd::ask("is-active", "signaltty.service")
    } else {
        active.clone()
    };
    let enabled = enabled
        .join()
        .unwrap_or_else(|_| Err("the probe panicked".to_owned()));
    let web = web
        .join()
        .unwrap_or_else(|_| Err("the probe panicked".to_owned()));
    match (enabled, active, service_active, web) {
        (Ok(enabled), Ok(active), Ok(service_active), Ok(web)) => ServiceSeen::Units {
            unit,
            enabled,
            active,
            service_active,
            web,
        },
        (Err(e), _, _, _) | (_, Err(e), _, _) | (_, _, Err(e), _) | (_, _, _, Err(e)) => {
            ServiceSeen::NoSystemctl(e)
        },
    }
}

/// The web view's unit at `file`: `None` when there is no such file.
fn web_seen(file: &Path) -> Result<Option<WebSeen>, String> {
    let Ok(text) = std::fs::read_to_string(file) else {
        return Ok(None);
    };
    Ok(Some(WebSeen {
        enabled: crate::systemd::ask("is-enabled", WEB)?,
        active: crate::systemd::ask("is-active", WEB)?,
        listen: crate::systemd::unit_file::web_listen(&text),
    }))
}
