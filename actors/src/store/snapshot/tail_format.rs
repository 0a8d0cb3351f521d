//! The bytes of a tail file, version 2: a header, then records, each whole
//! in itself, so a save appends only what is new since the last one and a
//! torn append costs nothing but itself.
//!
//! ```text
//!   signaltty-tail 2\n                          header
//!   @<n> <hash>\n<payload of n bytes>           record (hash: 16 hex digits)
//!   @<n> <hash>\n<payload of n bytes>           … one per save that changed it
//!
//!   payload:  h<history line>\n …               lines into history since the last record
//!             =main <h>\n | =alt <h>\n          which screen is shown, and how many
//!                                               history lines the ring holds
//!             s<content row>\n …                the screen's content rows, replacing
//!                                               the previous record's
//! ```
//!
//! Reading keeps every record up to the first one that is cut short, does
//! not match its hash or does not parse, and ignores the rest: that is where
//! a crash or a power loss stopped an append. The history is the newest
//! `<h>` (the last record's) of every record's `h` lines in order — lines the
//! ring evicted since are dropped again — and the screen is the last record's.
//! A file without the header is version 1: the tail text itself.

/// The first line of a version-2 tail file.
pub(super) const HEADER: &[u8] = b"signaltty-tail 2\n";

/// Room kept before a payload for its record head (`@<n> <hash>\n`, at most
/// 1 + 20 + 1 + 16 + 1 bytes) and the file header: the record is then framed
/// in place, without copying the payload.
const ROOM: usize = 64;

/// A record being built in a buffer, then framed in place. The buffer is
/// the caller's, reused from pane to pane: 200 tails are then written from
/// one warm allocation instead of 13 MB of fresh pages.
#[derive(Debug)]
pub(super) struct Record<'a> {
    buf: &'a mut Vec<u8>,
    screen_started: bool,
}

impl<'a> Record<'a> {
    /// An empty record in `buf` (whatever it held), with room for
    /// `payload` bytes.
    pub(super) fn new_in(buf: &'a mut Vec<u8>, payload: usize) -> Record<'a> {
        buf.clear();
        buf.reserve(ROOM + payload);
        buf.resize(ROOM, 0);
        Record {
            buf,
            screen_started: false,
        }
    }

    /// A line into history; all of them come before [`Record::screen`].
    pub(super) fn history(&mut self, line: &str) {
        debug_assert!(!self.screen_started, "history after the screen");
        self.line(b'h', line);
    }

    /// Starts the screen block: which screen is shown, and how many lines
    /// the ring's history holds.
    pub(super) fn screen(&mut self, alt: bool, history_lines: usize) {
        let line = format!("={} {history_lines}\n", if alt { "alt" } else { "main" });
        self.buf.extend_from_slice(line.as_bytes());
        self.screen_started = true;
    }

    /// A content row of the screen, top first, after [`Record::screen`].
    pub(super) fn row(&mut self, line: &str) {
        debug_assert!(self.screen_started, "a row before the screen");
        self.line(b's', line);
    }

    fn line(&mut self, kind: u8, line: &str) {
        self.buf.push(kind);
        let start = self.buf.len();
        self.buf.extend_from_slice(line.as_bytes());
        // Ring lines never hold a newline; if one ever did, it must not end
        // the line early and break the record.
        if memchr::memchr(b'\n', &self.buf[start..]).is_some() {
            for b in &mut self.buf[start..] {
                if *b == b'\n' {
                    *b = b' ';
                }
            }
        }
        self.buf.push(b'\n');
    }

    /// The framed record, to append to a tail file.
    pub(super) fn framed(self) -> &'a [u8] {
        frame(self.buf, false)
    }

    /// A whole file holding only this record.
    pub(super) fn whole_file(self) -> &'a [u8] {
        frame(self.buf, true)
    }
}

/// Writes the record head (and the file header) into the room before the
/// payload, and returns the bytes from there.
fn frame(buf: &mut [u8], with_header: bool) -> &[u8] {
    let payload = &buf[ROOM..];
    let head = format!("@{} {:016x}\n", payload.len(), hash(payload));
    let mut start = ROOM - head.len();
    buf[start..ROOM].copy_from_slice(head.as_bytes());
    if with_header {
        start -= HEADER.len();
        buf[start..start + HEADER.len()].copy_from_slice(HEADER);
    }
    &buf[start..]
}

