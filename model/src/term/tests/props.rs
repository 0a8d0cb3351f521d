//! Properties over generated output, with a small seeded generator (no new
//! dependency). Every failure names its seed; rerun one with
//! `SIGNALTTY_TERM_SEED=<seed> cargo test -p signaltty-model term::tests::props`.

use super::*;

/// xorshift64*: small, fast and good enough to vary test input.
pub(super) struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The seeds to run: the fixed list, or only `SIGNALTTY_TERM_SEED` when set.
fn seeds(count: u64) -> Vec<u64> {
    match std::env::var("SIGNALTTY_TERM_SEED") {
        Ok(seed) => vec![seed.parse().expect("SIGNALTTY_TERM_SEED is a number")],
        Err(_) => (1..=count)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect(),
    }
}

const WORDS: &[&str] = &[
    "build",
    "ok",
    "error:",
    "warning",
    "src/main.rs:12:5",
    "café",
    "naïve",
    "日本語",
    "表示",
    "🙂",
    "→",
    "─────",
    "│",
    "✓ passed",
    "x",
    "",
];

/// Output a shell, a compiler or a small TUI could produce: text, CR overwrites,
/// cursor moves, erases, colours, screen switches, titles, notifications, bells.
pub(super) fn stream(rng: &mut Rng, tokens: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..tokens {
        let piece = match rng.below(12) {
            0..=7 => line_token(rng),
            8 => format!("\x1b[{};{}H", 1 + rng.below(26), 1 + rng.below(90)),
            9 => format!("\x1b[{}J", rng.pick(&["", "0", "1", "2"])),
            10 if rng.below(2) == 0 => format!("\x1b[{}K", rng.pick(&["", "0", "1", "2"])),
            10 if rng.below(2) == 0 => format!("\x1b[1A\x1b[2Kprogress {}%\r\n", rng.below(100)),
            10 => rng
                .pick(&[
                    "\x1b[?1049h",
                    "\x1b[?1049l",
                    "\x1b[?47h",
                    "\x1b[?47l",
                    "\x1b[?1047h",
                    "\x1b[?1047l",
                ])
                .to_string(),
            _ => rng
                .pick(&[
                    "\x1b[2L",
                    "\x1b[M",
                    "\x1b[1S",
                    "\x1b[T",
                    "\x1bM",
                    "\x1b7",
                    "\x1b8",
                    "\x1b[1A",
                    "\x1b[2B",
                    "\x1b[3;5r",
                    "\x1b[r",
                ])
                .to_string(),
        };
        out.extend_from_slice(piece.as_bytes());
    }
    out
}

/// Line-oriented output: what the main screen of a shell sees from build tools
/// and test runners (text, long wrapping lines, CR overwrites, colours, titles,
/// notifications, bells), with full-screen programs confined to the alternate
/// screen. It leaves out erasing a row before redrawing it: the ring is
/// reconciled per batch (docs/terminal.md#feeding-in-batches) and a chunk can
/// end between the erase and the redraw, where the blank row may read as a
/// scroll on a nearly empty screen.
pub(super) fn line_stream(rng: &mut Rng, tokens: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..tokens {
        let piece = if rng.below(30) == 0 {
            // A full-screen program: anything goes on the alternate screen.
            let mut tui = String::from("\x1b[?1049h\x1b[H\x1b[2J");
            for _ in 0..rng.below(8) {
                tui.push_str(&format!(
                    "\x1b[{};{}H{}\x1b[K",
                    1 + rng.below(30),
                    1 + rng.below(90),
                    rng.pick(WORDS)
                ));
                if rng.below(3) == 0 {
                    tui.push_str("\x1b[2J");
                }
            }
            tui.push_str("\x1b[?1049l");
            tui
        } else {
            line_token(rng)
        };
        out.extend_from_slice(piece.as_bytes());
    }
    out
}

