//! The signaltty wire as this benchmark writes it: typed request lines, the cheap
//! reply check of its timed loops, and its connections (10 s read timeout).

use crate::common::client::Conn;
use crate::common::{Context, Res};
use serde_json::json;
use signaltty_protocol::workspace::WorkspaceRenameParams;
use signaltty_protocol::{Method, Request, WorkspaceRef};
use std::io::Read;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

const READ_TIMEOUT: Duration = Duration::from_secs(10);

pub fn request_line(id: &str, method: Method) -> String {
    let mut line = Request::new(id, method).to_line();
    line.push('\n');
    line
}

/// `server.status` request line, newline included.
pub fn status_line(id: &str) -> String {
    request_line(id, Method::ServerStatus(Default::default()))
}

pub fn rename_line(id: &str, workspace: &str, name: String) -> String {
    request_line(
        id,
        Method::WorkspaceRename(WorkspaceRenameParams {
            workspace_id: WorkspaceRef(workspace.to_owned()),
            name,
        }),
    )
}

/// Checks that `reply` is the successful response to request `id`.
pub fn check_reply(reply: &[u8], id: &str) -> Res<()> {
    let text = String::from_utf8_lossy(reply);
    let id_field = format!("\"id\":\"{id}\"");
    if text.contains(&id_field) && text.contains("\"ok\":true") {
        Ok(())
    } else {
        Err(format!(
            "unexpected reply to request {id}: {}",
            text.trim_end()
        ))
    }
}

/// Reads one line (through `\n`) from an unbuffered stream into `buf`.
pub fn read_line_raw(stream: &mut UnixStream, buf: &mut Vec<u8>) -> Res<()> {
    buf.clear();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).ctx(|| "read".into())?;
        if n == 0 {
            return Err("the server closed the connection".into());
        }
        buf.extend_from_slice(&chunk[..n]);
        if chunk[..n].contains(&b'\n') {
            return Ok(());
        }
    }
}

/// A bare connection.
pub fn connect(socket: &Path) -> Res<UnixStream> {
    let s = UnixStream::connect(socket).ctx(|| format!("connect {}", socket.display()))?;
    s.set_read_timeout(Some(READ_TIMEOUT))
        .ctx(|| "set_read_timeout".into())?;
    Ok(s)
}

/// A client connection, used for one request at a time.
pub fn open(socket: &Path) -> Res<Conn> {
    Conn::connect(socket, READ_TIMEOUT, 64 * 1024)
}

/// The seq of the last published event (`server.status`).
pub fn head(c: &mut Conn) -> Res<u64> {
    let result = c.call("server.status", json!({}))?;
    result["seq"]
        .as_u64()
        .ok_or_else(|| format!("server.status: no seq in {result}"))
}
