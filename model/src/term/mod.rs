//! The headless terminal of a pane: a VT grid, the rendered ring of lines built
//! from it, and the OSC scanner (docs/terminal.md#the-headless-terminal,
//! docs/terminal.md#the-rendered-ring). Pure: no actor, no I/O. The Pane actor
//! feeds it every chunk the PTY produced and reads from it.
//!
//! ```text
//!                 seq                                       ring_len = history
//!   history   ┌──────┬──────────────────────────┐                 + content rows
//!   (oldest   │  201 │ line 200                 │ ◀─ evicted first      (≤ 5000)
//!    first)   │  ... │ ...                      │
//!             │ 5180 │ line 5178                │
//!             ╞══════╪══════════════════════════╡ ─┐
//!   screen    │ 5181 │ line 5179                │  │ one entry per grid row,
//!   (= grid   │  ... │ ...                      │  │ refreshed in place after
//!    rows)    │ 5203 │ line 5199                │  │ every batch; a changed
//!             │ 5204 │                          │  │ row gets a fresh seq
//!             └──────┴──────────────────────────┘ ─┘ blank rows at the bottom are
//!                                                    padding, not content
//!   head = 5204 (the last seq handed out; the first line ever gets 1)
//!   rendered(after_seq) = content lines with seq > after_seq, in position order
//! ```
//!
//! Feeding cuts a chunk into batches (after every CR or LF, every `cols` bytes, at
//! the end of the chunk). After each batch the ring is reconciled with the grid:
//! rows that scrolled off the top move to history, rows that changed get a fresh
//! seq, so a spinner redrawn a thousand times leaves one line. The alternate
//! screen never reaches history, and while it is shown reads see only it.
//!
//! Where this differs from the reference design's rendered ring, and why
//! (docs/terminal.md#feeding-in-batches, docs/terminal.md#reads-of-the-ring):
//! * a batch is cut at `cols` bytes, not `max(cols, 64)`: on a pane narrower than
//!   64 columns a 64-byte batch can wrap twice and scroll detection then misses
//!   the row that left the top;
//! * a switch to or from the alternate screen also ends a reconcile segment, so
//!   main-screen output in the same batch is reconciled on the main screen;
//! * a UTF-8 character cut by the end of a chunk is held back until it is
//!   complete (`vte` 0.15 drops bytes after a character split across calls);
//! * a cursor also reads `dropped` when a line newer than it was evicted (the
//!   history is not always in seq order, so the first retained seq alone can
//!   miss that).
//!
//! Scroll detection is a heuristic over text, so where a chunk ends can still
//! change what reaches history in ambiguous cases (a row erased and redrawn
//! across two chunks on a nearly empty screen, repeated identical rows, a blank
//! row scrolling off with nothing new arriving). The grid, the screen text and the
//! scanner events never depend on it.
//!
//! Every read is plain text: the grid keeps colours, the ring does not, so a
//! `strip_ansi: false` read of `tail` or `rendered` returns the same text. Only
//! [`Terminal::screen_formatted`] and [`Terminal::state_formatted`] carry SGR.
//!
//! Memory is bounded whatever a program prints: the grid's parser caps an OSC at
//! 1 KiB (vte without its `std` feature), the scanner carries at most 8 KiB, the
//! bytes kept to replay into a parser after an upgrade at most 1 KiB, and the
//! ring holds 5000 lines.
//!
//! The ring sits behind a lock that only this terminal writes through; the
//! snapshot writer reads a pane's tail through a [`TailSource`] without waiting
//! for the pane (`tail_source.rs`).
//!
//! A terminal crosses an in-place upgrade whole: [`Terminal::export`] gives a
//! serde-serialisable [`TermState`] and [`Terminal::import`] rebuilds from it
//! a terminal that answers every read and goes on from the next byte exactly
//! as this one would, also in the middle of an escape sequence (`export.rs`).

mod export;
mod grid;
mod reads;
mod ring;
mod sanitize;
mod scanner;
mod screen;
mod tail_source;
#[cfg(test)]
mod tests;

pub use export::TermState;
pub use reads::{CellAttrs, CellColor, StyledCell};
pub use ring::{RING_LINES, Rendered, Tail};
pub use sanitize::{MAX_BODY_CHARS, MAX_TITLE_CHARS, sanitize, strip_ansi};
pub use scanner::{MAX_OSC_CARRY_BYTES, NotificationSource, OscScanner, TermEvent};
pub use tail_source::{RingView, TailMark, TailSlot, TailSource};

use parking_lot::Mutex;
use ring::{GridView, Reconcile, RenderedRing};
use screen::Screen;
use std::sync::Arc;

const ESC: u8 = 0x1b;

