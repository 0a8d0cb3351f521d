//! The rendered ring: history plus one entry per grid row, each line with a
//! sequence number (docs/terminal.md#the-rendered-ring). Pure data: the terminal
//! hands it the grid rows after every batch. Serde carries it across an in-place
//! upgrade (`export.rs`) as it is, each line as a `[seq, text]` pair.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The most content lines a pane keeps: history plus the screen's content rows
/// (docs/terminal.md#lines-and-sequence-numbers). Also the cap on `lines` in
/// reads (docs/terminal.md#read-modes).
pub const RING_LINES: usize = 5000;

/// One rendered line.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "(u64, String)")]
pub(crate) struct Line {
    pub seq: u64,
    /// The row text, trailing spaces trimmed, attributes dropped.
    pub text: String,
}

impl Serialize for Line {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (self.seq, &self.text).serialize(serializer)
    }
}

impl From<(u64, String)> for Line {
    fn from((seq, text): (u64, String)) -> Line {
        Line { seq, text }
    }
}

/// The visible grid after a batch, as the terminal hands it to
/// [`RenderedRing::reconcile`]. Only the rows a batch may have written are read:
///
/// ```text
///   rows 0 .. first                  hold the ring's screen rows shift .. shift+first
///                                    (they only moved up, by the scroll)
///   rows first .. first+fresh.len()  were read from the grid
///   the rows after                   hold the screen row with the same index
/// ```
#[derive(Debug, Default)]
pub(crate) struct GridView {
    pub rows: usize,
    pub shift: usize,
    pub first: usize,
    pub fresh: Vec<String>,
}

impl GridView {
    /// Clears the view for reuse; `fresh` keeps its allocation.
    pub fn reset(&mut self, rows: usize) {
        self.rows = rows;
        self.shift = 0;
        self.first = 0;
        self.fresh.clear();
    }

    fn fresh_end(&self) -> usize {
        self.first + self.fresh.len()
    }
}

/// How a reconcile may treat the batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reconcile {
    /// Try scroll detection with this bound (docs/terminal.md#the-scroll-bound),
    /// then refresh in place.
    Scroll { bound: u64 },
    /// Alternate screen, a screen switch or a resize: refresh in place only.
    RefreshOnly,
}

/// The answer to [`RenderedRing::tail`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tail {
    /// The lines, oldest first, joined by `\n`.
    pub text: String,
    /// The ring holds more content lines than were returned.
    pub truncated: bool,
}

/// The answer to [`RenderedRing::rendered`]
/// (docs/terminal.md#reads-of-the-ring).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The returned lines, oldest first, joined by `\n`.
    pub text: String,
    /// The seq of the first returned line, or `next_seq` when none was returned.
    pub seq: u64,
    /// The ring head: pass it as `after_seq` next time to get only newer lines.
    pub next_seq: u64,
    /// The cursor is unusable (evicted, cleared, restored, or from the future):
    /// re-read from 0.
    pub dropped: bool,
    /// More lines were newer than the cursor than `lines` allowed.
    pub truncated: bool,
}

/// History and screen lines with their seqs. See the module diagram in `term`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RenderedRing {
    history: VecDeque<Line>,
    screen: VecDeque<Line>,
    head: u64,
    dropped_floor: u64,
    /// The highest seq ever evicted. A cursor below it missed a line.
    evicted_max: u64,
    /// Whether the screen rows mirror the alternate screen.
    alt: bool,
    /// How many lines ever moved into history (none is ever taken back out
    /// but by eviction, a clear or a restore): what an exported tail has
    /// seen of the history (`tail_source`).
    pushed: u64,
    /// Counts the clears and restores: the history since is not a
    /// continuation of the one before.
    generation: u64,
}

impl RenderedRing {
    /// A ring whose screen is `rows` blank lines (seqs 1..=rows).
    pub fn new(rows: usize) -> RenderedRing {
        let mut ring = RenderedRing {
            history: VecDeque::new(),
            screen: VecDeque::with_capacity(rows),
            head: 0,
            dropped_floor: 0,
            evicted_max: 0,
            alt: false,
            pushed: 0,
            generation: 0,
        };
        for _ in 0..rows {
            let seq = ring.next_seq();
            ring.screen.push_back(Line {
                seq,
                text: String::new(),
            });
        }
        ring
    }

    fn next_seq(&mut self) -> u64 {
        self.head += 1;
        self.head
    }

    pub fn head(&self) -> u64 {
        self.head
    }

    /// Whether the screen rows mirror the alternate screen.
    pub fn is_alt(&self) -> bool {
        self.alt
    }

