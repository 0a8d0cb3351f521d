//! The tasks view at 80×24 and 200×50: every state's glyph and note,
//! without colour, the diff stat, the confirmations, an empty view.

use crate::board::keys::HELP;
use crate::board::model::tests::*;
use crate::board::model::{Conn, View};
use crate::board::view::glyphs;
use crate::board::view::tests::*;
use crate::board::view::*;
use crate::paint::TASK_GLYPHS;
use ratatui::style::Color;
use signaltty_protocol::task::{Outcome, TaskDiffResult, TaskState};

/// The fixture's label of the task in state `s`.
fn label(s: TaskState) -> &'static str {
    match s {
        TaskState::Queued => "queue",
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
/// completed reported and merged, failed with a reason, canceled discarded,
/// one queued.
fn tasks_board() -> Board {
    let mut board = busy_board();
    let mut tasks = Vec::new();
    // The queued task last, so the others keep their numbers.
    let states = TaskState::ALL
        .into_iter()
        .filter(|s| *s != TaskState::Queued)
        .chain([TaskState::Queued]);
    for (n, s) in states.enumerate() {
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
            // No branch nor checkout before it starts.
            TaskState::Queued => (t.branch, t.worktree_path) = (String::new(), String::new()),
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
                "tasks 8",
                "queued: waiting",
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
        assert_eq!(drawn.task_rows.len(), 8);
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

#[test]
fn a_task_in_a_collision_says_so_on_its_line_and_in_its_details() {
    let mut board = tasks_board();
    board.load_conflicts_from(
        0,
        vec![signaltty_protocol::task::conflict::TaskConflict {
            repo: "/src/app".into(),
            a: task_id(1),
            b: Some(task_id(2)),
            target_branch: None,
            paths: vec!["README.md".into()],
            since: ts(T0),
        }],
    );
    let (buf, _) = render(&board, &Preview::empty(), 120, 30, &opts(false));
    println!("{}", text(&buf));
    for l in [label(TaskState::Pending), label(TaskState::Working)] {
        let y = row_with(&buf, &format!("claude {l} ")).unwrap();
        assert!(
            lines(&buf)[usize::from(y)].contains("conflicts 1"),
            "{}",
            lines(&buf)[usize::from(y)]
        );
    }
    let y = row_with(&buf, "claude fail ").unwrap();
    assert!(!lines(&buf)[usize::from(y)].contains("conflicts"));
    // The selected task (the first) names the other by its label.
    assert_shows(
        &buf,
        &[&format!(
            "conflicts with task {} in README.md",
            label(TaskState::Working)
        )],
    );
}
