//! Real-PTY tests of spawning, output, input, resize, signals, exit and teardown.
//! Every wait is bounded and fails with what it saw. The tests take one lock so
//! their descriptor and timing checks do not see each other. This file holds the
//! pane under test and the checks the topic files share.

mod adopt;
mod exit;
mod io;
mod spawn;

use super::reap::parse_stat;
use super::*;
use std::fs;
use std::path::PathBuf;
use std::sync::mpsc;
use std::thread;

/// How long any single expected event may take.
const WAIT: Duration = Duration::from_secs(10);

/// The longest `close` may take to return. A close that blocked would wait for a
/// stuck write (`WAIT`) or the grace (`CLOSE_GRACE`); this is well below both, yet
/// far above the time a thread may wait for a core on a busy machine, which
/// exceeded the 100 ms this used to be.
const CLOSE_RETURNS: Duration = Duration::from_millis(500);

static SERIAL: Mutex<()> = Mutex::new(());

#[derive(Debug)]
enum Event {
    Output(Vec<u8>),
    Ended,
    Exited(Option<i32>),
    Released,
}

struct ChannelSink(mpsc::Sender<Event>);

impl PtySink for ChannelSink {
    fn output(&mut self, chunk: Vec<u8>) -> Flow {
        let _ = self.0.send(Event::Output(chunk));
        Flow::Read
    }
    fn output_ended(&mut self) {
        let _ = self.0.send(Event::Ended);
    }
    fn exited(&mut self, code: Option<i32>) {
        let _ = self.0.send(Event::Exited(code));
    }
    fn released(&mut self) {
        let _ = self.0.send(Event::Released);
    }
}

fn spec(argv: &[&str]) -> SpawnSpec {
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
    SpawnSpec {
        argv: argv.iter().map(|a| a.to_string()).collect(),
        cwd: PathBuf::from("/"),
        env: vec![
            ("PATH".into(), path),
            ("TERM".into(), "dumb".into()),
            ("LC_ALL".into(), "C".into()),
        ],
        rows: 24,
        cols: 80,
    }
}

/// A live pane under test and everything its sink has received so far.
struct Pane {
    pty: Option<Pty>,
    events: mpsc::Receiver<Event>,
    output: Vec<u8>,
    /// The order of the sink calls: "output", "ended", "exited".
    order: Vec<&'static str>,
    /// Output bytes received when `output_ended` came.
    bytes_at_end: Option<usize>,
    exited: Option<Option<i32>>,
}

impl Pane {
    fn start(argv: &[&str]) -> Pane {
        Pane::spawn(&spec(argv)).unwrap_or_else(|e| panic!("{e}"))
    }

    fn spawn(spec: &SpawnSpec) -> Result<Pane, SpawnError> {
        let (tx, events) = mpsc::channel();
        let pty = spawn(spec, Box::new(ChannelSink(tx)))?;
        Ok(Pane::watching(pty, events))
    }

    /// A pane under test over `pty`, whose sink sends to `events`.
    fn watching(pty: Pty, events: mpsc::Receiver<Event>) -> Pane {
        Pane {
            pty: Some(pty),
            events,
            output: Vec::new(),
            order: Vec::new(),
            bytes_at_end: None,
            exited: None,
        }
    }

    fn pty(&self) -> &Pty {
        self.pty.as_ref().expect("the pty is still held")
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.output).into_owned()
    }

    fn record(&mut self, event: Event) {
        match event {
            Event::Output(chunk) => {
                assert!(!chunk.is_empty() && chunk.len() <= MAX_CHUNK_BYTES);
                self.output.extend_from_slice(&chunk);
                if self.order.last() != Some(&"output") {
                    self.order.push("output");
                }
            },
            Event::Ended => {
                assert!(self.bytes_at_end.is_none(), "output_ended twice");
                self.bytes_at_end = Some(self.output.len());
                self.order.push("ended");
            },
            Event::Exited(code) => {
                assert!(self.exited.is_none(), "exited twice");
                self.exited = Some(code);
                self.order.push("exited");
            },
            Event::Released => self.order.push("released"),
        }
    }

    /// Receives events until `done` holds; fails with `what` and everything seen.
    fn wait_until(&mut self, what: &str, timeout: Duration, done: impl Fn(&Pane) -> bool) {
        let deadline = Instant::now() + timeout;
        while !done(self) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok(event) => self.record(event),
                Err(e) => panic!(
                    "no {what} within {timeout:?} ({e}); sink calls {:?}; output {:?}",
                    self.order,
                    self.text()
                ),
            }
        }
    }

    fn wait_output(&mut self, needle: &str) {
        self.wait_until(&format!("output {needle:?}"), WAIT, |p| {
            p.text().contains(needle)
        });
    }

    fn wait_exit(&mut self) -> Option<i32> {
        self.wait_until("exit", WAIT, |p| p.exited.is_some());
        self.exited.flatten()
    }

    /// Waits for both `output_ended` and `exited`.
    fn wait_finished(&mut self) -> Option<i32> {
        self.wait_until("EOF and exit", WAIT, |p| {
            p.exited.is_some() && p.bytes_at_end.is_some()
        });
        self.exited.flatten()
    }

    /// The output as lines, without the tty's `\r`.
    fn lines(&self) -> Vec<String> {
        self.text()
            .lines()
            .map(|l| l.trim_end_matches('\r').to_string())
            .collect()
    }
}

