//! A terminal across an in-place upgrade (`export.rs`): every read answers
//! the same after a round trip, the same further bytes give the same events
//! and reads wherever the export cut the stream, old cursors keep their
//! answers, and a state that does not fit is refused, never a panic.

use super::props::{Rng, stream};
use super::*;
use crate::term::export::REPLAY_BYTES;
use serde_json::Value;

/// Every read of a terminal, and its internal lines and modes.
#[derive(Debug, PartialEq)]
struct Reads {
    size: (u16, u16),
    screen_text: String,
    screen_formatted: String,
    state_formatted: Vec<u8>,
    tails: Vec<Tail>,
    rendered: Vec<Rendered>,
    head: u64,
    ring_len: usize,
    cursor: Option<(u16, u16)>,
    bracketed_paste: bool,
    alternate_screen: bool,
    styled: Vec<Vec<StyledCell>>,
    lines: Vec<(u64, String)>,
    modes: (u16, u16, u16),
}

/// The reads of `term`, `rendered` from 0, around the head and from `cursors`.
fn reads(term: &Terminal, cursors: &[u64]) -> Reads {
    let head = term.head();
    let mut afters = vec![0, 1, head / 2, head.saturating_sub(1), head, head + 1];
    afters.extend_from_slice(cursors);
    let rendered = afters
        .iter()
        .flat_map(|&after| [1, 7, 200, RING_LINES].map(|n| term.rendered(after, n)))
        .collect();
    let rows = usize::from(term.size().0);
    Reads {
        size: term.size(),
        screen_text: term.screen_text(),
        screen_formatted: term.screen_formatted(),
        state_formatted: term.state_formatted(),
        tails: [0, 1, 3, 24, 100, RING_LINES]
            .map(|n| term.tail(n))
            .to_vec(),
        rendered,
        head,
        ring_len: term.ring_len(),
        cursor: term.cursor(),
        bracketed_paste: term.bracketed_paste(),
        alternate_screen: term.alternate_screen(),
        styled: (0..=rows).map(|i| term.styled_row(i)).collect(),
        lines: term.ring.lock().lines(),
        modes: term.screen.modes(),
    }
}

fn json(term: &Terminal) -> String {
    serde_json::to_string(&term.export()).expect("a terminal state serialises")
}

/// `term` exported, through JSON and imported.
fn through_json(term: &Terminal) -> Terminal {
    let state: TermState = serde_json::from_str(&json(term)).expect("the state deserialises");
    Terminal::import(state).expect("an exported state imports")
}

/// Checks that `copy` answers every read as `term` does and exports the same.
#[track_caller]
fn assert_same_terminal(term: &Terminal, copy: &Terminal, cursors: &[u64], what: &str) {
    assert_eq!(
        reads(term, cursors),
        reads(copy, cursors),
        "{what}: reads differ"
    );
    assert_eq!(json(term), json(copy), "{what}: exports differ");
}

/// A session's worth of output, step by step: colours, wide and combining
/// characters, text scrolling into history, a scroll region, a saved cursor,
/// tab stops, modes, a title, a full-screen program.
const SESSION: &[&[u8]] = &[
    b"$ ls --color\r\n\x1b[01;34msrc\x1b[0m  \x1b[38;5;208mCargo.toml\x1b[0m  \x1b[48;2;10;20;30mrgb\x1b[0m\r\n",
    "wide 日本語 and 🙂, combining e\u{301} a\u{308}\u{323}\r\n".as_bytes(),
    b"\x1b]0;build: signaltty\x07\x1b[?2004h",
    b"\x1b[1;4;7mstyled\x1b[22;24;27m plain again\x1b[m\r\n",
    b"\x1b[3g\x1b[5G\x1bH\x1b[17G\x1bH\r\tone\ttwo\r\n",
    b"\x1b[5;12H\x1b7\x1b[20;1Hmoved\x1b8saved\r\n",
    b"\x1b[4;10r\x1b[10;1Hregion\n\n\nscrolled\x1b[r\r\n",
    b"\x1b[?1h\x1b=\x1b[?1002h\x1b[?1006h\x1b[4h",
    b"\x1b[?1049h\x1b[H\x1b[2J\x1b[1;1H\x1b[7m top bar \x1b[m\x1b[12;30Hin the editor\x1b[?25l",
    b"\x1b[?25h\x1b[?1049l",
    b"\x1b[4l\x1b[?1l\x1b>",
    b"the last line without a newline",
];

