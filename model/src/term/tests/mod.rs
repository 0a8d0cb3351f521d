//! Tests of the headless terminal: the ring's acceptance cases of
//! docs/terminal.md#acceptance-cases, the scanner cases, properties over
//! generated streams (seeded, and with shrinking) and the memory bound.

mod charsets;
mod conformance;
mod export;
mod fixtures;
mod generated;
mod memory;
mod props;
mod restore;
mod scanner;
mod screen;

use super::*;

/// Test-only switches carried by every `Terminal`.
#[derive(Debug)]
pub(super) struct Checks {
    /// Read the whole grid after every batch instead of the cursor's path.
    pub force_full: bool,
    /// After every batch, check that the ring's screen equals the grid and that
    /// the ring's invariants hold.
    pub verify: bool,
}

impl Default for Checks {
    fn default() -> Self {
        Checks {
            force_full: false,
            verify: true,
        }
    }
}

impl Terminal {
    /// Panics when the ring's screen differs from the grid or an invariant of the
    /// ring breaks. Runs after every batch in tests.
    pub(super) fn check_mirror(&self) {
        if self.checks.verify {
            self.verify_now();
        }
    }

    /// The checks of `check_mirror`, whatever `verify` says. The ring-wide
    /// invariants cost a pass over up to 5000 lines, so per batch they run only
    /// while the history is short or on every 64th seq.
    pub(super) fn verify_now(&self) {
        let grid: Vec<String> = (0..usize::from(self.rows))
            .map(|i| self.screen.row_text(i))
            .collect();
        let check = {
            let ring = self.ring.lock();
            let rows: Vec<&str> = (0..ring.screen_len()).map(|i| ring.screen_row(i)).collect();
            assert_eq!(rows, grid, "the ring's screen differs from the grid");
            ring.len() < 200 || ring.head().is_multiple_of(64)
        };
        if check {
            self.check_ring();
        }
    }

    pub(super) fn check_ring(&self) {
        if let Err(broken) = self.ring.lock().check_invariants() {
            panic!("ring invariant broken: {broken}");
        }
    }
}

fn non_zero(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).expect("a non-zero size")
}

/// A terminal of 24 × 80 fed `bytes` in one chunk.
fn fed(bytes: &[u8]) -> Terminal {
    let mut term = Terminal::new(24, 80);
    term.feed(bytes);
    term
}

fn tail_lines(term: &Terminal, n: usize) -> Vec<String> {
    let tail = term.tail(n);
    if tail.text.is_empty() && term.ring_len() == 0 {
        return Vec::new();
    }
    tail.text.split('\n').map(str::to_owned).collect()
}

#[test]
fn two_lines_reach_the_tail_and_the_screen() {
    let term = fed(b"hello\r\nworld\r\n");
    assert_eq!(tail_lines(&term, 10), ["hello", "world"]);
    assert!(!term.tail(10).truncated);
    assert!(term.screen_text().contains("hello"));
}

#[test]
fn a_utf8_character_split_across_two_feeds_decodes_once() {
    let mut term = Terminal::new(24, 80);
    term.feed(b"caf\xc3");
    term.feed(b"\xa9\r\n");
    assert_eq!(term.tail(10).text, "café");
}

#[test]
fn a_carriage_return_overwrite_leaves_the_final_status() {
    let term = fed(b"Status: Starting\rStatus: Ready   \r\n");
    assert_eq!(term.rendered(0, 200).text, "Status: Ready");
}

#[test]
fn cursor_up_and_erase_line_replace_the_previous_line() {
    let term = fed(b"=== hdr ===\r\nline A\r\n\x1b[1A\x1b[2Kline B\r\n");
    assert_eq!(term.rendered(0, 200).text, "=== hdr ===\nline B");
    assert_eq!(term.tail(200).text, "=== hdr ===\nline B");
}

#[test]
fn erase_line_and_column_one_replace_the_text() {
    let term = fed(b"hello\x1b[2K\x1b[Gbye\r\n");
    assert_eq!(term.rendered(0, 200).text, "bye");
}

#[test]
fn a_spinner_redrawn_fifty_times_leaves_one_line() {
    let mut bytes = Vec::new();
    for i in 0..50 {
        bytes.extend_from_slice(format!("spin {i}\r").as_bytes());
    }
    let term = fed(&bytes);
    let read = term.rendered(0, 200);
    assert_eq!(read.text, "spin 49");
    assert!(!read.dropped);
    assert!(!read.truncated);
    assert_eq!(term.ring_len(), 1);
}

