//! `signaltty web pair|sessions|revoke` talk to the running web view over a
//! Unix socket beside the server's (`web.sock`, mode 0600 in the server's
//! private folder): one JSON line asked, one answered.

use super::http::App;
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::Arc;

/// Listens on `path` (refusing when another web view answers there).
pub fn listen(path: &Path) -> Result<UnixListener, String> {
    if UnixStream::connect(path).is_ok() {
        return Err(format!(
            "a web view already runs (its control socket {} answers); \
             `signaltty web pair` asks it for a link",
            path.display()
        ));
    }
    let _ = std::fs::remove_file(path);
    let listener = UnixListener::bind(path)
        .map_err(|e| format!("cannot listen on {}: {e}", path.display()))?;
    use std::os::unix::fs::PermissionsExt as _;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
    Ok(listener)
}

/// Answers control requests until the process ends.
pub fn serve(listener: UnixListener, app: Arc<App>, url_base: String) {
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            // One request at a time: a client that never finishes its line
            // holds up the next one for a few seconds at most.
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(5)));
            let reply = handle(&stream, &app, &url_base);
            let mut w = &stream;
            let _ = writeln!(w, "{reply}");
        }
    });
}

fn handle(stream: &UnixStream, app: &App, url_base: &str) -> Value {
    let mut line = String::new();
    if BufReader::new(stream.take(64 * 1024))
        .read_line(&mut line)
        .is_err()
    {
        return json!({"error": "unreadable request"});
    }
    let ask: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
    match ask["op"].as_str() {
        Some("pair") => match app.access.lock().new_code(super::now_ms()) {
            Ok(code) => json!({"url": format!("{url_base}/pair?code={code}")}),
            Err(e) => json!({"error": e}),
        },
        Some("sessions") => {
            let list: Vec<Value> = app
                .access
                .lock()
                .sessions()
                .iter()
                .map(|s| {
                    json!({"id": s.id, "label": s.label, "paired_at_ms": s.paired_at_ms,
                           "seen_at_ms": s.seen_at_ms})
                })
                .collect();
            json!({"sessions": list})
        },
        Some("revoke") => {
            let ended = if ask["all"].as_bool() == Some(true) {
                app.access.lock().revoke_all()
            } else {
                let id = ask["id"].as_str().unwrap_or_default();
                usize::from(app.access.lock().revoke(id))
            };
            app.save_sessions();
            app.revoked.send_modify(|n| *n += 1);
            json!({"revoked": ended})
        },
        _ => json!({"error": "unknown request"}),
    }
}

/// Asks the running web view (the CLI side).
pub fn ask(path: &Path, request: &Value) -> Result<Value, String> {
    let stream = UnixStream::connect(path).map_err(|e| {
        format!(
            "no web view runs here ({}: {e}); start one with `signaltty web`",
            path.display()
        )
    })?;
    let mut w = &stream;
    writeln!(w, "{request}").map_err(|e| format!("cannot ask the web view: {e}"))?;
    let mut line = String::new();
    BufReader::new(&stream)
        .read_line(&mut line)
        .map_err(|e| format!("no answer from the web view: {e}"))?;
    let v: Value = serde_json::from_str(&line).map_err(|e| format!("bad answer: {e}"))?;
    match v["error"].as_str() {
        Some(e) => Err(e.to_owned()),
        None => Ok(v),
    }
}