/// What a version-2 file holds, borrowed from its bytes.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Decoded<'a> {
    /// The history lines, oldest first: every record's, less those the
    /// ring no longer held at the last one.
    pub history: Vec<&'a str>,
    /// The last record's content rows.
    pub screen: Vec<&'a str>,
    /// Whether the last record's screen is the alternate one.
    pub alt: bool,
    /// How many records were read.
    pub records: usize,
    /// The length of the readable part: the bytes after it are torn.
    pub good_len: usize,
}

/// Reads a version-2 file; `None` when `bytes` do not start with its header.
/// A file that is only the start of the header (a new file a crash cut
/// short, or left empty) is one without records.
pub(super) fn decode(bytes: &[u8]) -> Option<Decoded<'_>> {
    if HEADER.starts_with(bytes) && bytes.len() < HEADER.len() {
        return Some(Decoded::default());
    }
    let mut rest = bytes.strip_prefix(HEADER)?;
    let mut out = Decoded {
        good_len: HEADER.len(),
        ..Decoded::default()
    };
    let mut held = 0;
    while let Some((payload, after)) = next_record(rest) {
        let Some(parsed) = parse_payload(payload) else {
            break;
        };
        out.history.extend(parsed.history);
        out.screen = parsed.screen;
        out.alt = parsed.alt;
        held = parsed.held;
        out.records += 1;
        out.good_len = bytes.len() - after.len();
        rest = after;
    }
    let drop = out.history.len().saturating_sub(held);
    out.history.drain(..drop);
    Some(out)
}

/// The payload of the record at the start of `bytes` and what follows it,
/// if the record is whole and matches its hash.
fn next_record(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let bytes = bytes.strip_prefix(b"@")?;
    let end = memchr::memchr(b'\n', &bytes[..bytes.len().min(ROOM)])?;
    let head = std::str::from_utf8(&bytes[..end]).ok()?;
    let (len, digest) = head.split_once(' ')?;
    if len.is_empty() || !len.bytes().all(|b| b.is_ascii_digit()) || digest.len() != 16 {
        return None;
    }
    let len: usize = len.parse().ok()?;
    let digest = u64::from_str_radix(digest, 16).ok()?;
    let body = &bytes[end + 1..];
    if body.len() < len {
        return None;
    }
    let (payload, after) = body.split_at(len);
    (hash(payload) == digest).then_some((payload, after))
}

/// One record's payload.
struct Parsed<'a> {
    history: Vec<&'a str>,
    screen: Vec<&'a str>,
    alt: bool,
    /// The history lines the ring held.
    held: usize,
}

/// A payload, if it is well formed: `h` lines, one `=` line, `s` lines,
/// each ended by a newline.
fn parse_payload(payload: &[u8]) -> Option<Parsed<'_>> {
    // A NUL is never in a ring line: a block a crash left zeroed.
    if memchr::memchr(0, payload).is_some() {
        return None;
    }
    let text = std::str::from_utf8(payload).ok()?;
    let body = text.strip_suffix('\n')?;
    let (mut history, mut screen, mut shown) = (Vec::new(), Vec::new(), None);
    for line in body.split('\n') {
        match (line.as_bytes().first(), shown) {
            (Some(b'h'), None) => history.push(&line[1..]),
            (Some(b'='), None) => {
                let (which, held) = line[1..].split_once(' ')?;
                let alt = match which {
                    "main" => false,
                    "alt" => true,
                    _ => return None,
                };
                if held.is_empty() || !held.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                shown = Some((alt, held.parse().ok()?));
            },
            (Some(b's'), Some(_)) => screen.push(&line[1..]),
            _ => return None,
        }
    }
    let (alt, held) = shown?;
    Some(Parsed {
        history,
        screen,
        alt,
        held,
    })
}

/// A 64-bit hash of `bytes`, eight at a time: enough to tell a torn or
/// zeroed record from a whole one (not meant to resist anyone), at a few
/// microseconds per 64 KiB. Fixed here for good: files written by one build
/// are read by the next.
pub(super) fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = 0x5367_6e61_6c54_5459u64 ^ (bytes.len() as u64).wrapping_mul(K);
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(K).rotate_left(29);
    }
    let mut last = [0u8; 8];
    last[..words.remainder().len()].copy_from_slice(words.remainder());
    h = (h ^ u64::from_le_bytes(last)).wrapping_mul(K);
    h ^= h >> 32;
    h = h.wrapping_mul(K);
    h ^ (h >> 29)
}

#[cfg(test)]
mod tests;
