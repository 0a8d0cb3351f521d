//! Real-PTY tests of spawning, output, input, resize, signals, exit and teardown.
//! Every wait is bounded and fails with what it saw. The tests take one lock so
//! their descriptor and timing checks do not see each other.

use super::reap::parse_stat;
use super::*;
use nix::sys::signal::{SigHandler, signal};
use std::collections::BTreeSet;
use std::fs;
use std::sync::mpsc;

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
    fn output(&mut self, chunk: Vec<u8>) {
        let _ = self.0.send(Event::Output(chunk));
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
fn output_then_eof_then_exit_code() {
    let _serial = SERIAL.lock();
    let mut pane = Pane::start(&["sh", "-c", "printf hello; exit 7"]);
    assert_eq!(pane.wait_finished(), Some(7));
    assert!(pane.text().contains("hello"), "{:?}", pane.text());
    assert_eq!(pane.order, ["output", "ended", "exited"]);
}

#[test]
fn a_child_killed_by_sigkill_exits_137() {
    let _serial = SERIAL.lock();
    let mut pane = Pane::start(&["sh", "-c", "kill -9 $$"]);
    assert_eq!(pane.wait_exit(), Some(137));
}

#[test]
fn the_child_gets_exactly_the_given_environment() {
    let _serial = SERIAL.lock();
    let mut spec = spec(&["env"]);
    spec.env = vec![
        ("PATH".into(), "/usr/bin:/bin".into()),
        ("SIGNALTTY_PANE".into(), "pane_x".into()),
    ];
    let mut pane = Pane::spawn(&spec).unwrap();
    assert_eq!(pane.wait_finished(), Some(0));
    let lines: BTreeSet<String> = pane.lines().into_iter().filter(|l| !l.is_empty()).collect();
    let expected: BTreeSet<String> = ["PATH=/usr/bin:/bin", "SIGNALTTY_PANE=pane_x"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(lines, expected);
}

#[test]
fn children_inherit_only_their_terminal() {
    let _serial = SERIAL.lock();
    // An inheritable descriptor in the server (dup clears close-on-exec) must not
    // reach the child either.
    let devnull = fs::File::open("/dev/null").unwrap();
    let leak = nix::unistd::dup(&devnull).unwrap();
    let mut other = Pane::start(&["cat"]);
    let mut pane = Pane::start(&["ls", "-l", "/proc/self/fd"]);
    assert_eq!(pane.wait_finished(), Some(0));
    drop(leak);
    let mut fds = BTreeSet::new();
    for line in pane.lines() {
        let Some((left, target)) = line.split_once(" -> ") else {
            continue;
        };
        let fd: u32 = left.split_whitespace().last().unwrap().parse().unwrap();
        fds.insert(fd);
        match fd {
            0..=2 => assert!(target.starts_with("/dev/pts/"), "{line}"),
            // ls's own handle on the directory it lists.
            _ => assert!(target.starts_with("/proc/"), "{line}"),
        }
    }
    assert!(
        fds.is_subset(&BTreeSet::from([0, 1, 2, 3])),
        "{fds:?}\n{}",
        pane.text()
    );
    assert!(fds.is_superset(&BTreeSet::from([0, 1, 2])), "{fds:?}");
    other.pty().close_with_grace(Signal::SIGHUP, Duration::ZERO);
    other.wait_exit();
}

#[test]
fn the_child_is_a_session_leader_with_a_controlling_tty() {
    let _serial = SERIAL.lock();
    let mut pane = Pane::start(&["sh", "-c", "tty; cat /proc/$$/stat"]);
    assert_eq!(pane.wait_finished(), Some(0));
    let pid = pane.pty().pid().cast_signed();
    let lines = pane.lines();
    assert!(lines[0].starts_with("/dev/pts/"), "{lines:?}");
    let stat = lines
        .iter()
        .filter_map(|l| parse_stat(l))
        .find(|s| s.pid == pid)
        .unwrap_or_else(|| panic!("no stat line for {pid}: {lines:?}"));
    assert_eq!(stat.session, pid, "session leader");
    assert_eq!(stat.pgrp, pid, "process group leader");
    assert_ne!(stat.tty_nr, 0, "has a controlling tty");
    assert_eq!(stat.tpgid, pid, "is the foreground process group");
}

#[test]
fn the_child_has_no_ignored_or_blocked_signals() {
    // Rust ignores SIGPIPE in this process; ignoring SIGUSR2 too
    // shows that any ignored disposition is reset, not only the ones std resets.
    let _serial = SERIAL.lock();
    // SAFETY: SIG_IGN installs no handler code; nothing in the test binary relies on
    // SIGUSR2, and the default is restored below.
    unsafe { signal(Signal::SIGUSR2, SigHandler::SigIgn) }.unwrap();
    let status = fs::read_to_string("/proc/self/status").unwrap();
    let mut pane = Pane::start(&["grep", "-E", "^Sig(Ign|Blk)", "/proc/self/status"]);
    let code = pane.wait_finished();
    // SAFETY: as above; SIG_DFL installs no handler code.
    unsafe { signal(Signal::SIGUSR2, SigHandler::SigDfl) }.unwrap();
    assert_eq!(code, Some(0));
    let ours = status.lines().find(|l| l.starts_with("SigIgn:")).unwrap();
    assert!(
        !ours.ends_with("0000000000000000"),
        "the test process ignores signals: {ours}"
    );
    let lines = pane.lines();
    for key in ["SigIgn:", "SigBlk:"] {
        let line = lines
            .iter()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("no {key} in {lines:?}"));
        assert!(line.ends_with("0000000000000000"), "{line}");
    }
}

#[test]
fn input_reaches_the_child_and_comes_back() {
    let _serial = SERIAL.lock();
    let mut pane = Pane::start(&["cat"]);
    let write = pending(pane.pty().write(b"abc\n".to_vec(), Instant::now() + WAIT));
    assert_eq!(write.wait(WAIT).0, Ok(4));
    // Once from the terminal's echo, once from cat.
    pane.wait_until("abc twice", WAIT, |p| p.text().matches("abc").count() >= 2);
    pane.pty().close(Signal::SIGTERM);
    assert_eq!(pane.wait_exit(), Some(128 + 15));
}

/// A pane whose child never reads, with its terminal in raw mode: once the line
/// discipline's and the PTY's buffers are full, writes block. (In canonical mode
/// the kernel drops input past a full line instead of blocking the writer.)
fn stuck_pane() -> Pane {
    let mut pane = Pane::start(&["sh", "-c", "stty raw -echo; echo ready; exec sleep 100"]);
    pane.wait_output("ready");
    pane
}

#[test]
fn a_write_to_a_child_that_never_reads_times_out_without_blocking_other_panes() {
    let _serial = SERIAL.lock();
    let mut stuck = stuck_pane();
    let mut other = Pane::start(&["cat"]);
    let mib = vec![b'x'; 1 << 20];
    let blocked = pending(
        stuck
            .pty()
            .write(mib, Instant::now() + Duration::from_secs(1)),
    );
    // The other pane's input and signals work meanwhile.
    let quick = pending(other.pty().write(b"ping\n".to_vec(), Instant::now() + WAIT));
    let (result, took) = quick.wait(WAIT);
    assert_eq!(result, Ok(5));
    assert!(
        took < Duration::from_millis(500),
        "the other pane's write took {took:?}"
    );
    other.wait_output("ping");
    other.pty().signal(Signal::SIGCONT, false).unwrap();

    let (result, took) = blocked.wait(WAIT);
    let error = result.unwrap_err();
    assert_eq!(error.kind, WriteErrorKind::Timeout, "{error}");
    assert!(error.written > 0 && error.written < 1 << 20, "{error}");
    assert!(
        took >= Duration::from_millis(950) && took < Duration::from_millis(1500),
        "timed out after {took:?}"
    );
    for pane in [&mut stuck, &mut other] {
        pane.pty().close_with_grace(Signal::SIGTERM, Duration::ZERO);
        pane.wait_exit();
    }
}

#[test]
fn a_queued_write_times_out_at_its_own_deadline() {
    let _serial = SERIAL.lock();
    let mut pane = stuck_pane();
    let first = pending(pane.pty().write(vec![b'x'; 1 << 20], Instant::now() + WAIT));
    let second = pending(
        pane.pty()
            .write(b"y".to_vec(), Instant::now() + Duration::from_millis(300)),
    );
    let (result, took) = second.wait(WAIT);
    assert_eq!(result, Err(WriteError::new(WriteErrorKind::Timeout, 0)));
    assert!(took < Duration::from_millis(600), "answered after {took:?}");
    pane.pty().close(Signal::SIGHUP);
    assert_eq!(first.wait(WAIT).0.unwrap_err().kind, WriteErrorKind::Exited);
    pane.wait_exit();
}

#[test]
fn close_cancels_active_and_queued_writes_promptly() {
    let _serial = SERIAL.lock();
    let mut pane = stuck_pane();
    let active = pending(pane.pty().write(vec![b'x'; 1 << 20], Instant::now() + WAIT));
    // A probe that times out while queued proves the active write is stuck.
    let probe = pending(
        pane.pty()
            .write(b"p".to_vec(), Instant::now() + Duration::from_millis(200)),
    );
    assert_eq!(
        probe.wait(WAIT).0,
        Err(WriteError::new(WriteErrorKind::Timeout, 0))
    );
    let queued = pending(pane.pty().write(b"more".to_vec(), Instant::now() + WAIT));
    let closing = Instant::now();
    pane.pty().close(Signal::SIGHUP);
    let took = closing.elapsed();
    assert!(took < CLOSE_RETURNS, "close blocked for {took:?}");
    let (result, _) = active.wait(WAIT);
    let error = result.unwrap_err();
    assert_eq!(error.kind, WriteErrorKind::Exited, "{error}");
    assert!(error.written > 0 && error.written < 1 << 20, "{error}");
    let (result, _) = queued.wait(WAIT);
    assert_eq!(result, Err(WriteError::new(WriteErrorKind::Exited, 0)));
    let took = closing.elapsed();
    assert!(took < Duration::from_millis(500), "cancel took {took:?}");
    // A write after close is answered at once: the answer is there when `write`
    // returns. (Timing it through `pending` measured how soon a helper thread got a
    // core, which a busy machine can delay past any small bound.)
    let mut late = pane.pty().write(b"x".to_vec(), Instant::now() + WAIT);
    assert_eq!(
        late.try_recv(),
        Ok(Err(WriteError::new(WriteErrorKind::Exited, 0))),
        "a write after close was not answered at once"
    );
    assert_eq!(pane.wait_exit(), Some(128 + 1));
    assert!(pane.bytes_at_end.is_none(), "no output_ended after close");
}

#[test]
fn close_kills_every_process_group_of_the_session_after_the_grace() {
    // The shell and both background jobs ignore SIGHUP and
    // SIGTERM; one job runs in the shell's group, one in a group of its own.
    let _serial = SERIAL.lock();
    let script = "trap '' HUP TERM; sleep 1000 & echo same=$!; \
                  set -m; sleep 1000 & echo own=$!; echo ready; wait";
    let mut pane = Pane::start(&["sh", "-c", script]);
    pane.wait_output("ready");
    let pid = pane.pty().pid().cast_signed();
    let same = number_after(&pane, "same=");
    let own = number_after(&pane, "own=");
    let stat =
        |pid: i32| parse_stat(&fs::read_to_string(format!("/proc/{pid}/stat")).unwrap()).unwrap();
    assert_eq!(stat(same).pgrp, pid);
    assert_ne!(stat(own).pgrp, pid, "set -m gives the job its own group");
    assert_eq!(stat(own).session, pid);

    let closing = Instant::now();
    pane.pty().close(Signal::SIGTERM);
    let took = closing.elapsed();
    assert!(took < CLOSE_RETURNS, "close blocked for {took:?}");
    for job in [pid, same, own] {
        assert!(!is_dead(job), "{job} died before the grace");
    }
    let margin = Duration::from_secs(3);
    for job in [same, own] {
        assert!(
            wait_dead(job, CLOSE_GRACE + margin),
            "{job} survived the close"
        );
    }
    assert_eq!(pane.wait_exit(), Some(128 + 9));
    let took = closing.elapsed();
    assert!(
        took >= CLOSE_GRACE && took < CLOSE_GRACE + margin,
        "teardown took {took:?}"
    );
}

#[test]
fn exit_is_reported_while_a_background_job_holds_the_terminal() {
    let _serial = SERIAL.lock();
    // The job ignores the SIGHUP the kernel sends when the session leader exits.
    let script = "trap '' HUP; sleep 1000 & echo bg=$!; echo bye; exit 3";
    let mut pane = Pane::start(&["sh", "-c", script]);
    assert_eq!(pane.wait_exit(), Some(3));
    assert!(
        pane.text().contains("bye"),
        "output before the exit came first: {:?}",
        pane.text()
    );
    assert!(
        pane.bytes_at_end.is_none(),
        "the job still holds the terminal"
    );
    close_kills_the_background_job(&pane);
}

#[test]
fn resize_sends_sigwinch_and_sets_the_size() {
    let _serial = SERIAL.lock();
    let script = "stty size; trap 'stty size; exit 0' WINCH; echo ready; \
                  while :; do sleep 0.05; done";
    let mut pane = Pane::start(&["sh", "-c", script]);
    pane.wait_output("ready");
    assert!(pane.text().contains("24 80"), "{:?}", pane.text());
    pane.pty().resize(30, 100).unwrap();
    pane.wait_output("30 100");
    assert_eq!(pane.wait_exit(), Some(0));
}

#[test]
fn signals_reach_the_child_or_its_group_until_it_is_reaped() {
    let _serial = SERIAL.lock();
    let script = "trap 'echo got-usr1' USR1; echo ready; while :; do sleep 0.05; done";
    let mut pane = Pane::start(&["sh", "-c", script]);
    pane.wait_output("ready");
    pane.pty().signal(Signal::SIGUSR1, false).unwrap();
    pane.wait_output("got-usr1");
    pane.pty().signal(Signal::SIGTERM, true).unwrap();
    assert_eq!(pane.wait_exit(), Some(128 + 15));
    let error = pane.pty().signal(Signal::SIGTERM, false).unwrap_err();
    assert_eq!(error.raw_os_error(), Some(nix::libc::ESRCH));
    pane.pty().close(Signal::SIGTERM);
    assert!(pane.pty().resize(10, 10).is_err());
}

#[test]
fn dropping_the_pty_hangs_up() {
    let _serial = SERIAL.lock();
    let mut pane = Pane::start(&["sleep", "1000"]);
    drop(pane.pty.take());
    assert_eq!(pane.wait_exit(), Some(128 + 1));
}

#[test]
fn spawn_failures_are_synchronous_and_leak_nothing() {
    let _serial = SERIAL.lock();
    let baseline = pty_fd_count();
    let cases: [(SpawnSpec, &str); 5] = [
        (
            spec(&["/nonexistent/prog"]),
            "failed to spawn \"/nonexistent/prog\": not found",
        ),
        (
            spec(&["no-such-program-signaltty"]),
            "failed to spawn \"no-such-program-signaltty\": not found",
        ),
        (
            spec(&["/etc/passwd"]),
            "failed to spawn \"/etc/passwd\": permission denied",
        ),
        (
            SpawnSpec {
                cwd: PathBuf::from("/nonexistent/dir"),
                ..spec(&["sh"])
            },
            "failed to spawn \"sh\": no such directory /nonexistent/dir",
        ),
        (spec(&[]), "failed to spawn \"\": empty argv"),
    ];
    for round in 0..4 {
        for (spec, message) in &cases {
            let error = Pane::spawn(spec)
                .err()
                .unwrap_or_else(|| panic!("{spec:?} spawned"));
            if round == 0 {
                assert_eq!(error.to_string(), *message);
            }
        }
    }
    assert_fds_back_to(baseline);
}

#[test]
fn fifty_spawn_exit_cycles_leave_no_zombie_and_no_descriptor() {
    let _serial = SERIAL.lock();
    let baseline = pty_fd_count();
    let mut pids = Vec::new();
    for _ in 0..50 {
        let mut pane = Pane::start(&["true"]);
        assert_eq!(pane.wait_finished(), Some(0));
        pids.push(pane.pty().pid().cast_signed());
    }
    for pid in pids {
        assert_not_our_zombie(pid);
    }
    assert_fds_back_to(baseline);
}

#[test]
fn the_last_output_before_exit_is_never_lost() {
    let _serial = SERIAL.lock();
    let mut pane = Pane::start(&["sh", "-c", "head -c 1000000 /dev/zero | tr '\\0' x; exit 0"]);
    assert_eq!(pane.wait_finished(), Some(0));
    let at_end = pane.bytes_at_end.unwrap();
    assert!(
        at_end >= 1_000_000,
        "only {at_end} bytes before output_ended"
    );
    assert_eq!(
        pane.output.iter().filter(|&&b| b == b'x').count(),
        1_000_000
    );
    assert_eq!(pane.order, ["output", "ended", "exited"]);
}

/// A sink that blocks in `output` until the test lets it go, as a Pane whose
/// consumer lags would.
struct GatedSink {
    events: mpsc::Sender<Event>,
    gate: mpsc::Receiver<()>,
}

impl PtySink for GatedSink {
    fn output(&mut self, chunk: Vec<u8>) {
        let _ = self.events.send(Event::Output(chunk));
        // Blocks until the test sends, or returns at once once it drops the gate.
        let _ = self.gate.recv();
    }
    fn output_ended(&mut self) {
        let _ = self.events.send(Event::Ended);
    }
    fn exited(&mut self, code: Option<i32>) {
        let _ = self.events.send(Event::Exited(code));
    }
}

#[test]
fn close_hangs_up_even_while_the_sink_blocks() {
    let _serial = SERIAL.lock();
    let (events_tx, events) = mpsc::channel();
    let (gate_tx, gate) = mpsc::channel();
    let sink = GatedSink {
        events: events_tx,
        gate,
    };
    let pty = spawn(
        &spec(&["sh", "-c", "while :; do echo flood; done"]),
        Box::new(sink),
    )
    .unwrap();
    let mut pane = Pane {
        pty: Some(pty),
        events,
        output: Vec::new(),
        order: Vec::new(),
        bytes_at_end: None,
        exited: None,
    };
    pane.wait_until("the first chunk", WAIT, |p| !p.output.is_empty());
    // The reader is now stuck in `output`. SIGCONT and a long grace leave the
    // hangup as the only thing that can end the shell.
    let pid = pane.pty().pid().cast_signed();
    pane.pty().close_with_grace(Signal::SIGCONT, WAIT);
    assert!(
        wait_dead(pid, Duration::from_secs(2)),
        "the hangup did not reach the shell"
    );
    drop(gate_tx);
    assert_eq!(pane.wait_exit(), Some(128 + 1));
    assert!(pane.bytes_at_end.is_none());
}

#[test]
fn pty_is_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Pty>();
}