#[test]
fn a_round_trip_keeps_every_read() {
    let mut term = Terminal::new(24, 80);
    let mut cursors = vec![0];
    for (step, bytes) in SESSION.iter().enumerate() {
        term.feed(bytes);
        if step == 3 {
            for i in 0..60 {
                term.feed(format!("line {i} of a long listing\r\n").as_bytes());
            }
        }
        cursors.push(term.head());
        let direct = Terminal::import(term.export()).expect("an export imports");
        let copy = through_json(&term);
        let what = format!("after step {step}");
        assert_same_terminal(&term, &direct, &cursors, &what);
        assert_same_terminal(&term, &copy, &cursors, &what);
    }
    assert!(term.ring_len() > 24, "history was written");
    assert!(term.bracketed_paste());
}

#[test]
fn a_round_trip_on_the_alternate_screen_keeps_every_read() {
    let mut term = Terminal::new(10, 30);
    for bytes in &SESSION[..9] {
        term.feed(bytes);
    }
    assert!(term.alternate_screen());
    assert_eq!(term.cursor(), None);
    let copy = through_json(&term);
    assert_same_terminal(&term, &copy, &[3, 9], "on the alternate screen");
    let (mut term, mut copy) = (term, copy);
    for bytes in &SESSION[9..] {
        assert_eq!(term.feed(bytes), copy.feed(bytes));
    }
    assert!(!copy.alternate_screen());
    assert_same_terminal(&term, &copy, &[3, 9], "after leaving it");
}

#[test]
fn an_imported_terminal_goes_on_after_a_resize_restore_and_clear() {
    let mut term = Terminal::new(24, 80);
    term.restore(&["saved one".to_owned(), "saved two".to_owned()]);
    term.feed(b"after the restore\r\n");
    term.resize(12, 40);
    let mut copy = through_json(&term);
    assert_same_terminal(&term, &copy, &[1, 2, 5], "after a restore and a resize");
    for terminal in [&mut term, &mut copy] {
        terminal.feed(b"more\r\n\x1b[2J\x1b[H");
        terminal.clear_history();
        terminal.feed(b"fresh\r\n");
        terminal.resize(30, 100);
        terminal.push_screen_into_history();
    }
    assert_same_terminal(&term, &copy, &[1, 2, 5], "after going on");
}

/// About 2 KiB of output with sequences of every kind to cut: CSI with and
/// without parameters, OSC ended by BEL and by ST, DCS, APC and PM strings,
/// queries that are answered, ESC with intermediates, CAN and SUB aborting a
/// sequence, multi-byte and invalid UTF-8, screen switches and scrolling.
fn cut_stream() -> Vec<u8> {
    const PIECES: &[&[u8]] = &[
        b"\x1b[31mred\x1b[0m plain ",
        b"\x1b]0;a title\x07",
        b"\x1b]2;st title\x1b\\",
        b"\x1bP1$qm\x1b\\",
        b"\x1bPq#0;2;0;0;0#0~~@@vv\x1b\\",
        b"\x1b_Gf=24,s=1;AAAA\x1b\\\x1b^private\x1b\\",
        b"\x1b[6n\x1b[c\x1b[>c\x1b[?2004$p",
        b"\x1b]11;?\x07\x1b]10;?\x1b\\",
        "日本語 café e\u{301} 🙂 ".as_bytes(),
        b"bad \xe2\xc3\xa9 \xff\xfe \xc3\x1b[m \xf0\x9f\x99",
        b"\x1bE\x1bD\x1bM\x1b\x1b[1m\x1b(B\x1b)0",
        b"\x1b[3\x18x\x1b[5\x1ay\x1b]0;cancelled\x18",
        b"\x1b[?2004h\x1b[?1002h\x1b[?1006h\x1b[?25l",
        b"\x1b]9;done\x07\x07\x1b]777;notify;T;B\x1b\\",
        b"\x1b[38;2;1;2;3;48;5;200mrgb\x1b[m\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18;19;20;21;22;23;24;25;26;27;28;29;30;31;32;33m",
        b"\x1b7\x1b[5;20H\x1b8\x1b[2;6r\x1b[3S\x1b[r\x1b[?25h",
    ];
    let mut rng = Rng::new(0x0c07_5eed);
    let mut out = Vec::new();
    while out.len() < 2048 {
        if rng.below(3) == 0 {
            let piece: &&[u8] = rng.pick(PIECES);
            out.extend_from_slice(piece);
        } else {
            out.extend_from_slice(&stream(&mut rng, 1));
        }
        if rng.below(4) == 0 {
            out.extend_from_slice(b"\r\n");
        }
    }
    out
}

