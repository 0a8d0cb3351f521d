//! Tests of the JSON-lines framing: lines split at newlines whatever the
//! chunks, and the limits on a line's length, by example and over generated
//! bytes and request lines in generated chunkings.

use super::*;

fn frames(max: usize, chunks: &[&[u8]]) -> Vec<Frame> {
    let mut codec = JsonLines::new(max);
    let mut buf = BytesMut::new();
    let mut out = Vec::new();
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        while let Some(f) = codec.decode(&mut buf).unwrap() {
            out.push(f);
        }
    }
    while let Some(f) = codec.decode_eof(&mut buf).unwrap() {
        out.push(f);
    }
    out
}

fn line(s: &str) -> Frame {
    Frame::Line(Bytes::copy_from_slice(s.as_bytes()))
}

#[test]
fn lines_split_at_newlines_and_lose_a_trailing_cr() {
    assert_eq!(frames(100, &[b"a\nb\r\n"]), vec![line("a"), line("b")]);
}

#[test]
fn chunk_boundaries_do_not_change_the_frames() {
    let input = b"{\"x\":1}\n{\"y\":22}\r\n\nlast\n";
    let whole = frames(100, &[input]);
    for split in 0..input.len() {
        let (a, b) = input.split_at(split);
        assert_eq!(frames(100, &[a, b]), whole, "split at {split}");
    }
}

#[test]
fn a_line_of_exactly_the_limit_is_accepted_and_one_more_byte_is_too_long() {
    assert_eq!(
        frames(4, &[b"abcd\nnext\n"]),
        vec![line("abcd"), line("next")]
    );
    assert_eq!(
        frames(4, &[b"abcde\nnext\n"]),
        vec![Frame::TooLong, line("next")]
    );
}

#[test]
fn an_over_long_line_arriving_in_pieces_is_reported_once_and_skipped() {
    let got = frames(4, &[b"abc", b"defgh", b"ijk", b"l\nok\n"]);
    assert_eq!(got, vec![Frame::TooLong, line("ok")]);
}

#[test]
fn an_unterminated_last_line_is_dropped_at_eof() {
    assert_eq!(frames(100, &[b"done\npartial"]), vec![line("done")]);
}

// Generated inputs.

use crate::testkit::generated::config;
use proptest::prelude::*;
use signaltty_protocol::method::Method;
use signaltty_protocol::server::ServerStatusParams;
use signaltty_protocol::workspace::WorkspaceRenameParams;
use signaltty_protocol::{ErrorCode, Request, RequestError, WorkspaceRef};

/// The frames of docs/protocol.md#framing, computed on the whole input: every
/// complete line, `TooLong` when its bytes (a `\r` included) pass `max`, and
/// an unterminated end only when it already passed `max`.
fn expected(max: usize, input: &[u8]) -> Vec<Frame> {
    let mut out = Vec::new();
    let mut rest = input;
    while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
        let raw = &rest[..nl];
        out.push(if raw.len() > max {
            Frame::TooLong
        } else {
            Frame::Line(Bytes::copy_from_slice(
                raw.strip_suffix(b"\r").unwrap_or(raw),
            ))
        });
        rest = &rest[nl + 1..];
    }
    if rest.len() > max {
        out.push(Frame::TooLong);
    }
    out
}

/// Decodes `input` cut at `cuts`, checking after every read that what stays
/// buffered is at most a line of `max` bytes.
fn decoded(max: usize, input: &[u8], cuts: &[usize]) -> Result<Vec<Frame>, TestCaseError> {
    let mut codec = JsonLines::new(max);
    let mut buf = BytesMut::new();
    let mut out = Vec::new();
    let mut start = 0;
    for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
        buf.extend_from_slice(&input[start..cut]);
        start = cut;
        while let Some(f) = codec.decode(&mut buf).expect("never an error") {
            out.push(f);
        }
        prop_assert!(buf.len() <= max, "{} bytes buffered, cap {max}", buf.len());
    }
    while let Some(f) = codec.decode_eof(&mut buf).expect("never an error") {
        out.push(f);
    }
    prop_assert!(buf.is_empty());
    Ok(out)
}

/// Sorted cut positions in `0..=len`.
fn cuts(len: usize, at: &[prop::sample::Index]) -> Vec<usize> {
    let mut cuts: Vec<usize> = at.iter().map(|i| i.index(len + 1)).collect();
    cuts.sort_unstable();
    cuts
}

