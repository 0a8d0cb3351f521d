//! A terminal's ring, read from another thread: the snapshot writer takes a
//! pane's tail (docs/persistence.md#screen-tails) from it directly instead of
//! asking the Pane actor, whose mailbox may hold a quarter megabyte of output
//! to parse first. The pane stays the ring's only writer and holds the lock for
//! one reconcile at a time; a reader holds it to compare a mark or copy at most
//! a tail's worth of lines, microseconds either way.
//!
//! ```text
//!   Pane (its arbiter) ── feed ─► Terminal ─ lock per reconcile ─┐
//!                                                                ▼
//!                                                 Arc<Mutex<RenderedRing>>
//!                                                                ▲
//!   snapshot writer (a blocking thread) ── TailSource::read ─────┘
//! ```

use super::ring::RenderedRing;
use parking_lot::Mutex;
use std::sync::{Arc, OnceLock};

/// Where a ring stood when it was read. Two reads with equal marks see the
/// same lines: every changed or new screen row takes a fresh seq (`head`),
/// every line into history counts (`pushed`), a clear or a restore counts
/// (`generation`), and a screen switch or a cut at the bottom shows in `alt`
/// and `rows`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TailMark {
    generation: u64,
    pushed: u64,
    head: u64,
    alt: bool,
    rows: usize,
}

/// A shared handle on a terminal's ring ([`super::Terminal::tail_source`]).
#[derive(Clone)]
pub struct TailSource(pub(super) Arc<Mutex<RenderedRing>>);

impl std::fmt::Debug for TailSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TailSource").finish_non_exhaustive()
    }
}

impl TailSource {
    /// Runs `read` on the ring as it is now, under its lock: keep it short,
    /// the pane's output waits meanwhile.
    pub fn read<R>(&self, read: impl FnOnce(&RingView<'_>) -> R) -> R {
        let ring = self.0.lock();
        read(&RingView { ring: &ring })
    }

    /// Whether the pane holds the lock right now (it is reconciling, or was
    /// preempted while it did): a reader may come back to it later rather
    /// than wait.
    pub fn busy(&self) -> bool {
        self.0.is_locked()
    }
}

/// Where a pane leaves its terminal's [`TailSource`] once the terminal is
/// built (on the pane's own thread), with the mark the ring had then: a
/// restored pane's tail on disk is what its ring held at that point. Filled
/// once; empty until the pane exists.
#[derive(Debug, Clone, Default)]
pub struct TailSlot(Arc<OnceLock<(TailSource, TailMark)>>);

impl TailSlot {
    /// Puts `source` in the slot (a second call changes nothing).
    pub fn fill(&self, source: TailSource) {
        let mark = source.read(|view| view.mark());
        let _ = self.0.set((source, mark));
    }

    /// The source and the mark it had when the slot was filled.
    pub fn get(&self) -> Option<(&TailSource, TailMark)> {
        self.0.get().map(|(source, mark)| (source, *mark))
    }
}

/// The ring, read-only, while [`TailSource::read`] holds it.
pub struct RingView<'a> {
    ring: &'a RenderedRing,
}

impl RingView<'_> {
    /// Where the ring stands.
    pub fn mark(&self) -> TailMark {
        TailMark {
            generation: self.ring.generation(),
            pushed: self.ring.pushed(),
            head: self.ring.head(),
            alt: self.ring.is_alt(),
            rows: self.ring.screen_len(),
        }
    }

    /// Whether the alternate screen is shown: reads then see only its rows.
    pub fn alt(&self) -> bool {
        self.ring.is_alt()
    }

    /// The history, oldest first, also while the alternate screen hides it.
    pub fn history(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        self.ring.history_lines()
    }

    /// The history from line `start` on (the oldest is 0), without walking
    /// the lines before it.
    pub fn history_from(&self, start: usize) -> impl Iterator<Item = &str> {
        self.ring.history_lines_from(start)
    }

    /// The screen's content rows, top first.
    pub fn content_rows(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        self.ring.content_lines()
    }

    /// How many of the newest history lines moved in after `mark` was taken
    /// from this ring: `None` when the history was cleared or restored since,
    /// or more lines moved in than it still holds (some were evicted unseen).
    pub fn history_since(&self, mark: &TailMark) -> Option<usize> {
        if mark.generation != self.ring.generation() {
            return None;
        }
        let new = usize::try_from(self.ring.pushed().checked_sub(mark.pushed)?).ok()?;
        (new <= self.history().len()).then_some(new)
    }
}
