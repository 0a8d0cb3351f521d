//! `signaltty board`: the live dashboard for people. A client like any
//! other: one subscription (`feed`), one watch-only attach for the preview
//! (`preview`), one connection for what the person asks (`actions`). The main
//! loop owns the model and draws it when something changed, at most 30 times
//! a second; nothing is polled. See docs/board.md; the command and its
//! flags are `cli/board.rs`.

mod actions;
mod alert;
mod feed;
mod input;
mod keys;
pub mod model;
mod preview;
mod storage;
mod trace;
pub mod view;

use crate::args::Global;
use crate::attach::RawMode;
use crate::cli::fail_with;
use actions::{Done, Job, Worker};
use feed::FeedNews;
use keys::Action;
use model::{Board, Conn, Mode, Row, View};
use preview::{Preview, PreviewConn, PreviewNews, PreviewState};
use ratatui::crossterm::event::{Event, KeyEvent, MouseButton, MouseEventKind};
use ratatui::crossterm::{execute, terminal};
use signaltty_model::client::Target;
use signaltty_protocol::pane::RestoreState;
use signaltty_protocol::state::{Decision, DecisionOption};
use signaltty_protocol::{ErrorCode, PaneId};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The shortest time between two frames (≤ 30 frames a second).
const FRAME: Duration = Duration::from_millis(33);
/// With nothing happening, the clocks ("3m in state") still move.
const TICK: Duration = Duration::from_secs(1);

/// What the board was asked to do besides drawing (`cli/board.rs` decides).
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Ring the terminal bell when a pane starts waiting for a person.
    pub bell: bool,
    /// Also send a desktop notification.
    pub notify: bool,
}

/// What reaches the main loop.
#[derive(Debug)]
pub enum Input {
    Term(Event),
    Feed(FeedNews),
    Preview(PreviewNews),
    Done(Done),
    /// The state directory does not take writes (`None`: it does again).
    Storage(Option<signaltty_protocol::server::StorageStatus>),
}

struct App {
    board: Board,
    preview: Preview,
    preview_conn: PreviewConn,
    worker: Worker,
    alerts: alert::Alerts,
    drawn: view::Drawn,
    last_seq: Arc<AtomicU64>,
    socket: Target,
    /// A pane to attach full-screen, asked by Enter.
    attach: Option<PaneId>,
    /// Frame and latency accounting for the benchmark.
    trace: trace::Trace,
    quit: bool,
}

/// Runs the board on this terminal until `q`; returns the exit code.
pub fn run(global: &Global, options: Options) -> i32 {
    let socket = match crate::remote::target(global) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let (tx, rx) = channel();
    let last_seq = Arc::new(AtomicU64::new(0));
    feed::spawn(socket.clone(), tx.clone(), last_seq.clone());
    storage::watch(socket.clone(), tx.clone());
    let keys = input::KeyReader::start(tx.clone());
    let mut app = App {
        board: Board::new(socket.to_string()),
        preview: Preview::empty(),
        preview_conn: PreviewConn::new(socket.clone(), tx.clone()),
        worker: Worker::start(socket.clone(), tx),
        alerts: alert::Alerts::new(options.bell, options.notify),
        drawn: view::Drawn::default(),
        last_seq,
        socket,
        attach: None,
        trace: trace::Trace::from_env(),
        quit: false,
    };
    install_panic_hook();
    let mut term = match enter() {
        Ok(t) => t,
        Err(e) => {
            return fail_with(
                ErrorCode::IoError,
                format!("cannot set up the terminal: {e}"),
            );
        },
    };
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut dirty = true;
    let mut last_draw: Option<Instant> = None;
    while !app.quit {
        let wait = match (dirty, last_draw) {
            (true, Some(at)) => FRAME.saturating_sub(at.elapsed()),
            (true, None) => Duration::ZERO,
            (false, _) => TICK,
        };
        match rx.recv_timeout(wait) {
            Ok(input) => {
                app.handle(input);
                // Everything already queued joins this frame.
                while let Ok(more) = rx.try_recv() {
                    app.handle(more);
                }
                dirty = true;
            },
            Err(RecvTimeoutError::Timeout) => dirty = true,
            Err(RecvTimeoutError::Disconnected) => break,
        }
        app.follow_selection();
        if let Some(pane) = app.attach.take() {
            keys.pause();
            leave();
            let ended = attach_here(&app.socket, &pane);
            term = match enter() {
                Ok(t) => t,
                Err(e) => {
                    return fail_with(
                        ErrorCode::IoError,
                        format!("cannot set up the terminal: {e}"),
                    );
                },
            };
            keys.resume();
            match ended {
                Ok(how) => app.board.say(format!("back from the pane ({how})"), false),
                Err(e) => app.board.say(e, true),
            }
            last_draw = None;
            continue;
        }
        if dirty && last_draw.is_none_or(|at| at.elapsed() >= FRAME) {
            let opts = view::ViewOpts {
                color,
                now: Instant::now(),
                now_ms: signaltty_protocol::Timestamp::now()
                    .unix_millis()
                    .unwrap_or_default(),
                notify: app.alerts.notifies(),
            };
            let mut drawn = None;
            let result = term.draw(|frame| {
                drawn = Some(view::draw(frame, &app.board, &app.preview, &opts));
            });
            if result.is_err() {
                break;
            }
            app.drawn = drawn.unwrap_or_default();
            app.trace.drawn();
            last_draw = Some(Instant::now());
            dirty = false;
        }
    }
    leave();
    app.trace.write();
    0
}

