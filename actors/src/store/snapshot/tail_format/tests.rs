//! The tail file's bytes: records framed and read back, and every way a
//! record can be broken stops the reading there.

use super::*;

/// A record of these lines, built in `buf`.
fn record<'a>(
    buf: &'a mut Vec<u8>,
    history: &[&str],
    alt: bool,
    held: usize,
    rows: &[&str],
) -> Record<'a> {
    let mut r = Record::new_in(buf, 64);
    history.iter().for_each(|line| r.history(line));
    r.screen(alt, held);
    rows.iter().for_each(|row| r.row(row));
    r
}

/// A whole file of one record.
fn whole(history: &[&str], alt: bool, held: usize, rows: &[&str]) -> Vec<u8> {
    let mut buf = Vec::new();
    record(&mut buf, history, alt, held, rows)
        .whole_file()
        .to_vec()
}

/// A record to append.
fn framed(history: &[&str], alt: bool, held: usize, rows: &[&str]) -> Vec<u8> {
    let mut buf = Vec::new();
    record(&mut buf, history, alt, held, rows).framed().to_vec()
}

#[test]
fn a_whole_file_is_the_header_and_one_record() {
    let bytes = whole(&["one", "", "two"], false, 3, &["$ ls"]);
    let payload = b"hone\nh\nhtwo\n=main 3\ns$ ls\n";
    let mut expected = HEADER.to_vec();
    expected.extend_from_slice(format!("@{} {:016x}\n", payload.len(), hash(payload)).as_bytes());
    expected.extend_from_slice(payload);
    assert_eq!(bytes, expected);

    let decoded = decode(&bytes).unwrap();
    assert_eq!(decoded.history, ["one", "", "two"]);
    assert_eq!(decoded.screen, ["$ ls"]);
    assert!(!decoded.alt);
    assert_eq!((decoded.records, decoded.good_len), (1, bytes.len()));
}

#[test]
fn records_add_history_and_the_last_screen_wins() {
    let mut file = whole(&["a"], false, 1, &["screen 1"]);
    file.extend_from_slice(&framed(&["b", "c"], false, 3, &["screen 2"]));
    file.extend_from_slice(&framed(&[], true, 3, &["alt row"]));
    let decoded = decode(&file).unwrap();
    assert_eq!(decoded.history, ["a", "b", "c"]);
    assert_eq!(decoded.screen, ["alt row"]);
    assert!(decoded.alt);
    assert_eq!(decoded.records, 3);
}

#[test]
fn history_the_ring_no_longer_held_is_dropped_on_reading() {
    let mut file = whole(&["a", "b", "c"], false, 3, &[]);
    // The ring evicted two lines while one came in.
    file.extend_from_slice(&framed(&["d"], false, 2, &[]));
    assert_eq!(decode(&file).unwrap().history, ["c", "d"]);
}

#[test]
fn a_newline_in_a_line_cannot_break_the_record() {
    let decoded_bytes = whole(&["one\ntwo"], false, 1, &["x\ny"]);
    let decoded = decode(&decoded_bytes).unwrap();
    assert_eq!(decoded.history, ["one two"]);
    assert_eq!(decoded.screen, ["x y"]);
}

#[test]
fn a_file_without_the_header_is_not_version_2_but_a_cut_header_is() {
    assert_eq!(decode(b"plain old tail\n"), None);
    assert_eq!(decode(b"signaltty-tail 3\n"), None);
    let empty = decode(HEADER).unwrap();
    assert_eq!((empty.records, empty.good_len), (0, HEADER.len()));
    // A new file cut short by a crash, however early: no tail, not text.
    for cut in 0..HEADER.len() {
        let torn = decode(&HEADER[..cut]).unwrap();
        assert_eq!(torn.records, 0, "{cut}");
    }
}

#[test]
fn reading_stops_at_the_first_broken_record() {
    let mut good = whole(&["kept"], false, 1, &["row"]);
    let good_len = good.len();
    let next_of = |history: &[&str]| framed(history, false, 2, &["row"]);
    let next = next_of(&["lost"]);
    let payload_at = next.iter().position(|&b| b == b'\n').unwrap() + 1;

    let mut broken: Vec<Vec<u8>> = Vec::new();
    // Cut short anywhere.
    for cut in 1..next.len() {
        broken.push(next[..cut].to_vec());
    }
    // A payload byte changed, the hash changed, the length changed.
    let mut b = next.clone();
    b[payload_at + 1] ^= 0x20;
    broken.push(b);
    let mut b = next.clone();
    b[payload_at - 2] = if b[payload_at - 2] == b'0' {
        b'1'
    } else {
        b'0'
    };
    broken.push(b);
    broken.push(
        String::from_utf8(next.clone())
            .unwrap()
            .replacen("@", "@1", 1)
            .into_bytes(),
    );
    // Zeroes, garbage, a well-hashed payload that does not parse.
    broken.push(vec![0; next.len()]);
    broken.push(b"@x 0000000000000000\n".to_vec());
    for payload in [
        &b"hno screen line\n"[..],
        b"=main 1\nhhistory after\n",
        b"=odd 1\n",
        b"h\0\n=main 1\n",
        b"=main 1",
    ] {
        let mut b = format!("@{} {:016x}\n", payload.len(), hash(payload)).into_bytes();
        b.extend_from_slice(payload);
        broken.push(b);
    }

    for bad in broken {
        let mut file = good.clone();
        file.extend_from_slice(&bad);
        // Whatever follows a broken record is not read either.
        file.extend_from_slice(&next_of(&["after"]));
        let decoded = decode(&file).unwrap();
        assert_eq!(
            decoded.history,
            ["kept"],
            "{:?}",
            String::from_utf8_lossy(&bad)
        );
        assert_eq!((decoded.records, decoded.good_len), (1, good_len));
    }
    good.extend_from_slice(&next);
    assert_eq!(decode(&good).unwrap().history, ["kept", "lost"]);
}

#[test]
fn the_hash_never_changes_between_builds() {
    // Files written by one build are read by the next: these values are fixed.
    assert_eq!(hash(b""), 0x94e4_f203_ba03_d369);
    assert_eq!(hash(b"hone\n=main 1\n"), 0x94ae_bbd6_41f8_8985);
}