fn line_token(rng: &mut Rng) -> String {
    match rng.below(17) {
        0..=4 => {
            let n = 1 + rng.below(6);
            (0..n)
                .map(|_| *rng.pick(WORDS))
                .collect::<Vec<_>>()
                .join(" ")
        },
        5..=6 => "\r\n".into(),
        7 => "\r".into(),
        8 => format!(
            "\x1b[{}m",
            rng.pick(&["0", "1", "31", "1;32", "38;5;208", "48;2;1;2;3"])
        ),
        9 => format!("{}\r\n", rng.pick(WORDS)),
        10 => format!("\x1b[{}{}", 1 + rng.below(3), rng.pick(&["C", "D", "G"])),
        11 => format!("\x1b]0;title {}\x07", rng.below(100)),
        12 => rng
            .pick(&[
                "\x1b]9;done\x07",
                "\x1b]777;notify;T;B\x1b\\",
                "\x1b]99;i=1;hi\x07",
                "\x1b]9;4;1;50\x07",
                "\x1b]2;t\x1b\\",
            ])
            .to_string(),
        13 => rng.pick(&["\x07", "\t", "\x08"]).to_string(),
        14 => {
            // A long line that wraps, with text varied enough that its rows differ.
            let n = 5 + rng.below(25);
            (0..n)
                .map(|_| format!("{}{}", rng.pick(WORDS), rng.below(1000)))
                .collect::<Vec<_>>()
                .join(" ")
        },
        15 => format!("\r{}{}", rng.pick(WORDS), rng.pick(WORDS)),
        _ => format!("spin {}\r", rng.below(10)),
    }
}

/// What a run must agree on, whatever the chunking.
#[derive(Debug, PartialEq)]
struct Outcome {
    screen: String,
    tail: String,
    rendered: String,
    events: Vec<TermEvent>,
    alt: bool,
}

fn run(bytes: &[u8], cuts: &[usize], rows: u16, cols: u16) -> Outcome {
    let mut term = Terminal::new(rows, cols);
    // The differential test checks the ring against the grid; here speed matters.
    term.checks.verify = false;
    let mut events = Vec::new();
    let mut start = 0;
    for &cut in cuts.iter().chain(std::iter::once(&bytes.len())) {
        events.extend(term.feed(&bytes[start..cut]));
        start = cut;
    }
    Outcome {
        screen: term.screen_text(),
        tail: term.tail(RING_LINES).text,
        rendered: term.rendered(0, RING_LINES).text,
        events,
        alt: term.alternate_screen(),
    }
}

#[track_caller]
fn assert_same(seed: u64, what: &str, expected: &Outcome, got: &Outcome, bytes: &[u8]) {
    if expected != got {
        panic!(
            "seed {seed}: {what} differs\nstream: {:?}\nwhole: {expected:#?}\nsplit: {got:#?}",
            String::from_utf8_lossy(bytes)
        );
    }
}

/// Feeds `bytes` whole, cut at every single position, byte by byte and at 200
/// random cut sets, and checks that `same` holds between each run and the whole.
fn check_chunking(
    seed: u64,
    bytes: &[u8],
    rows: u16,
    cols: u16,
    same: fn(&Outcome, &Outcome) -> bool,
) {
    let mut rng = Rng::new(seed ^ 0x5eed);
    let whole = run(bytes, &[], rows, cols);
    let check = |what: String, cuts: &[usize]| {
        let split = run(bytes, cuts, rows, cols);
        if !same(&whole, &split) {
            assert_same(
                seed,
                &format!("{rows}x{cols}, {what}"),
                &whole,
                &split,
                bytes,
            );
        }
    };
    for cut in 1..bytes.len() {
        check(format!("a cut at {cut}"), &[cut]);
    }
    let every: Vec<usize> = (1..bytes.len()).collect();
    check("byte by byte".into(), &every);
    for _ in 0..200 {
        let mut cuts: Vec<usize> = (0..1 + rng.below(12))
            .map(|_| 1 + rng.below(bytes.len().max(2) - 1))
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        check(format!("cuts {cuts:?}"), &cuts);
    }
}

fn non_blank(text: &str) -> Vec<&str> {
    text.split('\n').filter(|l| !l.is_empty()).collect()
}

