//! JSON-lines framing for requests. Unlike tokio-util's `LinesCodec` this decoder
//! never returns an error for bad input (a `FramedRead` ends its stream after the
//! first decoder error, which would drop the connection): an over-long line becomes
//! `Frame::TooLong` once and is discarded up to its newline, and UTF-8 and JSON are
//! checked later by the request parser, so the connection always survives.

use bytes::{Buf, Bytes, BytesMut};
use tokio_util::codec::Decoder;

/// One framed unit of client input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A complete line without its `\n` (and without a trailing `\r`).
    Line(Bytes),
    /// A line longer than the limit; its bytes were discarded.
    TooLong,
}

/// Splits a byte stream into lines of at most `max_line` bytes.
#[derive(Debug)]
pub struct JsonLines {
    max_line: usize,
    /// Bytes already searched for a newline in the buffer's current line.
    scanned: usize,
    /// Discarding the rest of an over-long line.
    discarding: bool,
}

impl JsonLines {
    /// A decoder accepting lines of up to `max_line` bytes, newline excluded.
    pub fn new(max_line: usize) -> JsonLines {
        JsonLines {
            max_line,
            scanned: 0,
            discarding: false,
        }
    }
}

impl Decoder for JsonLines {
    type Item = Frame;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Frame>, std::io::Error> {
        loop {
            if self.discarding {
                match buf.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        buf.advance(i + 1);
                        self.discarding = false;
                        self.scanned = 0;
                        continue;
                    },
                    None => {
                        buf.clear();
                        return Ok(None);
                    },
                }
            }
            // Search at most one byte past the limit: the newline of a line of
            // exactly `max_line` bytes sits at index `max_line`.
            let end = buf.len().min(self.max_line.saturating_add(1));
            match buf[self.scanned..end].iter().position(|&b| b == b'\n') {
                Some(i) => {
                    let nl = self.scanned + i;
                    self.scanned = 0;
                    let mut line = buf.split_to(nl + 1);
                    line.truncate(nl);
                    if line.last() == Some(&b'\r') {
                        line.truncate(nl - 1);
                    }
                    return Ok(Some(Frame::Line(line.freeze())));
                },
                None if buf.len() > self.max_line => {
                    self.discarding = true;
                    self.scanned = 0;
                    return Ok(Some(Frame::TooLong));
                },
                None => {
                    self.scanned = end;
                    return Ok(None);
                },
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Frame>, std::io::Error> {
        // An unterminated last line is dropped: the client never finished it.
        let frame = self.decode(buf)?;
        if frame.is_none() {
            buf.clear();
        }
        Ok(frame)
    }
}

#[cfg(test)]
mod tests;
