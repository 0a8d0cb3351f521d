//! A `signaltty web` process for a test, and plain HTTP/1.1 and WebSocket
//! requests to it over a TcpStream (what any client sends, no library in
//! between).

// A test helper: a step that fails is the test failing, with its message.
#![allow(clippy::expect_used)]

use crate::support::TestServer;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

pub struct WebView {
    child: Child,
    /// `http` or `https`.
    scheme: String,
    more: Vec<String>,
    addr: String,
    pair_path: String,
}

impl Drop for WebView {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl WebView {
    /// Starts the view on a free loopback port and reads its pairing link.
    pub fn start(server: &TestServer) -> WebView {
        WebView::start_with(server, "127.0.0.1:0", &[])
    }

    /// Starts the view on `listen` with `more` flags and reads its pairing
    /// link.
    pub fn start_with(server: &TestServer, listen: &str, more: &[&str]) -> WebView {
        let mut args = vec!["web", "--listen", listen, "--no-qr"];
        args.extend_from_slice(more);
        let (child, lines) = spawn(server, &args);
        let url = std::iter::from_fn(|| lines.recv_timeout(Duration::from_secs(30)).ok())
            .find_map(|line| line.strip_prefix("pair: ").map(str::to_owned))
            .expect("signaltty web prints its pairing link");
        let (scheme, rest) = url.split_once("://").expect("a link");
        let (addr, path) = rest.split_once('/').expect("a path");
        WebView {
            child,
            scheme: scheme.to_owned(),
            more: more.iter().map(|m| (*m).to_owned()).collect(),
            addr: addr.to_owned(),
            pair_path: format!("/{path}"),
        }
    }

    /// Kills the view (SIGKILL: it gets no chance to say goodbye).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts the view again on the address it had, with the flags it had.
    pub fn start_again(&mut self, server: &TestServer) {
        let addr = self.addr.clone();
        let more = self.more.clone();
        let more: Vec<&str> = more.iter().map(String::as_str).collect();
        *self = WebView::start_with(server, &addr, &more);
    }

    /// The printed pairing link, whole.
    pub fn pair_url(&self) -> String {
        format!("{}{}", self.origin(), self.pair_path)
    }

    /// Stops the view in its tracks (SIGSTOP): what reaches it waits.
    pub fn pause(&self) {
        self.signal(nix::sys::signal::Signal::SIGSTOP);
    }

    /// Lets a paused view go on (SIGCONT).
    pub fn go_on(&self) {
        self.signal(nix::sys::signal::Signal::SIGCONT);
    }

