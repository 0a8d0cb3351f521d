//! `--all-hosts` (docs/remote.md#the-fleet): one command over this machine's
//! server and every configured host's, asked at once, so a slow or
//! unreachable host never holds up the others. In `--json` every item
//! carries `"host"` (`"local"` for this machine), and `hosts` says which
//! servers answered; as text each server's part comes under its name, and a
//! host that did not answer says why on stderr.

use crate::args::Global;
use crate::cli::{fail_with, say_err};
use serde_json::{Value, json};
use signaltty_model::client::CallError;
use signaltty_model::remote::LOCAL;
use signaltty_protocol::ErrorCode;

/// Every server of the fleet: `local`, then the configured hosts in the
/// config file's order.
pub fn names() -> Vec<String> {
    let mut out = vec![LOCAL.to_owned()];
    out.extend(
        crate::remote::configured()
            .hosts
            .into_iter()
            .map(|h| h.name),
    );
    out
}

/// `global` aimed at the server `name`.
pub fn aimed(global: &Global, name: &str) -> Global {
    let mut g = global.clone();
    g.host = Some(name.to_owned());
    g
}

/// Refuses `--all-hosts` beside `--host`.
pub fn check(global: &Global) -> Result<(), i32> {
    match crate::remote::host_name(global) {
        Some(h) if global.host.is_some() => Err(fail_with(
            ErrorCode::BadParams,
            format!("--all-hosts already covers every host; leave out --host {h}"),
        )),
        _ => Ok(()),
    }
}

/// Runs `data` against every server at once; the answers in fleet order.
pub fn gather<T: Send>(
    global: &Global,
    data: impl Fn(&Global) -> Result<T, CallError> + Sync,
) -> Vec<(String, Result<T, CallError>)> {
    let names = names();
    std::thread::scope(|s| {
        let handles: Vec<_> = names
            .iter()
            .map(|name| {
                let g = aimed(global, name);
                let data = &data;
                s.spawn(move || data(&g))
            })
            .collect();
        names
            .iter()
            .cloned()
            .zip(handles.into_iter().map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(CallError {
                        code: ErrorCode::Internal,
                        message: "the request's thread panicked".into(),
                    })
                })
            }))
            .collect()
    })
}

/// Writes `"host": name` into `item`, and into every object of its
/// `panes` array (a workspace's panes).
pub fn tag(item: &mut Value, name: &str) {
    if let Some(obj) = item.as_object_mut() {
        obj.insert("host".into(), json!(name));
        if let Some(Value::Array(panes)) = obj.get_mut("panes") {
            for p in panes {
                if let Some(p) = p.as_object_mut() {
                    p.insert("host".into(), json!(name));
                }
            }
        }
    }
}

/// An event line with `"host"` first, the rest byte for byte.
pub fn tag_line(line: &str, name: &str) -> String {
    match line.strip_prefix('{') {
        Some(rest) => format!("{{\"host\":{},{rest}", json!(name)),
        None => line.to_owned(),
    }
}

/// A fleet command: `data` gives one server's `--json` result, whose array
/// `key` holds the items; `show` prints one server's result as text.
pub fn run(
    global: &Global,
    key: &str,
    data: impl Fn(&Global) -> Result<Value, CallError> + Sync,
    show: impl Fn(Value) -> Result<(), i32>,
) -> i32 {
    if let Err(code) = check(global) {
        return code;
    }
    let answers = gather(global, data);
    if global.json {
        let mut hosts = Vec::new();
        let mut items = Vec::new();
        for (name, answer) in answers {
            match answer {
                Ok(mut value) => {
                    hosts.push(json!({"host": name, "ok": true}));
                    if let Some(Value::Array(list)) = value.get_mut(key) {
                        for mut item in list.drain(..) {
                            tag(&mut item, &name);
                            items.push(item);
                        }
                    }
                },
                Err(e) => hosts.push(json!({
                    "host": name, "ok": false,
                    "error": {"code": e.code, "message": e.message},
                })),
            }
        }
        say!("{}", json!({"hosts": hosts, key: items}));
        return 0;
    }
    for (name, answer) in answers {
        match answer {
            Ok(value) => {
                say!("== {name} ==");
                if let Err(code) = show(value) {
                    return code;
                }
            },
            Err(e) => say_err(&format!(
                "== {name} == unreachable: {}: {}",
                e.code, e.message
            )),
        }
    }
    0
}

#[cfg(test)]
mod tests;