type Term = ratatui::Terminal<ratatui::backend::CrosstermBackend<std::io::Stdout>>;

/// Raw mode, the alternate screen and the mouse, and a terminal to draw on.
fn enter() -> std::io::Result<Term> {
    terminal::enable_raw_mode()?;
    execute!(
        std::io::stdout(),
        terminal::EnterAlternateScreen,
        ratatui::crossterm::event::EnableMouseCapture
    )?;
    let mut term =
        ratatui::Terminal::new(ratatui::backend::CrosstermBackend::new(std::io::stdout()))?;
    term.clear()?;
    Ok(term)
}

/// Gives the terminal back as it was.
fn leave() {
    let _ = execute!(
        std::io::stdout(),
        ratatui::crossterm::event::DisableMouseCapture,
        terminal::LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
    let _ = terminal::disable_raw_mode();
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        leave();
        previous(info);
    }));
}

/// Attaches the terminal to `pane` until the person detaches.
fn attach_here(socket: &Target, pane: &PaneId) -> Result<&'static str, String> {
    let raw: Arc<Mutex<Option<RawMode>>> = Arc::new(Mutex::new(None));
    crate::attach::session(socket, &pane.0, &raw)
}

impl App {
    fn handle(&mut self, input: Input) {
        match input {
            Input::Term(Event::Key(key)) => self.key(key),
            Input::Term(Event::Mouse(m)) => match m.kind {
                MouseEventKind::Down(MouseButton::Left) => {
                    if let Some(Row::Pane(id)) = view::row_at(&self.drawn, m.column, m.row) {
                        self.board.select(&id);
                    }
                    if let Some(id) = view::task_at(&self.drawn, m.column, m.row) {
                        self.board.task_selected = Some(id);
                    }
                },
                MouseEventKind::ScrollDown => self.scroll(3),
                MouseEventKind::ScrollUp => self.scroll(-3),
                _ => {},
            },
            Input::Term(_) => {},
            Input::Feed(news) => self.feed(news),
            Input::Preview(news) => self.preview_news(news),
            Input::Storage(storage) => self.board.storage = storage,
            Input::Done(done) => {
                if let Some(pane) = &done.select {
                    self.board.select(pane);
                }
                if let Some(diff) = done.diff {
                    self.board.task_diff = Some(*diff);
                }
                if !done.text.is_empty() {
                    self.board.say(done.text, done.error);
                }
            },
        }
    }

    fn feed(&mut self, news: FeedNews) {
        match news {
            FeedNews::World {
                world,
                tasks,
                seq,
                events,
                replayed,
            } => {
                let was_lost = matches!(self.board.conn, Conn::Reconnecting { .. });
                let began = self.board.load(world, seq);
                self.board.load_tasks(tasks);
                for e in &events {
                    self.event(e);
                }
                for episode in &began {
                    self.alerts.episode(&self.board, episode);
                }
                if was_lost {
                    let caught = if replayed > 0 {
                        format!(" ({replayed} event(s) while away)")
                    } else {
                        String::new()
                    };
                    self.board.say(format!("reconnected{caught}"), false);
                }
            },
            FeedNews::Event(e, at) => {
                self.trace.received(at);
                self.event(&e);
            },
            FeedNews::Lost(why) => {
                if !matches!(self.board.conn, Conn::Reconnecting { .. }) {
                    self.board.conn = Conn::Reconnecting {
                        since: Instant::now(),
                        why,
                    };
                }
                self.preview_conn.reset();
                self.preview.pane = None;
                self.preview.term = None;
                self.preview.state = PreviewState::Empty;
            },
        }
        self.last_seq.store(self.board.seq, Ordering::Relaxed);
    }

    fn event(&mut self, e: &signaltty_protocol::EventFrame) {
        if let Some(episode) = self.board.apply(e) {
            self.alerts.episode(&self.board, &episode);
        }
        // The previewed pane's terminal follows its size.
        if e.event == "pane.resized"
            && let Some(followed) = &self.preview.pane
            && let Some(pane) = self.board.panes.get(followed)
            && let Some(term) = self.preview.term.as_mut()
            && e.payload["pane"]["id"].as_str() == Some(followed.0.as_str())
        {
            term.resize(pane.pty_size.rows, pane.pty_size.cols);
        }
    }