/// Cuts `from..to` into chunks of the sizes in `sizes`, cycling.
fn chunks(from: usize, to: usize, sizes: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = from;
    for &size in sizes.iter().cycle() {
        if start >= to {
            break;
        }
        let end = (start + size).min(to);
        out.push(start..end);
        start = end;
    }
    out
}

/// For every cut of `bytes` in `cuts`: the terminal that read up to the cut
/// and its copy exported there go on with the same events and end with the
/// same reads. Two ways to reach each cut: chunks of varied sizes, and one
/// chunk then the last two bytes one by one (so that the parser may hold the
/// first byte of a character). Returns how many cuts left the parser inside a
/// sequence.
fn check_cuts(bytes: &[u8], cuts: std::ops::RangeInclusive<usize>) -> usize {
    let lead_ins: [&dyn Fn(usize) -> Vec<std::ops::Range<usize>>; 2] = [
        &|cut| chunks(0, cut, &[1, 7, 3, 64, 2, 13, 5, 200, 1, 1]),
        &|cut| {
            let split = cut.saturating_sub(2);
            let mut ranges = chunks(0, split, &[split]);
            ranges.extend(chunks(split, cut, &[1]));
            ranges
        },
    ];
    let mut mid_sequence = 0;
    for cut in cuts {
        for (way, lead_in) in lead_ins.iter().enumerate() {
            let mut term = Terminal::new(12, 40);
            // Only for speed: the final comparison covers the ring and the grid.
            term.checks.verify = false;
            for range in lead_in(cut) {
                term.feed(&bytes[range]);
            }
            assert!(term.replay.len() <= REPLAY_BYTES);
            mid_sequence += usize::from(term.replay.first() == Some(&ESC));
            let mut copy = through_json(&term);
            copy.checks.verify = false;
            let what = format!("cut at {cut} (lead-in {way})");
            assert_eq!(json(&term), json(&copy), "{what}: exports differ");
            for range in chunks(cut, bytes.len(), &[1, 2, 9, 100, 3, 700]) {
                let at = range.start;
                let (theirs, ours) = (term.feed(&bytes[range.clone()]), copy.feed(&bytes[range]));
                assert_eq!(theirs, ours, "{what}: the events at byte {at} differ");
            }
            assert_same_terminal(&term, &copy, &[], &format!("{what}, at the end"));
        }
    }
    mid_sequence
}

#[test]
fn a_terminal_exported_at_any_cut_goes_on_identically() {
    let bytes = cut_stream();
    let mid_sequence = check_cuts(&bytes, 0..=bytes.len());
    assert!(mid_sequence > 100, "cuts landed inside sequences");
}

/// Past `REPLAY_BYTES` of plain text the replay is only what the parser holds
/// of a character: cut everywhere in what follows such text.
#[test]
fn a_terminal_exported_after_long_plain_text_goes_on_identically() {
    let mut bytes = "plain text, no escape ".repeat(50).into_bytes();
    let from = bytes.len() - 4;
    bytes.extend_from_slice(
        b"\xe2\xc3\xa9 \xf0\x9f\xe2\x82\xac \xc3\xc3\xa9 caf\xc3\xa9 \xff\xe2\r\n",
    );
    bytes.extend_from_slice("日本語 e\u{301}\r\n".as_bytes());
    check_cuts(&bytes, from..=bytes.len());
}