#[test]
fn a_second_rendered_read_returns_only_new_lines() {
    let mut term = fed(b"one\r\ntwo\r\n");
    let first = term.rendered(0, 200);
    assert_eq!(first.text, "one\ntwo");
    term.feed(b"three\r\n");
    let second = term.rendered(first.next_seq, 200);
    assert_eq!(second.text, "three");
    assert!(!second.dropped);
    let unchanged = term.rendered(second.next_seq, 200);
    assert_eq!(unchanged.text, "");
    assert_eq!(unchanged.seq, second.next_seq);
    assert_eq!(unchanged.next_seq, second.next_seq);
    assert!(!unchanged.dropped);
}

#[test]
fn ten_lines_in_one_chunk_keep_their_order() {
    let bytes: String = (0..10).map(|i| format!("line {i}\r\n")).collect();
    let term = fed(bytes.as_bytes());
    let expected: Vec<String> = (0..10).map(|i| format!("line {i}")).collect();
    assert_eq!(term.rendered(0, 200).text, expected.join("\n"));
}

#[test]
fn five_thousand_two_hundred_lines_evict_the_oldest_two_hundred() {
    let bytes: String = (0..5200).map(|i| format!("line {i}\r\n")).collect();
    let term = fed(bytes.as_bytes());
    assert_eq!(term.ring_len(), 5000);
    assert!(term.rendered(1, 200).dropped);
    let all = term.rendered(0, 5000);
    assert!(!all.dropped);
    assert!(!all.truncated);
    assert!(all.text.starts_with("line 200\n"), "{}", &all.text[..20]);
    assert!(all.text.ends_with("\nline 5199"));
}

#[test]
fn a_three_line_read_over_ten_lines_returns_the_newest_three_truncated() {
    let bytes: String = (0..10).map(|i| format!("line {i}\r\n")).collect();
    let term = fed(bytes.as_bytes());
    let read = term.rendered(0, 3);
    assert_eq!(read.text, "line 7\nline 8\nline 9");
    assert!(read.truncated);
    let tail = term.tail(3);
    assert_eq!(tail.text, "line 7\nline 8\nline 9");
    assert!(tail.truncated);
}

#[test]
fn the_alternate_screen_hides_main_text_and_never_reaches_history() {
    let mut history = String::new();
    for i in 0..30 {
        history.push_str(&format!("main {i}\r\n"));
    }
    let mut term = fed(history.as_bytes());
    let main_text = term.rendered(0, 5000).text;
    let main_screen = term.screen_text();
    let before_len = term.ring_len();

    term.feed(b"\x1b[?1049h\x1b[H\x1b[2Jtui frame 1\r\nstatus: busy");
    assert!(term.alternate_screen());
    let cursor = term.head();
    let alt = term.rendered(0, 5000).text;
    assert!(
        !alt.contains("main"),
        "main text visible on the alt screen: {alt}"
    );
    assert_eq!(alt, "tui frame 1\nstatus: busy");

    term.feed(b"\x1b[2;1H\x1b[2Kstatus: done");
    let delta = term.rendered(cursor, 5000);
    assert_eq!(delta.text, "status: done");
    // A full alt repaint scrolls nothing into history.
    for i in 0..40 {
        term.feed(format!("\x1b[H\x1b[2Jframe {i}\r\n").as_bytes());
    }

    term.feed(b"\x1b[?1049l");
    assert!(!term.alternate_screen());
    assert_eq!(term.screen_text(), main_screen);
    assert_eq!(term.rendered(0, 5000).text, main_text);
    assert_eq!(term.ring_len(), before_len);
}

#[test]
fn clearing_the_screen_after_one_line_keeps_ring_len() {
    let mut term = fed(b"only line\r\n");
    let len = term.ring_len();
    term.feed(b"\x1b[2J\x1b[H");
    assert_eq!(term.ring_len(), len);
    assert_eq!(term.tail(10).text, "only line");
}

