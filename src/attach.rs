//! The raw-mode terminal client of `signaltty attach` (`cli/pane.rs`) and of
//! the board's Enter. It replays the pane's
//! screen from the attach snapshot, then follows `pty.data` (skipping bytes the
//! snapshot already covers), forwards keystrokes as `pane.input`, keeps the pane
//! sized to this terminal, and detaches on Ctrl-\ . A connection an in-place
//! upgrade closed is attached again by itself (docs/upgrade.md). The user's
//! terminal is restored on every way out: detach, the server going away, an
//! error, or SIGTERM/SIGHUP/SIGQUIT.

use crate::cli::{fail, failure};
use base64::Engine as _;
use nix::sys::signal::{SigSet, Signal};
use nix::sys::termios::{self, SetArg, Termios};
use signaltty_model::client::{ConnRead, ConnWrite, Target};
use signaltty_protocol::pane::{
    LiveState, PaneAttachParams, PaneAttachResult, PaneInputParams, PaneResizeParams, PaneTarget,
};
use signaltty_protocol::{ErrorCode, Method, PaneRef, Request, ServerLine};
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The detach key: Ctrl-\ (FS, 0x1c).
pub const DETACH_KEY: u8 = 0x1c;
/// How often the terminal size is checked (no SIGWINCH handler needed).
const SIZE_POLL: Duration = Duration::from_millis(250);
/// The most bytes one keystroke batch sends.
const INPUT_CHUNK: usize = 4096;

/// Restores the terminal when dropped.
pub struct RawMode {
    saved: Termios,
}

impl RawMode {
    fn enter() -> nix::Result<RawMode> {
        let stdin = std::io::stdin();
        let saved = termios::tcgetattr(&stdin)?;
        let mut raw = saved.clone();
        termios::cfmakeraw(&mut raw);
        termios::tcsetattr(&stdin, SetArg::TCSANOW, &raw)?;
        Ok(RawMode { saved })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = termios::tcsetattr(std::io::stdin(), SetArg::TCSANOW, &self.saved);
    }
}

/// The connection's writing side, and the input requests it has not seen
/// answered: an in-place upgrade closes the connection with some unread
/// (docs/upgrade.md), and they are sent again on the next one, in order.
struct Link {
    stream: ConnWrite,
    unanswered: std::collections::BTreeMap<u64, String>,
}

impl Link {
    fn new(stream: ConnWrite) -> Link {
        Link {
            stream,
            unanswered: std::collections::BTreeMap::new(),
        }
    }

    /// Writes one request line.
    fn send(&mut self, id: String, method: Method) -> std::io::Result<()> {
        let mut line = Request::new(id, method).to_line();
        line.push('\n');
        self.stream.write_all(line.as_bytes())
    }

    /// Writes input request `n`, kept until its answer arrives. A write
    /// that fails is sent again on the next connection.
    fn send_input(&mut self, n: u64, params: PaneInputParams) {
        let mut line = Request::new(format!("in-{n}"), Method::PaneInput(params)).to_line();
        line.push('\n');
        let _ = self.stream.write_all(line.as_bytes());
        self.unanswered.insert(n, line);
    }

    /// The answer to request `id` arrived.
    fn answered(&mut self, id: &str) {
        if let Some(n) = id.strip_prefix("in-").and_then(|n| n.parse().ok()) {
            self.unanswered.remove(&n);
        }
    }

    /// Continues on `stream`: the unanswered input goes again, in order.
    fn replace(&mut self, stream: ConnWrite) {
        self.stream = stream;
        for line in self.unanswered.values() {
            let _ = self.stream.write_all(line.as_bytes());
        }
    }
}

fn send(link: &Mutex<Link>, id: String, method: Method) -> std::io::Result<()> {
    link.lock()
        .map_err(|_| std::io::Error::other("writer poisoned"))?
        .send(id, method)
}

/// Runs the attach client on `pane` until it ends; returns the exit code.
pub fn run(socket: &Target, pane: &str) -> i32 {
    // Signals that would otherwise kill us with the terminal still raw are taken
    // by a thread that restores it first. Blocked before any thread starts.
    let mut caught = SigSet::empty();
    for s in [Signal::SIGTERM, Signal::SIGHUP, Signal::SIGQUIT] {
        caught.add(s);
    }
    let _ = caught.thread_block();
    let raw_slot: Arc<Mutex<Option<RawMode>>> = Arc::new(Mutex::new(None));
    {
        let raw = raw_slot.clone();
        std::thread::spawn(move || {
            if let Ok(sig) = caught.wait() {
                if let Ok(mut guard) = raw.lock() {
                    guard.take();
                }
                eprintln!("\r\nsignaltty: attach ended by {sig}");
                std::process::exit(1);
            }
        });
    }
    match session(socket, pane, &raw_slot) {
        Ok(ended) => {
            let _ = writeln!(std::io::stdout(), "\r\n[signaltty: {ended}]");
            0
        },
        Err(e) => fail(&e),
    }
}

