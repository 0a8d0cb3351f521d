//! The client's end of a host's link: one `ssh DEST signaltty bridge --mux`
//! per host per process, the demultiplexing thread that hands each channel
//! its lines, the credit that keeps every channel bounded, and the keepalive
//! that declares a host that stops answering lost (docs/remote.md#the-link).
//! A channel is one protocol connection ([`Channel`]); the client crate wraps
//! it like a socket (`channel.rs`); [`Links`] keeps one link per host.

use super::channel::Channel;
use super::hosts::Host;
use super::mux::{Frame, Hello, Window};
use super::ssh;
use crate::env::Env;
use files::{Stderr, keep_stderr};
use parking_lot::{Condvar, Mutex};
use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use watch::{check_hello, keepalive, on_frame};

/// How long a new link may take to say hello: ssh's connect timeout plus a
/// remote server's start.
pub const HELLO_WITHIN: Duration = Duration::from_secs(ssh::CONNECT_TIMEOUT_S as u64 + 10);
/// Silence after which the link pings the bridge.
pub const PING_AFTER: Duration = Duration::from_secs(2);
/// Silence after which the link counts as lost, pings unanswered: the host
/// is marked within this, well inside ten seconds.
pub const LOST_AFTER: Duration = Duration::from_secs(6);
/// A frame longer than this ends the link (nothing the server sends comes near).
const MAX_FRAME: usize = 256 << 20;
/// Lines of something else a remote shell may print before the hello.
const MAX_NOISE_LINES: usize = 200;

/// Why a link or a channel failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkError {
    /// The host cannot be reached or did not start its bridge (the message
    /// says what ssh or the remote said).
    Unreachable(String),
    /// The remote speaks another protocol or mux format.
    Mismatch(String),
}

impl std::error::Error for LinkError {}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkError::Unreachable(m) | LinkError::Mismatch(m) => f.write_str(m),
        }
    }
}

/// One live (or lost) link to a host.
pub struct Link {
    shared: Arc<Shared>,
}

pub(super) struct Shared {
    host: Host,
    /// The bridge's hello once it came (or why it never will).
    hello: Mutex<Option<Result<Hello, LinkError>>>,
    hello_cv: Condvar,
    writer: Mutex<Option<ChildStdin>>,
    child: Mutex<Option<Child>>,
    pub(super) channels: Mutex<HashMap<u32, Arc<Chan>>>,
    next_channel: AtomicU32,
    /// Why the link ended; `None` while it lives.
    lost: Mutex<Option<LinkError>>,
    lost_cv: Condvar,
    /// Milliseconds since `born` at which the last line arrived.
    heard_ms: AtomicU64,
    born: Instant,
    pongs: Mutex<HashMap<u64, Instant>>,
    pong_cv: Condvar,
    next_ping: AtomicU64,
    stderr: Arc<Stderr>,
}

/// One channel's side of the link.
pub(super) struct Chan {
    pub(super) id: u32,
    pub(super) state: Mutex<ChanState>,
    pub(super) cv: Condvar,
}

#[derive(Default)]
pub(super) struct ChanState {
    pub(super) lines: VecDeque<String>,
    /// Bytes of the front line already read.
    pub(super) pos: usize,
    /// Set when the channel ended: the reason (empty: the server closed it).
    pub(super) closed: Option<String>,
    /// The link's failure behind the reason, when the link ended it.
    pub(super) error: Option<LinkError>,
    /// The reason was handed to a reader once.
    pub(super) reported: bool,
    pub(super) send: Window,
    pub(super) recv: Window,
}

impl Link {
    /// Starts ssh for `host` and waits for the bridge's hello.
    pub fn open(host: &Host, env: &Env) -> Result<Link, LinkError> {
        let link = Link::start(host, env)?;
        link.wait_hello(HELLO_WITHIN)?;
        Ok(link)
    }

