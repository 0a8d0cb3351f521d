//! The live preview of the selected pane. It reuses the server's terminal
//! model (`signaltty_model::term::Terminal`, plain data without actix): a
//! connection of its own attaches to the selected pane as a watch-only viewer
//! (`pane.attach {watch: true, mark_seen: false}`, so the pane is neither
//! marked seen nor stops answering its program's terminal queries), feeds the
//! attach snapshot and then every `pty.data` chunk into a local `Terminal`
//! of the pane's size, and the view draws its cells. Only the selected pane
//! is attached: the others cost nothing. Redraws follow the output, never a
//! timer.

use crate::cli::failure;
use base64::Engine as _;
use signaltty_model::client::{ConnRead, ConnWrite, Target};
use signaltty_model::term::Terminal;
use signaltty_protocol::pane::{PaneAttachParams, PaneAttachResult, PaneTarget};
use signaltty_protocol::{Method, PaneId, PaneRef, Request, ServerLine};
use std::io::{BufRead as _, BufReader, Write as _};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

/// What the preview shows.
#[derive(Debug)]
pub struct Preview {
    /// The pane it follows.
    pub pane: Option<PaneId>,
    /// Its screen, once attached.
    pub term: Option<Terminal>,
    pub state: PreviewState,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreviewState {
    /// No pane selected.
    Empty,
    /// Attaching to it.
    Attaching,
    /// Following its output.
    Live,
    /// The preview connection failed (shown as the reason).
    Failed(String),
}

impl Preview {
    pub fn empty() -> Preview {
        Preview {
            pane: None,
            term: None,
            state: PreviewState::Empty,
        }
    }
}

/// What the preview connection tells the main loop.
#[derive(Debug)]
pub enum PreviewNews {
    /// Attached to `pane`: its screen as of now.
    Attached { pane: PaneId, term: Box<Terminal> },
    /// More output of `pane`, in order.
    Output { pane: PaneId, bytes: Vec<u8> },
    /// Output was lost (a gap in the stream): attach again to rebuild it.
    Gap { pane: PaneId },
    /// It cannot follow `pane` (gone, or the connection broke).
    Failed { pane: PaneId, why: String },
}

/// The preview connection: one socket, attached to at most one pane.
pub struct PreviewConn {
    socket: Target,
    writer: Option<Arc<Mutex<ConnWrite>>>,
    /// Which pane the connection is attached to (its reader tags news with it).
    attached: Arc<Mutex<Option<PaneId>>>,
    news: Sender<super::Input>,
    requests: u64,
}

impl PreviewConn {
    pub fn new(socket: Target, news: Sender<super::Input>) -> PreviewConn {
        PreviewConn {
            socket,
            writer: None,
            attached: Arc::new(Mutex::new(None)),
            news,
            requests: 0,
        }
    }

    /// Follows `pane` from now on (detaching from the previous one), or
    /// nothing with `None`.
    pub fn follow(&mut self, pane: Option<&PaneId>) {
        if let Some(old) = self.current()
            && Some(&old) != pane
        {
            self.send(Method::PaneDetach(PaneTarget {
                pane_id: PaneRef(old.0.clone()),
            }));
        }
        self.set_current(pane.cloned());
        let Some(pane) = pane else {
            return;
        };
        if self.writer.is_none() && !self.connect() {
            return;
        }
        self.send(Method::PaneAttach(PaneAttachParams {
            pane_id: PaneRef(pane.0.clone()),
            cols: None,
            rows: None,
            mark_seen: Some(false),
            watch: Some(true),
        }));
    }

    fn current(&self) -> Option<PaneId> {
        self.attached.lock().ok().and_then(|a| a.clone())
    }

    fn set_current(&self, pane: Option<PaneId>) {
        if let Ok(mut a) = self.attached.lock() {
            *a = pane;
        }
    }

    /// Drops the connection (the server went away): the next `follow`
    /// connects afresh.
    pub fn reset(&mut self) {
        self.writer = None;
    }

