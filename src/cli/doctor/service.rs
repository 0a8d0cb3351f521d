//! The systemd user service: whether `signaltty.service` / `signaltty.socket`
//! are in the user's unit directory, and what `systemctl --user` says of
//! them, through the helpers `signaltty service` uses too (`crate::systemd`).

use super::verdict::{self, Check, ServiceSeen};
use signaltty_model::Env;

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
    // Both questions at once, on two threads: each has its own deadline.
    let enabled = std::thread::spawn(move || crate::systemd::ask("is-enabled", unit));
    let active = crate::systemd::ask("is-active", unit);
    let service_active = if socket {
        crate::systemd::ask("is-active", "signaltty.service")
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