#[test]
fn a_cut_inside_a_sequence_finishes_it_after_the_import() {
    let cases: &[(&[u8], &[u8])] = &[
        (b"plain \x1b[3", b"1mred\x1b[m"),
        (b"\x1b]0;ti", b"tle\x07after"),
        (b"\x1b]0;ti\x1b", b"\\after"),
        (b"caf\xc3", b"\xa9 done"),
        (b"\xf0\x9f", b"\x99\x82 done"),
        (b"\x1bP1$q", b"m\x1b\\not in the string"),
        (b"\x1b[6", b"n"),
        (b"\x1b", b"Enext line"),
    ];
    let long_text = "plain text ".repeat(100);
    // The parser holds a character's first byte: the next chunk did not
    // continue it and started another one, held back as the carry.
    let held: &[(&[&[u8]], &[u8])] = &[
        (&[long_text.as_bytes(), b"\xe2", b"\xc3"], b"\xa9 done"),
        (&[b"\x1b[1m", b"\xe2", b"\xc3"], b"\xa9 done"),
        (&[b"\x1b[1m", b"\xf0\x9f", b"\xe2\x82"], b"\xac\r\n"),
    ];
    let cases = cases.iter().map(|&(before, after)| (vec![before], after));
    for (before, after) in cases.chain(held.iter().map(|&(b, a)| (b.to_vec(), a))) {
        let mut term = Terminal::new(24, 80);
        for chunk in &before {
            term.feed(chunk);
        }
        let mut copy = through_json(&term);
        let what = format!("{:?}", String::from_utf8_lossy(&before.concat()));
        assert_eq!(term.feed(after), copy.feed(after), "{what}: events");
        assert_same_terminal(&term, &copy, &[], &what);
    }
    let mut term = Terminal::new(24, 80);
    term.feed(b"\x1b]0;ti");
    let mut copy = through_json(&term);
    assert_eq!(copy.feed(b"tle\x07"), [TermEvent::Title("title".into())]);
    copy.feed(b"\x1b[3");
    let mut copy = through_json(&copy);
    copy.feed(b"1mred");
    assert_eq!(copy.screen_formatted(), "\x1b[0;31mred\x1b[0m");
}

/// Cursors taken before an export read the same after it, and one whose
/// lines were evicted still reads as dropped.
#[test]
fn cursors_from_before_the_export_read_the_same_after_it() {
    let mut term = Terminal::new(24, 80);
    let mut cursors = Vec::new();
    for i in 0..6000 {
        term.feed(format!("line {i}\r\n").as_bytes());
        if i % 500 == 0 {
            cursors.push(term.rendered(0, 1).next_seq);
        }
    }
    let evicted = cursors[0];
    assert!(term.rendered(evicted, 10).dropped);
    let mut copy = through_json(&term);
    for &cursor in &cursors {
        assert_eq!(
            term.rendered(cursor, 50),
            copy.rendered(cursor, 50),
            "cursor {cursor}"
        );
    }
    assert!(copy.rendered(evicted, 10).dropped);
    let fresh = *cursors.last().expect("cursors were taken");
    assert!(!copy.rendered(fresh, 10).dropped);
    for terminal in [&mut term, &mut copy] {
        terminal.feed(b"one more\r\n");
        terminal.drop_earlier_cursors();
        terminal.feed(b"and another\r\n");
    }
    assert_same_terminal(&term, &copy, &cursors, "after dropping the cursors");
    assert!(copy.rendered(fresh, 10).dropped);
}

#[test]
fn an_export_is_compact() {
    let blank = json(&Terminal::new(24, 80));
    assert!(
        blank.len() < 2_000,
        "a blank 80x24 terminal takes {} bytes",
        blank.len()
    );
    let mut term = Terminal::new(24, 80);
    for i in 0..24 {
        let line = format!(
            "\x1b[3{}m{}\x1b[m {}",
            i % 8,
            "word ".repeat(10),
            "x".repeat(25)
        );
        term.feed(format!("\r\n{line}").as_bytes());
    }
    let full = json(&term);
    assert!(
        full.len() < 12_000,
        "a full 80x24 screen takes {} bytes",
        full.len()
    );
}

/// A small terminal in a state with something in every field.
fn busy_terminal() -> Terminal {
    let mut term = Terminal::new(4, 10);
    term.feed(b"1\r\n2\r\n3\r\n4\r\n5\r\n");
    term.feed("\x1b[H\x1b[3gab\x1bH日\u{301}\x1b[31mr\x1b7\x1b[2;3r".as_bytes());
    term.feed(b"\x1b[?1049h\x1b[7mx\x1b]0;partial");
    term
}

/// Whether `value` is refused, by serde or by the import.
fn refused(value: Value) -> bool {
    match serde_json::from_value::<TermState>(value) {
        Err(_) => true,
        Ok(state) => Terminal::import(state).is_err(),
    }
}