    fn send(&mut self, method: Method) {
        let Some(writer) = &self.writer else {
            return;
        };
        self.requests += 1;
        let mut line = Request::new(format!("preview-{}", self.requests), method).to_line();
        line.push('\n');
        let sent = writer
            .lock()
            .map_err(|_| std::io::Error::other("poisoned"))
            .and_then(|mut w| w.write_all(line.as_bytes()));
        if sent.is_err() {
            self.writer = None;
        }
    }

    fn connect(&mut self) -> bool {
        let (reader, stream) = match self.socket.connect() {
            Ok(s) => s,
            Err(e) => {
                if let Some(pane) = self.current() {
                    let _ = self.news.send(super::Input::Preview(PreviewNews::Failed {
                        pane,
                        why: e.message,
                    }));
                }
                return false;
            },
        };
        self.writer = Some(Arc::new(Mutex::new(stream)));
        let attached = self.attached.clone();
        let news = self.news.clone();
        std::thread::spawn(move || read_preview(reader, attached, news));
        true
    }
}

/// The preview connection's reader: attach replies become screens, output
/// chunks past what the screen covers are passed on in order.
fn read_preview(
    stream: ConnRead,
    attached: Arc<Mutex<Option<PaneId>>>,
    news: Sender<super::Input>,
) {
    let current = || attached.lock().ok().and_then(|a| a.clone());
    let mut reader = BufReader::new(stream);
    // The output offset the screen covers, per attach.
    let mut covered: Option<(PaneId, u64)> = None;
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {},
        }
        let Some(pane) = current() else {
            continue;
        };
        let sent = match ServerLine::parse(line.trim_end()) {
            Ok(ServerLine::Response(r)) => match (r.result, r.error) {
                (Some(v), None) => match serde_json::from_value::<PaneAttachResult>(v) {
                    Ok(snapshot) => {
                        let bytes = base64::engine::general_purpose::STANDARD
                            .decode(&snapshot.snapshot_b64)
                            .unwrap_or_default();
                        let mut term = Terminal::new(snapshot.size.rows, snapshot.size.cols);
                        let _ = term.feed(&bytes);
                        covered = Some((pane.clone(), snapshot.output_offset));
                        news.send(super::Input::Preview(PreviewNews::Attached {
                            pane,
                            term: Box::new(term),
                        }))
                    },
                    // A detach reply, or another answer: nothing to show.
                    Err(_) => Ok(()),
                },
                (_, Some(e)) => news.send(super::Input::Preview(PreviewNews::Failed {
                    pane,
                    why: failure(e.code, e.message),
                })),
                _ => Ok(()),
            },
            Ok(ServerLine::Event(e)) if e.event == "pty.data" => {
                let of = e.payload["pane_id"].as_str().unwrap_or_default();
                let Some((at_pane, at)) = covered.as_mut() else {
                    continue;
                };
                if of != at_pane.0 || *at_pane != pane {
                    continue;
                }
                let chunk = base64::engine::general_purpose::STANDARD
                    .decode(e.payload["data_b64"].as_str().unwrap_or_default())
                    .unwrap_or_default();
                let end = e.payload["output_offset"].as_u64().unwrap_or(*at);
                let start = end.saturating_sub(chunk.len() as u64);
                if end <= *at {
                    continue;
                }
                if start > *at {
                    // A gap: the screen cannot be trusted; attach again.
                    covered = None;
                    news.send(super::Input::Preview(PreviewNews::Gap { pane }))
                } else {
                    let skip = (*at - start) as usize;
                    *at = end;
                    news.send(super::Input::Preview(PreviewNews::Output {
                        pane,
                        bytes: chunk[skip..].to_vec(),
                    }))
                }
            },
            _ => Ok(()),
        };
        if sent.is_err() {
            return;
        }
    }
    if let Some(pane) = current() {
        let _ = news.send(super::Input::Preview(PreviewNews::Failed {
            pane,
            why: "the preview connection closed".into(),
        }));
    }
}