#[test]
fn stat_lines_parse_around_odd_command_names() {
    let line = "4242 (a) b (c)) S 1 4240 4239 34817 4240 4194560 0 0";
    let stat = parse_stat(line).unwrap();
    assert_eq!(
        stat,
        reap::Stat {
            pid: 4242,
            state: 'S',
            ppid: 1,
            pgrp: 4240,
            session: 4239,
            tty_nr: 34817,
            tpgid: 4240,
        }
    );
    assert_eq!(parse_stat("garbage"), None);
}

#[test]
fn exit_codes_follow_spec_section_9() {
    use nix::sys::signal::Signal;
    use nix::sys::wait::WaitStatus;
    let pid = Pid::from_raw(4242);
    assert_eq!(reap::exit_code(WaitStatus::Exited(pid, 7)), Some(7));
    assert_eq!(
        reap::exit_code(WaitStatus::Signaled(pid, Signal::SIGKILL, false)),
        Some(137)
    );
    // Killed by SIGSEGV with a core dump.
    assert_eq!(
        reap::exit_code(WaitStatus::Signaled(pid, Signal::SIGSEGV, true)),
        Some(139)
    );
    // Not an end: the wait goes on.
    assert_eq!(
        reap::exit_code(WaitStatus::Stopped(pid, Signal::SIGSTOP)),
        None
    );
}

