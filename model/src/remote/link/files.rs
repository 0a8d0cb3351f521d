//! What a link keeps beside its frames: the end of ssh's stderr (for the
//! error a person reads).

use parking_lot::{Condvar, Mutex};
use std::io::{BufRead, BufReader};
use std::time::Duration;

/// The end of ssh's stderr that is kept for the error message.
const STDERR_KEEP: usize = 4096;

/// The end of ssh's stderr, and whether all of it has been read.
#[derive(Default)]
pub(super) struct Stderr {
    text: Mutex<String>,
    ended: Mutex<bool>,
    ended_cv: Condvar,
}

impl Stderr {
    /// The text, once ssh's stderr has ended or `within` has passed (a
    /// forked control master may keep the pipe open).
    pub(super) fn read(&self, within: Duration) -> String {
        let mut ended = self.ended.lock();
        if !*ended {
            let _ = self.ended_cv.wait_for(&mut ended, within);
        }
        drop(ended);
        self.text.lock().clone()
    }
}

pub(super) fn keep_stderr(stderr: std::process::ChildStderr, kept: &Stderr) {
    let mut reader = BufReader::new(stderr);
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => {
                *kept.ended.lock() = true;
                kept.ended_cv.notify_all();
                return;
            },
            Ok(_) => {
                let mut k = kept.text.lock();
                k.push_str(&line);
                if k.len() > STDERR_KEEP {
                    let cut = k.len() - STDERR_KEEP;
                    let cut = (cut..k.len()).find(|i| k.is_char_boundary(*i)).unwrap_or(0);
                    k.drain(..cut);
                }
            },
        }
    }
}
