//! Rendering tests with ratatui's test backend: what a person sees at 80×24
//! and 200×50, every glyph, an empty server, 200 panes, NO_COLOR, a lost
//! connection, the help and the preview.

use super::glyphs;
use super::*;
use crate::board::keys::HELP;
use crate::board::model::tests::*;
use crate::board::model::{Conn, Flash, StateFilter, View};
use crate::board::preview::PreviewState;
use crate::paint::{GLYPHS, TASK_GLYPHS};
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use signaltty_model::term::Terminal;
use signaltty_protocol::PaneId;
use signaltty_protocol::pane::{AgentKind, Attention, Lifecycle, RestoreState};
use signaltty_protocol::state::DecisionOption;
use signaltty_protocol::task::{Outcome, TaskDiffResult, TaskState};
use std::time::Duration;

fn opts(color: bool) -> ViewOpts {
    ViewOpts {
        color,
        now: Instant::now(),
        // Three minutes after the fixtures' panes entered their state.
        now_ms: T0 + 180_000,
        notify: false,
    }
}

fn render(board: &Board, preview: &Preview, w: u16, h: u16, opts: &ViewOpts) -> (Buffer, Drawn) {
    let mut term = ratatui::Terminal::new(TestBackend::new(w, h)).unwrap();
    let mut drawn = Drawn::default();
    term.draw(|f| drawn = draw(f, board, preview, opts))
        .unwrap();
    (term.backend().buffer().clone(), drawn)
}

/// The screen as text, one string a row, trailing blanks cut.
fn lines(buf: &Buffer) -> Vec<String> {
    let area = buf.area;
    (0..area.height)
        .map(|y| {
            let row: String = (0..area.width).map(|x| buf[(x, y)].symbol()).collect();
            row.trim_end().to_owned()
        })
        .collect()
}

fn text(buf: &Buffer) -> String {
    lines(buf).join("\n")
}