/// Runs `check` with panes spawned as on a kernel without pidfds: a waiter thread
/// reaps the child and wakes the reader through a pipe.
fn without_pidfd(check: impl FnOnce()) {
    super::reap::WITHOUT_PIDFD.set(true);
    check();
    super::reap::WITHOUT_PIDFD.set(false);
}

#[test]
fn without_pidfds_a_waiter_thread_reaps_and_reports_the_exit() {
    let _serial = SERIAL.lock();
    without_pidfd(|| {
        let baseline = pty_fd_count();
        let mut pane = Pane::start(&["sh", "-c", "printf hello; exit 7"]);
        assert_eq!(pane.wait_finished(), Some(7));
        assert!(pane.text().contains("hello"), "{:?}", pane.text());
        assert_eq!(pane.order, ["output", "ended", "exited"]);
        let pid = pane.pty().pid().cast_signed();
        drop(pane);
        assert_not_our_zombie(pid);
        assert_fds_back_to(baseline);

        let script = "trap '' HUP; sleep 1000 & echo bg=$!; echo bye; exit 3";
        let mut pane = Pane::start(&["sh", "-c", script]);
        assert_eq!(pane.wait_exit(), Some(3));
        close_kills_the_background_job(&pane);
    });
}

#[test]
fn a_pane_needs_no_waiter_thread_where_pidfds_exist() {
    let _serial = SERIAL.lock();
    let mut pane = Pane::start(&["sh", "-c", "exec sleep 1000"]);
    let pid = pane.pty().pid();
    let names: Vec<String> = fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .map(|name| name.trim().to_owned())
        .collect();
    assert!(
        !names.iter().any(|name| name.starts_with("pty-exit")),
        "a waiter thread runs: {names:?}"
    );
    assert!(!is_dead(pid.cast_signed()), "the child is not running");
    pane.pty().signal(Signal::SIGKILL, false).unwrap();
    assert_eq!(pane.wait_exit(), Some(137));
}