/// A write's outcome, waited for on a helper thread with a bound.
struct Pending {
    done: mpsc::Receiver<Result<usize, WriteError>>,
    started: Instant,
}

fn pending(rx: oneshot::Receiver<Result<usize, WriteError>>) -> Pending {
    let (tx, done) = mpsc::channel();
    thread::spawn(move || {
        if let Ok(result) = rx.blocking_recv() {
            let _ = tx.send(result);
        }
    });
    Pending {
        done,
        started: Instant::now(),
    }
}

impl Pending {
    /// The result and how long after the write it arrived.
    fn wait(self, timeout: Duration) -> (Result<usize, WriteError>, Duration) {
        let result = self
            .done
            .recv_timeout(timeout)
            .unwrap_or_else(|e| panic!("the write was not answered within {timeout:?}: {e}"));
        (result, self.started.elapsed())
    }
}

/// Descriptors of the kinds this module opens: PTY ends and pipes.
fn pty_fd_count() -> usize {
    fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .flatten()
        .filter_map(|e| fs::read_link(e.path()).ok())
        .filter(|target| {
            let target = target.to_string_lossy();
            target.starts_with("/dev/ptmx")
                || target.starts_with("/dev/pts/")
                || target.starts_with("pipe:")
        })
        .count()
}

/// Waits until the count is back at or below `baseline` (threads of closed panes
/// release their descriptors as they finish).
fn assert_fds_back_to(baseline: usize) {
    let deadline = Instant::now() + WAIT;
    loop {
        let now = pty_fd_count();
        if now <= baseline {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{now} pty/pipe descriptors open, {baseline} before"
        );
        thread::sleep(Duration::from_millis(20));
    }
}

/// Whether `pid` is gone or a zombie (dead, waiting for its parent to reap it).
fn is_dead(pid: i32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(line) => parse_stat(&line).is_none_or(|s| s.state == 'Z' || s.state == 'X'),
    }
}

fn wait_dead(pid: i32, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    while !is_dead(pid) {
        if Instant::now() >= deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(20));
    }
    true
}

/// The number after `key=` in the output.
fn number_after(pane: &Pane, key: &str) -> i32 {
    pane.lines()
        .iter()
        .find_map(|l| l.strip_prefix(key).and_then(|n| n.trim().parse().ok()))
        .unwrap_or_else(|| panic!("no {key} in {:?}", pane.text()))
}

/// Fails if `pid` is a zombie child of this process.
fn assert_not_our_zombie(pid: i32) {
    if let Ok(line) = fs::read_to_string(format!("/proc/{pid}/stat")) {
        let stat = parse_stat(&line).unwrap();
        assert!(
            !(stat.ppid == own_pid() && stat.state == 'Z'),
            "zombie child {pid}"
        );
    }
}

/// Closes a pane whose output named a background job as `bg=PID` and checks that
/// the close killed the job.
fn close_kills_the_background_job(pane: &Pane) {
    let job = number_after(pane, "bg=");
    pane.pty()
        .close_with_grace(Signal::SIGHUP, Duration::from_millis(100));
    assert!(
        wait_dead(job, WAIT),
        "the background job survived the close"
    );
}

fn own_pid() -> i32 {
    std::process::id().cast_signed()
}

#[test]
fn pty_is_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Pty>();
}

/// Runs `check` with panes spawned as on a kernel without pidfds: a waiter thread
/// reaps the child and wakes the reader through a pipe.
fn without_pidfd(check: impl FnOnce()) {
    super::reap::WITHOUT_PIDFD.set(true);
    check();
    super::reap::WITHOUT_PIDFD.set(false);
}