    fn signal(&self, sig: nix::sys::signal::Signal) {
        let pid = nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).expect("a pid"));
        nix::sys::signal::kill(pid, sig).expect("signal the view");
    }

    /// Kills the view and starts it again on the same address.
    pub fn restart(&mut self, server: &TestServer) {
        self.kill();
        self.start_again(server);
    }

    /// Starts the view as the systemd unit does, with `--no-pair-link`, on a
    /// free loopback port: the view, and the lines it prints as they come.
    pub fn start_without_link(server: &TestServer) -> (WebView, Receiver<String>) {
        let (child, rx) = spawn(
            server,
            &["web", "--listen", "127.0.0.1:0", "--no-pair-link"],
        );
        let first = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("signaltty web says where it serves");
        let addr = first
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .expect("an http address")
            .to_owned();
        let view = WebView {
            child,
            scheme: "http".to_owned(),
            more: Vec::new(),
            addr,
            pair_path: String::new(),
        };
        (view, rx)
    }

    /// Pairs with this link from now on (one `signaltty web pair` printed).
    pub fn use_link(&mut self, url: &str) {
        let at = url.find("/pair?").expect("a pairing link");
        self.pair_path = url[at..].to_owned();
    }

    pub fn addr(&self) -> &str {
        &self.addr
    }

    pub fn origin(&self) -> String {
        format!("{}://{}", self.scheme, self.addr)
    }

    /// The path of the link printed at start.
    pub fn pair_path(&self) -> String {
        self.pair_path.clone()
    }

    /// Pairs with the printed link: the `name=value` of the session cookie.
    pub fn pair(&self) -> String {
        let (status, headers, body) = self.get(&self.pair_path, None);
        assert_eq!(status, 303, "{body}");
        let cookie = headers
            .iter()
            .find(|(k, _)| k == "set-cookie")
            .map(|(_, v)| v.clone())
            .expect("a session cookie");
        cookie_pair(&cookie)
    }

    /// The CSRF token the page is served with.
    pub fn csrf(&self, session: &str) -> String {
        let (_, _, page) = self.get("/", Some(session));
        let at = page
            .find("name=\"csrf\" content=\"")
            .expect("the csrf meta")
            + 21;
        page[at..].split('"').next().unwrap_or_default().to_owned()
    }

    pub fn get(&self, path: &str, cookie: Option<&str>) -> Response {
        self.get_with_host(path, cookie, &self.addr.clone())
    }

    pub fn get_with_host(&self, path: &str, cookie: Option<&str>, host: &str) -> Response {
        let mut req = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
        if let Some(c) = cookie {
            req.push_str(&format!("Cookie: {c}\r\n"));
        }
        req.push_str("\r\n");
        exchange(&self.addr, &req)
    }

    pub fn post(
        &self,
        path: &str,
        cookie: &str,
        csrf: Option<&str>,
        origin: Option<&str>,
        body: &serde_json::Value,
    ) -> Response {
        let body = body.to_string();
        let mut req = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nCookie: {cookie}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        );
        if let Some(t) = csrf {
            req.push_str(&format!("X-CSRF-Token: {t}\r\n"));
        }
        if let Some(o) = origin {
            req.push_str(&format!("Origin: {o}\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(&body);
        exchange(&self.addr, &req)
    }
}

/// Starts `signaltty ARGS` on the server's env: the process, and the lines
/// it prints as they come.
fn spawn(server: &TestServer, args: &[&str]) -> (Child, Receiver<String>) {
    let mut cmd = server.env().command(args);
    cmd.stdout(Stdio::piped()).stderr(Stdio::inherit());
    let mut child = cmd.spawn().expect("signaltty web starts");
    let stdout = child.stdout.take().expect("its stdout");
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    (child, rx)
}

/// Status, headers (names lower-cased), body.
pub type Response = (u16, Vec<(String, String)>, String);

fn exchange(addr: &str, request: &str) -> Response {
    let mut s = TcpStream::connect(addr).expect("connect to the web view");
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    s.write_all(request.as_bytes()).expect("send");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read the response");
    parse(&String::from_utf8_lossy(&raw))
}

fn parse(raw: &str) -> Response {
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((raw, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    (status, headers, body.to_owned())
}

/// `name=value` of a Set-Cookie header.
pub fn cookie_pair(set_cookie: &str) -> String {
    set_cookie.split(';').next().unwrap_or_default().to_owned()
}

/// A WebSocket upgrade: the status, and the stream when it was accepted.
pub fn ws_handshake(addr: &str, path: &str, cookie: &str, origin: &str) -> (u16, TcpStream) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let req = format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\
         Origin: {origin}\r\nCookie: {cookie}\r\n\r\n"
    );
    s.write_all(req.as_bytes()).expect("send");
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => break,
        }
    }
    let (status, _, _) = parse(&String::from_utf8_lossy(&head));
    (status, s)
}

/// The next text message the server sends (unmasked, maybe long).
pub fn ws_next_message(s: &mut TcpStream) -> String {
    let mut h = [0u8; 2];
    s.read_exact(&mut h).expect("a frame");
    assert_eq!(h[0] & 0x0f, 1, "a text frame");
    let len = match h[1] & 0x7f {
        126 => {
            let mut l = [0u8; 2];
            s.read_exact(&mut l).expect("length");
            u64::from(u16::from_be_bytes(l))
        },
        127 => {
            let mut l = [0u8; 8];
            s.read_exact(&mut l).expect("length");
            u64::from_be_bytes(l)
        },
        n => u64::from(n),
    };
    let mut body = vec![0u8; usize::try_from(len).expect("size")];
    s.read_exact(&mut body).expect("the message");
    String::from_utf8(body).expect("utf-8")
}

/// Everything readable under `dir`, for "no secret was written" checks.
pub fn all_text_under(dir: &std::path::Path) -> String {
    let mut out = String::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.push_str(&all_text_under(&p));
        } else if let Ok(bytes) = std::fs::read(&p) {
            out.push_str(&String::from_utf8_lossy(&bytes));
        }
    }
    out
}

/// One request to `addr` (chromedriver's API): the body, or why not.
pub fn request(addr: &str, method: &str, path: &str, body: Option<&str>) -> Result<String, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(60)))
        .map_err(|e| e.to_string())?;
    let body = body.unwrap_or("");
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).map_err(|e| e.to_string())?;
    // chromedriver may keep the connection open: read by Content-Length.
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            Ok(_) => break,
            Err(e) => return Err(e.to_string()),
        }
    }
    let (_, headers, _) = parse(&String::from_utf8_lossy(&head));
    let len = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok());
    let mut body = Vec::new();
    match len {
        Some(n) => {
            body.resize(n, 0);
            s.read_exact(&mut body).map_err(|e| e.to_string())?;
        },
        None => {
            s.read_to_end(&mut body).map_err(|e| e.to_string())?;
        },
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// A JSON POST to `addr`, its JSON answer.
pub fn post_json(addr: &str, path: &str, body: &serde_json::Value) -> serde_json::Value {
    let text = request(addr, "POST", path, Some(&body.to_string()))
        .unwrap_or_else(|e| panic!("POST {path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("POST {path}: {e}: {text}"))
}
