//! A pane's live screen for the page: while a page shows a pane, a
//! watch-only attach (the board's preview connection: the pane is neither
//! marked seen nor answers its program's queries through us) keeps a local
//! terminal current, and the screen is sent as runs of styled text at most
//! ten times a second. `runs` is the pure part: one terminal row as
//! `[text, fg, bg, flags]` runs (docs/web.md#the-live-channel).

use crate::board::Input;
use crate::board::preview::{PreviewConn, PreviewNews};
use serde_json::{Value, json};
use signaltty_model::client::Target;
use signaltty_model::term::{CellColor, StyledCell, Terminal};
use signaltty_protocol::PaneId;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// The shortest time between two screens sent.
const FRAME: Duration = Duration::from_millis(100);
/// Added to a 24-bit colour so it reads apart from the 256 indexed ones.
const RGB: i64 = 1 << 24;

fn colour(c: CellColor) -> i64 {
    match c {
        CellColor::Default => -1,
        CellColor::Indexed(i) => i64::from(i),
        CellColor::Rgb(r, g, b) => RGB + (i64::from(r) << 16 | i64::from(g) << 8 | i64::from(b)),
    }
}

fn flags(c: &StyledCell) -> u8 {
    let a = c.attrs;
    [
        a.bold(),
        a.dim(),
        a.italic(),
        a.underline(),
        a.inverse(),
        a.strike(),
    ]
    .iter()
    .enumerate()
    .fold(0, |acc, (i, on)| if *on { acc | 1 << i } else { acc })
}

/// One row as runs of cells of the same style; trailing blanks dropped.
pub fn runs(cells: &[StyledCell]) -> Vec<Value> {
    let mut out: Vec<(String, i64, i64, u8)> = Vec::new();
    for c in cells.iter().filter(|c| !c.continuation) {
        let ch = if c.attrs.hidden() { ' ' } else { c.ch };
        let style = (colour(c.fg), colour(c.bg), flags(c));
        match out.last_mut() {
            Some(run) if (run.1, run.2, run.3) == style => {
                run.0.push(ch);
                run.0.push_str(&c.combining);
            },
            _ => {
                let mut text = ch.to_string();
                text.push_str(&c.combining);
                out.push((text, style.0, style.1, style.2));
            },
        }
    }
    // Blank cells at the end of a row carry nothing to see.
    while let Some(last) = out.last_mut() {
        if last.2 != -1 || last.3 & 16 != 0 {
            break;
        }
        let kept = last.0.trim_end_matches(' ').len();
        if kept == 0 {
            out.pop();
        } else {
            last.0.truncate(kept);
            break;
        }
    }
    out.into_iter()
        .map(|(t, fg, bg, f)| json!([t, fg, bg, f]))
        .collect()
}

/// The whole screen message for `pane` of `host`.
pub fn message(host: &str, pane: &PaneId, term: &Terminal) -> String {
    let (rows, cols) = term.size();
    let lines: Vec<Value> = (0..usize::from(rows))
        .map(|i| Value::Array(runs(&term.styled_row(i))))
        .collect();
    let cursor = term.cursor().map(|(r, c)| json!([r, c]));
    json!({
        "t": "screen", "host": host, "pane": pane.0, "rows": rows, "cols": cols,
        "cursor": cursor, "lines": lines,
    })
    .to_string()
}

/// A page's watch of one pane; dropping it detaches, and its thread ends
/// within a second.
pub struct Watch {
    conn: Arc<PreviewConn>,
    stop: Arc<AtomicBool>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.conn.reset();
    }
}

/// Starts following `pane` on `target` (host name `host`); screens and
/// failures go to `sink` until the watch is dropped.
pub fn watch(
    host: String,
    target: Target,
    pane: PaneId,
    sink: tokio::sync::mpsc::Sender<Arc<str>>,
) -> Watch {
    let (tx, rx) = channel();
    let conn = Arc::new(PreviewConn::new(0, target, tx));
    conn.follow(Some(&pane));
    let stop = Arc::new(AtomicBool::new(false));
    let (follow_again, stopped) = (conn.clone(), stop.clone());
    std::thread::spawn(move || {
        let mut term: Option<Terminal> = None;
        let mut dirty = false;
        let mut sent_at: Option<Instant> = None;
        loop {
            let wait = match (dirty, sent_at) {
                (true, Some(at)) => FRAME.saturating_sub(at.elapsed()),
                (true, None) => Duration::ZERO,
                (false, _) => Duration::from_secs(1),
            };
            if stopped.load(Ordering::Relaxed) {
                return;
            }
            match rx.recv_timeout(wait) {
                Ok(Input::Preview(_, news)) => match news {
                    PreviewNews::Attached { term: t, .. } => {
                        term = Some(*t);
                        dirty = true;
                    },
                    PreviewNews::Output { bytes, .. } => {
                        if let Some(t) = term.as_mut() {
                            let _ = t.feed(&bytes);
                            dirty = true;
                        }
                    },
                    PreviewNews::Gap { pane } => follow_again.follow(Some(&pane)),
                    PreviewNews::Failed { pane, why } => {
                        let msg =
                            json!({"t": "screen_failed", "host": host, "pane": pane.0, "why": why});
                        if sink.blocking_send(Arc::from(msg.to_string())).is_err() {
                            return;
                        }
                    },
                },
                Ok(_) => {},
                Err(RecvTimeoutError::Timeout) => {},
                Err(RecvTimeoutError::Disconnected) => return,
            }
            let due = sent_at.is_none_or(|at| at.elapsed() >= FRAME);
            if dirty
                && due
                && let Some(t) = term.as_ref()
            {
                let msg = message(&host, &pane, t);
                if sink.blocking_send(Arc::from(msg)).is_err() {
                    return;
                }
                dirty = false;
                sent_at = Some(Instant::now());
            }
        }
    });
    Watch { conn, stop }
}

#[cfg(test)]
mod tests;