/// How many bytes of an OSC the grid's parser keeps: the grid reads only
/// the colour queries (`10;?`, `11;?`, `12;?`), and titles, notifications
/// and the rest are read by the [`OscScanner`] from the byte stream
/// (docs/terminal.md#the-grid). vte's default keeps 1 KiB inline in every
/// pane; a longer OSC is truncated and still ends where it ends.
pub(crate) const OSC_KEPT: usize = 32;

/// The grid's parser (see [`OSC_KEPT`]).
pub(crate) type Parser = vte::Parser<OSC_KEPT>;

/// The headless terminal of one pane. See the module documentation.
pub struct Terminal {
    /// The grid: cells, cursor, modes, and what changed since the last reconcile.
    screen: Screen,
    parser: Parser,
    /// Shared with the snapshot writer's [`TailSource`]; written only here.
    ring: Arc<Mutex<RenderedRing>>,
    scanner: OscScanner,
    rows: u16,
    cols: u16,
    /// Whether the last byte parsed was an ESC (for `ESC E` in the bound).
    after_esc: bool,
    /// The start of a UTF-8 character the last chunk ended in.
    utf8_carry: [u8; 4],
    utf8_carry_len: usize,
    /// What a fresh parser must be fed to reach the state of `parser`: the
    /// bytes parsed since the last ESC if it is among the last
    /// `export::REPLAY_BYTES`, else the UTF-8 character the parser holds, if any
    /// (`export.rs`).
    replay: Vec<u8>,
    /// Reused between batches to avoid an allocation each.
    scratch: GridView,
    #[cfg(test)]
    checks: tests::Checks,
}

impl std::fmt::Debug for Terminal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terminal")
            .field("rows", &self.rows)
            .field("cols", &self.cols)
            .field("head", &self.head())
            .field("ring_len", &self.ring_len())
            .finish_non_exhaustive()
    }
}

impl Terminal {
    /// A blank terminal of `rows` × `cols` (0 counts as 1) with no parser
    /// scrollback: history lives in the ring.
    pub fn new(rows: u16, cols: u16) -> Terminal {
        let (rows, cols) = (rows.max(1), cols.max(1));
        Terminal {
            screen: Screen::new(usize::from(rows), usize::from(cols)),
            parser: Parser::new_with_size(),
            ring: Arc::new(Mutex::new(RenderedRing::new(usize::from(rows)))),
            scanner: OscScanner::new(),
            rows,
            cols,
            after_esc: false,
            utf8_carry: [0; 4],
            utf8_carry_len: 0,
            replay: Vec::new(),
            scratch: GridView::default(),
            #[cfg(test)]
            checks: tests::Checks::default(),
        }
    }