/// A non-blocking pipe holding `bytes`, for `read_more`.
fn pipe_with(bytes: usize) -> (OwnedFd, OwnedFd) {
    let (rx, tx) = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK).expect("a pipe");
    // A pipe holds 64 KiB by default; make room for more.
    nix::fcntl::fcntl(&tx, nix::fcntl::FcntlArg::F_SETPIPE_SZ(1 << 20)).expect("a larger pipe");
    let data = vec![b'x'; bytes];
    let mut written = 0;
    while written < bytes {
        written += nix::unistd::write(&tx, &data[written..]).expect("write to the pipe");
    }
    (rx, tx)
}

#[test]
fn a_chunk_takes_in_what_is_already_waiting_up_to_the_maximum() {
    let (rx, _tx) = pipe_with(MAX_CHUNK_BYTES + 5000);
    let mut buf = b"first".to_vec();
    reader::read_more(&rx, &mut buf);
    assert_eq!(buf.len(), MAX_CHUNK_BYTES);
    assert!(buf.starts_with(b"firstxx"));

    // Less than the maximum waiting: all of it, then it stops at EAGAIN.
    let (rx, _tx) = pipe_with(10_000);
    let mut buf = Vec::new();
    reader::read_more(&rx, &mut buf);
    assert_eq!(buf.len(), 10_000);

    // Nothing waiting: the chunk stays as it was.
    let (rx, _tx) = pipe_with(0);
    let mut buf = b"only".to_vec();
    reader::read_more(&rx, &mut buf);
    assert_eq!(buf, b"only");
}