#[test]
fn styled_rows_carry_colours_attributes_and_wide_characters() {
    let mut term = Terminal::new(3, 10);
    term.feed("\x1b[1;31mA\x1b[0m\x1b[48;2;1;2;3m界\x1b[0m".as_bytes());
    let row = term.styled_row(0);
    assert_eq!(row.len(), 10);
    assert_eq!(row[0].ch, 'A');
    assert_eq!(row[0].fg, CellColor::Indexed(1));
    assert!(row[0].attrs.bold() && !row[0].attrs.italic());
    assert_eq!(row[1].ch, '界');
    assert!(row[1].wide);
    assert_eq!(row[1].bg, CellColor::Rgb(1, 2, 3));
    assert!(row[2].continuation);
    assert_eq!(row[3].fg, CellColor::Default);
    assert!(term.styled_row(3).is_empty());
    assert_eq!(term.cursor(), Some((0, 3)));
    term.feed(b"\x1b[?25l");
    assert_eq!(term.cursor(), None);
}

#[test]
fn resize_keeps_screen_and_scrollback() {
    let bytes: String = (0..40).map(|i| format!("line {i}\r\n")).collect();
    let mut term = fed(bytes.as_bytes());
    let all = term.tail(5000).text;

    term.resize(30, 100);
    assert_eq!(term.size(), (30, 100));
    assert_eq!(term.tail(5000).text, all);
    assert!(term.screen_text().ends_with("line 39"));

    term.resize(10, 100);
    assert_eq!(term.tail(5000).text, all);
    assert!(term.screen_text().ends_with("line 39"));

    term.resize(24, 80);
    assert_eq!(term.tail(5000).text, all);
    term.feed(b"line 40\r\n");
    assert_eq!(term.tail(5000).text, format!("{all}\nline 40"));
}

#[test]
fn narrowing_truncates_rows_without_reflow() {
    let mut term = fed(b"0123456789abcdefghij\r\n");
    term.resize(24, 10);
    assert_eq!(term.screen_text(), "0123456789");
    assert_eq!(term.tail(10).text, "0123456789");
}

#[test]
fn growing_after_scrolling_pads_at_the_bottom() {
    let bytes: String = (0..100).map(|i| format!("row {i}\r\n")).collect();
    let mut term = fed(bytes.as_bytes());
    term.resize(40, 80);
    let screen = term.screen_text();
    assert!(screen.starts_with("row 77\n"), "{screen}");
}

#[test]
fn state_formatted_replays_contents_and_colour() {
    let term = fed(b"\x1b[31mred\x1b[0m plain\r\n\x1b[1;44mbold on blue\x1b[0m\r\n> ");
    // Replayed into an independent emulator.
    let mut replay = vt100::Parser::new(non_zero(24), non_zero(80), 0);
    replay.process(&term.state_formatted());
    assert_eq!(replay.screen().contents(), "red plain\nbold on blue\n>");
    let cell = replay.screen().cell(0, 0).unwrap();
    assert_eq!(cell.contents(), "r");
    assert_eq!(cell.fgcolor(), vt100::Color::Idx(1));
    assert_eq!(replay.screen().cursor_position(), (2, 2));
    let bold = replay.screen().cell(1, 0).unwrap();
    assert!(bold.bold());
    assert_eq!(bold.bgcolor(), vt100::Color::Idx(4));
}

#[test]
fn state_formatted_on_the_alternate_screen_brings_the_main_screen_back() {
    let mut term = fed(b"shell line\r\n$ vim\r\n");
    term.feed(b"\x1b[?1049h\x1b[H\x1b[2J\x1b[7mVIM\x1b[0m");
    let mut replay = Terminal::new(24, 80);
    replay.feed(&term.state_formatted());
    assert!(replay.alternate_screen());
    assert_eq!(replay.screen_text(), "VIM");
    // The program leaves: both sides show the main screen again.
    term.feed(b"\x1b[?1049l");
    replay.feed(b"\x1b[?1049l");
    assert_eq!(replay.screen_text(), term.screen_text());
    assert_eq!(
        replay.screen.cursor_position(),
        term.screen.cursor_position()
    );
}

#[test]
fn mode_1047_switches_screens_and_clears_the_alternate_one_on_exit() {
    let mut term = fed(b"main\r\n");
    term.feed(b"\x1b[?1047halt text");
    assert!(term.alternate_screen());
    // As in xterm and tmux, the cursor stays where it was (row 1).
    assert_eq!(term.tail(10).text, "\nalt text");
    term.feed(b"\x1b[?1047l");
    assert!(!term.alternate_screen());
    assert_eq!(term.tail(10).text, "main");
    term.feed(b"\x1b[?47h");
    assert_eq!(term.screen_text(), "");
    term.feed(b"\x1b[?47l");
}

