//! The frames of `signaltty bridge --mux` (docs/remote.md#the-link): several
//! protocol connections over one ssh session, one line per frame, so a client
//! runs one ssh process per host however many connections it holds.
//!
//! A frame is `<channel> <payload>`. A payload that starts with `{` is one
//! protocol line of that channel, relayed byte for byte; the others are
//! control words: `open`, `close`, `closed [reason]`, `credit <bytes>`, and on
//! channel 0 (the link itself) `ping <token>` / `pong <token>`. Before the
//! first frame the bridge writes one [`Hello`] line.
//!
//! Flow control is by credit, per channel and per direction: a side may send a
//! channel's data while its credit is above zero (a line may take it below),
//! and the receiver gives [`CREDIT_STEP`] back each time it has passed that
//! many bytes on. Nothing in flight is ever more than [`WINDOW`] plus a line,
//! and one channel that is not read never stops the others.

use serde::{Deserialize, Serialize};

/// The mux format this client and bridge speak.
pub const MUX: &str = "mux/1";
/// The credit a channel starts with, in each direction.
pub const WINDOW: i64 = 1 << 20;
/// The credit given back at a time.
pub const CREDIT_STEP: i64 = WINDOW / 4;

/// The bridge's first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// Always [`MUX`] for this format.
    pub signaltty_bridge: String,
    /// The remote binary's version (`CARGO_PKG_VERSION`).
    pub version: String,
    /// The protocol the remote speaks (`signaltty/1`).
    pub protocol: String,
    /// The socket the bridge relays to.
    pub socket: String,
    /// Whether the bridge started the server.
    #[serde(default)]
    pub started: bool,
}

impl Hello {
    /// Reads a hello line; `None` when `line` is something else.
    pub fn parse(line: &str) -> Option<Hello> {
        if !line.starts_with("{\"signaltty_bridge\"") {
            return None;
        }
        serde_json::from_str(line).ok()
    }
}

/// One frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame<'a> {
    /// One protocol line of a channel.
    Data { ch: u32, line: &'a str },
    /// Client → bridge: connect channel `ch` to the server.
    Open { ch: u32 },
    /// Client → bridge: close channel `ch`.
    Close { ch: u32 },
    /// Bridge → client: channel `ch` ended (the server closed it, or it
    /// could not connect: the reason says).
    Closed { ch: u32, reason: &'a str },
    /// `bytes` more of channel `ch` may be sent.
    Credit { ch: u32, bytes: i64 },
    /// Either side: answer with [`Frame::Pong`].
    Ping { token: &'a str },
    /// The answer to a ping.
    Pong { token: &'a str },
}

impl Frame<'_> {
    /// Parses one line (without its newline).
    pub fn parse(line: &str) -> Result<Frame<'_>, String> {
        let (ch, rest) = line.split_once(' ').unwrap_or((line, ""));
        let ch: u32 = ch
            .parse()
            .map_err(|_| format!("not a mux frame (no channel number): {:.80}", line))?;
        if rest.starts_with('{') {
            return if ch == 0 {
                Err("protocol lines never travel on channel 0".into())
            } else {
                Ok(Frame::Data { ch, line: rest })
            };
        }
        let (word, arg) = rest.split_once(' ').unwrap_or((rest, ""));
        let frame = match (ch, word) {
            (0, "ping") => Frame::Ping { token: arg },
            (0, "pong") => Frame::Pong { token: arg },
            (0, _) => return Err(format!("unknown link frame {word:?}")),
            (_, "open") => Frame::Open { ch },
            (_, "close") => Frame::Close { ch },
            (_, "closed") => Frame::Closed { ch, reason: arg },
            (_, "credit") => Frame::Credit {
                ch,
                bytes: arg
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("bad credit {arg:?}"))?,
            },
            _ => return Err(format!("unknown frame {word:?} on channel {ch}")),
        };
        Ok(frame)
    }

    /// The frame as a line, with its newline.
    pub fn encode(&self) -> String {
        match self {
            Frame::Data { ch, line } => format!("{ch} {line}\n"),
            Frame::Open { ch } => format!("{ch} open\n"),
            Frame::Close { ch } => format!("{ch} close\n"),
            Frame::Closed { ch, reason: "" } => format!("{ch} closed\n"),
            Frame::Closed { ch, reason } => {
                // A reason is one line.
                let reason = reason.replace(['\n', '\r'], " ");
                format!("{ch} closed {reason}\n")
            },
            Frame::Credit { ch, bytes } => format!("{ch} credit {bytes}\n"),
            Frame::Ping { token } => format!("0 ping {token}\n"),
            Frame::Pong { token } => format!("0 pong {token}\n"),
        }
    }
}

/// What one direction of one channel may still send, and what the receiving
/// side owes back: the credit arithmetic of both ends, apart from any I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Bytes this side may still send (may be below zero after a long line).
    pub credit: i64,
    /// Bytes received and passed on that have not been given back yet.
    pub owed: i64,
}

impl Default for Window {
    fn default() -> Self {
        Window {
            credit: WINDOW,
            owed: 0,
        }
    }
}

impl Window {
    /// Whether a line may be sent now.
    pub fn open(&self) -> bool {
        self.credit > 0
    }

    /// A line of `len` bytes (its newline included) was sent.
    pub fn sent(&mut self, len: usize) {
        self.credit -= i64::try_from(len).unwrap_or(i64::MAX);
    }

    /// The peer gave `bytes` back.
    pub fn granted(&mut self, bytes: i64) {
        self.credit = self.credit.saturating_add(bytes);
    }

    /// A received line of `len` bytes was passed on; returns the credit to
    /// give back now, if a step's worth has built up.
    pub fn consumed(&mut self, len: usize) -> Option<i64> {
        self.owed += i64::try_from(len).unwrap_or(i64::MAX);
        (self.owed >= CREDIT_STEP).then(|| std::mem::take(&mut self.owed))
    }
}

/// The size a data line takes against the window: its payload and newline.
pub fn cost(line: &str) -> usize {
    line.len() + 1
}

#[cfg(test)]
mod tests;