    /// Feeds one chunk of output: updates the grid, reconciles the ring after
    /// every batch (docs/terminal.md#feeding-in-batches) and returns what the OSC
    /// scanner found, in order.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<TermEvent> {
        let mut events = Vec::new();
        self.scanner.scan(bytes, &mut events);
        let mut rest = bytes;
        if self.utf8_carry_len > 0 {
            // Complete the character the previous chunk ended in, on its own.
            let carried = self.utf8_carry_len;
            let needed = utf8_len(self.utf8_carry[0]).saturating_sub(carried);
            let taken = rest
                .iter()
                .take(needed)
                .take_while(|&&b| is_continuation(b))
                .count();
            self.utf8_carry[carried..carried + taken].copy_from_slice(&rest[..taken]);
            self.utf8_carry_len += taken;
            rest = &rest[taken..];
            if taken < needed && rest.is_empty() {
                return events;
            }
            let piece = self.utf8_carry;
            let len = std::mem::take(&mut self.utf8_carry_len);
            self.feed_slice(&piece[..len]);
        }
        // Hold back a character cut by the end of the chunk: `vte` 0.15 can drop
        // the bytes after a character completed across two calls.
        let held = incomplete_utf8_tail(rest);
        let (now, tail) = rest.split_at(rest.len() - held);
        self.feed_slice(now);
        self.utf8_carry[..held].copy_from_slice(tail);
        self.utf8_carry_len = held;
        let replies = self.screen.take_replies();
        if !replies.is_empty() {
            events.push(TermEvent::Reply(replies));
        }
        events
    }

    /// Feeds bytes that end on a character boundary, batch by batch.
    fn feed_slice(&mut self, bytes: &[u8]) {
        self.keep_replay(bytes);
        // The reference design cut at `max(cols, 64)` bytes. We cut at `cols`
        // (docs/terminal.md#feeding-in-batches): a batch of text then wraps at
        // most once, which is what the overlap excused by scroll detection
        // (docs/terminal.md#scroll-detection) covers; 64 bytes on a narrow pane
        // can wrap twice from the second-to-last row and lose the row that
        // scrolled off.
        let max_batch = usize::from(self.cols);
        let mut start = 0;
        while start < bytes.len() {
            let end = batch_end(bytes, start, max_batch);
            self.feed_batch(&bytes[start..end]);
            start = end;
        }
    }

    /// Parses one batch and reconciles the ring
    /// (docs/terminal.md#feeding-in-batches). A switch between the main and the
    /// alternate screen also ends a reconcile segment: the ring is reconciled
    /// just before the switch and again after it, so main-screen output is never
    /// folded into a screen switch (where it could not scroll into history) and
    /// the outcome does not depend on where a chunk ended.
    fn feed_batch(&mut self, batch: &[u8]) {
        let esc_before_batch = self.after_esc;
        if let Some(&last) = batch.last() {
            self.after_esc = last == ESC;
        }
        let mut segment = 0;
        let mut pos = 0;
        while pos < batch.len() {
            pos += self
                .parser
                .advance_until_terminated(&mut self.screen, &batch[pos..]);
            if let Some(switch) = self.screen.take_switch() {
                self.end_segment(&batch[segment..pos], segment == 0 && esc_before_batch);
                segment = pos;
                self.screen.apply_switch(switch);
            }
        }
        self.end_segment(&batch[segment..], segment == 0 && esc_before_batch);
    }

    /// Reconciles the ring with the grid after `bytes` were parsed
    /// (docs/terminal.md#the-scroll-bound,
    /// docs/terminal.md#reconciling-the-ring). `after_esc` tells whether the byte
    /// before them was an ESC.
    fn end_segment(&mut self, bytes: &[u8], after_esc: bool) {
        let alt = self.screen.alternate_screen();
        let track = self.screen.take_track();
        let (line_feeds, printable) = count_bound_bytes(bytes, after_esc);
        let bound = 1 + line_feeds + track.csi_scroll + printable / u64::from(self.cols);
        let transitioned = alt != self.ring.lock().is_alt();
        let full = track.all || transitioned;
        #[cfg(test)]
        let full = full || self.checks.force_full;

        let mut grid = std::mem::take(&mut self.scratch);
        grid.reset(usize::from(self.rows));
        let changed = if full {
            self.full_view(&mut grid);
            true
        } else {
            self.changed_view(&mut grid, &track)
        };
        if changed {
            let mode = if alt || transitioned {
                Reconcile::RefreshOnly
            } else {
                Reconcile::Scroll { bound }
            };
            self.ring.lock().reconcile(&mut grid, alt, mode);
        }
        self.scratch = grid;
        #[cfg(test)]
        self.check_mirror();
    }

    /// Builds the grid view from what the screen says changed: the rows above
    /// the first written row only moved up by the screen's scroll, the rows
    /// below the last written one did not move. Returns false when nothing
    /// changed.
    fn changed_view(&self, grid: &mut GridView, track: &screen::Track) -> bool {
        let Some((first, last)) = track.dirty else {
            if track.shift == 0 {
                return false;
            }
            // A scroll always writes the rows it brings in; read everything
            // rather than trust an account that does not add up.
            self.full_view(grid);
            return true;
        };
        grid.shift = track.shift.min(grid.rows);
        grid.first = first;
        grid.fresh
            .extend((first..=last).map(|i| self.screen.row_text(i)));
        true
    }

    /// Reads every grid row.
    fn full_view(&self, grid: &mut GridView) {
        grid.fresh
            .extend((0..usize::from(self.rows)).map(|i| self.screen.row_text(i)));
    }

    /// Resizes without reflow (docs/terminal.md#the-grid,
    /// docs/terminal.md#resize): rows pushed off the top go to history, rows cut
    /// at the bottom vanish, new rows are blank; 0 counts as 1.
    pub fn resize(&mut self, rows: u16, cols: u16) {
        let (rows, cols) = (rows.max(1), cols.max(1));
        if (rows, cols) == (self.rows, self.cols) {
            return;
        }
        let pushed = self.screen.resize(usize::from(rows), usize::from(cols));
        self.screen.take_track();
        self.rows = rows;
        self.cols = cols;
        let mut grid = std::mem::take(&mut self.scratch);
        grid.reset(usize::from(rows));
        self.full_view(&mut grid);
        let alt = self.screen.alternate_screen();
        {
            // One turn of the lock: a reader never sees the ring fitted but
            // not yet refreshed.
            let mut ring = self.ring.lock();
            ring.fit(pushed, usize::from(rows));
            ring.reconcile(&mut grid, alt, Reconcile::RefreshOnly);
        }
        self.scratch = grid;
    }

    /// Scrolls the rows of the screen down to the cursor's into the history
    /// and homes the cursor, as if the program had printed that many newlines
    /// at the bottom: a new process in the pane (a resume) starts on a clean
    /// screen, the old one kept above it in the scrollback, so nothing the
    /// previous process drew is read as the new one's screen.
    pub fn push_screen_into_history(&mut self) {
        let (row, col) = self.screen.cursor_position();
        let used = row + usize::from(col > 0);
        if used == 0 || self.alternate_screen() {
            return;
        }
        let bytes = format!("\x1b[{};1H{}\x1b[H", self.rows, "\n".repeat(used));
        let _ = self.feed(bytes.as_bytes());
    }

    /// Gives back the memory the terminal reserved while output flowed and no
    /// longer uses (docs/terminal.md#memory): the allocations of blank grid
    /// rows and of the cells past a row's text, the history's spare room, the
    /// batch scratch, the OSC and replay buffers. A pane calls it once its
    /// output has gone quiet; feeding on afterwards allocates again as needed.
    pub fn shrink_to_fit(&mut self) {
        self.screen.shrink();
        self.ring.lock().shrink();
        self.scanner.shrink();
        self.replay.shrink_to_fit();
        self.scratch = GridView::default();
    }

    /// The second half of `pane.clear` (docs/terminal.md#restore-and-clear,
    /// docs/terminal.md#clearing-a-pane), once its clear bytes were fed: drops
    /// the history and makes every earlier cursor read as dropped.
    pub fn clear_history(&mut self) {
        self.ring.lock().clear_history();
    }

    /// Makes every earlier cursor read as dropped, keeping the text: a restored
    /// pane's terminal, rebuilt from its tail, numbers its lines afresh, so a
    /// cursor from before the restart means nothing here
    /// (docs/terminal.md#restore-and-clear).
    pub fn drop_earlier_cursors(&mut self) {
        self.ring.lock().drop_cursors();
    }

    /// Restores saved scrollback after a server restart
    /// (docs/terminal.md#restore-and-clear); call it on a fresh terminal of the
    /// saved size. The newest 5000 lines are kept, ANSI and control characters
    /// removed, and numbered 1, 2, 3, …; the screen rows are numbered after them
    /// and every earlier cursor reads as dropped.
    pub fn restore(&mut self, lines: &[String]) {
        let newest = &lines[lines.len().saturating_sub(RING_LINES)..];
        let plain = newest.iter().flat_map(|line| {
            strip_ansi(line)
                .split('\n')
                .map(|part| {
                    let kept: String = part
                        .chars()
                        .filter(|&c| c == '\t' || !c.is_control())
                        .collect();
                    kept.trim_end_matches(' ').to_owned()
                })
                .collect::<Vec<_>>()
        });
        self.ring.lock().restore(plain);
    }
}

