//! The paired sessions kept across runs of `signaltty web`, so a phone does
//! not pair again after a restart: `<state dir>/web-sessions.json`, mode
//! 0600, written whole and renamed into place. Only each cookie's hash is
//! kept, never the cookie. A file that cannot be read is never written
//! over: `signaltty web` stops and names it.

use super::access::{Hashed, Session};
use serde_json::{Value, json};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

/// The sessions in `path`; none when it does not exist.
pub fn load(path: &Path) -> Result<Vec<Session>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let bad = |why: &str| {
        format!(
            "{} is not a sessions file ({why}); remove it to forget every paired browser",
            path.display()
        )
    };
    let v: Value = serde_json::from_str(&text).map_err(|e| bad(&e.to_string()))?;
    let list = v["sessions"]
        .as_array()
        .ok_or_else(|| bad("no sessions list"))?;
    list.iter()
        .map(|s| {
            let num = |k: &str| s[k].as_u64().ok_or_else(|| bad(&format!("no {k}")));
            Ok(Session {
                id: s["id"].as_str().ok_or_else(|| bad("no id"))?.to_owned(),
                label: s["label"].as_str().unwrap_or_default().to_owned(),
                paired_at_ms: num("paired_at_ms")?,
                seen_at_ms: num("seen_at_ms")?,
                cookie: s["cookie_sha256"]
                    .as_str()
                    .and_then(Hashed::from_hex)
                    .ok_or_else(|| bad("no cookie hash"))?,
            })
        })
        .collect()
}

/// Writes `sessions` to `path` in one step.
pub fn save(path: &Path, sessions: &[Session]) -> Result<(), String> {
    let list: Vec<Value> = sessions
        .iter()
        .map(|s| {
            json!({
                "id": s.id, "label": s.label, "paired_at_ms": s.paired_at_ms,
                "seen_at_ms": s.seen_at_ms, "cookie_sha256": s.cookie.to_hex(),
            })
        })
        .collect();
    let text = json!({"sessions": list}).to_string();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let tmp = path.with_extension("json.tmp");
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot replace {}: {e}", path.display()))
}