#[test]
fn any_chunking_gives_the_same_screen_and_events() {
    for seed in seeds(12) {
        let mut rng = Rng::new(seed);
        let bytes = stream(&mut rng, 40);
        let (rows, cols) = (6 + rng.below(20) as u16, 20 + rng.below(80) as u16);
        check_chunking(seed, &bytes, rows, cols, |a, b| {
            (&a.screen, &a.events, a.alt) == (&b.screen, &b.events, b.alt)
        });
    }
}

#[test]
fn any_chunking_of_line_output_gives_the_same_ring() {
    for seed in seeds(12) {
        let mut rng = Rng::new(seed);
        let bytes = line_stream(&mut rng, 30);
        let (rows, cols) = (8 + rng.below(20) as u16, 20 + rng.below(80) as u16);
        check_chunking(seed, &bytes, rows, cols, |a, b| {
            (&a.screen, &a.events, a.alt) == (&b.screen, &b.events, b.alt)
                && non_blank(&a.tail) == non_blank(&b.tail)
                && non_blank(&a.rendered) == non_blank(&b.rendered)
        });
    }
}

#[test]
fn reading_only_the_cursor_path_matches_reading_the_whole_grid() {
    for seed in seeds(60) {
        let mut rng = Rng::new(seed);
        let bytes = stream(&mut rng, 400);
        let (rows, cols) = (3 + rng.below(30) as u16, 10 + rng.below(120) as u16);
        let mut fast = Terminal::new(rows, cols);
        let mut full = Terminal::new(rows, cols);
        full.checks.force_full = true;
        let mut start = 0;
        while start < bytes.len() {
            let end = (start + 1 + rng.below(300)).min(bytes.len());
            fast.feed(&bytes[start..end]);
            full.feed(&bytes[start..end]);
            assert_eq!(
                fast.ring.lock().lines(),
                full.ring.lock().lines(),
                "seed {seed}: the rings differ after byte {end}"
            );
            assert_eq!(fast.head(), full.head(), "seed {seed}");
            start = end;
        }
    }
}

/// 50 seeds × 4 chunks of 4 KiB: 200 chunks of noise.
#[test]
fn random_bytes_never_panic_and_keep_the_invariants() {
    for seed in seeds(50) {
        let mut rng = Rng::new(seed);
        let mut term = Terminal::new(1 + rng.below(40) as u16, 1 + rng.below(150) as u16);
        term.checks.verify = false;
        let mut chunk = vec![0u8; 4096];
        for round in 0..4 {
            for b in chunk.iter_mut() {
                // Bias towards the bytes that drive the parser.
                *b = match rng.below(8) {
                    0 => 0x1b,
                    1 => *rng.pick(b"\r\n[]?;0123456789HJKmlhr\x07\x9b\x9d\xc3\xe6"),
                    _ => rng.next() as u8,
                };
            }
            term.feed(&chunk);
            if rng.below(4) == 0 {
                term.resize(rng.below(60) as u16, rng.below(200) as u16);
            }
            term.verify_now();
            term.check_ring();
            assert!(term.ring_len() <= RING_LINES, "seed {seed} round {round}");
            let all = term.rendered(0, RING_LINES);
            assert!(all.seq <= all.next_seq, "seed {seed}");
            assert!(!all.dropped, "seed {seed}");
            assert_eq!(all.next_seq, term.head());
            let _ = term.tail(rng.below(6000));
            let _ = term.rendered(rng.next() % (term.head() + 2), rng.below(6000));
            let _ = term.screen_text();
            let _ = term.state_formatted();
        }
    }
}

#[test]
fn a_resize_round_trip_never_panics_and_keeps_history() {
    for seed in seeds(30) {
        let mut rng = Rng::new(seed);
        let mut term = Terminal::new(24, 80);
        term.feed(&stream(&mut rng, 200));
        term.feed(b"\x1b[?1049l\x1b[?47l\r\n");
        for _ in 0..10 {
            term.resize(1 + rng.below(60) as u16, 1 + rng.below(200) as u16);
            term.feed(&stream(&mut rng, 20));
        }
        term.resize(24, 80);
        let state = term.state_formatted();
        let mut replay = Terminal::new(24, 80);
        replay.feed(&state);
        assert_eq!(replay.screen_text(), term.screen_text(), "seed {seed}");
    }
}

