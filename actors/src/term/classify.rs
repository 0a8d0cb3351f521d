//! A shadow VT parser that tells, for each batch, whether the grid changed only
//! along the cursor's path. It runs the same `vte` state machine as the grid's own
//! parser over the same bytes, so both always agree on what every byte means; it
//! only records the effect each sequence has in `vt100`.
//!
//! A *simple* batch prints, erases inside the cursor row, moves the cursor within
//! its row, moves it down (LF, wrap) and scrolls a region whose top is row 0. For
//! such a batch the rows that can differ from the ring's copy are known from the
//! cursor rows before and after and the scroll count, so the ring reconciles by
//! reading only those rows (see `Terminal::grid_view`). Anything else is
//! *complex* and the whole grid is read.
//!
//! For the most common batch of all, a line printed from column 0 of a blank
//! row, it also records the printed text, so the row need not be read back.
//!
//! It also spots the private modes `vt100` does not implement (1047, 1048) and
//! the entry into the alternate screen, so the terminal can act just before or
//! after them.

use vte::{Params, Perform};

/// What the terminal must do at the point the shadow parser stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// The alternate screen is about to be entered (`?47h`, `?1049h`): capture the
    /// main screen before the sequence's last byte reaches the grid.
    EnterAlt,
    /// The alternate screen was left (`?47l`, `?1049l`).
    LeaveAlt,
    /// `?1047h`: enter the alternate screen without clearing it.
    Enter1047,
    /// `?1047l`: clear the alternate screen, then leave it.
    Leave1047,
    /// `?1048h`: save the cursor.
    SaveCursor,
    /// `?1048l`: restore the cursor.
    RestoreCursor,
}

/// The most actions one sequence can ask for; more are ignored.
pub(crate) const MAX_ACTIONS: usize = 4;

/// What one batch did, as far as the ring cares.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct BatchClass {
    /// Something may have written into the cursor row.
    pub writes: bool,
    /// A non-ASCII character was printed (a combining mark may touch the cell
    /// before the cursor).
    pub non_ascii: bool,
    /// The grid may have changed outside the cursor's path.
    pub complex: bool,
    /// Rows `CSI n S` and `CSI n T` asked to scroll (part of the scroll bound, §6.3).
    pub csi_scroll: u64,
    /// Every character written so far went to the next column of the cursor
    /// row: plain ASCII, no column move, no edit, nothing after a CR.
    pub plain: bool,
    /// A CR was seen: later prints start over at column 0.
    after_cr: bool,
}

/// The `vte::Perform` side of the shadow parser.
#[derive(Debug)]
pub(crate) struct Classifier {
    /// The current batch.
    pub class: BatchClass,
    /// Whether the grid is on the alternate screen, mirrored from the sequences.
    pub alt: bool,
    /// Whether the main / alternate grid may have a scroll region not starting at
    /// row 0. Such a region scrolls without `vt100` reporting it.
    pub region_main: bool,
    pub region_alt: bool,
    /// Grid height, needed to decode DECSTBM like `vt100` does.
    pub rows: u16,
    /// The characters printed in the current segment while `class.plain` holds
    /// (ASCII only).
    pub printed: Vec<u8>,
    actions: [Option<Action>; MAX_ACTIONS],
    /// The number of actions pending; parsing stops while it is non-zero.
    pending: usize,
}

impl Classifier {
    pub fn new(rows: u16) -> Classifier {
        Classifier {
            class: BatchClass::default(),
            alt: false,
            region_main: false,
            region_alt: false,
            rows,
            printed: Vec::new(),
            actions: [None; MAX_ACTIONS],
            pending: 0,
        }
    }

    /// Starts a reconcile segment.
    pub fn begin(&mut self) {
        self.class = BatchClass {
            plain: true,
            ..BatchClass::default()
        };
        self.printed.clear();
    }

    /// Takes the actions the last sequence asked for, in order.
    pub fn take_actions(&mut self) -> [Option<Action>; MAX_ACTIONS] {
        self.pending = 0;
        std::mem::replace(&mut self.actions, [None; MAX_ACTIONS])
    }

    /// Whether parsing stopped because a sequence asked for actions.
    pub fn terminated_with_actions(&self) -> bool {
        self.pending > 0
    }

    /// Whether a region not starting at row 0 may be set on the active grid.
    pub fn region_active(&self) -> bool {
        if self.alt {
            self.region_alt
        } else {
            self.region_main
        }
    }

    fn push(&mut self, action: Action) {
        if self.pending < MAX_ACTIONS {
            self.actions[self.pending] = Some(action);
            self.pending += 1;
        }
    }

