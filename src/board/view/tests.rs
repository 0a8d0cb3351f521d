//! Rendering tests with ratatui's test backend: what a person sees at 80×24
//! and 200×50, every glyph, an empty server, 200 panes, NO_COLOR, a lost
//! connection, the help and the preview.

use super::glyphs;
use super::*;
use crate::board::keys::HELP;
use crate::board::model::tests::*;
use crate::board::model::{Conn, Flash};
use crate::board::preview::PreviewState;
use crate::paint::GLYPHS;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use signaltty_model::term::Terminal;
use signaltty_protocol::PaneId;
use signaltty_protocol::pane::{AgentKind, Attention, Lifecycle, RestoreState};
use signaltty_protocol::state::DecisionOption;
use std::time::Duration;

pub(super) fn opts(color: bool) -> ViewOpts {
    ViewOpts {
        color,
        now: Instant::now(),
        // Three minutes after the fixtures' panes entered their state.
        now_ms: T0 + 180_000,
        notify: false,
    }
}

pub(super) fn render(
    board: &Board,
    preview: &Preview,
    w: u16,
    h: u16,
    opts: &ViewOpts,
) -> (Buffer, Drawn) {
    let mut term = ratatui::Terminal::new(TestBackend::new(w, h)).unwrap();
    let mut drawn = Drawn::default();
    term.draw(|f| drawn = draw(f, board, preview, opts))
        .unwrap();
    (term.backend().buffer().clone(), drawn)
}

/// The screen as text, one string a row, trailing blanks cut.
pub(super) fn lines(buf: &Buffer) -> Vec<String> {
    let area = buf.area;
    (0..area.height)
        .map(|y| {
            let row: String = (0..area.width).map(|x| buf[(x, y)].symbol()).collect();
            row.trim_end().to_owned()
        })
        .collect()
}

pub(super) fn text(buf: &Buffer) -> String {
    lines(buf).join("\n")
}

/// The column where `word` (one character a cell) starts on row `y`.
pub(super) fn cell_of(buf: &Buffer, y: u16, word: &str) -> u16 {
    let chars: Vec<char> = word.chars().collect();
    (0..buf.area.width)
        .find(|&x| {
            chars.iter().enumerate().all(|(i, c)| {
                let at = x + i as u16;
                at < buf.area.width && buf[(at, y)].symbol() == c.to_string()
            })
        })
        .unwrap_or_else(|| panic!("{word:?} is not on row {y}"))
}

pub(super) fn assert_shows(buf: &Buffer, wanted: &[&str]) {
    let screen = text(buf);
    for w in wanted {
        assert!(screen.contains(w), "{w:?} is not on the screen:\n{screen}");
    }
}

/// The row showing `needle`.
/// The row of the pane line whose name `name` is followed by the kind `kind`.
pub(super) fn pane_row(buf: &Buffer, name: &str, kind: &str) -> Option<u16> {
    lines(buf)
        .iter()
        .position(|l| {
            l.split_once(&format!("{name} "))
                .is_some_and(|(_, rest)| rest.trim_start().starts_with(kind))
        })
        .map(|y| y as u16)
}

pub(super) fn row_with(buf: &Buffer, needle: &str) -> Option<u16> {
    lines(buf)
        .iter()
        .position(|l| l.contains(needle))
        .map(|y| y as u16)
}

/// The two workspaces of the model's fixtures, with a decision queue: pane 2
/// asks permission (Allow once / Deny), pane 4 a read-only question with the
/// agent's own options; pane 1 has a message, pane 3 is resumable.
pub(super) fn busy_board() -> Board {
    let mut world = two_workspaces();
    world[0].panes[0].last_message = Some("refactoring the login form".into());
    world[0].panes[1] = asking(
        world[0].panes[1].clone(),
        decision("d1", "Run `cargo test --workspace`?", T0 + 60_000),
    );
    world[0].panes[2].lifecycle = Lifecycle::Done;
    world[0].panes[2].attention = Attention::Unread;
    world[0].panes[2].restore_state = RestoreState::Resumable;
    world[0].panes[2].last_message = Some("all 212 tests pass".into());
    let mut plan = decision("d2", "Which plan should I follow?", T0 + 90_000);
    plan.answerable = false;
    plan.options = vec![
        DecisionOption {
            id: "1".into(),
            label: "Small steps".into(),
        },
        DecisionOption {
            id: "2".into(),
            label: "Rewrite".into(),
        },
    ];
    world[1].panes[0] = asking(world[1].panes[0].clone(), plan);
    world[1].panes[0].attention = Attention::InputRequired;
    world[1].panes[0].agent.kind = AgentKind::Codex;
    loaded(world)
}

