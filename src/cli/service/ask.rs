//! What `service` asks of the system: `systemctl --user` and its answers,
//! and who, if anyone, answers on the service's socket.

use super::*;

/// The outcome of one `systemctl --user …`.
pub(super) enum Ctl {
    /// It ran and exited 0.
    Ok,
    /// It ran and failed, saying this.
    Failed(String),
    /// There is no `systemctl` to run.
    Missing,
}

/// Runs `systemctl --user ARGS`.
pub(super) fn systemctl(args: &[&str]) -> Ctl {
    match Command::new("systemctl").arg("--user").args(args).output() {
        Ok(out) if out.status.success() => Ctl::Ok,
        Ok(out) => {
            let stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
            let stdout = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            Ctl::Failed(if stderr.is_empty() {
                format!("{} ({})", stdout, out.status)
            } else {
                stderr
            })
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ctl::Missing,
        Err(e) => Ctl::Failed(format!("cannot run systemctl: {e}")),
    }
}

/// One word of `systemctl --user is-enabled|is-active UNIT`, or `None`
/// without a manager.
pub(super) fn query(verb: &str, unit: &str) -> Option<String> {
    crate::systemd::ask(verb, unit).ok()
}

/// Runs the `systemctl --user` commands in order, stopping at the first that
/// cannot run; returns what ran (for the report) and the commands the user
/// still has to run, when any could not.
pub(super) fn run_all(
    commands: &[Vec<&str>],
    ran: &mut Vec<Value>,
    text: &mut Vec<String>,
) -> Vec<String> {
    for (i, args) in commands.iter().enumerate() {
        let shown = format!("systemctl --user {}", args.join(" "));
        let (ok, error) = match systemctl(args) {
            Ctl::Ok => (true, None),
            Ctl::Failed(e) => (false, Some(e)),
            Ctl::Missing => (false, Some("systemctl is not installed".to_owned())),
        };
        ran.push(json!({"command": shown, "ok": ok, "error": error}));
        match error {
            None => text.push(format!("ran: {shown}")),
            Some(e) => {
                text.push(format!("could not run `{shown}`: {e}"));
                return commands[i..]
                    .iter()
                    .map(|a| format!("systemctl --user {}", a.join(" ")))
                    .collect();
            },
        }
    }
    Vec::new()
}

/// Who answers on the unit's socket now.
pub(super) enum Running {
    /// Nothing listens.
    Nothing,
    /// systemd's socket unit listens and no server runs yet: a connection
    /// would start one, so none is made.
    Listening,
    /// A server started by systemd (socket-activated).
    Systemd(Option<u32>),
    /// A server started some other way (`signaltty start`, a shell).
    Manual(Option<u32>),
    /// Something accepted the connection but gave no usable answer.
    Unclear(String),
}

/// Who answers on `socket`, without starting a server: no file means nobody,
/// and a listening socket unit whose service is not active is left alone.
pub(super) fn who_answers(socket: &Path) -> Running {
    if std::fs::symlink_metadata(socket).is_err() {
        return Running::Nothing;
    }
    if query("is-active", SOCKET).as_deref() == Some("active")
        && query("is-active", SERVICE).as_deref() != Some("active")
    {
        return Running::Listening;
    }
    probe(socket)
}

/// Asks whoever listens on `socket` for `server.status`.
pub(super) fn probe(socket: &Path) -> Running {
    let mut client = match Client::connect(socket) {
        Ok(c) => c,
        Err(CallError {
            code: ErrorCode::NoSuchServer,
            ..
        }) => return Running::Nothing,
        Err(e) => return Running::Unclear(e.message),
    };
    if let Err(e) = client.set_timeout(Some(PROBE_TIMEOUT)) {
        return Running::Unclear(e.message);
    }
    match client.call(Method::ServerStatus(Default::default())) {
        Ok(status) => {
            let pid = status
                .get("pid")
                .and_then(Value::as_u64)
                .and_then(|p| u32::try_from(p).ok());
            if status.get("socket_activated").and_then(Value::as_bool) == Some(true) {
                Running::Systemd(pid)
            } else {
                Running::Manual(pid)
            }
        },
        Err(e) => Running::Unclear(failure(e.code, e.message)),
    }
}