    fn preview_news(&mut self, news: PreviewNews) {
        let ours = |p: &PaneId| self.preview.pane.as_ref() == Some(p);
        match news {
            PreviewNews::Attached { pane, term } if ours(&pane) => {
                self.preview.term = Some(*term);
                self.preview.state = PreviewState::Live;
            },
            PreviewNews::Output { pane, bytes } if ours(&pane) => {
                if let Some(term) = self.preview.term.as_mut() {
                    let _ = term.feed(&bytes);
                }
            },
            PreviewNews::Gap { pane } if ours(&pane) => {
                self.preview.term = None;
                self.preview.state = PreviewState::Attaching;
                self.preview_conn.follow(Some(&pane));
            },
            PreviewNews::Failed { pane, why } if ours(&pane) => {
                self.preview.state = PreviewState::Failed(why);
            },
            _ => {},
        }
    }

    /// Points the preview at the selected pane.
    fn follow_selection(&mut self) {
        if self.board.conn != Conn::Live || self.preview.pane == self.board.selected {
            return;
        }
        self.preview.pane = self.board.selected.clone();
        self.preview.term = None;
        self.preview.state = match self.preview.pane {
            Some(_) => PreviewState::Attaching,
            None => PreviewState::Empty,
        };
        self.preview_conn.follow(self.preview.pane.as_ref());
    }

    /// The wheel moves the selection of the list shown.
    fn scroll(&mut self, delta: isize) {
        match self.board.view {
            View::Panes => self.board.move_selection(delta),
            View::Tasks => self.board.move_task_selection(delta),
        }
    }

    fn key(&mut self, key: KeyEvent) {
        let tasks = self.board.mode == Mode::Normal && self.board.view == View::Tasks;
        let action = if tasks {
            keys::tasks_action(key)
        } else {
            keys::action(&self.board.mode, key)
        };
        match (&mut self.board.mode, action) {
            (_, Action::Nothing) => {},
            (Mode::Normal, action) if tasks => self.tasks(action),
            (Mode::Normal, action) => self.normal(action),
            (Mode::Help, Action::Quit) => self.quit = true,
            (Mode::Help, _) => self.board.mode = Mode::Normal,
            (Mode::Filter, Action::Type(c)) => {
                self.board.filter_text.push(c);
                self.board.keep_selection();
            },
            (Mode::Filter, Action::Backspace) => {
                self.board.filter_text.pop();
                self.board.keep_selection();
            },
            (Mode::Filter, Action::Cancel) => {
                self.board.filter_text.clear();
                self.board.mode = Mode::Normal;
                self.board.keep_selection();
            },
            (Mode::Filter, _) => self.board.mode = Mode::Normal,
            (Mode::Prompt { text, .. }, Action::Type(c)) => text.push(c),
            (Mode::Prompt { text, .. }, Action::Backspace) => {
                text.pop();
            },
            (Mode::Prompt { pane, text }, Action::Accept) => {
                let (pane, text) = (pane.clone(), std::mem::take(text));
                self.board.mode = Mode::Normal;
                if text.trim().is_empty() {
                    self.board.say("nothing to submit", true);
                    return;
                }
                self.board.say("submitting…", false);
                self.worker.run(Job::Submit { pane, text });
            },
            (Mode::Prompt { .. }, _) => self.board.mode = Mode::Normal,
            (Mode::ConfirmClose { pane }, Action::Accept) => {
                let pane = pane.clone();
                self.board.mode = Mode::Normal;
                self.worker.run(Job::Close { pane });
            },
            (Mode::ConfirmClose { .. }, _) => self.board.mode = Mode::Normal,
            (Mode::ConfirmFinish { task, merge }, Action::Accept) => {
                let (task, merge) = (task.clone(), *merge);
                self.board.mode = Mode::Normal;
                let label = self
                    .board
                    .task(&task)
                    .map(|t| t.label.clone())
                    .unwrap_or_else(|| task.0.clone());
                let doing = if merge { "merging" } else { "discarding" };
                self.board.say(format!("{doing} {label}…"), false);
                self.worker.run(Job::Finish { task, label, merge });
            },
            (Mode::ConfirmFinish { .. }, _) => self.board.mode = Mode::Normal,
        }
    }

