//! A terminal across an in-place upgrade: the server execs a new binary and
//! hands every pane over, each pane's terminal as a [`TermState`] (serde, JSON).
//!
//! Everything but the parser is plain data and travels as it is: the screen
//! (grids, cursor, saved cursors, scroll region, modes, tab stops, last
//! character), the ring with its seqs and counters, the OSC scanner in the
//! middle of a sequence, the UTF-8 character held back and `after_esc`. What
//! lives only within one `feed` or `resize` (the screen's track, switch and
//! replies, the reconcile scratch) is empty between calls and not carried.
//!
//! A `vte::Parser` can neither be read nor set. But its state after a stream
//! is its state after the bytes since the stream's last ESC, fed to a fresh
//! parser: an ESC puts it in the escape state from any state, clearing the
//! parameters, intermediates and OSC buffer, and from there the parser is a
//! machine that takes a byte at a time. (The one thing it keeps across calls
//! besides is the start of a UTF-8 character cut by the end of a call, on the
//! ground; see below.) So the terminal keeps those bytes, the *replay*, as
//! it feeds, and [`Terminal::import`] feeds them to a fresh parser through a
//! performer that does nothing: a sequence left open stays open, a complete
//! one is dispatched to nothing (its effect is in the grid already).
//!
//! ```text
//!   stream   … text ESC [ 0 m text ESC ] 0 ; t i │ export │ t l e BEL …
//!                                  └─ replay ──┘
//! ```
//!
//! Bounded: the replay is at most [`REPLAY_BYTES`]; each slice fed costs a
//! search of its last `REPLAY_BYTES` and a copy of at most as many into a
//! buffer reused from chunk to chunk. The price: a sequence still open more
//! than `REPLAY_BYTES` after its ESC when the export happens (a long OSC 52
//! copy, a DCS image) is not carried, and after the import the rest of it
//! prints as text.
//!
//! UTF-8: the terminal never cuts a character between two parser calls (it
//! holds a cut one back, `utf8_carry`, which travels too), so the parser holds
//! bytes of a character only when it was fed an incomplete one: when a chunk
//! went on from the carried start of a character with a byte that does not
//! continue it and all the rest was held back as the new carry. Those bytes
//! are the last parsed; with no ESC near they are the whole replay.

use super::ring::{GridView, RenderedRing};
use super::scanner::{OscScanner, ScannerState};
use super::screen::Screen;
use super::{ESC, Terminal, incomplete_utf8_tail};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The most bytes kept to replay into a fresh parser.
pub(super) const REPLAY_BYTES: usize = 1024;

/// The version of the [`TermState`] layout; an import refuses any other.
const FORMAT: u32 = 1;

/// Everything a terminal needs to continue in another process; serde (JSON)
/// serialisable. Made by [`Terminal::export`], used by [`Terminal::import`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TermState {
    format: u32,
    rows: u16,
    cols: u16,
    screen: Screen,
    ring: RenderedRing,
    scanner: ScannerState,
    after_esc: bool,
    /// The start of a UTF-8 character held back (0 to 3 bytes).
    utf8_carry: Vec<u8>,
    /// What a fresh parser is fed to reach the state of the exported one.
    replay: Vec<u8>,
}

/// A `vte::Perform` that does nothing: replaying into a fresh parser only
/// moves the parser.
struct Inert;

impl vte::Perform for Inert {}

impl Terminal {
    /// Everything this terminal needs to continue in another process.
    pub fn export(&self) -> TermState {
        TermState {
            format: FORMAT,
            rows: self.rows,
            cols: self.cols,
            screen: self.screen.clone(),
            ring: self.ring.lock().clone(),
            scanner: self.scanner.export(),
            after_esc: self.after_esc,
            utf8_carry: self.utf8_carry[..self.utf8_carry_len].to_vec(),
            replay: self.replay.clone(),
        }
    }

    /// Rebuilds a terminal from an export: every read answers as the exported
    /// terminal's did, and the same further bytes give the same events and
    /// reads. `Err` explains a state that does not fit (another format, grid
    /// rows or columns that disagree with the size, a ring screen of another
    /// length, a cursor out of range, …); a hand-edited or corrupt state never
    /// panics.
    pub fn import(state: TermState) -> Result<Terminal, String> {
        if state.format != FORMAT {
            return Err(format!(
                "terminal state format {} (this build reads {FORMAT})",
                state.format
            ));
        }
        let (rows, cols) = (usize::from(state.rows), usize::from(state.cols));
        state.screen.check(rows, cols)?;
        state.ring.check_fits(rows)?;
        if state.ring.is_alt() != state.screen.alternate_screen() {
            return Err("the ring and the screen disagree on the alternate screen".to_owned());
        }
        if let Some(row) = (0..rows).find(|&i| state.ring.screen_row(i) != state.screen.row_text(i))
        {
            return Err(format!("the ring's screen row {row} differs from the grid"));
        }
        let scanner = OscScanner::import(state.scanner)?;
        let carry = &state.utf8_carry;
        if carry.len() > 3 || incomplete_utf8_tail(carry) != carry.len() {
            return Err(format!("{carry:x?} is not the start of a UTF-8 character"));
        }
        if state.replay.len() > REPLAY_BYTES || state.after_esc != (state.replay == [ESC]) {
            return Err("the parser replay does not fit".to_owned());
        }
        // Built as `Terminal::new` builds it: the same bounded OSC buffer.
        let mut parser = super::Parser::new_with_size();
        parser.advance(&mut Inert, &state.replay);
        let mut utf8_carry = [0; 4];
        utf8_carry[..carry.len()].copy_from_slice(carry);
        Ok(Terminal {
            screen: state.screen,
            parser,
            ring: Arc::new(Mutex::new(state.ring)),
            scanner,
            rows: state.rows,
            cols: state.cols,
            after_esc: state.after_esc,
            utf8_carry,
            utf8_carry_len: carry.len(),
            replay: state.replay,
            scratch: GridView::default(),
            #[cfg(test)]
            checks: super::tests::Checks::default(),
        })
    }

    /// Brings the replay up to date with `bytes`, which the parser is about to
    /// be fed (see the module documentation). The replay is the bytes from
    /// the last ESC while they are at most `REPLAY_BYTES`, else the start of a
    /// character `bytes` ends in: without an ESC near, the parser is on the
    /// ground and holds that or nothing.
    pub(super) fn keep_replay(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            // Nothing parsed: what the parser holds stays.
            return;
        }
        let window = bytes.len().saturating_sub(REPLAY_BYTES);
        if let Some(at) = memchr::memrchr(ESC, &bytes[window..]) {
            self.replay.clear();
            self.replay.extend_from_slice(&bytes[window + at..]);
        } else if self.replay.first() == Some(&ESC)
            && self.replay.len() + bytes.len() <= REPLAY_BYTES
        {
            self.replay.extend_from_slice(bytes);
        } else {
            self.replay.clear();
            let held = incomplete_utf8_tail(bytes);
            self.replay.extend_from_slice(&bytes[bytes.len() - held..]);
        }
    }
}
