//! The board's main loop without a terminal: keys on a board of several
//! hosts reach the worker of the right host, `Tab` tours the hosts, a host
//! that drops leaves the others alone, and the preview follows the
//! selection from host to host. The workers are detached: a job is only
//! looked at, never sent.

use super::*;
use crate::board::model::LinkState;
use crate::board::model::tests::*;
use crate::board::preview::PreviewState;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::Receiver;

/// An app over `board` whose workers hand their jobs to the receivers, one
/// per host; its preview connections aim at a socket nobody listens on.
fn app(board: Board) -> (App, Vec<Receiver<Job>>) {
    let (tx, _news) = channel();
    let mut servers = Vec::new();
    let mut jobs = Vec::new();
    for host in 0..board.host_count() {
        let target = Target::Socket("/nonexistent/signaltty.sock".into());
        let (worker, rx) = Worker::detached();
        servers.push(Server {
            preview: PreviewConn::new(host, target.clone(), tx.clone()),
            worker,
            target,
            last_seq: Arc::new(AtomicU64::new(0)),
        });
        jobs.push(rx);
    }
    let app = App {
        board,
        preview: Preview::empty(),
        preview_host: 0,
        servers,
        unread_tour: Vec::new(),
        alerts: alert::Alerts::new(false, false),
        drawn: view::Drawn::default(),
        attach: None,
        trace: trace::Trace::default(),
        quit: false,
    };
    (app, jobs)
}

fn press(app: &mut App, c: char) {
    let code = if c == '\t' {
        KeyCode::Tab
    } else {
        KeyCode::Char(c)
    };
    app.key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn said(text: &str, next_unread: bool, select: Option<PaneId>) -> Done {
    Done {
        text: text.into(),
        error: false,
        select,
        diff: None,
        next_unread,
    }
}

/// The fleet board with devbox's `eval` (pane_6) asking.
fn asking_on_devbox() -> Board {
    let mut b = fleet_board();
    let mut world = devbox_world();
    world[0].panes[1] = asking(world[0].panes[1].clone(), decision("d6", "rm?", T0));
    b.load_from(1, world, 8);
    b
}

#[test]
fn keys_on_a_pane_go_to_its_hosts_worker() {
    let (mut app, jobs) = app(asking_on_devbox());
    app.board.select(&pane_id(6));
    press(&mut app, '1');
    let answered = jobs[1].try_recv().unwrap();
    assert!(matches!(answered, Job::Answer { ref pane, .. } if *pane == pane_id(6)));
    press(&mut app, 'm');
    assert_eq!(jobs[1].try_recv(), Ok(Job::MarkSeen { pane: pane_id(6) }));
    press(&mut app, 'x');
    press(&mut app, 'y');
    assert_eq!(jobs[1].try_recv(), Ok(Job::Close { pane: pane_id(6) }));
    assert!(jobs[0].try_recv().is_err() && jobs[2].try_recv().is_err());
    // A local pane's go to local.
    app.board.select(&pane_id(2));
    press(&mut app, 'm');
    assert_eq!(jobs[0].try_recv(), Ok(Job::MarkSeen { pane: pane_id(2) }));
    // Nothing goes to a host that is down: it is said at once.
    app.board.lose(1, "gone".into());
    app.board.select(&pane_id(6));
    press(&mut app, 'm');
    assert!(jobs[1].try_recv().is_err());
    let flash = app.board.flash.clone().unwrap();
    assert_eq!(flash.text, "devbox: not connected; try again once it is");
    // Enter attaches only while the pane's host is live.
    app.board.select(&pane_id(2));
    app.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert_eq!(app.attach, Some(pane_id(2)));
    app.attach = None;
    app.board.select(&pane_id(5));
    app.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert_eq!(app.attach, None);
}

#[test]
fn tab_tours_the_live_hosts_until_one_has_a_pane_that_needs_you() {
    let (mut app, jobs) = app(fleet_board());
    app.board.select(&pane_id(5));
    press(&mut app, '\t');
    assert_eq!(jobs[1].try_recv(), Ok(Job::NextUnread));
    // Nothing on devbox: local is asked, and nothing is said yet.
    app.done(1, said("nothing needs you", true, None));
    assert_eq!(jobs[0].try_recv(), Ok(Job::NextUnread));
    assert_eq!(app.board.flash, None);
    app.done(0, said("", true, Some(pane_id(3))));
    assert_eq!(app.board.selected, Some(pane_id(3)));
    assert!(app.unread_tour.is_empty());
    // An outcome names its host.
    app.done(1, said("marked seen", false, None));
    let flash = app.board.flash.clone().unwrap();
    assert_eq!(flash.text, "devbox: marked seen");
}

#[test]
fn a_host_that_drops_leaves_the_other_hosts_and_their_preview() {
    let (mut app, _jobs) = app(fleet_board());
    app.board.select(&pane_id(1));
    app.follow_selection();
    assert_eq!(app.preview.pane, Some(pane_id(1)));
    assert_eq!(app.preview_host, 0);
    app.feed(1, FeedNews::Lost("devbox: not answering".into()));
    assert!(matches!(app.board.link(1), LinkState::Reconnecting { .. }));
    assert_eq!(app.board.panes.len(), 6, "devbox's panes stay listed");
    assert_eq!(app.preview.pane, Some(pane_id(1)), "local's preview stays");
    assert!(app.board.is_live(0));
    // Local's own drop takes its preview.
    app.feed(0, FeedNews::Lost("gone".into()));
    assert_eq!(app.preview.pane, None);
}

#[test]
fn the_preview_follows_the_selection_from_host_to_host() {
    let (mut app, _jobs) = app(fleet_board());
    app.board.select(&pane_id(5));
    app.follow_selection();
    assert_eq!(
        (app.preview.pane.clone(), app.preview_host),
        (Some(pane_id(5)), 1)
    );
    assert_eq!(app.preview.state, PreviewState::Attaching);
    // Old news of local's connection does not count for devbox's pane.
    let stale = PreviewNews::Failed {
        pane: pane_id(5),
        why: "closed".into(),
    };
    app.preview_news(0, stale);
    assert_eq!(app.preview.state, PreviewState::Attaching);
    // A pane of a host that is down gets no preview.
    app.board.lose(1, "gone".into());
    app.board.select(&pane_id(6));
    app.follow_selection();
    assert_eq!(app.preview.pane, None);
    assert_eq!(app.preview.state, PreviewState::Empty);
}
