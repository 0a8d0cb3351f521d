//! A replay streamed from the journal files (docs/persistence.md#replay-coverage):
//! both generations opened once, under the rotation lock, then read a line at
//! a time, so a replay costs the server one read buffer and one batch of lines
//! whatever the journal's size. A first pass checks every record in the range
//! and counts the matching ones (the reply's `returned`); the second pass,
//! over the same descriptors, hands out the frames in batches as the client
//! reads them.

use crate::actors::connection::reply::ReplayFeed;
use crate::domain::events::EventFilter;
use bytes::Bytes;
use serde::Deserialize;
use serde_json::value::RawValue;
use signaltty_protocol::{PROTOCOL, Seq};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

/// The read buffer of each generation.
const READ_BUFFER: usize = 64 * 1024;

/// A journal line with its payload left as text.
#[derive(Deserialize)]
struct RawRecord<'a> {
    seq: u64,
    #[serde(borrow)]
    event: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    payload: &'a RawValue,
}

/// Just a line's seq: a line that is no record is only an error in the range.
#[derive(Deserialize)]
struct SeqOnly {
    seq: u64,
}

/// One generation being read.
#[derive(Debug)]
struct Generation<R> {
    name: &'static str,
    reader: BufReader<R>,
    /// 1-based number of the line read last, for errors.
    line: usize,
}

/// The replay of `(after, through]` through `filter`, over readers of the two
/// generations, oldest first.
#[derive(Debug)]
pub struct Replay<R> {
    generations: Vec<Generation<R>>,
    at: usize,
    after: Seq,
    through: Seq,
    filter: EventFilter,
    line: Vec<u8>,
    done: bool,
    /// The seq of the last record read in the range (`after` before the
    /// first): a record in the range must be above it.
    last: u64,
}

/// A replay over the journal's own files.
pub type DiskReplay = Replay<File>;

impl DiskReplay {
    /// A replay of the files `open_generations` opened, counted: the count of
    /// matching events, or why the range cannot be replayed.
    pub fn counted(
        (predecessor, current): (Option<File>, File),
        after: Seq,
        through: Seq,
        filter: EventFilter,
    ) -> Result<(DiskReplay, usize), String> {
        let mut sources = Vec::new();
        if let Some(p) = predecessor {
            sources.push(("audit.jsonl.1", p));
        }
        sources.push(("audit.jsonl", current));
        let mut replay = Replay::new(sources, after, through, filter);
        let count = replay.count()?;
        replay.rewind()?;
        Ok((replay, count))
    }

    fn rewind(&mut self) -> Result<(), String> {
        for g in &mut self.generations {
            g.reader
                .seek(SeekFrom::Start(0))
                .map_err(|e| format!("cannot rewind {}: {e}", g.name))?;
            g.line = 0;
        }
        self.at = 0;
        self.done = false;
        self.last = self.after.0;
        Ok(())
    }
}