/// The column where `word` (one character a cell) starts on row `y`.
fn cell_of(buf: &Buffer, y: u16, word: &str) -> u16 {
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

fn assert_shows(buf: &Buffer, wanted: &[&str]) {
    let screen = text(buf);
    for w in wanted {
        assert!(screen.contains(w), "{w:?} is not on the screen:\n{screen}");
    }
}

/// The row showing `needle`.
/// The row of the pane line whose name `name` is followed by the kind `kind`.
fn pane_row(buf: &Buffer, name: &str, kind: &str) -> Option<u16> {
    lines(buf)
        .iter()
        .position(|l| {
            l.split_once(&format!("{name} "))
                .is_some_and(|(_, rest)| rest.trim_start().starts_with(kind))
        })
        .map(|y| y as u16)
}

fn row_with(buf: &Buffer, needle: &str) -> Option<u16> {
    lines(buf)
        .iter()
        .position(|l| l.contains(needle))
        .map(|y| y as u16)
}

/// The two workspaces of the model's fixtures, with a decision queue: pane 2
/// asks permission (Allow once / Deny), pane 4 a read-only question with the
/// agent's own options; pane 1 has a message, pane 3 is resumable.
fn busy_board() -> Board {
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

fn live_preview(pane: PaneId, bytes: &[u8]) -> Preview {
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

#[test]
fn many_questions_are_cut_at_a_third_of_the_height_with_a_count() {
    let world = vec![got(
        workspace(1, "web", &[1]),
        vec![tab(1, 1, "agents")],
        (1..=12)
            .map(|n| {
                asking(
                    pane(n, 1, 1, &format!("p{n}")),
                    decision(
                        &format!("d{n}"),
                        &format!("question {n}"),
                        T0 + i64::from(n),
                    ),
                )
            })
            .collect(),
    )];
    let board = loaded(world);
    let (buf, drawn) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_shows(&buf, &["12 questions", "question 1 ", "more"]);
    let more = row_with(&buf, "more").unwrap();
    assert!(more <= 8, "the queue stays in the top third");
    assert!(!text(&buf).contains("question 12 "));
    assert!(drawn.list.y > more);
}

fn pane_per_state() -> Board {
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

fn two_hundred() -> Board {
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
fn the_text_fields_and_the_confirmation_show_on_the_message_line() {
    let mut board = busy_board();
    board.mode = Mode::Filter;
    board.filter_text = "fro".into();
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_eq!(lines(&buf)[22], "/fro▏");
    board.mode = Mode::Prompt {
        pane: pane_id(1),
        text: "fix the login form".into(),
    };
    board.filter_text.clear();
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_eq!(lines(&buf)[22], "prompt for front: fix the login form▏");
    // A long text keeps its end in view.
    board.mode = Mode::Prompt {
        pane: pane_id(1),
        text: format!("{}THE END", "x".repeat(200)),
    };
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert!(lines(&buf)[22].ends_with("THE END▏"));
    board.mode = Mode::ConfirmClose { pane: pane_id(4) };
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_eq!(lines(&buf)[22], "close server? y/N");
}

#[test]
fn the_flash_shows_for_five_seconds() {
    let mut board = busy_board();
    let at = Instant::now();
    board.flash = Some(Flash {
        text: "answered: Allow once".into(),
        error: false,
        at,
    });
    let mut o = opts(true);
    o.now = at + Duration::from_secs(4);
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &o);
    assert_shows(&buf, &["answered: Allow once"]);
    o.now = at + Duration::from_secs(6);
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &o);
    assert!(!text(&buf).contains("answered"));
    // Then the keys for the selected pane.
    assert_shows(&buf, &["Enter attach"]);
}

#[test]
fn the_status_line_shows_the_filters_and_the_notifications() {
    let mut board = busy_board();
    board.filter_text = "e".into();
    board.state_filter = Some(StateFilter::Working);
    let mut o = opts(true);
    o.notify = true;
    let (buf, _) = render(&board, &Preview::empty(), 120, 30, &o);
    let status = lines(&buf)[29].clone();
    assert!(status.contains("/e @working"), "{status}");
    assert!(status.contains("notify"), "{status}");
    // Narrow: the counts lose their names, the keys hint stays.
    let (buf, _) = render(&board, &Preview::empty(), 50, 24, &o);
    let status = lines(&buf)[23].clone();
    assert!(status.contains("◆2"), "{status}");
    assert!(status.ends_with("? keys"), "{status}");
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

#[test]
fn the_preview_draws_the_cells_with_their_colours() {
    let mut board = busy_board();
    board.select(&pane_id(1));
    let preview = live_preview(
        pane_id(1),
        b"plain \x1b[31mred\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[0m \x1b[1;4mbold\x1b[0m \xe6\x97\xa5\xe6\x9c\xac!\r\n",
    );
    let (buf, _) = render(&board, &preview, 200, 50, &opts(true));
    let y = row_with(&buf, "plain").unwrap();
    let x = cell_of(&buf, y, "plain");
    assert_eq!(buf[(x, y)].fg, Color::Reset);
    assert_eq!(buf[(cell_of(&buf, y, "red"), y)].fg, Color::Indexed(1));
    assert_eq!(buf[(cell_of(&buf, y, "rgb"), y)].fg, Color::Rgb(1, 2, 3));
    let b = cell_of(&buf, y, "bold");
    assert!(
        buf[(b, y)]
            .modifier
            .contains(Modifier::BOLD | Modifier::UNDERLINED)
    );
    // A wide character takes two cells: the next character comes after both.
    let wide = cell_of(&buf, y, "日");
    assert_eq!(buf[(wide + 2, y)].symbol(), "本");
    assert_eq!(buf[(wide + 4, y)].symbol(), "!");
    // The cursor, at the start of the next row, is reverse video.
    let x = cell_of(&buf, y, "plain");
    assert!(buf[(x, y + 1)].modifier.contains(Modifier::REVERSED));
    assert!(!buf[(x + 1, y + 1)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn the_preview_shows_the_bottom_rows_ending_at_the_cursor_or_the_last_text() {
    let mut term = Terminal::new(10, 20);
    let _ = term.feed(b"one\r\ntwo\r\nthree\r\nfour\r\nfive\r\n");
    // The cursor is on the blank row under "five".
    assert_eq!(screen::shown_rows(&term, 3), 3..6);
    assert_eq!(screen::shown_rows(&term, 20), 0..6);
    // Text under a hidden cursor counts.
    let _ = term.feed(b"\x1b[?25l\x1b[9;1Hbottom\x1b[1;1H");
    assert_eq!(screen::shown_rows(&term, 2), 7..9);
    let blank = Terminal::new(5, 20);
    assert_eq!(screen::shown_rows(&blank, 3), 0..1);

    let mut board = busy_board();
    board.select(&pane_id(1));
    let mut lots = Vec::new();
    for i in 1..=20 {
        lots.extend(format!("line {i}\r\n").bytes());
    }
    let preview = live_preview(pane_id(1), &lots);
    let (buf, _) = render(&board, &preview, 80, 24, &opts(true));
    assert_shows(&buf, &["line 20"]);
    assert!(!text(&buf).contains("line 1\n"));
}

#[test]
fn the_preview_says_what_it_is_doing() {
    let mut board = busy_board();
    board.select(&pane_id(1));
    for (state, want) in [
        (PreviewState::Attaching, "attaching…"),
        (
            PreviewState::Failed("pane not found".into()),
            "no preview: pane not found",
        ),
        (PreviewState::Empty, "no pane selected"),
    ] {
        let preview = Preview {
            pane: Some(pane_id(1)),
            term: None,
            state,
        };
        let (buf, _) = render(&board, &preview, 80, 24, &opts(true));
        assert_shows(&buf, &[want]);
    }
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

#[test]
fn the_message_line_says_what_the_keys_do_for_the_selected_pane() {
    let mut board = busy_board();
    board.select(&pane_id(2));
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert!(lines(&buf)[22].starts_with("  1-2 answer · y/n allow/deny · Enter attach"));
    board.select(&pane_id(4));
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert!(lines(&buf)[22].starts_with("  Enter answer in the terminal · s prompt"));
    board.select(&pane_id(3));
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert!(lines(&buf)[22].contains("r resume"));
    board.filter_text = "e".into();
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert!(lines(&buf)[22].contains("Esc clear the filters"));
}

#[test]
fn long_options_go_on_a_second_line_when_narrow() {
    let mut world = two_workspaces();
    let mut d = decision("d1", "How should I split the migration into steps?", T0);
    d.options = [
        "Keep the schema, move the data first",
        "Both at once",
        "Ask me later",
    ]
    .iter()
    .enumerate()
    .map(|(i, l)| DecisionOption {
        id: format!("{}", i + 1),
        label: (*l).into(),
    })
    .collect();
    world[0].panes[0] = asking(world[0].panes[0].clone(), d);
    let board = loaded(world);
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    let q = row_with(&buf, "How should I split").unwrap();
    assert!(
        lines(&buf)[usize::from(q) + 1].starts_with(
            "    1 Keep the schema, move the data first  2 Both at once  3 Ask me later"
        )
    );
    let (buf, _) = render(&board, &Preview::empty(), 200, 50, &opts(true));
    let q = row_with(&buf, "How should I split").unwrap();
    assert!(lines(&buf)[usize::from(q)].contains("3 Ask me later"));
}

/// The fixture's label of the task in state `s`.
fn label(s: TaskState) -> &'static str {
    match s {
        TaskState::Pending => "pend",
        TaskState::Working => "work",
        TaskState::InputRequired => "ask",
        TaskState::Completed => "parser",
        TaskState::Failed => "fail",
        TaskState::Canceled => "cancel",
        TaskState::Rejected => "reject",
    }
}

/// One task per state on the panes of `busy_board`, in the tasks view:
/// completed reported and merged, failed with a reason, canceled discarded.
fn tasks_board() -> Board {
    let mut board = busy_board();
    let mut tasks = Vec::new();
    for (n, s) in TaskState::ALL.into_iter().enumerate() {
        let mut t = task(n as u32 + 1, label(s), s);
        match s {
            TaskState::Completed => {
                t = reported(t, "committed out.txt");
                t.disposition.outcome = Outcome::Merged;
                t.disposition.target_ref = Some("main".into());
                t.disposition.merged_sha = Some("feedfacefeedface".into());
            },
            TaskState::InputRequired => {
                t.status_reason = Some(serde_json::json!({"reason": "turn_ended_without_report"}));
            },
            TaskState::Failed => {
                t.status_reason = Some(serde_json::json!({"reason": "pane_exited"}));
            },
            TaskState::Canceled => t.disposition.outcome = Outcome::Discarded,
            _ => {},
        }
        tasks.push(t);
    }
    board.load_tasks(tasks);
    board.view = View::Tasks;
    board
}

#[test]
fn the_tasks_view_at_80x24_and_200x50_shows_every_task_with_its_glyph_and_note() {
    let board = tasks_board();
    for (w, h) in [(80, 24), (200, 50)] {
        let (buf, drawn) = render(&board, &Preview::empty(), w, h, &opts(true));
        println!("{}", text(&buf));
        assert_shows(
            &buf,
            &[
                "tasks 7",
                "committed out.txt",
                "turn_ended",
                "pane_exited",
                "merged",
                "discarded",
                // The selected task (the first) in the preview's place.
                "task · pend ◌ pending",
                "objective do the pend work",
                "d: the diff stat",
                "Enter attach the worker",
                "D discard",
            ],
        );
        assert!(!text(&buf).contains("panes 4"), "the pane list is replaced");
        for s in TaskState::ALL {
            let y = row_with(&buf, &format!("claude {} ", label(s))).unwrap();
            let (glyph, _) = crate::paint::task_state(s);
            assert_eq!(buf[(2, y)].symbol(), glyph, "{s:?}");
            assert!(lines(&buf)[usize::from(y)].contains("claude"));
        }
        // The summary is on its task's line, after the disposition.
        let y = row_with(&buf, "claude parser ").unwrap();
        let line = &lines(&buf)[usize::from(y)];
        assert!(
            line.contains("merged") && line.contains("committed out.txt"),
            "{line}"
        );
        assert!(line.contains("signaltty/pars"), "the branch: {line}");
        assert!(line.contains(" 2m "), "the time in state: {line}");
        // The selection is reverse video; clicks map to tasks.
        let sel = row_with(&buf, "claude pend ").unwrap();
        assert!(buf[(0, sel)].modifier.contains(Modifier::REVERSED));
        assert_eq!(drawn.task_rows.len(), 7);
        assert_eq!(task_at(&drawn, drawn.list.x, sel), Some(task_id(1)));
        assert_eq!(row_at(&drawn, drawn.list.x, sel), None);
    }
    // All distinct, one cell wide, all in the legend.
    let all: Vec<&str> = TaskState::ALL
        .iter()
        .map(|s| crate::paint::task_state(*s).0)
        .collect();
    let mut unique = all.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), all.len(), "{all:?}");
    for g in &all {
        assert!(TASK_GLYPHS.iter().any(|(s, _)| s == g), "{g}");
        assert_eq!(glyphs::width(g), 1);
    }
    assert_eq!(TASK_GLYPHS.len(), all.len());
}

#[test]
fn the_tasks_view_without_colour_keeps_its_glyphs_and_reverse_video() {
    let mut board = tasks_board();
    board.move_task_selection(3);
    for (w, h) in [(80, 24), (200, 50)] {
        let (buf, _) = render(&board, &Preview::empty(), w, h, &opts(false));
        for cell in buf.content() {
            assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset), "{cell:?}");
        }
        for s in TaskState::ALL {
            let y = row_with(&buf, &format!("claude {} ", label(s))).unwrap();
            assert_eq!(buf[(2, y)].symbol(), crate::paint::task_state(s).0);
        }
        let sel = row_with(&buf, "claude parser ").unwrap();
        assert!(buf[(0, sel)].modifier.contains(Modifier::REVERSED));
        assert_shows(
            &buf,
            &[
                "task · parser ✓ completed",
                "merged into main at feedfacefe",
            ],
        );
    }
}

#[test]
fn the_diff_stat_shows_in_the_preview_place_with_the_merge_preview() {
    let mut board = tasks_board();
    board.move_task_selection(3);
    let file = |path: &str, added, removed, untracked, binary| signaltty_protocol::diff::FileStat {
        path: path.into(),
        added,
        removed,
        untracked,
        binary,
    };
    board.task_diff = Some(TaskDiffResult {
        task_id: task_id(4),
        base_sha: "0".into(),
        branch: "b".into(),
        files: vec![
            file("src/parser.rs", 12, 3, false, false),
            file("out.txt", 1, 0, true, false),
            file("logo.png", 0, 0, false, true),
        ],
        dirs: Vec::new(),
        added: 13,
        removed: 3,
        merge_preview: Some(signaltty_protocol::diff::MergePreview {
            target: "main".into(),
            clean: true,
            conflicted: Vec::new(),
        }),
    });
    for (w, h) in [(80, 24), (200, 50)] {
        let (buf, _) = render(&board, &Preview::empty(), w, h, &opts(true));
        println!("{}", text(&buf));
        assert_shows(
            &buf,
            &[
                "diff 3 file(s) +13 -3 · merges cleanly into main",
                "+12  -3 src/parser.rs",
            ],
        );
        if h == 50 {
            assert_shows(&buf, &["+1  -0 out.txt (new)", "bin     logo.png"]);
        }
    }
    // A conflict says so; another task's diff is not shown.
    if let Some(d) = board.task_diff.as_mut() {
        d.merge_preview = Some(signaltty_protocol::diff::MergePreview {
            target: "main".into(),
            clean: false,
            conflicted: vec!["shared.txt".into()],
        });
    }
    let (buf, _) = render(&board, &Preview::empty(), 200, 50, &opts(true));
    assert_shows(&buf, &["conflicts with main: shared.txt"]);
    board.move_task_selection(1);
    let (buf, _) = render(&board, &Preview::empty(), 200, 50, &opts(true));
    assert!(!text(&buf).contains("diff 3 file(s)"));
}

#[test]
fn merge_and_discard_ask_first_and_the_help_shows_the_task_legend() {
    let mut board = tasks_board();
    board.mode = Mode::ConfirmFinish {
        task: task_id(4),
        merge: true,
    };
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_eq!(lines(&buf)[22], "merge parser into main? y/N");
    board.mode = Mode::ConfirmFinish {
        task: task_id(2),
        merge: false,
    };
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_eq!(lines(&buf)[22], "discard work (its checkout goes)? y/N");
    board.mode = Mode::Help;
    for (w, h) in [(80, 24), (200, 50)] {
        let (buf, _) = render(&board, &Preview::empty(), w, h, &opts(true));
        let mut want: Vec<&str> = HELP.iter().flat_map(|(k, what)| [*k, *what]).collect();
        want.extend(TASK_GLYPHS.iter().map(|(_, what)| *what));
        assert_shows(&buf, &want);
    }
    // The panes view's hint names the key.
    let mut panes = busy_board();
    panes.select(&pane_id(4));
    let (buf, _) = render(&panes, &Preview::empty(), 200, 50, &opts(true));
    assert_shows(&buf, &["t tasks"]);
}

#[test]
fn an_empty_tasks_view_says_how_to_start_one() {
    let mut board = busy_board();
    board.view = View::Tasks;
    let (buf, drawn) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_shows(&buf, &["tasks 0", "no tasks yet", "t panes"]);
    assert!(drawn.task_rows.is_empty());
    board.conn = Conn::Reconnecting {
        since: Instant::now(),
        why: "gone".into(),
    };
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_shows(&buf, &["showing the tasks as of", "cannot reach"]);
}
