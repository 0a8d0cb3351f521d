//! The process logger: one line per record, to stderr and optionally to a file.
//! The level comes from `SIGNALTTY_LOG` (error, warn, info, debug, trace; default info).

use signaltty_protocol::Timestamp;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

struct Logger {
    level: log::LevelFilter,
    /// Logging is rare enough that a plain mutex around the file is never contended.
    file: Option<Mutex<File>>,
}

impl log::Log for Logger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= self.level
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let line = format!(
            "{} {:5} {}: {}\n",
            Timestamp::now(),
            record.level(),
            record.target(),
            record.args()
        );
        // A log line that cannot be written has nowhere else to go.
        let _ = std::io::stderr().write_all(line.as_bytes());
        if let Some(f) = &self.file
            && let Ok(mut f) = f.lock()
        {
            let _ = f.write_all(line.as_bytes());
        }
    }

    fn flush(&self) {}
}

/// Installs the logger. A log file that cannot be opened is reported and skipped.
pub fn init(log_file: Option<&Path>) {
    let level = match std::env::var("SIGNALTTY_LOG")
        .ok()
        .as_deref()
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("error") => log::LevelFilter::Error,
        Some("warn") => log::LevelFilter::Warn,
        Some("debug") => log::LevelFilter::Debug,
        Some("trace") => log::LevelFilter::Trace,
        Some("off") => log::LevelFilter::Off,
        _ => log::LevelFilter::Info,
    };
    let file = log_file.and_then(|p| {
        use std::os::unix::fs::OpenOptionsExt;
        match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(p)
        {
            Ok(f) => Some(Mutex::new(f)),
            Err(e) => {
                eprintln!("signaltty: cannot open log file {}: {e}", p.display());
                None
            },
        }
    });
    let logger = Box::new(Logger { level, file });
    if log::set_boxed_logger(logger).is_ok() {
        log::set_max_level(level);
    }
}