/// Bytes rich in newlines and carriage returns.
fn noisy_bytes(max_len: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        prop_oneof![
            2 => Just(b'\n'),
            1 => Just(b'\r'),
            1 => Just(b'{'),
            6 => any::<u8>(),
        ],
        0..max_len,
    )
}

/// A request a client could send.
fn request() -> impl Strategy<Value = Request> {
    let method = prop_oneof![
        Just(Method::ServerStatus(ServerStatusParams {})),
        (".{0,12}", ".{0,40}").prop_map(|(ws, name)| {
            Method::WorkspaceRename(WorkspaceRenameParams {
                workspace_id: WorkspaceRef(ws),
                name,
            })
        }),
    ];
    (".{0,10}", method).prop_map(|(id, method)| Request::new(id, method))
}

/// One line of a client's stream: a request, noise, or an over-long line.
#[derive(Debug, Clone)]
enum Piece {
    Request(Box<Request>),
    Noise(Vec<u8>),
    Long(usize),
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        3 => request().prop_map(|r| Piece::Request(Box::new(r))),
        2 => proptest::collection::vec(any::<u8>().prop_map(|b| if b == b'\n' { b' ' } else { b }), 0..40)
            .prop_map(Piece::Noise),
        1 => (0usize..600).prop_map(Piece::Long),
    ]
}

const CAP: usize = 256;

proptest! {
    #![proptest_config(config(256))]

    /// Any bytes in any chunks: the frames of the whole input, and never more
    /// than a line's cap buffered.
    #[test]
    fn any_chunking_of_any_bytes_gives_the_frames_of_the_whole(
        max in 1usize..24,
        input in noisy_bytes(300),
        at in proptest::collection::vec(any::<prop::sample::Index>(), 0..24),
    ) {
        let got = decoded(max, &input, &cuts(input.len(), &at))?;
        prop_assert_eq!(got, expected(max, &input));
    }

    /// A stream of requests, noise and over-long lines in any chunks: each
    /// request comes out as itself, each over-long line as one `TooLong`, and
    /// every other line parses to an error reply.
    #[test]
    fn requests_survive_any_chunking_and_everything_else_is_an_error_reply(
        pieces in proptest::collection::vec(piece(), 0..12),
        crlf in proptest::collection::vec(any::<bool>(), 12),
        at in proptest::collection::vec(any::<prop::sample::Index>(), 0..24),
    ) {
        let mut input = Vec::new();
        for (i, p) in pieces.iter().enumerate() {
            match p {
                Piece::Request(r) => input.extend_from_slice(r.to_line().as_bytes()),
                Piece::Noise(bytes) => input.extend_from_slice(bytes),
                Piece::Long(n) => input.extend(std::iter::repeat_n(b'x', CAP + 1 + n)),
            }
            input.extend_from_slice(if crlf[i] { b"\r\n" } else { b"\n" });
        }
        let frames = decoded(CAP, &input, &cuts(input.len(), &at))?;
        prop_assert_eq!(frames.len(), pieces.len());
        for ((p, frame), crlf) in pieces.iter().zip(&frames).zip(&crlf) {
            match (p, frame) {
                (Piece::Long(_), f) => prop_assert_eq!(f, &Frame::TooLong),
                (Piece::Request(r), f) if r.to_line().len() + usize::from(*crlf) > CAP => {
                    // A request with long escaped text passes the cap too.
                    prop_assert_eq!(f, &Frame::TooLong);
                },
                (_, Frame::TooLong) => prop_assert!(false, "{p:?} read as too long"),
                (Piece::Request(r), Frame::Line(line)) => {
                    let sent = r.to_line();
                    prop_assert_eq!(&line[..], sent.as_bytes());
                    let parsed = Request::parse(line);
                    prop_assert_eq!(parsed.as_ref(), Ok(&**r));
                },
                (Piece::Noise(_), Frame::Line(line)) => match Request::parse(line) {
                    Ok(_) => {},
                    Err(RequestError { error, .. }) => prop_assert!(matches!(
                        error.code,
                        ErrorCode::BadParams | ErrorCode::BadProtocol | ErrorCode::UnknownMethod
                    )),
                },
            }
        }
    }
}