impl<R: Read> Replay<R> {
    /// A replay over `sources` (name, reader), oldest generation first.
    pub fn new(
        sources: Vec<(&'static str, R)>,
        after: Seq,
        through: Seq,
        filter: EventFilter,
    ) -> Replay<R> {
        let generations = sources
            .into_iter()
            .map(|(name, r)| Generation {
                name,
                reader: BufReader::with_capacity(READ_BUFFER, r),
                line: 0,
            })
            .collect();
        Replay {
            generations,
            at: 0,
            after,
            through,
            filter,
            line: Vec::new(),
            done: false,
            last: after.0,
        }
    }

    /// The matching events left, checking every record in the range.
    pub fn count(&mut self) -> Result<usize, String> {
        let mut n = 0;
        while self.next_event(&mut |_, _, _| n += 1)? {}
        Ok(n)
    }

    /// Up to about `max_bytes` of frames, ascending; `None` once every one was
    /// handed out.
    pub fn batch(&mut self, max_bytes: usize) -> Result<Option<Vec<(u64, Bytes)>>, String> {
        if self.done {
            return Ok(None);
        }
        let mut out = Vec::new();
        let mut bytes = 0;
        while bytes < max_bytes {
            let more = self.next_event(&mut |seq, event, payload| {
                let frame = frame(seq, event, payload);
                bytes += frame.len();
                out.push((seq, Bytes::from(frame)));
            })?;
            if !more {
                break;
            }
        }
        Ok(Some(out))
    }

    /// Reads on to the next line in the range; calls `matched` if it passes
    /// the filter. False once the range is over.
    fn next_event(
        &mut self,
        matched: &mut dyn FnMut(u64, &str, &RawValue),
    ) -> Result<bool, String> {
        loop {
            if self.done {
                return Ok(false);
            }
            let Some(g) = self.generations.get_mut(self.at) else {
                self.done = true;
                return Ok(false);
            };
            self.line.clear();
            let name = g.name;
            let n = g
                .reader
                .read_until(b'\n', &mut self.line)
                .map_err(|e| format!("cannot read {name}: {e}"))?;
            // Only complete lines count: the file may be growing while it is
            // read, and what grows is past `through`.
            if n == 0 || self.line.last() != Some(&b'\n') {
                self.at += 1;
                continue;
            }
            g.line += 1;
            let number = g.line;
            let text = &self.line[..self.line.len() - 1];
            // One parse a line: the name and the payload stay borrowed text.
            let record = match serde_json::from_slice::<RawRecord<'_>>(text) {
                Ok(record) => record,
                Err(e) => {
                    let seq = serde_json::from_slice::<SeqOnly>(text).map(|s| s.seq);
                    match seq {
                        // A line before the range is not this replay's concern.
                        Ok(seq) if seq <= self.after.0 => continue,
                        _ => {
                            return Err(format!("{name} line {number}: not a journal record: {e}"));
                        },
                    }
                },
            };
            if record.seq <= self.after.0 {
                continue;
            }
            if record.seq > self.through.0 {
                // Seqs only grow, across both generations.
                self.done = true;
                return Ok(false);
            }
            if record.seq <= self.last {
                // A file damaged since it was opened: the replay is ascending
                // without duplicates (docs/persistence.md#order-on-one-connection)
                // or it is not sent.
                return Err(format!(
                    "{name} line {number}: seq {} is not above {}",
                    record.seq, self.last
                ));
            }
            self.last = record.seq;
            if self.passes(&record) {
                matched(record.seq, &record.event, record.payload);
            }
            return Ok(true);
        }
    }

    fn passes(&self, record: &RawRecord<'_>) -> bool {
        if !self.filter.needs_payload(&record.event) {
            return self.filter.matches(&record.event, &serde_json::Value::Null);
        }
        match serde_json::from_str::<serde_json::Value>(record.payload.get()) {
            Ok(payload) => self.filter.matches(&record.event, &payload),
            Err(_) => false,
        }
    }
}

impl ReplayFeed for DiskReplay {
    fn next_batch(&mut self, max_bytes: usize) -> Result<Option<Vec<(u64, Bytes)>>, String> {
        self.batch(max_bytes)
    }
}

/// The event line of docs/protocol.md#event around the journal's payload text,
/// the same bytes as a live frame of the event.
fn frame(seq: u64, event: &str, payload: &RawValue) -> Vec<u8> {
    let event = serde_json::to_string(event).unwrap_or_else(|_| "\"\"".to_owned());
    let payload = payload.get();
    let mut line = Vec::with_capacity(payload.len() + event.len() + 64);
    line.extend_from_slice(b"{\"protocol\":\"");
    line.extend_from_slice(PROTOCOL.as_bytes());
    line.extend_from_slice(b"\",\"type\":\"event\",\"event\":");
    line.extend_from_slice(event.as_bytes());
    line.extend_from_slice(b",\"seq\":");
    line.extend_from_slice(seq.to_string().as_bytes());
    line.extend_from_slice(b",\"payload\":");
    line.extend_from_slice(payload.as_bytes());
    line.extend_from_slice(b"}\n");
    line
}

#[cfg(test)]
mod tests;