    pub fn screen_len(&self) -> usize {
        self.screen.len()
    }

    /// The text of screen row `i` (the grid as of the last reconcile).
    pub fn screen_row(&self, i: usize) -> &str {
        self.screen.get(i).map_or("", |l| l.text.as_str())
    }

    /// Rows up to and including the last non-blank one
    /// (docs/terminal.md#lines-and-sequence-numbers).
    fn content_rows(&self) -> usize {
        self.screen
            .iter()
            .rposition(|l| !l.text.is_empty())
            .map_or(0, |p| p + 1)
    }

    /// History plus content rows (docs/terminal.md#reads-of-the-ring).
    pub fn len(&self) -> usize {
        self.history.len() + self.content_rows()
    }

    /// The lines reads see: history then content rows, or only the content rows
    /// while the alternate screen is shown (docs/terminal.md#known-limits,
    /// docs/terminal.md#read-modes). Also returns how many there are.
    fn readable(&self) -> (impl Iterator<Item = &Line>, usize) {
        let history = if self.alt { 0 } else { self.history.len() };
        let content = self.content_rows();
        let lines = self
            .history
            .range(..history)
            .chain(self.screen.range(..content));
        (lines, history + content)
    }

    /// Folds one batch in (docs/terminal.md#reconciling-the-ring). A view whose
    /// row count differs from the screen's must have every row fresh.
    pub fn reconcile(&mut self, grid: &mut GridView, alt: bool, mode: Reconcile) {
        let transitioned = alt != self.alt;
        self.alt = alt;
        if grid.rows != self.screen.len() {
            // Only a resize changes the row count, and `fit` runs first.
            self.fit(0, grid.rows);
        }
        let k = match mode {
            Reconcile::Scroll { bound } if !transitioned && !alt => self.scroll_by(grid, bound),
            _ => 0,
        };
        let n = grid.rows;
        // After the scroll, screen row i holds what row i + k held. Rows known
        // only by reference to another screen row must be read before it moves.
        let after = grid.fresh_end();
        if (grid.first > 0 && grid.shift != k) || (k > 0 && after < n) {
            let texts: Vec<String> = (0..n).map(|i| self.grid_text(grid, i).to_owned()).collect();
            grid.shift = 0;
            grid.first = 0;
            grid.fresh = texts;
        }
        let first = grid.first;
        if k > 0 {
            let content = self.content_rows();
            for moved in 0..k {
                if let Some(line) = self.screen.pop_front()
                    && moved < content
                {
                    // Trailing blank rows are padding, not content: they never
                    // reach history.
                    self.push_history(line);
                    self.pushed += 1;
                }
            }
            // `first ≤ n - k` (those rows came from below) and nothing follows
            // the fresh rows, so the new bottom rows are all fresh.
            for text in grid.fresh.drain(n - k - first..) {
                let seq = self.next_seq();
                self.screen.push_back(Line { seq, text });
            }
        }
        // Refresh in place: every changed row gets a fresh seq, in row order.
        for (offset, text) in grid.fresh.iter_mut().enumerate() {
            let i = first + offset;
            if i >= n - k {
                break;
            }
            if self.screen[i].text != *text {
                let seq = self.next_seq();
                let line = &mut self.screen[i];
                line.seq = seq;
                line.text = std::mem::take(text);
            }
        }
        self.evict();
    }

    /// The text of grid row `i`.
    fn grid_text<'a>(&'a self, grid: &'a GridView, i: usize) -> &'a str {
        if i < grid.first {
            self.screen_row(i + grid.shift)
        } else if i < grid.fresh_end() {
            &grid.fresh[i - grid.first]
        } else {
            self.screen_row(i)
        }
    }

    /// Whether grid rows `range` hold the text of screen rows `range + k`. Rows
    /// the view knows to be those very screen rows are not compared.
    fn rows_match(&self, grid: &GridView, range: std::ops::Range<usize>, k: usize) -> bool {
        let (first, end) = (grid.first, grid.fresh_end());
        let (lo, hi) = (range.start, range.end);
        if grid.shift != k
            && (lo..hi.min(first))
                .any(|i| self.screen_row(i + grid.shift) != self.screen_row(i + k))
        {
            return false;
        }
        if (lo.max(first)..hi.min(end)).any(|i| grid.fresh[i - first] != self.screen_row(i + k)) {
            return false;
        }
        k == 0 || (lo.max(end)..hi).all(|i| self.screen_row(i) == self.screen_row(i + k))
    }