    /// Starts ssh for `host` without waiting for the bridge: channels may be
    /// opened and written at once, their lines follow the hello (a one-shot
    /// command saves a round trip), and a link whose hello never comes, or
    /// speaks another protocol, ends them all with why.
    pub fn start(host: &Host, env: &Env) -> Result<Link, LinkError> {
        let dir = ssh::make_control_dir(env).map_err(|e| {
            LinkError::Unreachable(format!(
                "{}: cannot make {}: {e}",
                host.name,
                ssh::control_dir(env).display()
            ))
        })?;
        let mut child = Command::new("ssh")
            .args(ssh::argv(host, &dir, false, &ssh::bridge_command(host)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| LinkError::Unreachable(format!("{}: cannot run ssh: {e}", host.name)))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(LinkError::Unreachable(format!(
                "{}: ssh has no pipes",
                host.name
            )));
        };
        let kept = Arc::new(Stderr::default());
        {
            // A control master that ssh forks keeps this pipe open, so it is
            // read by a thread of its own that nobody waits for.
            let kept = kept.clone();
            let spawned = std::thread::Builder::new()
                .name("link-stderr".into())
                .spawn(move || keep_stderr(stderr, &kept));
            if spawned.is_err() {
                log::warn!("link: no thread for ssh's stderr");
            }
        }
        let shared = Arc::new(Shared {
            host: host.clone(),
            hello: Mutex::new(None),
            hello_cv: Condvar::new(),
            writer: Mutex::new(Some(stdin)),
            child: Mutex::new(Some(child)),
            channels: Mutex::new(HashMap::new()),
            next_channel: AtomicU32::new(1),
            lost: Mutex::new(None),
            lost_cv: Condvar::new(),
            heard_ms: AtomicU64::new(0),
            born: Instant::now(),
            pongs: Mutex::new(HashMap::new()),
            pong_cv: Condvar::new(),
            next_ping: AtomicU64::new(1),
            stderr: kept,
        });
        {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name(format!("link-{}", host.name))
                .spawn(move || demux(&shared, stdout))
                .map_err(|e| {
                    LinkError::Unreachable(format!("{}: no thread for the link: {e}", host.name))
                })?;
        }
        {
            let shared = shared.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("keepalive-{}", host.name))
                .spawn(move || keepalive(&shared));
            if spawned.is_err() {
                log::warn!("link: no keepalive thread");
            }
        }
        Ok(Link { shared })
    }

    /// Waits for the bridge's hello: what it said, or why the link failed
    /// (ended then if it was still up).
    pub fn wait_hello(&self, within: Duration) -> Result<Hello, LinkError> {
        self.shared.wait_hello(within)
    }

    /// The host this link reaches.
    pub fn host(&self) -> &Host {
        &self.shared.host
    }

    /// What the bridge said when it started.
    pub fn hello(&self) -> Option<Hello> {
        self.shared.hello.lock().clone().and_then(Result::ok)
    }

    /// Why the link ended, once it has.
    pub fn lost(&self) -> Option<String> {
        self.shared.lost.lock().as_ref().map(ToString::to_string)
    }

    /// Opens a channel: a fresh connection to the host's server. It never
    /// waits: lines written at once follow the open, and a connection the
    /// bridge cannot make ends the channel with the reason.
    pub fn channel(&self) -> Result<Channel, LinkError> {
        if let Some(e) = self.shared.lost.lock().clone() {
            return Err(e);
        }
        let id = self.shared.next_channel.fetch_add(1, Ordering::Relaxed);
        let chan = Arc::new(Chan {
            id,
            state: Mutex::new(ChanState::default()),
            cv: Condvar::new(),
        });
        self.shared.channels.lock().insert(id, chan.clone());
        self.shared.send(&Frame::Open { ch: id }.encode())?;
        Ok(Channel::new(self.shared.clone(), chan))
    }

    /// One ping through the bridge; the round trip.
    pub fn ping(&self, within: Duration) -> Result<Duration, LinkError> {
        self.shared.ping(within)
    }

    /// Ends the link: the bridge sees its input close, and every channel ends.
    pub fn close(&self) {
        self.shared.writer.lock().take();
        self.shared
            .end(&format!("{}: link closed", self.shared.host.name));
    }

    /// Waits until the link is lost or `within` has passed; the reason.
    pub fn wait_lost(&self, within: Duration) -> Option<String> {
        let mut lost = self.shared.lost.lock();
        if lost.is_none() {
            let _ = self.shared.lost_cv.wait_for(&mut lost, within);
        }
        lost.as_ref().map(ToString::to_string)
    }
}