    fn private_mode(&mut self, params: &Params, set: bool) {
        for param in params.iter() {
            match (param, set) {
                ([47] | [1049], true) => {
                    self.class.complex = true;
                    if !self.alt {
                        self.push(Action::EnterAlt);
                    }
                    self.alt = true;
                },
                ([47] | [1049], false) => {
                    self.class.complex = true;
                    if self.alt {
                        self.push(Action::LeaveAlt);
                    }
                    self.alt = false;
                },
                ([1047], true) => {
                    self.class.complex = true;
                    self.push(Action::Enter1047);
                },
                ([1047], false) => {
                    self.class.complex = true;
                    self.push(Action::Leave1047);
                },
                ([1048], true) => self.push(Action::SaveCursor),
                ([1048], false) => {
                    self.class.complex = true;
                    self.push(Action::RestoreCursor);
                },
                // Origin mode homes the cursor.
                ([6], _) => self.class.complex = true,
                // Every other mode `vt100` knows (cursor keys, mouse, bracketed
                // paste, cursor visibility) leaves the text alone.
                _ => {},
            }
        }
    }

    /// Mirrors `vt100`'s DECSTBM: the region top is `top - 1` when it lies above
    /// the (clamped) bottom, else the region is reset to the full screen.
    fn set_region(&mut self, params: &Params) {
        let mut it = params.iter().map(|p| p.first().copied().unwrap_or(0));
        let top = it.next().unwrap_or(0).max(1);
        let bottom = match it.next().unwrap_or(0) {
            0 => self.rows,
            b => b,
        };
        let top = top - 1;
        let bottom = bottom.saturating_sub(1).min(self.rows.saturating_sub(1));
        let shifted = top > 0 && top < bottom;
        if self.alt {
            self.region_alt = shifted;
        } else {
            self.region_main = shifted;
        }
    }
}

impl Perform for Classifier {
    fn print(&mut self, c: char) {
        self.class.writes = true;
        if !c.is_ascii() {
            self.class.non_ascii = true;
            self.class.plain = false;
        }
        if self.class.plain {
            if self.class.after_cr || self.printed.len() >= usize::from(u16::MAX) {
                self.class.plain = false;
            } else {
                // ASCII, checked above.
                self.printed.push(c as u8);
            }
        }
    }

    // Every C0 control either moves the cursor right, left or down (BS, HT, CR,
    // LF, VT, FF) or is ignored by `vt100`: all simple.
    fn execute(&mut self, byte: u8) {
        match byte {
            b'\r' => self.class.after_cr = true,
            0x08 | b'\t' => self.class.plain = false,
            _ => {},
        }
    }

    fn hook(&mut self, _params: &Params, _intermediates: &[u8], _ignore: bool, _action: char) {
        // `vt100` ignores DCS strings; flagging them costs little and keeps the
        // classification honest if that ever changes.
        self.class.complex = true;
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], _ignore: bool, c: char) {
        match intermediates.first() {
            None => match c {
                // Row-local edits at the cursor: ICH, DCH, ECH, EL.
                '@' | 'P' | 'X' | 'K' => {
                    self.class.writes = true;
                    self.class.plain = false;
                },
                // Moves within the cursor row.
                'C' | 'D' | 'G' | '`' => self.class.plain = false,
                // SGR, window ops.
                'm' | 't' => {},
                'S' | 'T' => {
                    let n = params
                        .iter()
                        .next()
                        .and_then(|p| p.first().copied())
                        .unwrap_or(0);
                    self.class.csi_scroll += u64::from(n.max(1));
                    self.class.complex = true;
                },
                'r' => {
                    self.set_region(params);
                    self.class.complex = true;
                },
                // Vertical moves, CUP, ED, IL, DL, REP, VPA.
                'A' | 'B' | 'E' | 'F' | 'H' | 'f' | 'J' | 'L' | 'M' | 'b' | 'd' => {
                    self.class.complex = true;
                },
                // Unknown to `vt100`: ignored.
                _ => {},
            },
            Some(b'?') => match c {
                'h' => self.private_mode(params, true),
                'l' => self.private_mode(params, false),
                'K' => {
                    self.class.writes = true;
                    self.class.plain = false;
                },
                'J' => self.class.complex = true,
                _ => {},
            },
            // Cursor style (`CSI SP q`) and everything `vt100` does not handle.
            Some(_) => {},
        }
    }

    fn esc_dispatch(&mut self, intermediates: &[u8], _ignore: bool, byte: u8) {
        if !intermediates.is_empty() {
            // Charset designations and the like: `vt100` ignores them.
            return;
        }
        match byte {
            // DECRC moves the cursor anywhere; RI scrolls down; RIS resets all.
            b'8' | b'M' => self.class.complex = true,
            b'c' => {
                self.class.complex = true;
                self.alt = false;
                self.region_main = false;
                self.region_alt = false;
            },
            _ => {},
        }
    }

    fn terminated(&self) -> bool {
        self.pending > 0
    }
}