pub(super) fn live_preview(pane: PaneId, bytes: &[u8]) -> Preview {
    let mut term = Terminal::new(24, 80);
    let _ = term.feed(bytes);
    Preview {
        pane: Some(pane),
        term: Some(term),
        state: PreviewState::Live,
    }
}

#[test]
fn at_80x24_the_queue_the_grouped_list_the_preview_and_the_status_fit() {
    let board = busy_board();
    let preview = live_preview(pane_id(1), b"$ cargo build\r\n   Compiling signaltty\r\n");
    let (buf, drawn) = render(&board, &preview, 80, 24, &opts(true));
    println!("{}", text(&buf));
    assert_shows(
        &buf,
        &[
            "2 questions waiting for you",
            "back",
            "Run `cargo test --workspace`?",
            "1 Allow once",
            "2 Deny",
            "server",
            "Which plan should I follow?",
            "answer in the terminal",
            "web  (web)",
            "api  (api)",
            "▸ agents",
            "▸ tests",
            "front",
            "refactoring the login form",
            "e2e",
            "RESUMABLE",
            "3m",
            "preview · front",
            "Compiling signaltty",
            "● live",
            "? keys",
        ],
    );
    // The oldest question first.
    assert!(row_with(&buf, "Run `cargo").unwrap() < row_with(&buf, "Which plan").unwrap());
    // The status line counts per state.
    let status = &lines(&buf)[23];
    for want in ["◆ 2 blocked", "● 1 working", "✓ 1 done", "* 1 unread"] {
        assert!(status.contains(want), "{want:?} not in {status:?}");
    }
    // The one-tab workspace has no tab row.
    assert!(!text(&buf).contains("▸ main"));
    assert_eq!(drawn.list_rows.first(), Some(&Row::Workspace(ws_id(1))));
}

#[test]
fn at_200x50_the_preview_sits_right_of_the_list() {
    let mut board = busy_board();
    board.select(&pane_id(3));
    let preview = live_preview(pane_id(3), b"hello from e2e\r\n");
    let (buf, drawn) = render(&board, &preview, 200, 50, &opts(true));
    assert_shows(
        &buf,
        &[
            "Run `cargo test --workspace`?",
            "1 Allow once  2 Deny",
            "preview · e2e",
            "hello from e2e",
            "/tmp/signaltty/test.sock",
        ],
    );
    let y = row_with(&buf, "hello from e2e").unwrap();
    let x = lines(&buf)[usize::from(y)].find("hello").unwrap();
    assert!(
        x >= usize::from(drawn.list.x + drawn.list.width),
        "the preview is beside the list"
    );
    // The queue is one line an entry when wide.
    let q = row_with(&buf, "Run `cargo").unwrap();
    assert!(lines(&buf)[usize::from(q)].contains("Allow once"));
    assert!(drawn.list.width >= LIST_MIN);
    // The selected pane's queue entry and list line are reverse video.
    let selected = row_with(&buf, "all 212 tests pass").unwrap();
    assert!(
        buf[(drawn.list.x + 3, selected)]
            .modifier
            .contains(Modifier::REVERSED)
    );
}