impl Shared {
    pub(super) fn send(&self, frame: &str) -> Result<(), LinkError> {
        let mut writer = self.writer.lock();
        let lost = |why: String| LinkError::Unreachable(why);
        let Some(w) = writer.as_mut() else {
            return Err(self
                .lost
                .lock()
                .clone()
                .unwrap_or_else(|| lost(format!("{}: link closed", self.host.name))));
        };
        if let Err(e) = w.write_all(frame.as_bytes()).and_then(|()| w.flush()) {
            writer.take();
            drop(writer);
            let why = format!("{}: link lost: cannot write to ssh: {e}", self.host.name);
            self.kill();
            self.end(&why);
            return Err(lost(why));
        }
        Ok(())
    }

    fn wait_hello(&self, within: Duration) -> Result<Hello, LinkError> {
        let deadline = Instant::now() + within;
        let mut hello = self.hello.lock();
        while hello.is_none() {
            if self.hello_cv.wait_until(&mut hello, deadline).timed_out() && hello.is_none() {
                drop(hello);
                let error = LinkError::Unreachable(format!(
                    "{}: no answer from `ssh {}` within {}s",
                    self.host.name,
                    self.host.dest,
                    within.as_secs()
                ));
                self.writer.lock().take();
                self.kill();
                self.fail(error);
                return self
                    .hello
                    .lock()
                    .clone()
                    .unwrap_or_else(|| Err(LinkError::Unreachable("no hello".into())));
            }
        }
        hello
            .clone()
            .unwrap_or_else(|| Err(LinkError::Unreachable("no hello".into())))
    }

    fn heard(&self) {
        let ms = u64::try_from(self.born.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.heard_ms.store(ms, Ordering::Relaxed);
    }

    fn silent_for(&self) -> Duration {
        self.born
            .elapsed()
            .saturating_sub(Duration::from_millis(self.heard_ms.load(Ordering::Relaxed)))
    }

    fn ping(&self, within: Duration) -> Result<Duration, LinkError> {
        let token = self.next_ping.fetch_add(1, Ordering::Relaxed);
        let sent = Instant::now();
        self.send(
            &Frame::Ping {
                token: &token.to_string(),
            }
            .encode(),
        )?;
        let deadline = sent + within;
        let mut pongs = self.pongs.lock();
        loop {
            if let Some(at) = pongs.remove(&token) {
                return Ok(at.saturating_duration_since(sent));
            }
            if let Some(e) = self.lost.lock().clone() {
                return Err(e);
            }
            if self.pong_cv.wait_until(&mut pongs, deadline).timed_out() {
                return Err(LinkError::Unreachable(format!(
                    "{}: no answer to a ping within {} ms",
                    self.host.name,
                    within.as_millis()
                )));
            }
        }
    }

    fn kill(&self) {
        if let Some(child) = self.child.lock().as_mut() {
            let _ = child.kill();
        }
    }

    /// Marks the link lost (once) and ends every channel with `why`.
    fn end(&self, why: &str) {
        self.fail(LinkError::Unreachable(why.to_owned()));
    }

    /// Marks the link lost (once) with `error`, and ends every channel and
    /// a wait for the hello with it.
    fn fail(&self, error: LinkError) {
        {
            let mut lost = self.lost.lock();
            if lost.is_some() {
                return;
            }
            *lost = Some(error.clone());
        }
        {
            let mut hello = self.hello.lock();
            if hello.is_none() {
                *hello = Some(Err(error.clone()));
            }
        }
        self.hello_cv.notify_all();
        let why = error.to_string();
        let why = why.as_str();
        self.lost_cv.notify_all();
        self.pong_cv.notify_all();
        let channels: Vec<Arc<Chan>> = self.channels.lock().drain().map(|(_, c)| c).collect();
        for chan in channels {
            chan.fail(why, &error);
        }
    }

    /// The child's exit status, waiting a little for it to end.
    fn exit_status(&self) -> Option<Option<i32>> {
        let mut slot = self.child.lock();
        let child = slot.as_mut()?;
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    slot.take();
                    return Some(status.code());
                },
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                },
                _ => return None,
            }
        }
    }
}