/// A child left running on its PTY as an in-place upgrade leaves it for the new
/// binary: started on a master this process keeps, with nobody watching it.
// The test's adopted pane reaps it by pid (`reap::reap`), as the server does.
#[allow(clippy::zombie_processes)]
fn orphaned_child(argv: &[&str]) -> (OwnedFd, u32) {
    let _one_at_a_time = SPAWN_LOCK.lock();
    let pair = open::open_pty(24, 80).expect("a pty");
    let child = open::spawn_child(&spec(argv), &pair.slave).expect("the child starts");
    (pair.master, child.id())
}

/// Adopts `master` and `pid` into a pane under test.
fn adopted(master: OwnedFd, pid: u32) -> Pane {
    let (tx, events) = mpsc::channel();
    let pty = adopt(master, pid, Box::new(ChannelSink(tx))).expect("adopted");
    assert_eq!(pty.pid(), pid);
    Pane::watching(pty, events)
}

/// What the child printed before it was adopted is still in the kernel's
/// buffer; what it prints after, the input it is given and its exit all reach
/// the new pane.
fn adopted_child_is_read_written_and_reaped() {
    let (master, pid) = orphaned_child(&[
        "sh",
        "-c",
        "stty -echo; echo before; read x; echo got:$x; exit 5",
    ]);
    let mut pane = adopted(master, pid);
    pane.wait_output("before");
    let wrote = pending(pane.pty().write(b"hello\n".to_vec(), Instant::now() + WAIT));
    assert_eq!(wrote.wait(WAIT).0.ok(), Some(6));
    pane.wait_output("got:hello");
    assert_eq!(pane.wait_finished(), Some(5));
    assert!(
        nix::sys::wait::waitpid(Pid::from_raw(pid.cast_signed()), None).is_err(),
        "the adopted child is reaped: no zombie is left"
    );
}

