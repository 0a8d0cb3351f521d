//! `signaltty bridge`: this machine's server on stdin and stdout, for a
//! client on another machine that runs `ssh HOST signaltty bridge`
//! (docs/remote.md#the-bridge). Plain, it relays one connection's protocol
//! lines both ways; `--mux` carries many connections over the one session
//! in the frames of docs/remote.md#the-link, each with its own credit, and
//! answers the link's pings itself. It starts the server first unless
//! `--no-start`, and ends when either side closes. Nothing but protocol
//! lines and frames is ever written on stdout; problems go to stderr.

use crate::args::Global;
use crate::cli::{fail_with, resolve_socket};
use crate::launch::launch;
use parking_lot::{Condvar, Mutex};
use signaltty_model::client::conn::connect_socket;
use signaltty_model::remote::mux::{self, Frame, Hello, Window};
use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

/// `signaltty bridge` arguments.
#[derive(Debug, clap::Args)]
pub struct BridgeArgs {
    /// Do not start a server when none answers: fail instead.
    #[arg(long)]
    pub no_start: bool,
    /// Carry many connections over this one stream (what `--host` clients
    /// run; docs/remote.md#the-link).
    #[arg(long)]
    pub mux: bool,
}

/// `signaltty bridge`.
pub fn run(global: &Global, args: BridgeArgs) -> i32 {
    let socket = resolve_socket(global);
    let started = if args.no_start {
        false
    } else {
        match launch(global) {
            Ok(pid) => pid.is_some(),
            Err((code, message)) => return fail_with(code, message),
        }
    };
    if args.mux {
        mux_relay(global, &socket, started, args.no_start)
    } else {
        plain(&socket)
    }
}

/// One connection, both ways, until either side closes.
fn plain(socket: &Path) -> i32 {
    let stream = match connect_socket(socket) {
        Ok(s) => s,
        Err(e) => return fail_with(e.code, e.message),
    };
    let Ok(mut to_server) = stream.try_clone() else {
        return fail_with(
            signaltty_protocol::ErrorCode::IoError,
            "cannot clone the socket",
        );
    };
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let _ = std::io::copy(&mut stdin, &mut to_server);
        // The client is done: the server sees the end, answers what it
        // has, and closes.
        let _ = to_server.shutdown(std::net::Shutdown::Write);
    });
    let mut from_server = stream;
    let mut stdout = std::io::stdout().lock();
    let _ = copy_flushing(&mut from_server, &mut stdout);
    0
}

/// `io::copy`, flushing after every read so a line never waits in a buffer.
fn copy_flushing(from: &mut impl Read, to: &mut impl Write) -> std::io::Result<()> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return Ok(()),
            Err(e) => return Err(e),
        };
        to.write_all(&buf[..n])?;
        to.flush()?;
    }
}

/// One channel of the mux, as the bridge holds it.
struct Chan {
    /// The writing side of its socket.
    socket: UnixStream,
    state: Mutex<ChanState>,
    cv: Condvar,
}

#[derive(Default)]
struct ChanState {
    /// Lines from the client not yet written to the socket.
    inbox: VecDeque<String>,
    /// Credit for lines toward the client.
    send: Window,
    /// Bytes written to the socket not yet given back to the client.
    recv: Window,
    closed: bool,
}

impl Chan {
    fn close(&self) {
        self.state.lock().closed = true;
        self.cv.notify_all();
        let _ = self.socket.shutdown(std::net::Shutdown::Both);
    }
}

