//! `signaltty service status`: the units' files and what `systemctl --user`
//! says of them, who answers on the socket, and the web view's unit.

use super::*;

/// `signaltty service status`.
pub(super) fn status(global: &Global) -> Result<Report, String> {
    let dir = this_unit_dir()?;
    let current = current_binary().ok();
    let mut text = Vec::new();
    let mut units_json = Vec::new();
    let mut installed = true;
    for name in [SERVICE, SOCKET] {
        let disk = OnDisk::read(&dir, name)?;
        let ownership = disk.ownership();
        installed &= matches!(ownership, Some(Ownership::Ours | Ownership::Edited));
        let enabled = query("is-enabled", name);
        let active = query("is-active", name);
        let mut entry = json!({
            "unit": name,
            "path": disk.path,
            "present": disk.text.is_some(),
            "owner": ownership.map(Ownership::as_str),
            "enabled": enabled,
            "active": active,
        });
        let mut line = format!(
            "{name}: {}",
            match ownership {
                None => "not installed".to_owned(),
                Some(o) => format!("{} ({})", disk.path.display(), o.as_str()),
            }
        );
        if name == SERVICE
            && let Some(program) = disk.text.as_deref().and_then(units::exec_start_program)
        {
            let exists = Path::new(&program).is_file();
            let is_current = current.as_deref().is_some_and(|c| c == Path::new(&program));
            installed &= exists;
            entry["exec_start"] = json!(program);
            entry["exec_start_exists"] = json!(exists);
            entry["exec_start_is_this_binary"] = json!(is_current);
            line.push_str(&format!(
                "\n  ExecStart: {program}{}",
                if !exists {
                    " (missing: run `signaltty service install` again)"
                } else if !is_current {
                    " (another binary than this one)"
                } else {
                    ""
                }
            ));
        }
        line.push_str(&format!(
            "\n  enabled: {}, active: {}",
            enabled.as_deref().unwrap_or("unknown"),
            active.as_deref().unwrap_or("unknown")
        ));
        text.push(line);
        units_json.push(entry);
    }
    let (web_line, web) = web::status(&dir, current.as_deref())?;
    text.push(web_line);
    let socket = unit_socket();
    // A connection to a listening socket unit would start the server: only a
    // server that already runs is asked.
    let server = match who_answers(&socket) {
        Running::Listening => {
            text.push(format!(
                "server: not running; the next connection to {} starts it",
                socket.display()
            ));
            json!({"running": false, "starts_on_connect": true})
        },
        Running::Nothing => {
            text.push(format!("server: not running on {}", socket.display()));
            json!({"running": false})
        },
        Running::Systemd(pid) => {
            text.push(format!(
                "server: running{}, socket-activated by systemd",
                pid.map_or_else(String::new, |p| format!(" (pid {p})"))
            ));
            json!({"running": true, "pid": pid, "socket_activated": true})
        },
        Running::Manual(pid) => {
            text.push(format!(
                "server: running{}, not started by systemd",
                pid.map_or_else(String::new, |p| format!(" (pid {p})"))
            ));
            json!({"running": true, "pid": pid, "socket_activated": false})
        },
        Running::Unclear(why) => {
            text.push(format!("server: unclear ({why})"));
            json!({"running": null, "error": why})
        },
    };
    let warnings = socket_warnings(global);
    text.extend(warnings.iter().map(|w| format!("note: {w}")));
    Ok(Report {
        text,
        json: json!({
            "installed": installed,
            "unit_dir": dir,
            "socket": socket,
            "units": units_json,
            "server": server,
            "web": web,
            "warnings": warnings,
        }),
        code: 0,
    })
}
