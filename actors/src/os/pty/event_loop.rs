//! The PTY loop: one thread, `pty-loop`, serves every pane of the server
//! (docs/terminal.md#one-loop-for-every-pane). It waits in `epoll` on each
//! pane's master (readable; writable while a write waits for room) and its
//! pidfd, and on an eventfd that wakes it for commands from other threads.
//!
//! ```text
//!   Pty (any thread) ── Command ──▶ queue ─ eventfd ─▶ ┌ pty-loop ──────────────────────────┐
//!      Add · Write · Close · Release · Resume          │ commands, then each ready event:   │
//!                                                      │  master IN  → read ≤ 64 KiB → sink │
//!   epoll: masters, pidfds (exit pipes), eventfd ────▶ │  master OUT → pump the writes      │
//!                                                      │  pidfd      → reap → drain → exit  │
//!                                                      │ then the timers: write deadlines,  │
//!                                                      │ the exit's quiet/drain bounds      │
//!                                                      └────────────────────────────────────┘
//! ```
//!
//! Epoll is level-triggered and a pane gets one read (one chunk) per turn, so a
//! flooding pane cannot starve the others. A sink that answers `Flow::Pause`
//! takes its master off the watch until its `Resume` comes back. Nothing on the
//! loop blocks: the sinks only send messages, the reap follows a pidfd that is
//! already readable, and killing what is left of a closed session (a scan of
//! `/proc`) stays on the reaper thread (reap.rs).

use super::reader::{self, Stop};
use super::writer::{Job, Want, Writes};
use super::{
    EXIT_DRAIN_MAX, EXIT_QUIET, Flow, PtySink, Resume, Shared, WRITE_RETRY, WriteError,
    WriteErrorKind, reap,
};
use nix::errno::Errno;
use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags, EpollTimeout};
use nix::sys::eventfd::{EfdFlags, EventFd};
use parking_lot::Mutex;
use std::collections::{BTreeSet, HashMap};
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

/// The eventfd's key in the epoll set. Panes' keys are even, and the low bit
/// tells the exit descriptor (1) from the master (0).
const WAKER: u64 = u64::MAX;
const EXIT_BIT: u64 = 1;

/// What another thread asks of the loop.
pub(super) enum Command {
    /// Watch a new pane (its descriptors are in the epoll set already).
    Add(Box<Entry>),
    /// Queue a write on a pane.
    Write(u64, Job),
    /// The pane was closed: answer its writes, stop reading, drop the master.
    Close(u64),
    /// The pane was released: stop everything, tell the sink, then answer.
    Release(u64, SyncSender<()>),
    /// The sink can take output again.
    Resume(u64),
}

impl Command {
    /// Answers a command the loop will never see.
    fn abandon(self) {
        if let Command::Write(_, job) = self {
            let why = WriteErrorKind::Io("the PTY loop has stopped".into());
            let _ = job.reply.send(Err(WriteError::new(why, 0)));
        }
    }
}

/// The way to the loop, for every `Pty`.
#[derive(Clone)]
pub(super) struct Handle(Arc<Inner>);

struct Inner {
    epoll: Epoll,
    waker: EventFd,
    commands: Mutex<Vec<Command>>,
    next_token: AtomicU64,
    alive: AtomicBool,
}

static LOOP: OnceLock<Result<Handle, String>> = OnceLock::new();

/// The loop, started the first time a pane needs it.
pub(super) fn handle() -> io::Result<Handle> {
    match LOOP.get_or_init(start) {
        Ok(handle) if handle.0.alive.load(Ordering::SeqCst) => Ok(handle.clone()),
        Ok(_) => Err(io::Error::other("the PTY loop has stopped")),
        Err(e) => Err(io::Error::other(e.clone())),
    }
}

fn start() -> Result<Handle, String> {
    let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC)
        .map_err(|e| format!("cannot create the PTY loop's epoll: {e}"))?;
    let waker = EventFd::from_flags(EfdFlags::EFD_CLOEXEC | EfdFlags::EFD_NONBLOCK)
        .map_err(|e| format!("cannot create the PTY loop's eventfd: {e}"))?;
    epoll
        .add(waker.as_fd(), EpollEvent::new(EpollFlags::EPOLLIN, WAKER))
        .map_err(|e| format!("cannot watch the PTY loop's eventfd: {e}"))?;
    let handle = Handle(Arc::new(Inner {
        epoll,
        waker,
        commands: Mutex::new(Vec::new()),
        next_token: AtomicU64::new(0),
        alive: AtomicBool::new(true),
    }));
    let mine = handle.clone();
    thread::Builder::new()
        .name("pty-loop".into())
        .spawn(move || Loop::new(mine).run())
        .map_err(|e| format!("cannot start the PTY loop thread: {e}"))?;
    Ok(handle)
}

