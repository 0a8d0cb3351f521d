//! The PTY loop's side of a pane: `PaneSink` turns the loop's calls into
//! messages for the Pane actor and keeps at most `OUTPUT_WINDOW` chunks on
//! their way, so a flood is paced by the pane: past the window it answers
//! `Flow::Pause`, and the credit that brings the count back under it resumes
//! the reading. It never blocks the loop.

use super::{ChildExited, Output, OutputEnded, Pane, Released};
use crate::os::pty::{Flow, PtySink, Resume};
use actix::prelude::*;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Chunks a pane may have on their way at once: enough to overlap the next
/// read with the pane's parsing, few enough (a few hundred KiB at most) to keep
/// the pace of a flood set by the pane.
pub const OUTPUT_WINDOW: usize = 4;

/// The chunks a pane has not finished with, and how to resume its reading.
#[derive(Default)]
struct Pace {
    in_flight: AtomicUsize,
    resume: OnceLock<Resume>,
}

/// One chunk's place in the window, given back when it drops: with the chunk
/// once every viewer took it, or with an `Output` message a stopped pane
/// never handled.
pub struct Credit(Back);

/// Where a credit goes back to.
enum Back {
    Window(Arc<Pace>),
    /// A test's chunk: the receiver is told.
    #[cfg(test)]
    Probe(std::sync::mpsc::SyncSender<()>),
}

#[cfg(test)]
impl Credit {
    /// A credit outside any window, for a test that plays the PTY loop: the
    /// receiver gets a message when it comes back.
    pub fn probe() -> (Credit, std::sync::mpsc::Receiver<()>) {
        let (back, returned) = std::sync::mpsc::sync_channel(1);
        (Credit(Back::Probe(back)), returned)
    }
}

impl Drop for Credit {
    fn drop(&mut self) {
        match &self.0 {
            // The chunk that filled the window paused the reading: the first
            // one back resumes it.
            Back::Window(pace) => {
                if pace.in_flight.fetch_sub(1, Ordering::SeqCst) == OUTPUT_WINDOW
                    && let Some(resume) = pace.resume.get()
                {
                    resume.resume();
                }
            },
            #[cfg(test)]
            Back::Probe(back) => drop(back.try_send(())),
        }
    }
}

/// What the sink could not send yet: the pane's address comes once the actor
/// has started (the PTY is spawned first, so a failed spawn creates no actor).
enum Early {
    Output(Output),
    Ended,
    Exited(Option<i32>),
    Released,
}

impl Early {
    fn deliver(self, addr: &Addr<Pane>) {
        match self {
            Early::Output(output) => addr.do_send(output),
            Early::Ended => addr.do_send(OutputEnded),
            Early::Exited(code) => addr.do_send(ChildExited { code }),
            Early::Released => addr.do_send(Released),
        }
    }
}

/// Where the sink and the pane's address meet.
#[derive(Default)]
struct Link {
    addr: Option<Addr<Pane>>,
    early: Vec<Early>,
    /// The sink paused the reading because the address was missing.
    waiting: bool,
}

/// Feeds a pane actor from the PTY loop.
pub struct PaneSink {
    /// The address once known, without the link's lock.
    addr: Option<Addr<Pane>>,
    link: Arc<Mutex<Link>>,
    pace: Arc<Pace>,
}

/// Gives a `PaneSink` its pane's address, and hands over what came before it.
pub struct PaneAddr {
    link: Arc<Mutex<Link>>,
    pace: Arc<Pace>,
}

impl PaneAddr {
    /// Sends the sink's early output and events to `addr`, in order, and lets
    /// the reading go on if it waited for the address.
    pub fn send(self, addr: Addr<Pane>) {
        let waiting = {
            let mut link = self.link.lock();
            for early in link.early.drain(..) {
                early.deliver(&addr);
            }
            link.addr = Some(addr);
            std::mem::take(&mut link.waiting)
        };
        if waiting && let Some(resume) = self.pace.resume.get() {
            resume.resume();
        }
    }
}

impl PaneSink {
    /// A sink and the way its pane address will come.
    pub fn new() -> (PaneSink, PaneAddr) {
        let link = Arc::new(Mutex::new(Link::default()));
        let pace = Arc::new(Pace::default());
        let addr = PaneAddr {
            link: link.clone(),
            pace: pace.clone(),
        };
        let sink = PaneSink {
            addr: None,
            link,
            pace,
        };
        (sink, addr)
    }

    /// [`PaneSink::new`], boxed for the PTY layer (an upgrade's adoption).
    pub fn boxed() -> (Box<dyn PtySink>, PaneAddr) {
        let (sink, addr) = PaneSink::new();
        (Box::new(sink), addr)
    }

    /// Sends `early` to the pane, or keeps it until the address comes. Returns
    /// false when it was kept.
    fn send(&mut self, early: Early) -> bool {
        if self.addr.is_none() {
            let mut link = self.link.lock();
            match &link.addr {
                Some(addr) => self.addr = Some(addr.clone()),
                None => {
                    link.early.push(early);
                    return false;
                },
            }
        }
        if let Some(addr) = &self.addr {
            early.deliver(addr);
        }
        true
    }
}

impl PtySink for PaneSink {
    fn bind(&mut self, resume: Resume) {
        let _ = self.pace.resume.set(resume);
    }

    fn output(&mut self, chunk: Vec<u8>) -> Flow {
        let in_flight = self.pace.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        let credit = Credit(Back::Window(self.pace.clone()));
        if !self.send(Early::Output(Output { chunk, credit })) {
            // Until the pane is there, one chunk waits and the reading with it.
            let mut link = self.link.lock();
            if link.addr.is_none() {
                link.waiting = true;
                return Flow::Pause;
            }
        }
        if in_flight >= OUTPUT_WINDOW {
            Flow::Pause
        } else {
            Flow::Read
        }
    }

    fn output_ended(&mut self) {
        self.send(Early::Ended);
    }

    fn exited(&mut self, code: Option<i32>) {
        self.send(Early::Exited(code));
    }

    fn released(&mut self) {
        // Behind every chunk sent: the pane has them all when this arrives.
        self.send(Early::Released);
    }
}