/// What an edit does to a state, and the edit.
type Edit<'a> = (&'a str, &'a dyn Fn(&mut Value));

fn pop(array: &mut Value) {
    if let Some(items) = array.as_array_mut() {
        items.pop();
    }
}

#[test]
fn a_state_that_does_not_fit_is_refused() {
    let good = serde_json::to_value(busy_terminal().export()).expect("serialises");
    assert!(!refused(good.clone()));
    let edits: &[Edit<'_>] = &[
        ("another format", &|v| v["format"] = 2.into()),
        ("more rows", &|v| v["rows"] = 5.into()),
        ("fewer columns", &|v| v["cols"] = 9.into()),
        ("no rows", &|v| {
            v["rows"] = 0.into();
            v["screen"]["rows"] = 0.into();
        }),
        ("a short ring screen", &|v| pop(&mut v["ring"]["screen"])),
        ("a grid row too many", &|v| {
            if let Some(rows) = v["screen"]["main"]["rows"].as_array_mut() {
                rows.push(Value::Object(Default::default()));
            }
        }),
        ("a row too wide", &|v| {
            v["screen"]["main"]["rows"][3]["text"] = "x".repeat(11).into();
        }),
        ("styles for other cells", &|v| {
            v["screen"]["alt"]["rows"][0]["styles"][0][0] = 3.into();
        }),
        ("a colour of no kind", &|v| {
            v["screen"]["cursor"]["pen"]["fg"] = (7u32 << 24).into();
        }),
        ("a cursor below the screen", &|v| {
            v["screen"]["cursor"]["row"] = 4.into();
        }),
        ("a cursor past the width", &|v| {
            v["screen"]["cursor"]["col"] = 11.into();
        }),
        ("a saved cursor off the screen", &|v| {
            v["screen"]["saved"][0]["cursor"]["row"] = u64::MAX.into();
        }),
        ("a scroll region past the bottom", &|v| {
            v["screen"]["bottom"] = 4.into();
        }),
        ("an upside-down region", &|v| v["screen"]["top"] = 3.into()),
        ("tab stops for another width", &|v| {
            pop(&mut v["screen"]["tabs"])
        }),
        ("an unknown mouse mode", &|v| {
            v["screen"]["mouse"] = 7.into()
        }),
        ("combining marks off the row", &|v| {
            v["screen"]["main"]["rows"][0]["combining"][0][0] = 10.into();
        }),
        ("a seq above the head", &|v| {
            v["ring"]["head"] = 3.into();
        }),
        ("a seq twice", &|v| {
            let first = v["ring"]["screen"][0][0].clone();
            v["ring"]["screen"][1][0] = first;
        }),
        ("a ring row unlike the grid", &|v| {
            v["ring"]["screen"][0][1] = "other".into();
        }),
        ("a ring off the alternate screen", &|v| {
            v["ring"]["alt"] = false.into();
        }),
        ("a payload outside an OSC", &|v| {
            v["scanner"]["state"] = "Ground".into();
        }),
        ("a payload over the limit", &|v| {
            v["scanner"]["payload"] = vec![b'x'; MAX_OSC_CARRY_BYTES].into();
        }),
        ("a carry that starts no character", &|v| {
            v["utf8_carry"] = vec![0x80u8].into();
        }),
        ("a complete character carried", &|v| {
            v["utf8_carry"] = vec![0xc3u8, 0xa9].into();
        }),
        ("a replay over the bound", &|v| {
            v["replay"] = vec![ESC; REPLAY_BYTES + 1].into();
        }),
        ("an ESC that was not the last byte", &|v| {
            v["after_esc"] = true.into();
        }),
    ];
    for (what, edit) in edits {
        let mut value = good.clone();
        edit(&mut value);
        assert!(refused(value), "{what} was accepted");
    }
}

