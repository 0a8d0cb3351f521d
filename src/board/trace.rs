//! What the board benchmark reads (`SIGNALTTY_BOARD_TRACE=FILE`): for every
//! live event, the time from reading it off the socket to the end of the
//! frame that drew it; the frames drawn, and the most in any one second;
//! and for every lifecycle change (`agent.*`), the time from the change on
//! its server (the pane's `lifecycle_since`, wall clock) to the end of the
//! frame that drew it: across a link, what a person waits for (the servers
//! and the board share one clock in the benchmark).
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
    /// Lifecycle changes since the last frame: when each happened on its
    /// server (ms since the epoch).
    changed: Vec<i64>,
    /// Milliseconds from the change on the server to drawn.
    since_change: Vec<i64>,
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

    /// Notes when `e`'s lifecycle change happened on its server.
    pub fn changed_at(&mut self, e: &signaltty_protocol::EventFrame) {
        if self.path.is_none() || !e.event.starts_with("agent.") {
            return;
        }
        let since = e.payload["pane"]["lifecycle_since"].as_str();
        if let Some(ms) =
            since.and_then(|t| signaltty_protocol::Timestamp(t.to_owned()).unix_millis())
        {
            self.changed.push(ms);
        }
    }

    pub fn drawn(&mut self) {
        if self.path.is_none() {
            return;
        }
        let now = Instant::now();
        let wall = signaltty_protocol::Timestamp::now()
            .unix_millis()
            .unwrap_or_default();
        for ms in self.changed.drain(..) {
            self.since_change.push(wall - ms);
        }
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
        self.since_change.sort_unstable();
        let changed = |q: f64| -> i64 {
            if self.since_change.is_empty() {
                return 0;
            }
            let i = ((self.since_change.len() - 1) as f64 * q).round() as usize;
            self.since_change[i]
        };
        let report = serde_json::json!({
            "changes": self.since_change.len(),
            "change_to_screen_ms": {"p50": changed(0.5), "p99": changed(0.99), "max": changed(1.0)},
            "events": self.latencies.len(),
            "frames": self.frames,
            "max_frames_per_second": self.max_per_second,
            "latency_us": {"p50": at(0.5), "p99": at(0.99), "max": at(1.0)},
        });
        let _ = std::fs::write(path, format!("{report}\n"));
    }
}