impl Handle {
    /// A key for a new pane.
    pub(super) fn next_token(&self) -> u64 {
        self.0.next_token.fetch_add(2, Ordering::Relaxed)
    }

    /// Hands a command to the loop; never blocks for longer than the queue's lock.
    pub(super) fn post(&self, command: Command) {
        let inner = &self.0;
        if !inner.alive.load(Ordering::SeqCst) {
            command.abandon();
            return;
        }
        let first = {
            let mut queue = inner.commands.lock();
            queue.push(command);
            queue.len() == 1
        };
        if first && let Err(e) = inner.waker.write(1) {
            log::error!("pty loop: cannot wake the loop: {e}");
        }
        if !inner.alive.load(Ordering::SeqCst) {
            // The loop stopped between the check and the push: nobody else will.
            abandon_queue(inner);
        }
    }

    /// Puts a new pane's master and exit descriptor in the epoll set and hands
    /// the pane to the loop. On failure nothing stays watched and the entry
    /// (with its sink and descriptors) is dropped.
    pub(super) fn watch(&self, entry: Entry) -> io::Result<()> {
        let epoll = &self.0.epoll;
        let token = entry.token;
        let Some(master) = entry.master.clone() else {
            return Err(io::Error::other("no master to watch"));
        };
        epoll.add(master.as_fd(), EpollEvent::new(EpollFlags::EPOLLIN, token))?;
        if let Some(exit) = &entry.exit_fd {
            let watched = EpollEvent::new(EpollFlags::EPOLLIN, token | EXIT_BIT);
            if let Err(e) = epoll.add(exit.as_fd(), watched) {
                let _ = epoll.delete(master.as_fd());
                return Err(e.into());
            }
        }
        self.post(Command::Add(Box::new(entry)));
        Ok(())
    }
}

fn abandon_queue(inner: &Inner) {
    let commands = std::mem::take(&mut *inner.commands.lock());
    for command in commands {
        command.abandon();
    }
}

/// Where a pane's exit stands, as far as its sink knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exit {
    /// Not reaped yet.
    Running,
    /// Reaped; delivered once the master has been quiet until `quiet_at`, or at
    /// `until` at the latest.
    Draining { until: Instant, quiet_at: Instant },
    /// `exited` was called.
    Delivered,
}

/// One pane as the loop sees it.
pub(super) struct Entry {
    token: u64,
    shared: Arc<Shared>,
    sink: Box<dyn PtySink>,
    /// The loop's own reference to the master, until close or release.
    master: Option<Arc<OwnedFd>>,
    /// What the master is registered for (empty: not in the epoll set).
    interest: EpollFlags,
    /// Reading until EOF or close.
    reading: bool,
    /// The sink asked for a pause.
    paused: bool,
    /// The pidfd (or the waiter's pipe), until the exit fires.
    exit_fd: Option<OwnedFd>,
    /// The loop has yet to reap the child (pidfd mode).
    reaps: bool,
    exit: Exit,
    writes: Writes,
    /// The writes wait for room in the master: the next try, whatever
    /// EPOLLOUT says.
    blocked: Option<Instant>,
}

impl Entry {
    /// A pane to watch: `exit_fd` is the child's pidfd (`reaps`: the loop reaps
    /// it) or the read end of the waiter's pipe.
    pub(super) fn new(
        token: u64,
        shared: Arc<Shared>,
        sink: Box<dyn PtySink>,
        master: Arc<OwnedFd>,
        exit_fd: OwnedFd,
        reaps: bool,
    ) -> Entry {
        Entry {
            token,
            shared,
            sink,
            master: Some(master),
            interest: EpollFlags::EPOLLIN,
            reading: true,
            paused: false,
            exit_fd: Some(exit_fd),
            reaps,
            exit: Exit::Running,
            writes: Writes::default(),
            blocked: None,
        }
    }

    fn deliver_exit(&mut self) {
        if self.exit != Exit::Delivered {
            self.exit = Exit::Delivered;
            let code = *self.shared.exit_code.lock();
            self.sink.exited(code);
        }
    }

    /// Nothing is left to watch: the exit was delivered and the reading is over.
    fn is_done(&self) -> bool {
        self.exit == Exit::Delivered && !self.reading && self.exit_fd.is_none()
    }

    /// The next time the timers need this pane.
    fn next_timer(&self) -> Option<Instant> {
        let exit = match self.exit {
            Exit::Draining { until, .. } if self.paused => Some(until),
            Exit::Draining { until, quiet_at } => Some(until.min(quiet_at)),
            _ => None,
        };
        [exit, self.writes.next_deadline(), self.blocked]
            .into_iter()
            .flatten()
            .min()
    }

