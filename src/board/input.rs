//! The terminal's keys, mouse and size changes, read on a thread of their
//! own and sent to the main loop. The reader can be paused: while the board
//! attaches a pane full-screen, the attach client reads the terminal and this
//! thread must not take a single byte from it.

use super::Input;
use ratatui::crossterm::event;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// How long one wait for input lasts before the pause flag is checked again.
const SLICE: Duration = Duration::from_millis(50);

pub struct KeyReader {
    paused: Arc<AtomicBool>,
    /// Set by the thread once it stands still (paused, not reading).
    idle: Arc<(Mutex<bool>, Condvar)>,
}

impl KeyReader {
    pub fn start(out: Sender<Input>) -> KeyReader {
        let paused = Arc::new(AtomicBool::new(false));
        let idle = Arc::new((Mutex::new(false), Condvar::new()));
        let (p, i) = (paused.clone(), idle.clone());
        std::thread::spawn(move || read(out, &p, &i));
        KeyReader { paused, idle }
    }

    /// Stops reading and returns once the thread no longer reads.
    pub fn pause(&self) {
        self.paused.store(true, Ordering::SeqCst);
        let (lock, cvar) = &*self.idle;
        let Ok(mut idle) = lock.lock() else {
            return;
        };
        while !*idle {
            idle = match cvar.wait_timeout(idle, Duration::from_secs(1)) {
                Ok((guard, _)) => guard,
                Err(_) => return,
            };
        }
    }

    pub fn resume(&self) {
        if let Ok(mut idle) = self.idle.0.lock() {
            *idle = false;
        }
        self.paused.store(false, Ordering::SeqCst);
    }
}

fn read(out: Sender<Input>, paused: &AtomicBool, idle: &(Mutex<bool>, Condvar)) {
    loop {
        if paused.load(Ordering::SeqCst) {
            let (lock, cvar) = idle;
            if let Ok(mut i) = lock.lock() {
                *i = true;
                cvar.notify_all();
            }
            std::thread::sleep(SLICE / 5);
            continue;
        }
        match event::poll(SLICE) {
            Ok(true) => {},
            Ok(false) => continue,
            Err(_) => return,
        }
        if paused.load(Ordering::SeqCst) {
            continue;
        }
        match event::read() {
            Ok(e) => {
                if out.send(Input::Term(e)).is_err() {
                    return;
                }
            },
            Err(_) => return,
        }
    }
}