/// Prints the ingest rate of coloured shell output. Timing is not asserted; run
/// with `--release -- --nocapture` to read it.
#[test]
fn ingest_of_coloured_shell_output_is_timed() {
    let mut rng = Rng::new(7);
    let mut bytes = Vec::new();
    let target = if cfg!(debug_assertions) {
        1 << 20
    } else {
        10 << 20
    };
    while bytes.len() < target {
        let line = match rng.below(5) {
            0 => format!(
                "\x1b[01;34m{}\x1b[0m  {}.rs  \x1b[01;32m{}\x1b[0m\r\n",
                rng.pick(&["src", "target", "docs"]),
                rng.pick(&["main", "lib", "term", "ring"]),
                rng.pick(&["run.sh", "build", "a.out"]),
            ),
            1 => format!(
                "\x1b[1m\x1b[31merror[E0{}]\x1b[0m\x1b[1m: mismatched types\x1b[0m at src/term/mod.rs:{}:{}\r\n",
                rng.below(999),
                rng.below(900),
                rng.below(80)
            ),
            2 => format!(
                "\x1b[33mcommit {:016x}\x1b[m\r\nAuthor: Someone <a@b.c>\r\n\r\n    {}\r\n",
                rng.next(),
                "fix the thing that broke ".repeat(1 + rng.below(3))
            ),
            3 => format!(
                "test term::tests::case_{} ... \x1b[32mok\x1b[0m\r\n",
                rng.below(500)
            ),
            _ => format!("{}\r\n", "plain text output ".repeat(1 + rng.below(6))),
        };
        bytes.extend_from_slice(line.as_bytes());
    }
    let chunks: Vec<&[u8]> = bytes.chunks(4096).collect();

    let started = std::time::Instant::now();
    let mut bare = vt100::Parser::new(non_zero(24), non_zero(80), 0);
    for chunk in &chunks {
        bare.process(chunk);
    }
    let bare_secs = started.elapsed().as_secs_f64();

    let started = std::time::Instant::now();
    let mut term = Terminal::new(24, 80);
    term.checks.verify = false;
    for chunk in &chunks {
        term.feed(chunk);
    }
    let secs = started.elapsed().as_secs_f64();
    let mb = bytes.len() as f64 / 1e6;
    println!(
        "ingest: {mb:.1} MB in {secs:.3} s = {:.1} MB/s (vt100 alone: {:.1} MB/s)",
        mb / secs,
        mb / bare_secs
    );
    assert_eq!(term.ring_len(), RING_LINES);
    let vt100_rows: Vec<String> = bare
        .screen()
        .rows(0, 80)
        .map(|row| row.trim_end().to_owned())
        .collect();
    let rows: Vec<String> = (0..24).map(|i| term.screen.row_text(i)).collect();
    assert_eq!(vt100_rows, rows);
}