/// One attach to `pane` on this terminal, until the person detaches
/// (Ctrl-\\), the pane's connection closes or output is lost. The terminal
/// is raw meanwhile (the raw-mode guard lives in `raw`, so a signal handler
/// can restore the terminal) and restored on return; no thread of it reads
/// the terminal any more once it returned (the board attaches from its own
/// screen and takes the terminal back). Returns how it ended, for a person.
pub fn session(
    socket: &Target,
    pane: &str,
    raw_slot: &Arc<Mutex<Option<RawMode>>>,
) -> Result<&'static str, String> {
    let pane = PaneRef(pane.to_owned());
    let size = terminal_size();
    let (mut reader, stream, snapshot) = open(socket, &pane, size)?;
    let writer = Arc::new(Mutex::new(Link::new(stream)));

    match RawMode::enter() {
        Ok(r) => {
            if let Ok(mut slot) = raw_slot.lock() {
                *slot = Some(r);
            }
        },
        Err(e) => {
            return Err(failure(
                ErrorCode::IoError,
                format!("stdin is not a terminal ({e}); attach needs one"),
            ));
        },
    }

    let mut out = std::io::stdout().lock();
    let mut covered = draw(&mut out, &snapshot);

    // Keystrokes and size changes on their own thread, until `stop`.
    let stop = Arc::new(AtomicBool::new(false));
    let keys = {
        let writer = writer.clone();
        let pane = pane.clone();
        let stop = stop.clone();
        std::thread::spawn(move || forward_keys(&writer, pane, size, &stop))
    };

    let mut ended = "the server closed the connection";
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => {
                // An in-place upgrade closes every connection (docs/upgrade.md):
                // the same pane, still live, is attached again where it was.
                let Some((r, w, snapshot)) = reattach(socket, &pane) else {
                    break;
                };
                if !matches!(snapshot.live, LiveState::Live) {
                    ended = "the server restarted and the pane has no process any more";
                    break;
                }
                if let Ok(mut link) = writer.lock() {
                    link.replace(w);
                }
                reader = r;
                covered = draw(&mut out, &snapshot);
                continue;
            },
            Ok(_) => {},
        }
        match ServerLine::parse(line.trim_end()) {
            Ok(ServerLine::Event(e)) if e.event == "pty.data" => {
                let data = e
                    .payload
                    .get("data_b64")
                    .and_then(|v| v.as_str())
                    .unwrap_or_default();
                let end = e
                    .payload
                    .get("output_offset")
                    .and_then(|v| v.as_u64())
                    .unwrap_or(covered);
                let chunk = base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .unwrap_or_default();
                let start = end.saturating_sub(chunk.len() as u64);
                if end <= covered {
                    continue;
                }
                if start > covered {
                    ended = "output was lost (a gap in the stream); attach again";
                    break;
                }
                let skip = (covered - start) as usize;
                let _ = out.write_all(&chunk[skip..]);
                let _ = out.flush();
                covered = end;
            },
            Ok(ServerLine::Response(r)) if r.id == "detach" => {
                ended = "detached";
                break;
            },
            Ok(ServerLine::Response(r)) => {
                if let Ok(mut link) = writer.lock() {
                    link.answered(&r.id);
                }
            },
            _ => {},
        }
    }
    stop.store(true, Ordering::Relaxed);
    let _ = keys.join();
    if let Ok(mut guard) = raw_slot.lock() {
        guard.take();
    }
    Ok(ended)
}

/// How long a client whose connection closed tries to attach again: an
/// upgrade answers within a fraction of a second.
const REATTACH_FOR: Duration = Duration::from_secs(5);
/// The same for a pane on a host: its link may take a reconnect.
const REATTACH_REMOTE_FOR: Duration = Duration::from_secs(30);