/// Many connections over stdin and stdout.
fn mux_relay(global: &Global, socket: &Path, started: bool, no_start: bool) -> i32 {
    let (out, frames) = channel::<String>();
    let writer = std::thread::spawn(move || write_frames(&frames));
    let hello = Hello {
        signaltty_bridge: mux::MUX.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        protocol: signaltty_protocol::PROTOCOL.into(),
        socket: socket.to_string_lossy().into_owned(),
        started,
    };
    let Ok(hello) = serde_json::to_string(&hello) else {
        return 1;
    };
    let _ = out.send(format!("{hello}\n"));
    let mut chans: HashMap<u32, Arc<Chan>> = HashMap::new();
    let mut stdin = BufReader::new(std::io::stdin().lock());
    let mut line = String::new();
    loop {
        line.clear();
        match stdin.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {},
        }
        let text = line.trim_end_matches(['\n', '\r']);
        let frame = match Frame::parse(text) {
            Ok(f) => f,
            Err(e) => {
                // Not our client: say so where a person reads it, and end.
                eprintln!("signaltty bridge: {e}");
                break;
            },
        };
        match frame {
            Frame::Open { ch } => {
                if chans.contains_key(&ch) {
                    let _ = out.send(
                        Frame::Closed {
                            ch,
                            reason: "already open",
                        }
                        .encode(),
                    );
                    continue;
                }
                match open(global, socket, no_start) {
                    Ok(stream) => match start_channel(ch, stream, &out) {
                        Ok(chan) => {
                            chans.insert(ch, chan);
                        },
                        Err(why) => {
                            let _ = out.send(Frame::Closed { ch, reason: &why }.encode());
                        },
                    },
                    Err(why) => {
                        let _ = out.send(Frame::Closed { ch, reason: &why }.encode());
                    },
                }
            },
            Frame::Data { ch, line } => {
                if let Some(chan) = chans.get(&ch) {
                    chan.state.lock().inbox.push_back(line.to_owned());
                    chan.cv.notify_all();
                }
            },
            Frame::Close { ch } => {
                if let Some(chan) = chans.remove(&ch) {
                    chan.close();
                }
            },
            Frame::Credit { ch, bytes } => {
                if let Some(chan) = chans.get(&ch) {
                    chan.state.lock().send.granted(bytes);
                    chan.cv.notify_all();
                }
            },
            Frame::Ping { token } => {
                let _ = out.send(Frame::Pong { token }.encode());
            },
            Frame::Pong { .. } | Frame::Closed { .. } => {},
        }
        chans.retain(|_, c| !c.state.lock().closed);
    }
    for chan in chans.values() {
        chan.close();
    }
    // The client has gone: nothing is left to flush for it.
    drop((out, writer));
    std::process::exit(0)
}

/// Connects one channel, starting the server again when it went away
/// (unless `--no-start`).
fn open(global: &Global, socket: &Path, no_start: bool) -> Result<UnixStream, String> {
    match connect_socket(socket) {
        Ok(s) => Ok(s),
        Err(e) if no_start => Err(e.message),
        Err(_) => {
            launch(global).map_err(|(_, m)| m)?;
            connect_socket(socket).map_err(|e| e.message)
        },
    }
}

/// The two threads of one channel: socket → client (while it has credit)
/// and client → socket (giving the credit back as lines are written).
fn start_channel(ch: u32, stream: UnixStream, out: &Sender<String>) -> Result<Arc<Chan>, String> {
    let reader = stream.try_clone().map_err(|e| format!("socket: {e}"))?;
    let chan = Arc::new(Chan {
        socket: stream,
        state: Mutex::new(ChanState::default()),
        cv: Condvar::new(),
    });
    {
        let chan = chan.clone();
        let out = out.clone();
        std::thread::spawn(move || to_client(ch, reader, &chan, &out));
    }
    {
        let chan = chan.clone();
        let out = out.clone();
        std::thread::spawn(move || to_server(ch, &chan, &out));
    }
    Ok(chan)
}

fn to_client(ch: u32, reader: UnixStream, chan: &Chan, out: &Sender<String>) {
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {},
        }
        let text = line.trim_end_matches(['\n', '\r']);
        if text.is_empty() {
            continue;
        }
        let mut st = chan.state.lock();
        while !st.send.open() && !st.closed {
            chan.cv.wait(&mut st);
        }
        if st.closed {
            return;
        }
        st.send.sent(mux::cost(text));
        drop(st);
        if out.send(Frame::Data { ch, line: text }.encode()).is_err() {
            return;
        }
    }
    let mut st = chan.state.lock();
    let was_open = !std::mem::replace(&mut st.closed, true);
    drop(st);
    chan.cv.notify_all();
    if was_open {
        let _ = out.send(Frame::Closed { ch, reason: "" }.encode());
    }
}

fn to_server(ch: u32, chan: &Chan, out: &Sender<String>) {
    let mut socket = &chan.socket;
    loop {
        let mut st = chan.state.lock();
        while st.inbox.is_empty() && !st.closed {
            chan.cv.wait(&mut st);
        }
        let Some(line) = st.inbox.pop_front() else {
            return;
        };
        drop(st);
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        if socket.write_all(&bytes).is_err() {
            return;
        }
        let give = chan.state.lock().recv.consumed(bytes.len());
        if let Some(bytes) = give
            && out.send(Frame::Credit { ch, bytes }.encode()).is_err()
        {
            return;
        }
    }
}

/// Writes frames to stdout, flushing whenever no more are waiting; a
/// closed stdout (the ssh session ended) ends the bridge.
fn write_frames(frames: &Receiver<String>) {
    let mut stdout = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    while let Ok(frame) = frames.recv() {
        if stdout.write_all(frame.as_bytes()).is_err() {
            std::process::exit(0);
        }
        while let Ok(more) = frames.try_recv() {
            if stdout.write_all(more.as_bytes()).is_err() {
                std::process::exit(0);
            }
        }
        if stdout.flush().is_err() {
            std::process::exit(0);
        }
    }
}