#[test]
fn mode_1048_saves_and_restores_the_cursor() {
    let mut term = fed(b"ab\x1b[?1048h\r\n\r\nxy\x1b[?1048lZ");
    assert_eq!(term.screen_text(), "abZ\n\nxy");
    term.feed(b"\r\n");
}

#[test]
fn a_full_clear_keeps_the_cleared_text_in_history() {
    let mut term = fed(b"one\r\ntwo\r\nthree\r\n");
    term.feed(b"\x1b[H\x1b[2J");
    term.feed(b"next screen\r\n");
    assert_eq!(term.tail(10).text, "one\ntwo\nthree\nnext screen");
}

/// Reconciling happens per batch (docs/terminal.md#reconciling-the-ring), so a
/// clear and a redraw in the same batch (no CR or LF between them) look like an
/// in-place repaint and the old rows are not kept. Full-screen programs that
/// redraw this way do not flood history.
#[test]
fn a_clear_and_redraw_in_one_batch_repaints_in_place() {
    let mut term = fed(b"one\r\ntwo\r\nthree\r\n");
    term.feed(b"\x1b[H\x1b[2Jnext screen\r\n");
    assert_eq!(term.tail(10).text, "next screen");
}

#[test]
fn a_long_line_wrapping_at_the_bottom_keeps_both_halves() {
    let mut term = Terminal::new(5, 20);
    for i in 0..5 {
        term.feed(format!("line {i}\r\n").as_bytes());
    }
    term.feed(format!("{}{}\r\n", "a".repeat(20), "b".repeat(5)).as_bytes());
    let tail = term.tail(3).text;
    assert_eq!(tail, format!("line 4\n{}\nbbbbb", "a".repeat(20)));
}

#[test]
fn a_bare_line_feed_keeps_the_printed_line() {
    let mut term = Terminal::new(5, 20);
    term.feed(b"a\r\nb\r\nc\r\nd\r\ne\nf\n");
    assert_eq!(term.tail(10).text, "a\nb\nc\nd\ne\n f");
}

#[test]
fn a_scroll_region_below_the_top_is_followed_exactly() {
    // A status line on row 1 stays; the region below it scrolls.
    let mut term = Terminal::new(6, 20);
    term.feed(b"\x1b[1;1Hstatus\x1b[2;6r\x1b[6;1H");
    for i in 0..8 {
        term.feed(format!("\r\nlog {i}").as_bytes());
    }
    assert_eq!(
        term.screen_text(),
        "status\nlog 3\nlog 4\nlog 5\nlog 6\nlog 7"
    );
}

#[test]
fn lines_zero_returns_empty_text() {
    let term = fed(b"a\r\nb\r\n");
    assert_eq!(term.tail(0).text, "");
    assert!(term.tail(0).truncated);
    let read = term.rendered(0, 0);
    assert_eq!(read.text, "");
    assert_eq!(read.seq, term.head());
    assert!(read.truncated);
}

#[test]
fn a_cursor_from_the_future_reads_dropped() {
    let term = fed(b"a\r\n");
    assert!(term.rendered(term.head() + 1, 10).dropped);
    assert!(!term.rendered(term.head(), 10).dropped);
}

#[test]
fn a_new_terminal_reads_empty() {
    let term = Terminal::new(24, 80);
    assert_eq!(term.ring_len(), 0);
    assert_eq!(term.tail(10).text, "");
    assert!(!term.tail(10).truncated);
    let read = term.rendered(0, 10);
    assert_eq!((read.text.as_str(), read.seq), ("", term.head()));
    assert_eq!(term.screen_text(), "");
}

#[test]
fn zero_sizes_count_as_one() {
    let mut term = Terminal::new(0, 0);
    assert_eq!(term.size(), (1, 1));
    term.feed(b"abc\r\n");
    term.resize(0, 0);
    assert_eq!(term.size(), (1, 1));
}

#[test]
fn feed_returns_scanner_events_in_order() {
    let mut term = Terminal::new(24, 80);
    let events = term.feed(b"\x1b]0;my title\x07text\x07\x1b]9;done\x1b\\");
    assert_eq!(
        events,
        [
            TermEvent::Title("my title".into()),
            TermEvent::Bell,
            TermEvent::Notification {
                source: NotificationSource::Osc9,
                title: None,
                body: "done".into(),
            },
        ]
    );
    assert_eq!(term.screen_text(), "text");
}