impl Chan {
    /// Ends the channel because its link ended with `error`.
    fn fail(&self, why: &str, error: &LinkError) {
        let mut st = self.state.lock();
        if st.closed.is_none() {
            st.closed = Some(why.to_owned());
            st.error = Some(error.clone());
        }
        drop(st);
        self.cv.notify_all();
    }

    pub(super) fn close(&self, why: &str) {
        let mut st = self.state.lock();
        if st.closed.is_none() {
            st.closed = Some(why.to_owned());
        }
        drop(st);
        self.cv.notify_all();
    }
}

/// Reads the bridge's output: the hello (through `hello`), then every frame
/// until the link ends.
fn demux(shared: &Arc<Shared>, stdout: std::process::ChildStdout) {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut line = String::new();
    let mut noise = Vec::new();
    let mut greeted = false;
    let why = loop {
        line.clear();
        let read = (&mut reader).take(MAX_FRAME as u64).read_line(&mut line);
        match read {
            Ok(0) => break None,
            Ok(_) if !line.ends_with('\n') && line.len() >= MAX_FRAME => {
                break Some(LinkError::Unreachable(format!(
                    "{}: a frame longer than {MAX_FRAME} bytes",
                    shared.host.name
                )));
            },
            Ok(_) => {},
            Err(e) => {
                break Some(LinkError::Unreachable(format!(
                    "{}: cannot read from ssh: {e}",
                    shared.host.name
                )));
            },
        }
        shared.heard();
        let text = line.trim_end_matches(['\n', '\r']);
        if !greeted {
            if let Some(h) = Hello::parse(text) {
                greeted = true;
                if let Err(why) = check_hello(&shared.host, &h) {
                    shared.kill();
                    break Some(why);
                }
                *shared.hello.lock() = Some(Ok(h));
                shared.hello_cv.notify_all();
            } else if noise.len() < MAX_NOISE_LINES {
                // A login banner or a chatty shell startup file.
                noise.push(text.to_owned());
            } else {
                let why = format!(
                    "{}: the remote printed {MAX_NOISE_LINES} lines and no signaltty bridge \
                     hello (first: {:?})",
                    shared.host.name,
                    noise.first().map_or("", String::as_str)
                );
                shared.kill();
                break Some(LinkError::Mismatch(why));
            }
            continue;
        }
        match Frame::parse(text) {
            Ok(frame) => on_frame(shared, frame),
            Err(e) => {
                let why = format!("{}: the bridge sent garbage: {e}", shared.host.name);
                shared.kill();
                break Some(LinkError::Unreachable(why));
            },
        }
    };
    let error = match why {
        Some(error) => error,
        None => LinkError::Unreachable({
            let status = shared.exit_status().flatten();
            let stderr = shared.stderr.read(Duration::from_secs(1));
            let mut said = stderr;
            if !greeted && !noise.is_empty() && said.trim().is_empty() {
                said = noise.join("\n");
            }
            if greeted {
                let tail = said.trim().lines().last().unwrap_or("").to_owned();
                match status {
                    Some(code) if tail.is_empty() => {
                        format!("{}: link lost (ssh exited with {code})", shared.host.name)
                    },
                    _ if tail.is_empty() => format!("{}: link lost", shared.host.name),
                    _ => format!("{}: link lost: {tail}", shared.host.name),
                }
            } else {
                ssh::explain_exit(&shared.host, status.or(Some(255)), &said)
            }
        }),
    };
    let error = match error {
        // A remote too old for the bridge is a mismatch, not a dead host.
        LinkError::Unreachable(why) if !greeted && why.contains("too old") => {
            LinkError::Mismatch(why)
        },
        other => other,
    };
    shared.writer.lock().take();
    shared.fail(error);
    // Reap ssh if it has not been yet.
    if let Some(mut child) = shared.child.lock().take() {
        let _ = child.kill();
        let _ = child.wait();
    }
}

mod files;
mod watch;