/// Connects to `socket` and attaches to `pane` at `size`; returns the reader,
/// a writer on the same connection and the attach result.
fn open(
    socket: &Target,
    pane: &PaneRef,
    size: Option<(u16, u16)>,
) -> Result<(BufReader<ConnRead>, ConnWrite, PaneAttachResult), String> {
    let (stream, writer) = socket.connect().map_err(|e| failure(e.code, e.message))?;
    let mut reader = BufReader::new(stream);
    let params = PaneAttachParams {
        pane_id: pane.clone(),
        cols: size.map(|(_, c)| c),
        rows: size.map(|(r, _)| r),
        mark_seen: None,
        watch: None,
    };
    let mut writer = Link::new(writer);
    writer
        .send("attach".into(), Method::PaneAttach(params))
        .map_err(|e| failure(ErrorCode::IoError, e))?;
    let writer = writer.stream;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => {
                return Err(failure(
                    ErrorCode::Internal,
                    "the server closed the connection",
                ));
            },
            Ok(_) => {},
        }
        match ServerLine::parse(line.trim_end()) {
            Ok(ServerLine::Response(r)) if r.id == "attach" => {
                return match (r.result, r.error) {
                    (Some(v), None) => serde_json::from_value(v)
                        .map(|s| (reader, writer, s))
                        .map_err(|e| {
                            failure(
                                ErrorCode::Internal,
                                format!("unexpected attach result: {e}"),
                            )
                        }),
                    (_, Some(e)) => Err(failure(e.code, e.message)),
                    _ => Err(failure(ErrorCode::Internal, "empty attach reply")),
                };
            },
            _ => continue,
        }
    }
}

/// Attaches again after the connection closed, for up to `REATTACH_FOR`;
/// `None` when the server is gone (its socket removed, or nothing answers).
fn reattach(
    socket: &Target,
    pane: &PaneRef,
) -> Option<(BufReader<ConnRead>, ConnWrite, PaneAttachResult)> {
    let within = match socket {
        Target::Socket(_) => REATTACH_FOR,
        Target::Host(_) => REATTACH_REMOTE_FOR,
    };
    let deadline = std::time::Instant::now() + within;
    let size = terminal_size();
    while std::time::Instant::now() < deadline {
        if let Target::Socket(path) = socket
            && !path.exists()
        {
            // A server that stopped removed its socket: nothing comes back.
            return None;
        }
        if let Ok(opened) = open(socket, pane, size) {
            return Some(opened);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

/// Draws an attach snapshot on a cleared screen; returns the output offset
/// it covers.
fn draw(out: &mut impl Write, snapshot: &PaneAttachResult) -> u64 {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&snapshot.snapshot_b64)
        .unwrap_or_default();
    let _ = out.write_all(b"\x1b[H\x1b[2J");
    let _ = out.write_all(&bytes);
    let _ = out.flush();
    snapshot.output_offset
}

/// Sends what is typed as `pane.input` and the terminal's size changes as
/// `pane.resize`, until the detach key, the end of input or `stop`.
fn forward_keys(
    writer: &Mutex<Link>,
    pane: PaneRef,
    mut last_size: Option<(u16, u16)>,
    stop: &AtomicBool,
) {
    let stdin = std::io::stdin();
    let mut buf = [0u8; INPUT_CHUNK];
    let mut n_req = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let ready = nix::poll::poll(
            &mut [nix::poll::PollFd::new(
                std::os::fd::AsFd::as_fd(&stdin),
                nix::poll::PollFlags::POLLIN,
            )],
            nix::poll::PollTimeout::try_from(SIZE_POLL.as_millis() as i32)
                .unwrap_or(nix::poll::PollTimeout::NONE),
        );
        let now = terminal_size();
        if now != last_size
            && let Some((rows, cols)) = now
        {
            last_size = now;
            let params = PaneResizeParams {
                pane_id: pane.clone(),
                cols,
                rows,
            };
            let _ = send(writer, "resize".into(), Method::PaneResize(params));
        }
        if !matches!(ready, Ok(n) if n > 0) || stop.load(Ordering::Relaxed) {
            continue;
        }
        let n = match stdin.lock().read(&mut buf) {
            Ok(0) | Err(_) => 0,
            Ok(n) => n,
        };
        let (data, detach) = match buf[..n].iter().position(|b| *b == DETACH_KEY) {
            Some(i) => (&buf[..i], true),
            None => (&buf[..n], n == 0),
        };
        if !data.is_empty() {
            n_req += 1;
            let params = PaneInputParams {
                pane_id: pane.clone(),
                data_b64: base64::engine::general_purpose::STANDARD.encode(data),
            };
            if let Ok(mut link) = writer.lock() {
                link.send_input(n_req, params);
            }
        }
        if detach {
            let _ = send(
                writer,
                "detach".into(),
                Method::PaneDetach(PaneTarget { pane_id: pane }),
            );
            return;
        }
    }
}

/// The size of the terminal on stdout as (rows, cols), when stdout is one.
fn terminal_size() -> Option<(u16, u16)> {
    rustix::termios::tcgetwinsize(std::io::stdout())
        .ok()
        .map(|w| (w.ws_row, w.ws_col))
}
