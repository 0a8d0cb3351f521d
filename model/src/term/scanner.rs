//! The OSC scanner: finds titles, bells and terminal notifications in raw pane
//! output, independently of the VT parser
//! (docs/terminal.md#the-osc-scanner-and-the-bell).
//!
//! ```text
//!            ESC                 ]
//!  Ground ────────▶ Esc ──────────────────▶ Osc ──BEL──▶ dispatch, Ground
//!    ▲  │BEL=bell    │other: Ground          │ESC
//!    │  ▼            │                       ▼
//!    └── Bell        │              OscEsc ──\──▶ dispatch, Ground
//!                    │                       ──]──▶ new Osc (the old one is dropped)
//!                    │              payload over 8 KiB ──▶ Discard (until BEL or ST)
//! ```
//!
//! The state carries across chunks, so a sequence split anywhere decodes the same.

use super::sanitize::{MAX_BODY_CHARS, MAX_TITLE_CHARS, sanitize};
use serde::{Deserialize, Serialize};

/// The longest sequence carried between chunks, `ESC ]` included
/// (docs/terminal.md#the-osc-scanner-and-the-bell). A longer one is dropped whole,
/// even when it arrives in one chunk, so the outcome never depends on where the
/// reads were cut.
pub const MAX_OSC_CARRY_BYTES: usize = 8192;

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;

/// Something the scanner found in the output, in stream order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TermEvent {
    /// OSC 0, 1 or 2: the new title, sanitized (≤ 200 characters) and never empty.
    Title(String),
    /// A BEL outside any OSC sequence.
    Bell,
    /// OSC 9, 99 or 777. `title` and `body` are sanitized (≤ 200 and ≤ 2000
    /// characters); `title` is `None` when none was given or it sanitized to
    /// nothing; `body` may be empty after sanitizing.
    Notification {
        /// Which OSC produced it.
        source: NotificationSource,
        /// The explicit title (OSC 99 and 777 only).
        title: Option<String>,
        /// The body.
        body: String,
    },
    /// Bytes the terminal owes the program: answers to its queries (cursor
    /// position, device attributes, colours), in the order asked.
    Reply(Vec<u8>),
}

/// The OSC number a notification came from; `as_str` gives its wire name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NotificationSource {
    /// iTerm2/ConEmu `OSC 9 ; body`.
    Osc9,
    /// Kitty `OSC 99 ; metadata ; body` (parsed leniently).
    Osc99,
    /// rxvt/Ghostty/WezTerm `OSC 777 ; notify ; title ; body`.
    Osc777,
}

impl NotificationSource {
    /// The `source` field of a notification record: `osc9`, `osc99` or `osc777`.
    pub fn as_str(self) -> &'static str {
        match self {
            NotificationSource::Osc9 => "osc9",
            NotificationSource::Osc99 => "osc99",
            NotificationSource::Osc777 => "osc777",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum State {
    Ground,
    /// After an `ESC` outside a sequence.
    Esc,
    /// Inside `ESC ] …`, collecting the payload.
    Osc,
    /// After an `ESC` inside an OSC: `\` ends it, `]` restarts it.
    OscEsc,
    /// Inside an OSC that outgrew the carry limit: skipped up to its terminator.
    Discard,
    /// After an `ESC` inside a discarded OSC.
    DiscardEsc,
}

/// What a scanner carries between chunks, as it crosses an in-place upgrade
/// (`export.rs`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct ScannerState {
    state: State,
    payload: Vec<u8>,
}

/// The byte-stream scanner of docs/terminal.md#the-osc-scanner-and-the-bell. Feed
/// it every chunk in order.
#[derive(Debug)]
pub struct OscScanner {
    state: State,
    payload: Vec<u8>,
}

impl Default for OscScanner {
    fn default() -> Self {
        OscScanner::new()
    }
}

impl OscScanner {
    /// A scanner in the ground state.
    pub fn new() -> OscScanner {
        OscScanner {
            state: State::Ground,
            payload: Vec::new(),
        }
    }

    /// Gives back the payload buffer when no OSC is being collected (it
    /// grows to up to 8 KiB for a long one).
    pub fn shrink(&mut self) {
        if self.payload.is_empty() {
            self.payload = Vec::new();
        }
    }

    /// Its state, to continue in another process.
    pub(super) fn export(&self) -> ScannerState {
        ScannerState {
            state: self.state,
            payload: self.payload.clone(),
        }
    }

    /// The scanner `export` described, or why the state does not fit: only
    /// an OSC being collected has a payload, and never over the carry limit.
    pub(super) fn import(state: ScannerState) -> Result<OscScanner, String> {
        let collecting = matches!(state.state, State::Osc | State::OscEsc);
        if state.payload.len() + 2 > MAX_OSC_CARRY_BYTES
            || (!collecting && !state.payload.is_empty())
        {
            return Err(format!(
                "an OSC payload of {} bytes in scanner state {:?}",
                state.payload.len(),
                state.state
            ));
        }
        Ok(OscScanner {
            state: state.state,
            payload: state.payload,
        })
    }