/// Runs the memory measurement in a child process so other tests' allocations
/// cannot blur it.
#[test]
fn an_unterminated_osc_of_64_mib_keeps_memory_bounded() {
    const CHILD: &str = "SIGNALTTY_TERM_RSS_CHILD";
    if std::env::var_os(CHILD).is_some() {
        measure_unterminated_osc();
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "term::tests::an_unterminated_osc_of_64_mib_keeps_memory_bounded",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("1 passed"),
        "the child ran no test:\n{stdout}"
    );
}

fn measure_unterminated_osc() {
    fn rss_kib() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }
    let mut term = Terminal::new(24, 80);
    term.checks.verify = false;
    term.feed(b"before\r\n");
    let before = rss_kib();
    term.feed(b"\x1b]0;");
    let chunk = vec![b'x'; 64 * 1024];
    for _ in 0..1024 {
        assert!(term.feed(&chunk).is_empty());
    }
    let grown = rss_kib().saturating_sub(before);
    println!("RSS grew by {grown} KiB over a 64 MiB unterminated OSC");
    assert!(grown < 32 * 1024, "RSS grew by {grown} KiB");
    // The terminal still works and the OSC never produced a title.
    assert!(term.feed(b"\x07after\r\n").is_empty());
    assert!(term.tail(10).text.ends_with("after"));
}

/// Programs that ask the terminal something get an answer, in the order they
/// asked: cursor position, status, device attributes, modes and colours.
#[test]
fn terminal_queries_are_answered_in_order() {
    let mut term = Terminal::new(24, 80);
    let replies = |events: Vec<TermEvent>| -> Vec<u8> {
        events
            .into_iter()
            .filter_map(|e| match e {
                TermEvent::Reply(b) => Some(b),
                _ => None,
            })
            .flatten()
            .collect()
    };
    let got = replies(term.feed(b"\x1b[3;5H\x1b[6n\x1b[5n\x1b[c\x1b[>c"));
    assert_eq!(
        String::from_utf8_lossy(&got),
        "\x1b[3;5R\x1b[0n\x1b[?62;22c\x1b[>1;10;0c"
    );
    let got =
        replies(term.feed(b"\x1b[?2004h\x1b[?2004$p\x1b[?1007$p\x1b]11;?\x07\x1b]10;?\x1b\\"));
    assert_eq!(
        String::from_utf8_lossy(&got),
        "\x1b[?2004;1$y\x1b[?1007;0$y\x1b]11;rgb:0000/0000/0000\x07\x1b]10;rgb:d0d0/d0d0/d0d0\x1b\\"
    );
    // Ordinary output owes nothing, and a query changes nothing on screen.
    assert!(replies(term.feed(b"hello")).is_empty());
    assert!(term.screen_text().contains("hello"));
}

/// `pane.submit` brackets a paste only for a program that asked for it.
#[test]
fn bracketed_paste_is_the_programs_to_ask_for() {
    let mut term = Terminal::new(24, 80);
    assert!(!term.bracketed_paste(), "off until asked");
    term.feed(b"\x1b[?2004h");
    assert!(term.bracketed_paste());
    term.feed(b"\x1b[?2004l");
    assert!(!term.bracketed_paste());
}

/// The grid's parser keeps only the head of an OSC (it reads nothing but the
/// colour queries from one): a long title still reaches the scanner whole,
/// the grid is untouched, and a query after it is answered.
#[test]
fn a_long_osc_is_read_by_the_scanner_and_the_grid_answers_the_query_after_it() {
    let mut term = Terminal::new(24, 80);
    let title = "t".repeat(3000);
    let mut bytes = format!("before\x1b]0;{title}\x07").into_bytes();
    bytes.extend_from_slice(b"\x1b]11;?\x07after");
    let events = term.feed(&bytes);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, TermEvent::Title(t) if t.len() > OSC_KEPT * 2 && t.chars().all(|c| c == 't'))),
        "{events:?}"
    );
    let replies: Vec<u8> = events
        .into_iter()
        .filter_map(|e| match e {
            TermEvent::Reply(b) => Some(b),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(
        String::from_utf8_lossy(&replies),
        "\x1b]11;rgb:0000/0000/0000\x07"
    );
    assert!(
        term.screen_text().contains("beforeafter"),
        "{}",
        term.screen_text()
    );
}