    /// A key of the tasks view.
    fn tasks(&mut self, action: Action) {
        let selected = self.board.task_selected.clone();
        match action {
            Action::Quit => self.quit = true,
            Action::Move(n) => self.board.move_task_selection(n),
            Action::First => self.board.move_task_selection(isize::MIN / 2),
            Action::Last => self.board.move_task_selection(isize::MAX / 2),
            Action::ToggleTasks => self.board.view = View::Panes,
            Action::Help => self.board.mode = Mode::Help,
            Action::NextUnread => self.worker.run(Job::NextUnread),
            Action::Attach => match (&selected, self.board.selected_worker().cloned()) {
                (None, _) => self.board.say("no task selected", true),
                (Some(_), None) => self.board.say("the task's worker pane is gone", true),
                (Some(_), Some(_)) if self.board.conn != Conn::Live => {
                    self.board.say("not connected to the server", true)
                },
                (Some(_), Some(pane)) => {
                    self.board.select(&pane);
                    self.attach = Some(pane);
                },
            },
            Action::TaskDiff => match selected {
                Some(task) => {
                    self.board.say("reading the diff…", false);
                    self.worker.run(Job::TaskDiff { task });
                },
                None => self.board.say("no task selected", true),
            },
            Action::Merge | Action::Discard => match selected {
                Some(task) => {
                    self.board.mode = Mode::ConfirmFinish {
                        task,
                        merge: action == Action::Merge,
                    }
                },
                None => self.board.say("no task selected", true),
            },
            _ => {},
        }
    }

    fn normal(&mut self, action: Action) {
        let selected = self.board.selected.clone();
        match action {
            Action::Quit => self.quit = true,
            Action::Move(n) => self.board.move_selection(n),
            Action::First => self.board.move_selection(isize::MIN / 2),
            Action::Last => self.board.move_selection(isize::MAX / 2),
            Action::Attach => match selected {
                Some(pane) if self.board.conn == Conn::Live => self.attach = Some(pane),
                Some(_) => self.board.say("not connected to the server", true),
                None => self.board.say("no pane selected", true),
            },
            Action::Answer(n) => self.answer(|d| d.options.get(n - 1)),
            Action::Yes => self.answer(model::allowing),
            Action::No => self.answer(model::denying),
            Action::NextUnread => self.worker.run(Job::NextUnread),
            Action::MarkSeen => {
                if let Some(pane) = selected {
                    self.worker.run(Job::MarkSeen { pane });
                }
            },
            Action::StartPrompt => match selected {
                Some(pane) => {
                    self.board.mode = Mode::Prompt {
                        pane,
                        text: String::new(),
                    }
                },
                None => self.board.say("no pane selected", true),
            },
            Action::Resume => match self.board.selected_pane() {
                Some(p)
                    if matches!(
                        p.restore_state,
                        RestoreState::Resumable | RestoreState::Restored
                    ) =>
                {
                    let pane = p.id.clone();
                    self.board.say("resuming…", false);
                    self.worker.run(Job::Resume { pane });
                },
                Some(_) => self.board.say("this pane is not resumable", true),
                None => self.board.say("no pane selected", true),
            },
            Action::StartClose => {
                if let Some(pane) = selected {
                    self.board.mode = Mode::ConfirmClose { pane };
                }
            },
            Action::StartFilter => self.board.mode = Mode::Filter,
            Action::ToggleState(f) => {
                self.board.state_filter = (self.board.state_filter != Some(f)).then_some(f);
                self.board.keep_selection();
            },
            Action::Help => self.board.mode = Mode::Help,
            Action::ToggleTasks => self.board.view = View::Tasks,
            Action::ClearFilters => {
                self.board.filter_text.clear();
                self.board.state_filter = None;
                self.board.keep_selection();
            },
            Action::Type(_) | Action::Backspace | Action::Accept | Action::Cancel => {},
            Action::TaskDiff | Action::Merge | Action::Discard => {},
            Action::Nothing => {},
        }
    }

    /// Answers the selected pane's question with the option `choose` picks;
    /// with none there, the oldest waiting question, whose pane is then
    /// selected so the person sees what was answered.
    fn answer(&mut self, choose: impl Fn(&Decision) -> Option<&DecisionOption>) {
        let target = self.board.answer_target().map(|p| p.id.clone());
        if let Some(id) = target.filter(|id| self.board.selected.as_ref() != Some(id)) {
            self.board.select(&id);
        }
        let Some(pane) = self.board.selected_pane() else {
            self.board.say("no question waits for an answer here", true);
            return;
        };
        let Some(d) = &pane.pending_decision else {
            let why = if model::asks_in_terminal(pane) {
                "this question is answered in the terminal: Enter attaches"
            } else {
                "no question waits for an answer (Tab: the next pane that needs you)"
            };
            self.board.say(why, true);
            return;
        };
        if !d.answerable {
            self.board.say(
                "this question is answered in the terminal: Enter attaches",
                true,
            );
            return;
        }
        let Some(option) = choose(d) else {
            self.board.say("the question has no such option", true);
            return;
        };
        let job = Job::Answer {
            pane: pane.id.clone(),
            decision: d.id.clone(),
            option: option.id.clone(),
            label: option.label.clone(),
        };
        self.worker.run(job);
    }
}
