//! What the connections tell the main loop: a host's feed (its world, its
//! events, its link going down) and the preview's attach and output. Each
//! piece of news names its host; a host's news changes that host's part of
//! the board and nothing else, so a host that drops leaves the others'
//! rows, questions and preview as they are.

use super::App;
use super::feed::FeedNews;
use super::preview::{PreviewNews, PreviewState};
use signaltty_protocol::{EventFrame, PaneId};
use std::sync::atomic::Ordering;

impl App {
    /// News from `host`'s feed.
    pub(super) fn feed(&mut self, host: usize, news: FeedNews) {
        match news {
            FeedNews::World {
                world,
                tasks,
                conflicts,
                seq,
                events,
                replayed,
            } => {
                let was_lost = matches!(
                    self.board.conn_of(host),
                    super::model::Conn::Reconnecting { .. }
                );
                let began = self.board.load_from(host, world, seq);
                self.board.load_tasks_from(host, tasks);
                self.board.load_conflicts_from(host, conflicts);
                for e in &events {
                    self.event(host, e);
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
                    let text = self.on_host(host, format!("reconnected{caught}"));
                    self.board.say(text, false);
                }
            },
            FeedNews::Event(e, at) => {
                self.trace.received(at);
                self.trace.changed_at(&e);
                self.event(host, &e);
            },
            FeedNews::Lost(why) => self.lost(host, why),
        }
        if let Some(server) = self.servers.get(host) {
            server
                .last_seq
                .store(self.board.seq_of(host), Ordering::Relaxed);
        }
    }

    /// `host`'s feed is down: its rows stay, marked as of now; its preview
    /// connection goes (the next follow connects afresh), and so does the
    /// preview if it showed one of its panes.
    fn lost(&mut self, host: usize, why: String) {
        self.board.lose(host, why);
        if let Some(server) = self.servers.get(host) {
            server.preview.reset();
        }
        if self.preview_host == host {
            self.preview.pane = None;
            self.preview.term = None;
            self.preview.state = PreviewState::Empty;
        }
    }

    fn event(&mut self, host: usize, e: &EventFrame) {
        if let Some(episode) = self.board.apply_from(host, e) {
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

    /// News from `host`'s preview connection; only the followed pane's
    /// counts (the connection of a host the preview left may still talk).
    pub(super) fn preview_news(&mut self, host: usize, news: PreviewNews) {
        let ours = |p: &PaneId| host == self.preview_host && self.preview.pane.as_ref() == Some(p);
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
                if let Some(server) = self.servers.get(host) {
                    server.preview.follow(Some(&pane));
                }
            },
            PreviewNews::Failed { pane, why } if ours(&pane) => {
                self.preview.state = PreviewState::Failed(why);
            },
            _ => {},
        }
    }

    /// Points the preview at the selected pane, on its host's connection
    /// (detaching on the one before when the host changes). A pane whose
    /// host is down gets no preview: its last screen would pass for current.
    pub(super) fn follow_selection(&mut self) {
        let host = self.board.selected_host();
        let want = self
            .board
            .selected
            .clone()
            .filter(|_| self.board.is_live(host));
        if self.preview.pane == want {
            return;
        }
        if self.preview.pane.is_some()
            && self.preview_host != host
            && let Some(before) = self.servers.get(self.preview_host)
        {
            before.preview.follow(None);
        }
        self.preview.term = None;
        self.preview.state = match want {
            Some(_) => PreviewState::Attaching,
            None => PreviewState::Empty,
        };
        self.preview_host = host;
        if let Some(server) = self.servers.get(host) {
            server.preview.follow(want.as_ref());
        }
        self.preview.pane = want;
    }
}