    /// Scroll detection (docs/terminal.md#scroll-detection): how many rows the
    /// batch scrolled off the top, or 0.
    fn scroll_by(&self, grid: &GridView, bound: u64) -> usize {
        let n = grid.rows;
        if n == 0 || self.rows_match(grid, 0..n, 0) {
            return 0;
        }
        let blank = |i: usize| self.grid_text(grid, i).is_empty();
        let mut smallest = None;
        let mut evidenced = None;
        for k in 1..n {
            if n < 2 * k + 1 || k as u64 > bound {
                break;
            }
            let leaves = (0..k).any(|i| !self.screen[i].text.is_empty());
            let arrives = (n - k..n).any(|i| !blank(i));
            if !leaves && !arrives {
                continue;
            }
            if self.rows_match(grid, 0..n - 2 * k, k) {
                smallest.get_or_insert(k);
                if (0..n - 2 * k).any(|i| !blank(i)) {
                    evidenced = Some(k);
                }
            }
        }
        if let Some(k) = evidenced.or(smallest) {
            return k;
        }
        // A full clear counts as a full scroll-off: the cleared text is kept.
        if (0..n).all(blank) && self.screen.iter().any(|l| !l.text.is_empty()) {
            return n;
        }
        0
    }

    /// Makes the screen `rows` long after a resize (the first step of
    /// docs/terminal.md#reconciling-the-ring): the `removed_top` rows the grid
    /// pushed off the top go to history (blank ones are discarded, and
    /// alternate-screen rows never get there), rows cut at the bottom vanish,
    /// new bottom rows get fresh seqs. The caller then refreshes in place.
    pub fn fit(&mut self, removed_top: usize, rows: usize) {
        for _ in 0..removed_top.min(self.screen.len()) {
            if let Some(line) = self.screen.pop_front()
                && !line.text.is_empty()
                && !self.alt
            {
                self.push_history(line);
                self.pushed += 1;
            }
        }
        self.screen.truncate(rows);
        while self.screen.len() < rows {
            let seq = self.next_seq();
            self.screen.push_back(Line {
                seq,
                text: String::new(),
            });
        }
        self.evict();
    }

    /// Moves `line` into history. The history grows as it fills, doubling,
    /// but never past what it can hold before eviction (`RING_LINES` plus a
    /// screen's rows): a full ring holds 5000 lines, not the 8192 a doubling
    /// would reserve.
    fn push_history(&mut self, line: Line) {
        let (len, capacity) = (self.history.len(), self.history.capacity());
        if len == capacity {
            let most = RING_LINES + self.screen.len() + 1;
            let target = (capacity * 2).max(16).min(most).max(len + 1);
            self.history.reserve_exact(target - len);
        }
        self.history.push_back(line);
    }

    /// Gives back what the history and the screen rows reserve and do not use.
    pub fn shrink(&mut self) {
        self.history.shrink_to_fit();
        self.screen.shrink_to_fit();
    }

    /// The heap bytes the ring holds.
    #[cfg(test)]
    pub fn heap_bytes(&self) -> usize {
        (self.history.capacity() + self.screen.capacity()) * size_of::<Line>()
            + self
                .history
                .iter()
                .chain(&self.screen)
                .map(|l| l.text.capacity())
                .sum::<usize>()
    }

    /// Eviction (docs/terminal.md#eviction): the oldest history goes first; the
    /// screen is never evicted.
    fn evict(&mut self) {
        let content = self.content_rows();
        while self.history.len() + content > RING_LINES {
            match self.history.pop_front() {
                Some(line) => self.evicted_max = self.evicted_max.max(line.seq),
                None => break,
            }
        }
    }

    /// The first retained seq (docs/terminal.md#reads-of-the-ring).
    fn oldest_retained(&self) -> u64 {
        match self.history.front() {
            Some(line) => line.seq,
            None => self
                .screen
                .iter()
                .map(|l| l.seq)
                .min()
                .unwrap_or(self.head + 1),
        }
    }

    /// Every history line, oldest first, also while the alternate screen
    /// hides them from reads.
    pub fn history_lines(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        self.history.iter().map(|l| l.text.as_str())
    }

    /// The history lines from index `start` on (none past the end).
    pub fn history_lines_from(&self, start: usize) -> impl Iterator<Item = &str> {
        self.history
            .range(start.min(self.history.len())..)
            .map(|l| l.text.as_str())
    }

    /// The screen's content rows, top first
    /// (docs/terminal.md#lines-and-sequence-numbers).
    pub fn content_lines(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        self.screen
            .range(..self.content_rows())
            .map(|l| l.text.as_str())
    }

