//! Tests of the JSON-lines framing: lines split at newlines whatever the
//! chunks, and the limits on a line's length.

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