/// Where the batch starting at `start` ends
/// (docs/terminal.md#feeding-in-batches): after the first CR or LF, at
/// `max_batch` bytes (stretched by up to three bytes so a character is never cut
/// in two, see `Terminal::feed`), or at the end.
fn batch_end(bytes: &[u8], start: usize, max_batch: usize) -> usize {
    let mut limit = bytes.len().min(start + max_batch);
    let longest = bytes.len().min(limit + 3);
    while limit < longest && is_continuation(bytes[limit]) {
        limit += 1;
    }
    match memchr::memchr2(b'\r', b'\n', &bytes[start..limit]) {
        Some(at) => start + at + 1,
        None => limit,
    }
}

/// Counts what the scroll bound needs (docs/terminal.md#the-scroll-bound): LF,
/// VT, FF, 0x84 and `ESC E`, and the printable bytes (0x20..=0x7E, 0x80..=0xFF).
/// `after_esc` tells whether the byte before `bytes` was an ESC.
fn count_bound_bytes(bytes: &[u8], after_esc: bool) -> (u64, u64) {
    // Simple counting loops the compiler vectorizes: this runs over every byte.
    let controls = bytes.iter().filter(|&&b| b < 0x20 || b == 0x7f).count();
    let mut line_feeds = bytes
        .iter()
        .filter(|&&b| matches!(b, b'\n' | 0x0b | 0x0c | 0x84))
        .count();
    line_feeds += memchr::memchr_iter(ESC, bytes)
        .filter(|&at| bytes.get(at + 1) == Some(&b'E'))
        .count();
    line_feeds += usize::from(after_esc && bytes.first() == Some(&b'E'));
    (line_feeds as u64, (bytes.len() - controls) as u64)
}

fn is_continuation(b: u8) -> bool {
    b & 0xc0 == 0x80
}

/// The length of the UTF-8 sequence a lead byte starts (1 for anything else).
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => 1,
    }
}

/// How many bytes at the end of `bytes` start a UTF-8 character without
/// finishing it (0 to 3).
fn incomplete_utf8_tail(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let b = bytes[bytes.len() - back];
        if !is_continuation(b) {
            return if utf8_len(b) > back { back } else { 0 };
        }
    }
    0
}