    /// Lines ever moved into history.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Clears and restores so far.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The last `lines` content lines, oldest first
    /// (docs/terminal.md#reads-of-the-ring).
    pub fn tail(&self, lines: usize) -> Tail {
        let (all, total) = self.readable();
        let keep = lines.min(total);
        Tail {
            text: join(all.skip(total - keep)),
            truncated: total > keep,
        }
    }

    /// The content lines newer than `after_seq`, at most the newest `lines`
    /// (docs/terminal.md#reads-of-the-ring).
    pub fn rendered(&self, after_seq: u64, lines: usize) -> Rendered {
        let matched = self.readable().0.filter(|l| l.seq > after_seq).count();
        let keep = lines.min(matched);
        let mut returned = self
            .readable()
            .0
            .filter(|l| l.seq > after_seq)
            .skip(matched - keep)
            .peekable();
        let seq = returned.peek().map_or(self.head, |l| l.seq);
        let text = join(returned);
        let dropped = after_seq != 0
            && (after_seq <= self.dropped_floor
                || after_seq < self.oldest_retained()
                || after_seq > self.head
                || after_seq < self.evicted_max);
        Rendered {
            text,
            seq,
            next_seq: self.head,
            dropped,
            truncated: matched > keep,
        }
    }

    /// `pane.clear` after the clear bytes went through
    /// (docs/terminal.md#restore-and-clear): history goes and every earlier
    /// cursor reads as dropped.
    pub fn clear_history(&mut self) {
        self.history.clear();
        self.dropped_floor = self.head;
        self.generation += 1;
    }

    /// Makes every cursor handed out so far (or by an earlier server run)
    /// read as dropped, keeping the lines.
    pub fn drop_cursors(&mut self) {
        self.dropped_floor = self.head;
    }

    /// Restore after a server restart (docs/terminal.md#restore-and-clear):
    /// `lines` (already plain text) become the history with seqs 1, 2, 3, …, the
    /// screen rows are renumbered after them, and every earlier cursor reads as
    /// dropped.
    pub fn restore(&mut self, lines: impl IntoIterator<Item = String>) {
        self.history.clear();
        self.generation += 1;
        self.head = 0;
        self.evicted_max = 0;
        for text in lines {
            let seq = self.next_seq();
            self.history.push_back(Line { seq, text });
        }
        for i in 0..self.screen.len() {
            let seq = self.next_seq();
            self.screen[i].seq = seq;
        }
        self.dropped_floor = self.head;
        self.evict();
    }

    /// Every line with its seq, history first; for tests.
    #[cfg(test)]
    pub fn lines(&self) -> Vec<(u64, String)> {
        self.history
            .iter()
            .chain(&self.screen)
            .map(|l| (l.seq, l.text.clone()))
            .collect()
    }

    /// Whether a deserialised ring can serve a screen of `rows` rows: the
    /// structural invariants and counters that can go on counting. Checked
    /// before an imported ring is used (`export.rs`).
    pub fn check_fits(&self, rows: usize) -> Result<(), String> {
        if self.screen.len() != rows {
            return Err(format!(
                "a ring of {} screen rows for {rows} rows",
                self.screen.len()
            ));
        }
        // Far from where counting on would overflow.
        if self.head > u64::MAX / 2 {
            return Err(format!("a ring head of {}", self.head));
        }
        if self.dropped_floor > self.head || self.evicted_max > self.head {
            return Err("a dropped floor or an evicted seq above the head".to_owned());
        }
        self.check_invariants()
    }

    /// Checks the structural invariants: after batches in tests, and on an
    /// imported ring ([`RenderedRing::check_fits`]).
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut seen = std::collections::HashSet::new();
        for line in self.history.iter().chain(&self.screen) {
            if line.seq == 0 || line.seq > self.head {
                return Err(format!("seq {} outside 1..={}", line.seq, self.head));
            }
            if !seen.insert(line.seq) {
                return Err(format!("seq {} appears twice", line.seq));
            }
            if line.text.ends_with(' ') || line.text.contains('\n') {
                return Err(format!("untrimmed or multi-line text {:?}", line.text));
            }
        }
        if self.len() > RING_LINES {
            return Err(format!("{} lines exceed the capacity", self.len()));
        }
        Ok(())
    }
}

fn join<'a>(lines: impl Iterator<Item = &'a Line>) -> String {
    let mut text = String::new();
    for (i, line) in lines.enumerate() {
        if i > 0 {
            text.push('\n');
        }
        text.push_str(&line.text);
    }
    text
}