/// Like [`stream`], plus wide characters at the right edge, inserts and
/// deletes, tabs and repeats: what `vt100` implements. It leaves out what
/// `vt100` lacks (`ESC D`, `ESC E`, autowrap off, insert mode, 1047, 1048) or
/// does differently from xterm and tmux (47 gives the alternate screen its own
/// cursor; scroll regions: DECSTBM homes to the region, one reaching below the
/// screen is ignored, a wrap below the region scrolls the screen, `ESC M` above
/// it scrolls it; origin mode neither homes the cursor nor applies to VPA);
/// the unit tests and the tmux differential test cover those.
pub(super) fn vt_stream(rng: &mut Rng, tokens: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut alt = false;
    for _ in 0..tokens {
        let piece = match rng.below(17) {
            0..=7 => line_token(rng),
            8 => format!("\x1b[{};{}H", 1 + rng.below(26), 1 + rng.below(90)),
            9 => format!("\x1b[{}J", rng.pick(&["", "0", "1", "2"])),
            10 => format!("\x1b[{}K", rng.pick(&["", "0", "1", "2"])),
            11 => format!(
                "\x1b[{}{}",
                1 + rng.below(4),
                rng.pick(&[
                    "@", "P", "X", "L", "M", "S", "T", "C", "D", "E", "F", "G", "d"
                ])
            ),
            // Up and down end a pending wrap in tmux, not in `vt100`: start from
            // a column.
            15 => format!(
                "\x1b[{}G\x1b[{}{}",
                1 + rng.below(9),
                1 + rng.below(4),
                rng.pick(&["A", "B"])
            ),
            12 => rng
                .pick(&["\x1b[?1049", "\x1b7", "\x1b8", "\t", "\x08", "\n"])
                .to_string(),
            13 => format!(
                "{}{}",
                "w".repeat(rng.below(90)),
                rng.pick(&["日本", "表", "🙂x", "é"])
            ),
            14 => rng
                .pick(&["\x1b[2b", "\x1b[2;1H\x1bM", "\x1b[H\x1bM"])
                .to_string(),
            _ => format!(
                "\x1b[{}m{}",
                rng.pick(&["0", "1", "7", "38;2;9;9;9"]),
                rng.pick(WORDS)
            ),
        };
        if piece == "\x1b[?1049" {
            // Only real switches: `vt100` clears the alternate screen again on a
            // second `?1049h`, xterm and tmux do not. Programs home the cursor
            // after entering; `vt100` gives the alternate screen a cursor of its
            // own, xterm and tmux do not. `vt100` also forgets the alternate
            // screen's saved cursor on entering it, xterm and tmux keep it: a
            // save right after entering sets it alike in both.
            alt = !alt;
            out.extend_from_slice(if alt {
                b"\x1b[?1049h\x1b[H\x1b7"
            } else {
                b"\x1b[?1049l"
            });
            continue;
        }
        out.extend_from_slice(piece.as_bytes());
    }
    out
}

/// The rows of both emulators, as text.
pub(super) fn both_rows(ours: &Terminal, theirs: &vt100::Parser) -> (Vec<String>, Vec<String>) {
    let (rows, cols) = ours.size();
    let expected = theirs
        .screen()
        .rows(0, cols)
        .map(|row| row.trim_end_matches(' ').to_owned())
        .collect();
    let got = (0..usize::from(rows))
        .map(|i| ours.screen.row_text(i))
        .collect();
    (got, expected)
}

/// The grid against an independent emulator, `vt100`: after every chunk of
/// generated output both hold the same text in every row. A failure replays
/// the stream byte by byte and names the first byte after which they differ.
#[test]
fn the_grid_matches_vt100_on_generated_output() {
    for seed in seeds(60) {
        let mut rng = Rng::new(seed);
        let bytes = vt_stream(&mut rng, 300);
        let (rows, cols) = (2 + rng.below(30) as u16, 4 + rng.below(100) as u16);
        let mut ours = Terminal::new(rows, cols);
        ours.checks.verify = false;
        let mut theirs = vt100::Parser::new(non_zero(rows), non_zero(cols), 0);
        let mut start = 0;
        while start < bytes.len() {
            let end = (start + 1 + rng.below(200)).min(bytes.len());
            ours.feed(&bytes[start..end]);
            theirs.process(&bytes[start..end]);
            let (got, expected) = both_rows(&ours, &theirs);
            if got != expected {
                let mut ours = Terminal::new(rows, cols);
                let mut theirs = vt100::Parser::new(non_zero(rows), non_zero(cols), 0);
                for at in 0..end {
                    let before = both_rows(&ours, &theirs).0;
                    ours.feed(&bytes[at..=at]);
                    theirs.process(&bytes[at..=at]);
                    let (got, expected) = both_rows(&ours, &theirs);
                    assert_eq!(
                        got,
                        expected,
                        "seed {seed} ({rows}x{cols}): the grids differ after byte {at}: {:?}; before it: {before:?}",
                        String::from_utf8_lossy(&bytes[at.saturating_sub(80)..=at])
                    );
                }
            }
            start = end;
        }
    }
}