/// Every number and string of an exported state replaced by other values:
/// never a panic, and a state the import accepts reads and goes on feeding.
#[test]
fn a_corrupt_state_never_panics() {
    fn leaves(value: &Value, path: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
        match value {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    path.push(i.into());
                    leaves(item, path, out);
                    path.pop();
                }
            },
            Value::Object(fields) => {
                for (key, item) in fields {
                    path.push(key.as_str().into());
                    leaves(item, path, out);
                    path.pop();
                }
            },
            _ => out.push(path.clone()),
        }
    }
    fn at<'a>(value: &'a mut Value, path: &[Value]) -> &'a mut Value {
        path.iter().fold(value, |v, key| match key {
            Value::String(k) => &mut v[k.as_str()],
            _ => &mut v[key.as_u64().unwrap_or(0) as usize],
        })
    }
    let good = serde_json::to_value(busy_terminal().export()).expect("serialises");
    let mut paths = Vec::new();
    leaves(&good, &mut Vec::new(), &mut paths);
    assert!(paths.len() > 50, "{} leaves", paths.len());
    let replacements: [Value; 9] = [
        0.into(),
        1.into(),
        3.into(),
        255.into(),
        65_535.into(),
        u64::MAX.into(),
        (-1).into(),
        "\u{1b}[".into(),
        Value::Null,
    ];
    let mut accepted = 0;
    for path in &paths {
        for replacement in &replacements {
            let mut value = good.clone();
            *at(&mut value, path) = replacement.clone();
            let Ok(state) = serde_json::from_value::<TermState>(value) else {
                continue;
            };
            let Ok(mut term) = Terminal::import(state) else {
                continue;
            };
            accepted += 1;
            let _ = reads(&term, &[1, 5]);
            term.feed(b"\x1b[?1049l\x1b]0;x\x07\xc3\xa9 more\r\n\x1b[2;1H\x1b[@\x1b[P\tz\x1b[4b");
            term.resize(3, 12);
            term.feed(b"\x1b[5Sdone\r\n\x1b#8");
            let _ = reads(&term, &[1, 5]);
        }
    }
    assert!(accepted > 0);
}

/// An export of format 1, as this build writes it: a state a running server
/// handed over must import in the binary that takes over. A change to what
/// `TermState` holds fails this test: bump `FORMAT` and read the old format
/// too, or accept that an upgrade from a server of this version falls back.
const FORMAT_1: &str = r#"{"format":1,"rows":3,"cols":12,
 "screen":{"main":{"cols":12,"rows":[{"text":"first"},{"text":"second"},
  {"text":"hi \u65e5 e","styles":[[2,16777217,0,1,0],[1,0,0,0,0],[1,0,0,0,1],[1,0,0,0,2],[1,0,0,0,4]],
   "combining":[[5,"\u0301"]]}]},
  "alt":null,"rows":3,"cols":12,"cursor":{"row":2,"col":6,"pen":{"fg":0,"bg":0,"attrs":0}},
  "saved":[{"cursor":{"row":2,"col":6,"pen":{"fg":0,"bg":0,"attrs":0}},"origin":false},null],
  "top":0,"bottom":2,"modes":65,"mouse":0,"mouse_encoding":0,
  "tabs":[false,false,false,false,false,false,false,false,false,false,false,false],"last_char":"e"},
 "ring":{"history":[[4,"zero"]],"screen":[[5,"first"],[6,"second"],[9,"hi \u65e5e\u0301"]],
  "head":9,"dropped_floor":0,"evicted_max":0,"alt":false,"pushed":1,"generation":0},
 "scanner":{"state":"Osc","payload":[48,59,116,105,27,91,51,195]},
 "after_esc":false,"utf8_carry":[195],"replay":[27,91,51]}"#;

#[test]
fn the_export_format_stays_readable() {
    let mut live = Terminal::new(3, 12);
    live.feed("zero\r\nfirst\r\nsecond\r\n\x1b[1;31mhi\x1b[m 日e\u{301}".as_bytes());
    live.feed(b"\x1b[3g\x1b[?2004h\x1b7\x1b]0;ti\x1b[3");
    live.feed(b"\xc3");
    let golden: Value = serde_json::from_str(FORMAT_1).expect("the fixture is JSON");
    let exported = serde_json::to_value(live.export()).expect("serialises");
    assert_eq!(exported, golden, "the export format changed");
    let state = serde_json::from_value(golden).expect("format 1 deserialises");
    let mut imported = Terminal::import(state).expect("format 1 imports");
    assert_same_terminal(&live, &imported, &[4, 6], "format 1");
    let more = b"\xa91mred\x07\r\n";
    assert_eq!(live.feed(more), imported.feed(more));
    assert_same_terminal(&live, &imported, &[4, 6], "format 1, going on");
}