    fn pump_writes(&mut self, now: Instant) {
        let want = self.writes.pump(self.master.as_deref(), now);
        self.blocked = (want == Want::Writable).then(|| now + WRITE_RETRY);
    }
}

struct Loop {
    handle: Handle,
    entries: HashMap<u64, Entry>,
    /// Panes with a timer: a write waiting, or an exit draining.
    timed: BTreeSet<u64>,
    /// Where reads land before they are copied out at their size.
    scratch: Vec<u8>,
}

/// Marks the loop stopped if its thread ends (it only ends by a panic), so
/// later calls fail instead of waiting for it.
struct Stopped(Handle);

impl Drop for Stopped {
    fn drop(&mut self) {
        log::error!("pty loop: the loop thread stopped; no pane is read any more");
        self.0.0.alive.store(false, Ordering::SeqCst);
        abandon_queue(&self.0.0);
    }
}

impl Loop {
    fn new(handle: Handle) -> Loop {
        Loop {
            handle,
            entries: HashMap::new(),
            timed: BTreeSet::new(),
            scratch: Vec::with_capacity(super::MAX_CHUNK_BYTES),
        }
    }

    fn run(mut self) {
        let _stopped = Stopped(self.handle.clone());
        let mut events = vec![EpollEvent::empty(); 256];
        loop {
            let timeout = self.timeout();
            let ready = match self.handle.0.epoll.wait(&mut events, timeout) {
                Ok(n) => n,
                Err(Errno::EINTR) => 0,
                Err(e) => {
                    log::error!("pty loop: epoll_wait failed: {e}");
                    thread::sleep(Duration::from_millis(10));
                    0
                },
            };
            let ready = &events[..ready];
            // The eventfd is reset before the queue is taken, so a command posted
            // after the take always wakes the next turn.
            if ready.iter().any(|e| e.data() == WAKER) {
                let _ = self.handle.0.waker.read();
            }
            let commands = std::mem::take(&mut *self.handle.0.commands.lock());
            for command in commands {
                self.command(command);
            }
            for event in ready.iter().filter(|e| e.data() != WAKER) {
                self.event(event.data(), event.events());
            }
            self.timers(Instant::now());
        }
    }

    /// How long epoll may wait: until the nearest timer.
    fn timeout(&self) -> EpollTimeout {
        let next = self
            .timed
            .iter()
            .filter_map(|token| self.entries.get(token)?.next_timer())
            .min();
        match next {
            Some(at) => super::poll_timeout(at.saturating_duration_since(Instant::now())),
            None => EpollTimeout::NONE,
        }
    }

    fn command(&mut self, command: Command) {
        let now = Instant::now();
        match command {
            Command::Add(entry) => {
                let mut entry = *entry;
                entry.sink.bind(Resume {
                    token: entry.token,
                    handle: self.handle.clone(),
                });
                self.settle(entry);
            },
            Command::Write(token, job) => match self.entries.remove(&token) {
                Some(mut entry) => {
                    entry.writes.push(job);
                    entry.pump_writes(now);
                    self.settle(entry);
                },
                None => {
                    let _ = job
                        .reply
                        .send(Err(WriteError::new(WriteErrorKind::Exited, 0)));
                },
            },
            Command::Close(token) => {
                if let Some(mut entry) = self.entries.remove(&token) {
                    entry.writes.cancel();
                    entry.reading = false;
                    self.unwatch_master(&mut entry);
                    entry.master = None;
                    // No output can follow: a draining exit goes out now.
                    if matches!(entry.exit, Exit::Draining { .. }) {
                        entry.deliver_exit();
                    }
                    self.settle(entry);
                }
            },
            Command::Release(token, done) => {
                if let Some(mut entry) = self.entries.remove(&token) {
                    entry.writes.cancel();
                    self.unwatch_master(&mut entry);
                    if let Some(exit) = entry.exit_fd.take() {
                        let _ = self.handle.0.epoll.delete(exit.as_fd());
                    }
                    self.timed.remove(&token);
                    entry.sink.released();
                }
                let _ = done.send(());
            },
            Command::Resume(token) => {
                if let Some(mut entry) = self.entries.remove(&token) {
                    entry.paused = false;
                    self.settle(entry);
                }
            },
        }
    }