#[test]
fn the_selected_panes_question_is_highlighted() {
    let mut board = busy_board();
    board.select(&pane_id(2));
    let (buf, _) = render(&board, &Preview::empty(), 120, 40, &opts(true));
    let q = row_with(&buf, "Run `cargo").unwrap();
    assert!(buf[(0, q)].modifier.contains(Modifier::REVERSED));
    let other = row_with(&buf, "Which plan").unwrap();
    assert!(!buf[(0, other)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn a_question_only_the_terminal_shows_is_queued_to_answer_there() {
    let mut world = two_workspaces();
    let gate = &mut world[0].panes[1];
    gate.lifecycle = Lifecycle::Blocked;
    gate.attention = Attention::InputRequired;
    gate.attention_since = Some(ts(T0 + 60_000));
    gate.agent.kind = AgentKind::Codex;
    let mut board = loaded(world);
    board.select(&pane_id(2));
    let (buf, _) = render(&board, &Preview::empty(), 100, 30, &opts(false));
    assert_shows(
        &buf,
        &[
            "1 question waiting",
            "a question on its screen",
            "answer in the terminal",
        ],
    );
    let q = row_with(&buf, "a question on its screen").unwrap();
    let entry = &lines(&buf)[usize::from(q)];
    assert!(
        entry.contains("back") && entry.contains("codex · 2m"),
        "{entry}"
    );
    assert!(
        text(&buf).contains("Enter answer in the terminal"),
        "the hint"
    );
}

pub(super) fn pane_per_state() -> Board {
    let mut panes = Vec::new();
    let mut n = 0;
    for l in Lifecycle::ALL {
        n += 1;
        let mut p = pane(n, 1, 1, &format!("life-{}", l.as_str()));
        p.lifecycle = l;
        panes.push(p);
    }
    for a in Attention::ALL {
        n += 1;
        let mut p = pane(n, 1, 1, &format!("att-{}", a.as_str()));
        p.lifecycle = Lifecycle::Idle;
        p.attention = a;
        panes.push(p);
    }
    loaded(vec![got(
        workspace(1, "states", &[1]),
        vec![tab(1, 1, "t")],
        panes,
    )])
}

#[test]
fn every_lifecycle_and_attention_has_its_own_glyph_on_the_panes_line() {
    let board = pane_per_state();
    for color in [true, false] {
        let (buf, _) = render(&board, &Preview::empty(), 100, 40, &opts(color));
        for l in Lifecycle::ALL {
            let y = row_with(&buf, &format!("life-{} ", l.as_str())).unwrap();
            let (glyph, _) = crate::paint::lifecycle(l);
            assert_eq!(buf[(2, y)].symbol(), glyph, "{l:?}");
        }
        for a in Attention::ALL {
            let y = row_with(&buf, &format!("att-{}", a.as_str())).unwrap();
            let (marker, _) = crate::paint::attention(a);
            assert_eq!(buf[(3, y)].symbol(), marker, "{a:?}");
        }
    }
    // All distinct, all in the legend.
    let mut all: Vec<&str> = Lifecycle::ALL
        .iter()
        .map(|l| crate::paint::lifecycle(*l).0)
        .collect();
    all.extend(
        Attention::ALL
            .iter()
            .filter(|a| **a != Attention::None)
            .map(|a| crate::paint::attention(*a).0),
    );
    let mut unique = all.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), all.len(), "{all:?}");
    for g in &all {
        assert!(
            GLYPHS.iter().any(|(s, _)| s == g),
            "{g} is not in the legend"
        );
        assert_eq!(glyphs::width(g), 1);
    }
    assert_eq!(GLYPHS.len(), all.len());
}

#[test]
fn an_empty_server_shows_how_to_start_a_pane() {
    let board = loaded(vec![]);
    let (buf, drawn) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_shows(
        &buf,
        &[
            "no panes yet — start one with `signaltty new -- claude`",
            "no panes",
            "● live",
        ],
    );
    assert!(drawn.list_rows.is_empty());
    assert_eq!(row_at(&drawn, drawn.list.x, drawn.list.y), None);
    // Before the first answer: connecting, not "empty".
    let board = Board::new("/tmp/s.sock".into());
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_shows(&buf, &["connecting to /tmp/s.sock…", "connecting…"]);
    assert!(!text(&buf).contains("no panes yet"));
    // A first connection that fails: not "empty" either.
    let mut board = Board::new("/tmp/s.sock".into());
    board.conn = Conn::Reconnecting {
        since: Instant::now(),
        why: "No such file or directory".into(),
    };
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_shows(
        &buf,
        &["cannot reach /tmp/s.sock — retrying…", "reconnecting…"],
    );
    assert!(!text(&buf).contains("no panes yet"));
}

#[test]
fn a_filter_matching_nothing_says_so() {
    let mut board = busy_board();
    board.filter_text = "zzz".into();
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_shows(
        &buf,
        &[
            "no pane matches the filter",
            "/zzz",
            "panes 0 of 4 (filtered)",
        ],
    );
}

pub(super) fn two_hundred() -> Board {
    let panes = (1..=200).map(|n| pane(n, 1, 1, &format!("p{n}"))).collect();
    loaded(vec![got(
        workspace(1, "big", &[1]),
        vec![tab(1, 1, "t")],
        panes,
    )])
}

#[test]
fn with_200_panes_the_selection_stays_in_view_and_clicks_map_to_rows() {
    let mut board = two_hundred();
    for (select, w, h) in [(195, 80, 24), (200, 80, 24), (120, 200, 50), (1, 80, 24)] {
        board.select(&pane_id(select));
        let (buf, drawn) = render(&board, &Preview::empty(), w, h, &opts(true));
        let at = drawn
            .list_rows
            .iter()
            .position(|r| *r == Row::Pane(pane_id(select)))
            .unwrap_or_else(|| panic!("p{select} not drawn: {:?}", drawn.list_rows));
        let y = drawn.list.y + at as u16;
        assert_eq!(
            row_at(&drawn, drawn.list.x + 5, y),
            Some(Row::Pane(pane_id(select)))
        );
        assert!(lines(&buf)[usize::from(y)].contains(&format!("p{select} ")));
        assert!(buf[(drawn.list.x, y)].modifier.contains(Modifier::REVERSED));
        assert_eq!(drawn.list_rows.len(), usize::from(drawn.list.height));
        // The rows drawn are the model's, in order.
        let rows = board.rows();
        let from = rows.iter().position(|r| *r == drawn.list_rows[0]).unwrap();
        assert_eq!(drawn.list_rows, rows[from..from + drawn.list_rows.len()]);
        if select == 200 {
            assert_eq!(drawn.list_rows.last(), Some(&Row::Pane(pane_id(200))));
        }
        if select == 1 {
            assert_eq!(drawn.list_rows[0], Row::Workspace(ws_id(1)));
        }
        if select == 195 {
            assert_shows(&buf, &["of 201"]);
        }
    }
    // Outside the list: nothing.
    let (_, drawn) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_eq!(row_at(&drawn, 0, 0), None);
    assert_eq!(row_at(&drawn, 0, 23), None);
}

#[test]
fn no_color_draws_no_colour_and_keeps_the_glyphs_and_reverse_video() {
    let mut board = pane_per_state();
    board.select(&pane_id(2));
    board.flash = Some(Flash {
        text: "cannot answer".into(),
        error: true,
        at: Instant::now(),
    });
    let mut world = busy_board();
    world.select(&pane_id(2));
    let preview = live_preview(
        pane_id(2),
        b"\x1b[31;44mred\x1b[0m \x1b[7minverse\x1b[0m\r\n",
    );
    for (board, preview) in [(&board, &Preview::empty()), (&world, &preview)] {
        for (w, h) in [(80, 24), (200, 50)] {
            let (buf, _) = render(board, preview, w, h, &opts(false));
            for cell in buf.content() {
                assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset), "{cell:?}");
            }
            let screen = text(&buf);
            for glyph in ["●", "◆", "✓"] {
                assert!(screen.contains(glyph));
            }
            let sel = pane_row(&buf, "life-working", "claude")
                .or_else(|| pane_row(&buf, "back", "claude"))
                .unwrap();
            assert!(
                buf[(0, sel)].modifier.contains(Modifier::REVERSED),
                "{sel}\n{}",
                text(&buf)
            );
        }
    }
    // The error flash is marked without colour.
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(false));
    assert_shows(&buf, &["! cannot answer"]);
    // The preview's inverse cell stays reversed.
    let (buf, _) = render(&world, &preview, 200, 50, &opts(false));
    let y = row_with(&buf, "inverse").unwrap();
    let x = cell_of(&buf, y, "inverse");
    assert!(buf[(x, y)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn a_lost_connection_marks_the_list_stale() {
    let mut board = busy_board();
    let since = Instant::now();
    board.conn = Conn::Reconnecting {
        since,
        why: "connection refused".into(),
    };
    let mut o = opts(true);
    o.now = since + Duration::from_secs(12);
    let (buf, drawn) = render(&board, &Preview::empty(), 80, 24, &o);
    assert_shows(
        &buf,
        &[
            "showing the state as of 12s ago — reconnecting…",
            "reconnecting… (12s): connection refused",
            "no preview while not connected",
        ],
    );
    // The banner is above the rows, and the rows are dimmed.
    let banner = row_with(&buf, "showing the state").unwrap();
    assert!(banner < drawn.list.y);
    let front = row_with(&buf, "front").unwrap();
    assert!(buf[(5, front)].modifier.contains(Modifier::DIM));
    assert!(!text(&buf).contains("● live"));
}

#[test]
fn the_help_popup_lists_every_key_and_the_legend() {
    let mut board = busy_board();
    board.mode = Mode::Help;
    for (w, h) in [(80, 24), (200, 50)] {
        let (buf, _) = render(&board, &Preview::empty(), w, h, &opts(true));
        let mut want: Vec<&str> = HELP.iter().flat_map(|(k, what)| [*k, *what]).collect();
        want.extend(GLYPHS.iter().map(|(_, what)| *what));
        assert_shows(&buf, &want);
    }
}

#[test]
fn the_restore_tags_and_times_in_state() {
    let mut board = busy_board();
    board.panes.get_mut(&pane_id(1)).unwrap().restore_state = RestoreState::Restored;
    board.panes.get_mut(&pane_id(1)).unwrap().lifecycle_since = Some(ts(T0 + 168_000));
    let (buf, _) = render(&board, &Preview::empty(), 120, 30, &opts(true));
    let front = &lines(&buf)[usize::from(pane_row(&buf, "front", "claude").unwrap())];
    assert!(front.contains("12s RESTORED"), "{front}");
    let e2e = &lines(&buf)[usize::from(row_with(&buf, "e2e").unwrap())];
    assert!(e2e.contains("3m RESUMABLE"), "{e2e}");
    let server = &lines(&buf)[usize::from(row_with(&buf, "server ").unwrap())];
    assert!(!server.contains("RES"), "{server}");
}

/// An agent newer than the versions its rules were checked on shows its kind
/// with a `?`; a checked one and one of unknown version do not.
#[test]
fn an_unverified_agent_version_marks_its_kind() {
    let mut board = busy_board();
    let front = board.panes.get_mut(&pane_id(1)).unwrap();
    front.agent.version = Some("9.0.0".into());
    front.agent.fidelity = Some(signaltty_protocol::pane::Fidelity::Unverified);
    let (buf, _) = render(&board, &Preview::empty(), 120, 30, &opts(true));
    let row = pane_row(&buf, "front", "claude?").expect("the unverified pane's row");
    let line = &lines(&buf)[usize::from(row)];
    assert!(line.contains("claude? "), "{line}");
    let e2e = &lines(&buf)[usize::from(row_with(&buf, "e2e").unwrap())];
    assert!(!e2e.contains('?'), "{e2e}");
    board.panes.get_mut(&pane_id(1)).unwrap().agent.fidelity =
        Some(signaltty_protocol::pane::Fidelity::Checked);
    let (buf, _) = render(&board, &Preview::empty(), 120, 30, &opts(true));
    assert!(!text(&buf).contains("claude?"));
}

#[test]
fn tiny_terminals_do_not_panic() {
    let board = busy_board();
    let preview = live_preview(pane_id(1), b"hi\r\n");
    for (w, h) in [
        (1, 1),
        (2, 2),
        (10, 3),
        (20, 5),
        (80, 4),
        (119, 13),
        (120, 6),
    ] {
        let (_, drawn) = render(&board, &preview, w, h, &opts(true));
        assert!(drawn.list_rows.len() <= usize::from(drawn.list.height));
    }
    let mut help = busy_board();
    help.mode = Mode::Help;
    let _ = render(&help, &preview, 10, 5, &opts(true));
}

#[test]
fn text_helpers() {
    assert_eq!(glyphs::age(T0, T0 + 12_000), "12s");
    assert_eq!(glyphs::age(T0, T0 + 3 * 60_000 + 59_000), "3m");
    assert_eq!(glyphs::age(T0, T0 + 2 * 3_600_000), "2h");
    assert_eq!(glyphs::age(T0, T0 + 4 * 86_400_000), "4d");
    assert_eq!(glyphs::age(T0, T0 - 5_000), "0s");
    assert_eq!(glyphs::truncate("hello world", 6), "hello…");
    assert_eq!(glyphs::truncate("hello", 5), "hello");
    assert_eq!(glyphs::truncate("日本語", 4), "日…");
    assert_eq!(
        glyphs::truncate_left("/run/user/1000/s.sock", 8),
        "…/s.sock"
    );
    assert_eq!(glyphs::pad("ab", 4), "ab  ");
    assert_eq!(glyphs::one_line(" two\nlines\t\x1b[31m "), "two lines [31m");
}
