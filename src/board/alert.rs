//! Telling a person when a pane needs them: the terminal bell (`--bell`, on
//! by default) and, with `--notify` in a desktop session, a desktop
//! notification through `notify-send` when it is installed. One per episode
//! (the model reports an episode once, when it begins), and never a storm:
//! at most one bell per second and one desktop notification per pane per
//! 10 s, whatever the agents do.

use super::model::{Board, Episode, EpisodeKind};
use signaltty_protocol::PaneId;
use std::collections::HashMap;
use std::io::Write as _;
use std::time::{Duration, Instant};

const BELL_GAP: Duration = Duration::from_secs(1);
const NOTIFY_GAP: Duration = Duration::from_secs(10);

pub struct Alerts {
    bell: bool,
    notify: Option<std::path::PathBuf>,
    last_bell: Option<Instant>,
    last_notified: HashMap<PaneId, Instant>,
}

impl Alerts {
    /// `notify` is honoured only in a desktop session with `notify-send`.
    pub fn new(bell: bool, notify: bool) -> Alerts {
        let desktop = std::env::var_os("DISPLAY").is_some()
            || std::env::var_os("WAYLAND_DISPLAY").is_some()
            || std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some();
        let notify = (notify && desktop).then(|| which("notify-send")).flatten();
        Alerts {
            bell,
            notify,
            last_bell: None,
            last_notified: HashMap::new(),
        }
    }

    /// Whether `--notify` found a way to notify (for the status line).
    pub fn notifies(&self) -> bool {
        self.notify.is_some()
    }

    pub fn episode(&mut self, board: &Board, episode: &Episode) {
        let now = Instant::now();
        if self.bell && self.last_bell.is_none_or(|t| now - t >= BELL_GAP) {
            self.last_bell = Some(now);
            let mut out = std::io::stdout();
            let _ = out.write_all(b"\x07");
            let _ = out.flush();
        }
        let Some(program) = &self.notify else {
            return;
        };
        if self
            .last_notified
            .get(&episode.pane)
            .is_some_and(|t| now - *t < NOTIFY_GAP)
        {
            return;
        }
        self.last_notified.insert(episode.pane.clone(), now);
        let Some(pane) = board.panes.get(&episode.pane) else {
            return;
        };
        let mut name = pane.name.clone().unwrap_or_else(|| pane.title.clone());
        // Which machine, when the board shows several.
        if let Some(host) = board.host_tag(&pane.id) {
            name = format!("{host}:{name}");
        }
        let (title, body) = match episode.kind {
            EpisodeKind::Blocked => (
                format!("{name} needs you"),
                pane.pending_decision
                    .as_ref()
                    .map(|d| d.prompt.clone())
                    .or_else(|| pane.last_message.clone())
                    .unwrap_or_default(),
            ),
            EpisodeKind::Done => (
                format!("{name} is done"),
                pane.last_message.clone().unwrap_or_default(),
            ),
        };
        // Fire and forget; reaped on its own thread so no zombie stays.
        if let Ok(mut child) = std::process::Command::new(program)
            .args(["--app-name=signaltty", &title, &body])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
        {
            std::thread::spawn(move || child.wait());
        }
    }
}

/// `program` on `$PATH`, if there.
fn which(program: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}