#[test]
fn an_adopted_child_is_read_written_and_reaped() {
    let _serial = SERIAL.lock();
    adopted_child_is_read_written_and_reaped();
}

#[test]
fn without_pidfds_an_adopted_child_is_reaped_by_the_waiter() {
    let _serial = SERIAL.lock();
    without_pidfd(adopted_child_is_read_written_and_reaped);
}

#[test]
fn a_pid_that_is_not_a_child_is_not_adopted() {
    let _serial = SERIAL.lock();
    let pair = open::open_pty(24, 80).expect("a pty");
    let (tx, _events) = mpsc::channel();
    // pid 1 is never a child of a test.
    let refused = adopt(pair.master, 1, Box::new(ChannelSink(tx)));
    match refused {
        Ok(_) => panic!("pid 1 was adopted"),
        Err(err) => assert!(err.to_string().contains("not a child"), "{err}"),
    }
}

/// A released PTY's child keeps running and printing; adopted again (as the
/// next binary does after the exec), its output continues where the first
/// reader stopped: no line is lost or doubled, and the child is reaped once.
fn released_child_continues_when_adopted() {
    let mut first = Pane::start(&[
        "sh",
        "-c",
        "stty -echo; i=0; while [ $i -lt 300 ]; do echo n$i; i=$((i+1)); sleep 0.002; done; exit 4",
    ]);
    first.wait_output("n20\r\n");
    let pid = first.pty().pid();
    let master = first.pty().release().expect("released");
    first.wait_until("released", WAIT, |p| p.order.last() == Some(&"released"));
    assert!(first.exited.is_none() && first.bytes_at_end.is_none());
    assert!(
        first.pty().release().is_err(),
        "a second release is refused"
    );
    // Nothing follows `released`, and dropping the handle signals nobody.
    drop(first.pty.take());
    assert!(first.events.try_recv().is_err());
    assert!(
        kill(Pid::from_raw(pid.cast_signed()), None).is_ok(),
        "the child lives"
    );
    let mut second = adopted(master, pid);
    assert_eq!(second.wait_finished(), Some(4));
    // The bytes of both readers, back to back: the first may have stopped
    // inside a line.
    let mut bytes = first.output.clone();
    bytes.extend_from_slice(&second.output);
    let all = String::from_utf8_lossy(&bytes).replace('\r', "");
    let expected: Vec<String> = (0..300).map(|i| format!("n{i}")).collect();
    let numbers: Vec<String> = all.lines().map(str::to_owned).collect();
    assert_eq!(numbers, expected);
    assert_not_our_zombie(pid.cast_signed());
}