    fn event(&mut self, data: u64, flags: EpollFlags) {
        let token = data & !EXIT_BIT;
        let Some(mut entry) = self.entries.remove(&token) else {
            return;
        };
        let now = Instant::now();
        if data & EXIT_BIT != 0 {
            self.exit_fired(&mut entry, now);
        } else {
            let trouble = EpollFlags::EPOLLHUP | EpollFlags::EPOLLERR;
            if !entry.writes.is_empty() && flags.intersects(EpollFlags::EPOLLOUT | trouble) {
                entry.pump_writes(now);
            }
            if entry.reading && !entry.paused {
                self.read(&mut entry, now);
            }
        }
        self.settle(entry);
    }

    /// One chunk from the master to the sink, and the end if the master is at it.
    fn read(&mut self, entry: &mut Entry, now: Instant) {
        if entry.shared.is_canceled() {
            // `close` is on its way; what the close causes is not an EOF to report.
            entry.reading = false;
            return;
        }
        let Some(master) = &entry.master else {
            return;
        };
        self.scratch.clear();
        let stop = reader::read_more(master, &mut self.scratch);
        if !self.scratch.is_empty() {
            if let Exit::Draining { quiet_at, .. } = &mut entry.exit {
                *quiet_at = now + EXIT_QUIET;
            }
            if entry.sink.output(self.scratch.as_slice().to_vec()) == Flow::Pause {
                entry.paused = true;
            }
        }
        if stop == Stop::End {
            entry.reading = false;
            if !entry.shared.is_canceled() {
                entry.sink.output_ended();
            }
        }
    }

    /// The pidfd turned readable (or the waiter closed its pipe): reap, then
    /// deliver the exit once the master is quiet.
    fn exit_fired(&mut self, entry: &mut Entry, now: Instant) {
        if let Some(exit) = entry.exit_fd.take() {
            let _ = self.handle.0.epoll.delete(exit.as_fd());
        }
        if std::mem::take(&mut entry.reaps) {
            reap::reap(&entry.shared);
        }
        if entry.exit == Exit::Running {
            if entry.reading && !entry.shared.is_canceled() {
                entry.exit = Exit::Draining {
                    until: now + EXIT_DRAIN_MAX,
                    quiet_at: now + EXIT_QUIET,
                };
            } else {
                entry.deliver_exit();
            }
        }
    }

    fn timers(&mut self, now: Instant) {
        let due: Vec<u64> = self
            .timed
            .iter()
            .copied()
            .filter(|token| {
                self.entries
                    .get(token)
                    .and_then(Entry::next_timer)
                    .is_some_and(|at| at <= now)
            })
            .collect();
        for token in due {
            let Some(mut entry) = self.entries.remove(&token) else {
                continue;
            };
            let retry = entry.blocked.is_some_and(|at| at <= now);
            if retry || entry.writes.next_deadline().is_some_and(|at| at <= now) {
                entry.pump_writes(now);
            }
            if let Exit::Draining { until, quiet_at } = entry.exit
                && (now >= until || (!entry.paused && now >= quiet_at))
            {
                entry.deliver_exit();
            }
            self.settle(entry);
        }
    }

    /// Takes the master off the epoll set.
    fn unwatch_master(&self, entry: &mut Entry) {
        if !entry.interest.is_empty()
            && let Some(master) = &entry.master
        {
            let _ = self.handle.0.epoll.delete(master.as_fd());
        }
        entry.interest = EpollFlags::empty();
    }

    /// Brings the master's registration in line with what the pane waits for,
    /// files its timers, and puts it back, or lets it go once it is done.
    fn settle(&mut self, mut entry: Entry) {
        let token = entry.token;
        if entry.is_done() {
            entry.writes.cancel();
            self.unwatch_master(&mut entry);
            self.timed.remove(&token);
            return;
        }
        let mut want = EpollFlags::empty();
        if entry.reading && !entry.paused {
            want |= EpollFlags::EPOLLIN;
        }
        if entry.blocked.is_some() {
            want |= EpollFlags::EPOLLOUT;
        }
        if want != entry.interest
            && let Some(master) = &entry.master
        {
            let epoll = &self.handle.0.epoll;
            let mut event = EpollEvent::new(want, token);
            let changed = if entry.interest.is_empty() {
                epoll.add(master.as_fd(), event)
            } else if want.is_empty() {
                epoll.delete(master.as_fd())
            } else {
                epoll.modify(master.as_fd(), &mut event)
            };
            match changed {
                Ok(()) => entry.interest = want,
                Err(e) => log::warn!(
                    "pty {}: cannot change what is watched: {e}",
                    entry.shared.pid
                ),
            }
        }
        if entry.next_timer().is_some() {
            self.timed.insert(token);
        } else {
            self.timed.remove(&token);
        }
        self.entries.insert(token, entry);
    }
}
