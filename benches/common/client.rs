//! The blocking JSON-lines client of a signaltty socket: requests with fresh ids,
//! replies matched by id, events queued until asked for.

use super::{Context, Res, check_interrupted};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

/// A request line for `method`, newline included.
pub fn request_line(id: &str, method: &str, params: &Value) -> String {
    let mut line = json!({"protocol": "signaltty/1", "id": id, "method": method, "params": params})
        .to_string();
    line.push('\n');
    line
}

/// The string at `path` in `v`, or an error naming the path.
pub fn str_at(v: &Value, path: &[&str]) -> Res<String> {
    let mut cur = v;
    for key in path {
        cur = cur
            .get(key)
            .ok_or_else(|| format!("no {} in {v}", path.join(".")))?;
    }
    cur.as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("{} is not a string in {v}", path.join(".")))
}

/// One connection.
pub struct Conn {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next_id: u64,
    events: VecDeque<Value>,
    /// The line the last read returned, newline included.
    pub buf: Vec<u8>,
}

impl Conn {
    /// Connects; a read waits at most `read_timeout`, through a `buffer`-byte reader.
    pub fn connect(socket: &Path, read_timeout: Duration, buffer: usize) -> Res<Conn> {
        let s = UnixStream::connect(socket).ctx(|| format!("connect {}", socket.display()))?;
        s.set_read_timeout(Some(read_timeout))
            .ctx(|| "set_read_timeout".into())?;
        let writer = s.try_clone().ctx(|| "socket".into())?;
        Ok(Conn {
            reader: BufReader::with_capacity(buffer, s),
            writer,
            next_id: 0,
            events: VecDeque::new(),
            buf: Vec::with_capacity(64 * 1024),
        })
    }

    fn fresh_id(&mut self) -> String {
        self.next_id += 1;
        format!("b{}", self.next_id)
    }

    /// Writes `line` as it is.
    pub fn write(&mut self, line: &[u8]) -> Res<()> {
        self.writer
            .write_all(line)
            .ctx(|| "write to the server".into())
    }

    /// Writes a request with a fresh id and returns the id; the reply is left unread.
    pub fn send(&mut self, method: &str, params: &Value) -> Res<String> {
        let id = self.fresh_id();
        self.write(request_line(&id, method, params).as_bytes())?;
        Ok(id)
    }

    /// Reads one line into `self.buf`.
    pub fn read_raw(&mut self) -> Res<()> {
        self.buf.clear();
        let n = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .ctx(|| "read from the server".into())?;
        if n == 0 {
            return Err("the server closed the connection".into());
        }
        Ok(())
    }

    /// Writes `line` and reads one line into `self.buf`: on a connection that receives
    /// nothing else, the reply.
    pub fn round_trip(&mut self, line: &[u8]) -> Res<()> {
        self.write(line)?;
        self.read_raw()
    }

    /// Reads the next line (not the queued events) as JSON.
    pub fn read_value(&mut self) -> Res<Value> {
        self.read_raw()?;
        serde_json::from_slice(&self.buf).ctx(|| "a reply that is not JSON".into())
    }

    /// Reads lines until the response to `id`, queueing events; returns its result.
    pub fn wait_reply(&mut self, id: &str, method: &str) -> Res<Value> {
        loop {
            let v = self.read_value()?;
            if v.get("type").and_then(Value::as_str) == Some("event") {
                self.events.push_back(v);
                continue;
            }
            if v.get("id").and_then(Value::as_str) != Some(id) {
                return Err(format!(
                    "reply to another request while waiting for {id}: {v}"
                ));
            }
            if v.get("ok").and_then(Value::as_bool) != Some(true) {
                return Err(format!("{method} failed: {v}"));
            }
            return Ok(v.get("result").cloned().unwrap_or(Value::Null));
        }
    }

    /// A request that must succeed; returns its `result`.
    pub fn call(&mut self, method: &str, params: Value) -> Res<Value> {
        let id = self.send(method, &params)?;
        self.wait_reply(&id, method)
    }

    /// Waits for an event named `name` whose payload satisfies `pred` (queued ones
    /// first) and returns its payload.
    pub fn wait_event(&mut self, name: &str, pred: impl Fn(&Value) -> bool) -> Res<Value> {
        let matches = |v: &Value| {
            v.get("event").and_then(Value::as_str) == Some(name)
                && v.get("payload").is_some_and(&pred)
        };
        if let Some(i) = self.events.iter().position(matches) {
            let v = self.events.remove(i).unwrap_or(Value::Null);
            return Ok(v.get("payload").cloned().unwrap_or(Value::Null));
        }
        loop {
            check_interrupted()?;
            let v = self.read_value()?;
            if matches(&v) {
                return Ok(v.get("payload").cloned().unwrap_or(Value::Null));
            }
            if v.get("type").and_then(Value::as_str) == Some("event") {
                self.events.push_back(v);
            }
        }
    }

    /// What the reader holds that was not read yet.
    pub fn buffered(&self) -> &[u8] {
        self.reader.buffer()
    }

    /// The socket itself, to read past the reader (once `buffered` is empty).
    pub fn stream(&mut self) -> &mut UnixStream {
        self.reader.get_mut()
    }

    /// Creates a workspace (with `cwd`, or the server's default); returns its id.
    pub fn create_workspace(&mut self, name: &str, cwd: Option<&Path>) -> Res<String> {
        let mut params = json!({"name": name});
        if let Some(cwd) = cwd {
            params["cwd"] = json!(cwd);
        }
        let r = self.call("workspace.create", params)?;
        str_at(&r, &["workspace", "id"])
    }

    pub fn create_tab(&mut self, ws: &str) -> Res<String> {
        let r = self.call("tab.create", json!({"workspace_id": ws}))?;
        str_at(&r, &["tab", "id"])
    }

    /// Spawns `argv` in an 80 × 24 pane of `tab`; returns the pane's id.
    pub fn spawn(&mut self, ws: &str, tab: &str, argv: &[&str]) -> Res<String> {
        let r = self.call(
            "pane.spawn",
            json!({"workspace_id": ws, "tab_id": tab, "argv": argv, "cols": 80, "rows": 24}),
        )?;
        str_at(&r, &["pane", "id"])
    }

    /// `pane.read` in `mode`, of `lines` lines (or the mode's default); returns the text.
    pub fn read_text(&mut self, pane: &str, mode: &str, lines: Option<usize>) -> Res<String> {
        let mut params = json!({"pane_id": pane, "mode": mode});
        if let Some(n) = lines {
            params["lines"] = json!(n);
        }
        let r = self.call("pane.read", params)?;
        str_at(&r, &["text"])
    }
}
