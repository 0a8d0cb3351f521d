//! The live preview of the selected pane. It reuses the server's terminal
//! model (`signaltty_model::term::Terminal`, plain data without actix): a
//! connection of its own attaches to the selected pane as a watch-only viewer
//! (`pane.attach {watch: true, mark_seen: false}`, so the pane is neither
//! marked seen nor stops answering its program's terminal queries), feeds the
//! attach snapshot and then every `pty.data` chunk into a local `Terminal`
//! of the pane's size, and the view draws its cells. Only the selected pane
//! is attached: the others cost nothing. Redraws follow the output, never a
//! timer. A board of several hosts has one such connection per host, each
//! run by a thread of its own; the preview follows the selected pane on its
//! host's connection and detaches on the one before.

use crate::cli::failure;
use base64::Engine as _;
use signaltty_model::client::{ConnRead, ConnWrite, Target};
use signaltty_model::term::Terminal;
use signaltty_protocol::pane::{PaneAttachParams, PaneAttachResult, PaneTarget};
use signaltty_protocol::{Method, PaneId, PaneRef, Request, ServerLine};
use std::io::{BufRead as _, BufReader, Write as _};
use std::sync::mpsc::{Receiver, Sender, channel};
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

/// What the main loop asks of a preview connection.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Order {
    /// Follow this pane from now on (detaching from the previous one), or
    /// none.
    Follow(Option<PaneId>),
    /// The server went away: drop the connection; the next follow connects
    /// afresh.
    Reset,
}

/// The preview connection of one host, attached to at most one pane. A
/// thread of its own connects, attaches and detaches, so the main loop never
/// waits for a connect (a remote host's can take seconds, and one that is
/// down up to ssh's timeout).
pub struct PreviewConn {
    orders: Sender<Order>,
}

impl PreviewConn {
    /// The preview connection of the board's host `host`, whose news says it.
    pub fn new(host: usize, socket: Target, news: Sender<super::Input>) -> PreviewConn {
        let (orders, rx) = channel();
        let conn = Conn {
            host,
            socket,
            writer: None,
            attached: Arc::new(Mutex::new(None)),
            news,
            requests: 0,
        };
        std::thread::spawn(move || conn.run(rx));
        PreviewConn { orders }
    }

    /// Follows `pane` from now on (detaching from the previous one), or
    /// nothing with `None`.
    pub fn follow(&self, pane: Option<&PaneId>) {
        let _ = self.orders.send(Order::Follow(pane.cloned()));
    }

    /// Drops the connection (the server went away): the next `follow`
    /// connects afresh.
    pub fn reset(&self) {
        let _ = self.orders.send(Order::Reset);
    }
}

/// The orders that queued up meanwhile, to carry out in order: of the
/// follows only the last (the ones before it would attach and detach at
/// once, and the person has moved on).
fn latest(batch: Vec<Order>) -> Vec<Order> {
    let last = batch.iter().rposition(|o| matches!(o, Order::Follow(_)));
    batch
        .into_iter()
        .enumerate()
        .filter(|(i, o)| !matches!(o, Order::Follow(_)) || Some(*i) == last)
        .map(|(_, o)| o)
        .collect()
}

/// The connection itself, owned by its thread.
struct Conn {
    host: usize,
    socket: Target,
    writer: Option<ConnWrite>,
    /// Which pane the connection is attached to (its reader tags news with it).
    attached: Arc<Mutex<Option<PaneId>>>,
    news: Sender<super::Input>,
    requests: u64,
}

impl Conn {
    fn run(mut self, orders: Receiver<Order>) {
        while let Ok(first) = orders.recv() {
            let mut batch = vec![first];
            batch.extend(orders.try_iter());
            for order in latest(batch) {
                match order {
                    Order::Follow(pane) => self.follow(pane.as_ref()),
                    Order::Reset => self.reset(),
                }
            }
        }
    }

    fn follow(&mut self, pane: Option<&PaneId>) {
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

    /// Follows nothing and closes the connection, so its reader ends
    /// without reporting a pane the main loop no longer shows.
    fn reset(&mut self) {
        self.set_current(None);
        if let Some(writer) = self.writer.take() {
            writer.shutdown();
        }
    }

    fn send(&mut self, method: Method) {
        let Some(writer) = self.writer.as_mut() else {
            return;
        };
        self.requests += 1;
        let mut line = Request::new(format!("preview-{}", self.requests), method).to_line();
        line.push('\n');
        if writer.write_all(line.as_bytes()).is_err() {
            self.writer = None;
        }
    }

    fn connect(&mut self) -> bool {
        let (reader, stream) = match self.socket.connect() {
            Ok(s) => s,
            Err(e) => {
                if let Some(pane) = self.current() {
                    let failed = PreviewNews::Failed {
                        pane,
                        why: e.message,
                    };
                    let _ = self.news.send(super::Input::Preview(self.host, failed));
                }
                return false;
            },
        };
        self.writer = Some(stream);
        let attached = self.attached.clone();
        let news = self.news.clone();
        let host = self.host;
        std::thread::spawn(move || read_preview(host, reader, attached, news));
        true
    }
}

/// The preview connection's reader: attach replies become screens, output
/// chunks past what the screen covers are passed on in order.
fn read_preview(
    host: usize,
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
                        news.send(super::Input::Preview(
                            host,
                            PreviewNews::Attached {
                                pane,
                                term: Box::new(term),
                            },
                        ))
                    },
                    // A detach reply, or another answer: nothing to show.
                    Err(_) => Ok(()),
                },
                (_, Some(e)) => news.send(super::Input::Preview(
                    host,
                    PreviewNews::Failed {
                        pane,
                        why: failure(e.code, e.message),
                    },
                )),
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
                    news.send(super::Input::Preview(host, PreviewNews::Gap { pane }))
                } else {
                    let skip = (*at - start) as usize;
                    *at = end;
                    news.send(super::Input::Preview(
                        host,
                        PreviewNews::Output {
                            pane,
                            bytes: chunk[skip..].to_vec(),
                        },
                    ))
                }
            },
            _ => Ok(()),
        };
        if sent.is_err() {
            return;
        }
    }
    if let Some(pane) = current() {
        let _ = news.send(super::Input::Preview(
            host,
            PreviewNews::Failed {
                pane,
                why: "the preview connection closed".into(),
            },
        ));
    }
}

#[cfg(test)]
mod tests;
