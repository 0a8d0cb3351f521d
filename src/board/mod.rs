//! `signaltty board`: the live dashboard for people. A client like any
//! other: per server one subscription (`feed`), one watch-only attach for
//! the preview (`preview`), one connection for what the person asks
//! (`actions`). The main loop owns the model and draws it when something
//! changed, at most 30 times a second; nothing is polled. With
//! `--all-hosts` it shows this machine's server and every configured
//! host's, each with connections of its own, so a host that is slow or
//! down holds up nobody else (docs/board.md#several-hosts). See
//! docs/board.md; the command and its flags are `cli/board.rs`.

mod actions;
mod alert;
pub(crate) mod feed;
mod input;
mod keys;
pub mod model;
mod news;
pub(crate) mod preview;
mod route;
mod storage;
mod trace;
pub mod view;

use crate::args::Global;
use crate::cli::fail_with;
use actions::{Done, Job, Worker};
use feed::FeedNews;
use keys::Action;
use model::{Board, Mode, Row, View};
use preview::{Preview, PreviewConn, PreviewNews};
use ratatui::crossterm::event::{Event, KeyEvent, MouseButton, MouseEventKind};
use ratatui::crossterm::{execute, terminal};
use signaltty_model::client::Target;
use signaltty_protocol::pane::RestoreState;
use signaltty_protocol::{ErrorCode, PaneId};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
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
    /// This machine's server and every configured host's (`--all-hosts`).
    pub all_hosts: bool,
}

/// What reaches the main loop. What a host's connections report carries
/// the host's index in the board (`0` on a single-host board).
#[derive(Debug)]
pub enum Input {
    Term(Event),
    Feed(usize, FeedNews),
    Preview(usize, PreviewNews),
    Done(usize, Done),
    /// The host's state directory does not take writes (`None`: it does again).
    Storage(usize, Option<signaltty_protocol::server::StorageStatus>),
}

/// What the board holds for one server.
struct Server {
    target: Target,
    preview: PreviewConn,
    worker: Worker,
    /// The newest seq applied from it, where its feed resumes.
    last_seq: Arc<AtomicU64>,
}

impl Server {
    /// Starts the server's feed, storage watch, preview connection and
    /// worker, each on a thread of its own.
    fn start(host: usize, target: Target, tx: &Sender<Input>) -> Server {
        let last_seq = Arc::new(AtomicU64::new(0));
        feed::spawn(host, target.clone(), tx.clone(), last_seq.clone());
        storage::watch(host, target.clone(), tx.clone());
        Server {
            preview: PreviewConn::new(host, target.clone(), tx.clone()),
            worker: Worker::start(host, target.clone(), tx.clone()),
            target,
            last_seq,
        }
    }
}

struct App {
    board: Board,
    preview: Preview,
    /// The host of the pane the preview follows.
    preview_host: usize,
    /// Per host, in the board's order.
    servers: Vec<Server>,
    /// The hosts `Tab` still has to ask for the next pane that needs you.
    unread_tour: Vec<usize>,
    alerts: alert::Alerts,
    drawn: view::Drawn,
    /// A pane to attach full-screen, asked by Enter.
    attach: Option<PaneId>,
    /// Frame and latency accounting for the benchmark.
    trace: trace::Trace,
    quit: bool,
}

/// The servers the board shows, in fleet order: the one this invocation
/// names; with `--all-hosts` this machine's (its own socket, `--socket`
/// included) and every configured host's.
pub(crate) fn targets(global: &Global, all_hosts: bool) -> Result<Vec<Target>, i32> {
    if !all_hosts {
        return crate::remote::target(global).map(|t| vec![t]);
    }
    let local = Target::Socket(crate::cli::resolve_socket(global));
    let mut out = vec![local];
    for name in crate::remote::fleet::names().iter().skip(1) {
        let host = crate::remote::find(name)?;
        out.push(Target::Host(Box::new(host)));
    }
    Ok(out)
}

/// Runs the board on this terminal until `q`; returns the exit code.
pub fn run(global: &Global, options: Options) -> i32 {
    let targets = match targets(global, options.all_hosts) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let (tx, rx) = channel();
    let named = targets
        .iter()
        .map(|t| (t.name().to_owned(), t.to_string()))
        .collect();
    let servers = targets
        .into_iter()
        .enumerate()
        .map(|(host, target)| Server::start(host, target, &tx))
        .collect();
    let keys = input::KeyReader::start(tx);
    let mut app = App {
        board: Board::fleet(named),
        preview: Preview::empty(),
        preview_host: 0,
        servers,
        unread_tour: Vec::new(),
        alerts: alert::Alerts::new(options.bell, options.notify),
        drawn: view::Drawn::default(),
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
            let ended = app.attach_here(&pane);
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
            Input::Feed(host, news) => self.feed(host, news),
            Input::Preview(host, news) => self.preview_news(host, news),
            Input::Storage(host, storage) => self.board.set_storage(host, storage),
            Input::Done(host, done) => self.done(host, done),
        }
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
                self.run_job(Job::Submit { pane, text });
            },
            (Mode::Prompt { .. }, _) => self.board.mode = Mode::Normal,
            (Mode::ConfirmClose { pane }, Action::Accept) => {
                let pane = pane.clone();
                self.board.mode = Mode::Normal;
                self.run_job(Job::Close { pane });
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
                self.run_job(Job::Finish { task, label, merge });
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
            Action::NextUnread => self.next_unread(),
            Action::Attach => match (&selected, self.board.selected_worker().cloned()) {
                (None, _) => self.board.say("no task selected", true),
                (Some(_), None) => self.board.say("the task's worker pane is gone", true),
                (Some(_), Some(pane)) if !self.board.is_live(self.board.host_of_pane(&pane)) => {
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
                    self.run_job(Job::TaskDiff { task });
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
                Some(pane) if self.board.is_live(self.board.host_of_pane(&pane)) => {
                    self.attach = Some(pane)
                },
                Some(_) => self.board.say("not connected to the server", true),
                None => self.board.say("no pane selected", true),
            },
            Action::Answer(n) => self.answer(|d| d.options.get(n - 1)),
            Action::Yes => self.answer(model::allowing),
            Action::No => self.answer(model::denying),
            Action::NextUnread => self.next_unread(),
            Action::MarkSeen => {
                if let Some(pane) = selected {
                    self.run_job(Job::MarkSeen { pane });
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
                    self.run_job(Job::Resume { pane });
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
}

#[cfg(test)]
mod tests;
