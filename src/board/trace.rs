//! What the board benchmark reads (`SIGNALTTY_BOARD_TRACE=FILE`): for every
//! live event, the time from reading it off the socket to the end of the
//! frame that drew it; the frames drawn, and the most in any one second.
//! Written as one JSON object when the board quits. Off (and free) without
//! the variable.

use std::path::PathBuf;
use std::time::Instant;

#[derive(Debug, Default)]
pub struct Trace {
    path: Option<PathBuf>,
    /// Events read since the last frame.
    waiting: Vec<Instant>,
    /// Microseconds from read to drawn, per event.
    latencies: Vec<u64>,
    frames: u64,
    /// Frame ends in the current one-second window, and the most seen.
    window: Option<(Instant, u64)>,
    max_per_second: u64,
}

impl Trace {
    pub fn from_env() -> Trace {
        Trace {
            path: std::env::var_os("SIGNALTTY_BOARD_TRACE").map(PathBuf::from),
            ..Trace::default()
        }
    }

    pub fn received(&mut self, at: Instant) {
        if self.path.is_some() {
            self.waiting.push(at);
        }
    }

    pub fn drawn(&mut self) {
        if self.path.is_none() {
            return;
        }
        let now = Instant::now();
        self.frames += 1;
        for at in self.waiting.drain(..) {
            self.latencies.push((now - at).as_micros() as u64);
        }
        let (start, n) = self.window.get_or_insert((now, 0));
        if now.duration_since(*start).as_secs_f64() >= 1.0 {
            *start = now;
            *n = 0;
        }
        *n += 1;
        self.max_per_second = self.max_per_second.max(*n);
    }

    pub fn write(&mut self) {
        let Some(path) = &self.path else {
            return;
        };
        self.latencies.sort_unstable();
        let at = |q: f64| -> u64 {
            if self.latencies.is_empty() {
                return 0;
            }
            let i = ((self.latencies.len() - 1) as f64 * q).round() as usize;
            self.latencies[i]
        };
        let report = serde_json::json!({
            "events": self.latencies.len(),
            "frames": self.frames,
            "max_frames_per_second": self.max_per_second,
            "latency_us": {"p50": at(0.5), "p99": at(0.99), "max": at(1.0)},
        });
        let _ = std::fs::write(path, format!("{report}\n"));
    }
}