    /// Scans one chunk and appends what it found to `events`.
    pub fn scan(&mut self, bytes: &[u8], events: &mut Vec<TermEvent>) {
        let mut i = 0;
        while i < bytes.len() {
            if self.state == State::Ground {
                // Fast path: most output has no ESC and no BEL.
                match bytes[i..].iter().position(|&b| b == ESC || b == BEL) {
                    Some(at) => i += at,
                    None => return,
                }
            }
            let b = bytes[i];
            i += 1;
            self.state = match self.state {
                State::Ground => {
                    if b == BEL {
                        events.push(TermEvent::Bell);
                        State::Ground
                    } else {
                        State::Esc
                    }
                },
                State::Esc => match b {
                    b']' => {
                        self.payload.clear();
                        State::Osc
                    },
                    ESC => State::Esc,
                    BEL => {
                        events.push(TermEvent::Bell);
                        State::Ground
                    },
                    _ => State::Ground,
                },
                State::Osc => match b {
                    BEL => {
                        self.dispatch(events);
                        State::Ground
                    },
                    ESC => State::OscEsc,
                    _ => self.push(&[b]),
                },
                State::OscEsc => match b {
                    b'\\' => {
                        self.dispatch(events);
                        State::Ground
                    },
                    b']' => {
                        self.payload.clear();
                        State::Osc
                    },
                    BEL => {
                        // The BEL still terminates; the stray ESC belongs to the text.
                        if self.push(&[ESC]) == State::Osc {
                            self.dispatch(events);
                        }
                        State::Ground
                    },
                    ESC => match self.push(&[ESC]) {
                        State::Osc => State::OscEsc,
                        _ => State::DiscardEsc,
                    },
                    _ => self.push(&[ESC, b]),
                },
                State::Discard => match b {
                    BEL => State::Ground,
                    ESC => State::DiscardEsc,
                    _ => State::Discard,
                },
                State::DiscardEsc => match b {
                    b'\\' | BEL => State::Ground,
                    b']' => {
                        self.payload.clear();
                        State::Osc
                    },
                    ESC => State::DiscardEsc,
                    _ => State::Discard,
                },
            };
        }
    }

    /// Appends payload bytes, or switches to discarding when the sequence would
    /// outgrow the carry limit. Returns the next state.
    fn push(&mut self, bytes: &[u8]) -> State {
        // Two bytes of the limit are the `ESC ]` introducer.
        if self.payload.len() + bytes.len() + 2 > MAX_OSC_CARRY_BYTES {
            self.payload = Vec::new();
            State::Discard
        } else {
            self.payload.extend_from_slice(bytes);
            State::Osc
        }
    }

    fn dispatch(&mut self, events: &mut Vec<TermEvent>) {
        if let Some(event) = parse_osc(&self.payload) {
            events.push(event);
        }
        self.payload.clear();
    }
}

/// Interprets one OSC payload (the bytes between `ESC ]` and the terminator).
fn parse_osc(payload: &[u8]) -> Option<TermEvent> {
    let (ps, pt) = match payload.iter().position(|&b| b == b';') {
        Some(at) => (&payload[..at], &payload[at + 1..]),
        None => (payload, &[][..]),
    };
    let pt = String::from_utf8_lossy(pt);
    match ps {
        b"0" | b"1" | b"2" => {
            let title = sanitize(&pt, MAX_TITLE_CHARS);
            (!title.is_empty()).then_some(TermEvent::Title(title))
        },
        // `9;4;state;value` is ConEmu's progress report, not a notification.
        b"9" if pt.is_empty() || pt.starts_with("4;") => None,
        b"9" => Some(notification(NotificationSource::Osc9, None, &pt)),
        b"99" => {
            let (title, body) = match pt.split_once(';') {
                Some((meta, body)) if meta.contains(['=', ':']) => (None, body),
                Some((title, body)) => (Some(title.trim()), body),
                None => (None, &*pt),
            };
            (!body.is_empty()).then(|| notification(NotificationSource::Osc99, title, body))
        },
        b"777" => {
            let mut parts = pt.splitn(3, ';');
            match (parts.next(), parts.next(), parts.next()) {
                (Some("notify"), Some(title), Some(body)) => {
                    Some(notification(NotificationSource::Osc777, Some(title), body))
                },
                _ => None,
            }
        },
        _ => None,
    }
}

fn notification(source: NotificationSource, title: Option<&str>, body: &str) -> TermEvent {
    TermEvent::Notification {
        source,
        title: title
            .map(|t| sanitize(t, MAX_TITLE_CHARS))
            .filter(|t| !t.is_empty()),
        body: sanitize(body, MAX_BODY_CHARS),
    }
}
