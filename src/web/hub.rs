//! The web view's one picture of the world, shared by every open page. A
//! thread owns the board's model (the same one the TUI draws from), fed by
//! one subscription per server (the board's feed: replay from the last seq
//! after a reconnect, a fresh state read after it); after each batch of news
//! it turns the model into items and sends what changed as a numbered patch
//! to every live channel. The last patches are kept, so a page that lost its
//! channel for a while resumes from its version and misses nothing; one
//! that was away longer than they cover (or talks to another run of this
//! process) gets the whole world again.

use super::items::{self, Items, Maker};
use crate::board::Input;
use crate::board::feed::{self, FeedNews};
use crate::board::model::Board;
use parking_lot::Mutex;
use serde_json::{Value, json};
use signaltty_model::client::Target;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, channel};

/// Patches kept for pages that reconnect.
const KEPT: usize = 4096;
/// Messages a page's channel may hold before it is dropped (the page
/// reconnects and resumes from its version).
pub const BACKLOG: usize = 1024;

/// A page's share of the live channel.
pub type Sink = tokio::sync::mpsc::Sender<Arc<str>>;

struct State {
    version: u64,
    items: Items,
    kept: VecDeque<(u64, Arc<str>)>,
    sinks: Vec<Sink>,
}

/// The shared picture and its live channels.
pub struct Hub {
    /// Which run of this process the versions belong to.
    pub epoch: String,
    state: Mutex<State>,
}

impl Hub {
    pub fn new(epoch: String) -> Hub {
        Hub {
            epoch,
            state: Mutex::new(State {
                version: 0,
                items: Items::new(),
                kept: VecDeque::new(),
                sinks: Vec::new(),
            }),
        }
    }

    /// A page joins: what it must be sent first (the patches after its
    /// version when they are all kept and it is this run's, else the
    /// world), and from then on every patch through `sink`. Under one lock,
    /// so no patch falls between the two.
    pub fn join(&self, epoch: Option<&str>, version: Option<u64>, sink: Sink) -> Vec<Arc<str>> {
        let mut st = self.state.lock();
        let first = match (epoch, version) {
            (Some(e), Some(v)) if e == self.epoch && v <= st.version => {
                let oldest_kept = st.kept.front().map_or(st.version + 1, |(n, _)| *n);
                if v + 1 >= oldest_kept {
                    st.kept
                        .iter()
                        .filter(|(n, _)| *n > v)
                        .map(|(_, m)| m.clone())
                        .collect()
                } else {
                    vec![self.world(&st)]
                }
            },
            _ => vec![self.world(&st)],
        };
        st.sinks.push(sink);
        first
    }

    fn world(&self, st: &State) -> Arc<str> {
        let items: Vec<&Value> = st.items.values().map(|v| &**v).collect();
        let msg = json!({"t": "world", "epoch": self.epoch, "v": st.version, "items": items});
        Arc::from(msg.to_string())
    }

    /// Replaces the picture with `new`, sending the difference, if any.
    fn publish(&self, new: Items) {
        let mut st = self.state.lock();
        let (set, del) = items::diff(&st.items, &new);
        if set.is_empty() && del.is_empty() {
            return;
        }
        st.version += 1;
        let v = st.version;
        let msg: Arc<str> =
            Arc::from(json!({"t": "patch", "v": v, "set": set, "del": del}).to_string());
        st.items = new;
        st.kept.push_back((v, msg.clone()));
        while st.kept.len() > KEPT {
            st.kept.pop_front();
        }
        // A page that cannot keep up is let go: it reconnects and resumes.
        st.sinks.retain(|s| s.try_send(msg.clone()).is_ok());
    }

    /// Starts the feeds of `targets` (in fleet order) and the thread that
    /// keeps the picture; returns at once.
    pub fn start(self: &Arc<Hub>, targets: &[Target]) {
        let (tx, rx) = channel();
        let named = targets
            .iter()
            .map(|t| (t.name().to_owned(), t.to_string()))
            .collect();
        let mut seqs = Vec::new();
        for (host, target) in targets.iter().enumerate() {
            let last_seq = Arc::new(AtomicU64::new(0));
            feed::spawn(host, target.clone(), tx.clone(), last_seq.clone());
            seqs.push(last_seq);
        }
        drop(tx);
        let hub = self.clone();
        std::thread::spawn(move || hub.run(Board::fleet(named), seqs, rx));
    }

    fn run(&self, mut board: Board, seqs: Vec<Arc<AtomicU64>>, rx: Receiver<Input>) {
        let mut maker = Maker::default();
        self.publish(maker.of(&board));
        while let Ok(first) = rx.recv() {
            apply(&mut board, first);
            for more in rx.try_iter() {
                apply(&mut board, more);
            }
            for (host, seq) in seqs.iter().enumerate() {
                seq.store(board.seq_of(host), Ordering::Relaxed);
            }
            self.publish(maker.of(&board));
        }
    }
}

/// One piece of a feed's news, applied as the board applies it.
fn apply(board: &mut Board, input: Input) {
    let Input::Feed(host, news) = input else {
        return;
    };
    match news {
        FeedNews::World {
            world,
            tasks,
            conflicts,
            seq,
            events,
            ..
        } => {
            board.load_from(host, world, seq);
            board.load_tasks_from(host, tasks);
            board.load_conflicts_from(host, conflicts);
            for e in &events {
                board.apply_from(host, e);
            }
        },
        FeedNews::Event(e, _) => {
            board.apply_from(host, &e);
        },
        FeedNews::Lost(why) => board.lose(host, why),
    }
}

#[cfg(test)]
mod tests;