#[test]
fn a_released_child_continues_when_adopted() {
    let _serial = SERIAL.lock();
    released_child_continues_when_adopted();
}

#[test]
fn without_pidfds_a_released_child_continues_when_adopted() {
    let _serial = SERIAL.lock();
    without_pidfd(released_child_continues_when_adopted);
}

#[test]
fn a_program_is_located_as_the_exec_would_find_it() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let tool = bin.join("tool");
    std::fs::write(&tool, "#!/bin/sh\n").unwrap();
    let plain = bin.join("plain");
    std::fs::write(&plain, "data\n").unwrap();
    std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let spec = |argv: &str| SpawnSpec {
        argv: vec![argv.to_owned()],
        cwd: dir.path().to_path_buf(),
        env: vec![("PATH".into(), bin.to_string_lossy().into_owned())],
        rows: 24,
        cols: 80,
    };
    assert!(locate(&spec("tool")).is_ok(), "found on the child's PATH");
    assert!(
        locate(&spec("./bin/tool")).is_ok(),
        "a path relative to the cwd"
    );
    let missing = locate(&spec("nope")).unwrap_err();
    assert_eq!(missing.to_string(), "failed to spawn \"nope\": not found");
    let denied = locate(&spec("plain")).unwrap_err();
    assert_eq!(
        denied.to_string(),
        "failed to spawn \"plain\": permission denied"
    );
    assert!(locate(&spec("./bin/plain")).is_err());
}
