//! The server's log, on `tracing-subscriber`: one line per record to stderr
//! (or to journald when systemd runs the server) and, when a log file is
//! set, to that file, size-capped with one predecessor kept. The actors'
//! `log` records are bridged (tracing-log), so nothing is lost.
//!
//! The filter is `RUST_LOG`-style directives (`info`, `signaltty_actors=debug,info`)
//! from `$SIGNALTTY_LOG`, else `$RUST_LOG`, else the config file's `[log] level`,
//! else `info` (the settings table resolves which). docs/logging.md has more.

mod rotate;

pub use rotate::RotatingFile;

use signaltty_model::settings::knobs::{K, Value};
use signaltty_model::settings::{Origin, Problem, Settings, Where};
use signaltty_protocol::Timestamp;
use std::fmt;
use std::io::IsTerminal;
use std::path::PathBuf;
use tracing::{Event, Level, Subscriber};
use tracing_log::NormalizeEvent;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::FormatTime;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Layer, Registry};

/// The filter used when the configured one does not parse.
const FALLBACK_FILTER: &str = "info";

/// The configured filter, parsed.
pub fn parse_filter(directives: &str) -> Result<EnvFilter, String> {
    EnvFilter::builder()
        .parse(directives)
        .map_err(|e| format!("\"{directives}\" is not a log filter ({e})"))
}

/// The effective filter text and where it came from.
fn filter_setting(settings: &Settings) -> (String, Origin) {
    match settings.get(K::LogLevel) {
        Some(e) => match &e.value {
            Value::Text(t) => (t.clone(), e.origin.clone()),
            _ => (FALLBACK_FILTER.to_owned(), Origin::Default),
        },
        None => (FALLBACK_FILTER.to_owned(), Origin::Default),
    }
}

/// The problem with the configured filter, if it does not parse. The
/// resolver cannot check it: the filter syntax is tracing-subscriber's.
pub fn filter_problem(settings: &Settings) -> Option<Problem> {
    let (text, origin) = filter_setting(settings);
    let message = parse_filter(&text).err()?;
    let at = match origin {
        Origin::File { path, line } => Where::File {
            path,
            line,
            column: None,
        },
        Origin::Env { var } => Where::Env { var },
        Origin::Flag { flag } => Where::Flag { flag },
        Origin::Default => return None,
    };
    Some(Problem {
        at,
        key: Some("log.level".to_owned()),
        message: format!("{message}; using \"{FALLBACK_FILTER}\""),
    })
}

/// The timestamp the rest of signaltty writes (RFC 3339, UTC, milliseconds).
struct Stamp;

impl FormatTime for Stamp {
    fn format_time(&self, w: &mut Writer<'_>) -> fmt::Result {
        write!(w, "{}", Timestamp::now())
    }
}

/// Lines for journald read from stderr: `<N>` syslog priority first, no
/// timestamp (journald adds its own).
struct Prioritized;

/// The syslog priority of a level.
fn priority(level: &Level) -> u8 {
    match *level {
        Level::ERROR => 3,
        Level::WARN => 4,
        Level::INFO => 6,
        _ => 7,
    }
}

impl<S, N> FormatEvent<S, N> for Prioritized
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut w: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let normalized = event.normalized_metadata();
        let meta = normalized.as_ref().unwrap_or_else(|| event.metadata());
        write!(w, "<{}>{}: ", priority(meta.level()), meta.target())?;
        ctx.field_format().format_fields(w.by_ref(), event)?;
        writeln!(w)
    }
}

/// Whether stderr is the journal stream systemd connected (its documented
/// check: `$JOURNAL_STREAM` is stderr's `device:inode`).
fn stderr_is_journal() -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let Some(stream) = std::env::var_os("JOURNAL_STREAM") else {
        return false;
    };
    let Some((dev, ino)) = stream.to_str().and_then(|s| s.split_once(':')) else {
        return false;
    };
    let Ok(fd) = std::io::stderr().as_fd().try_clone_to_owned() else {
        return false;
    };
    let Ok(meta) = std::fs::File::from(fd).metadata() else {
        return false;
    };
    dev.parse() == Ok(meta.dev()) && ino.parse() == Ok(meta.ino())
}

type Boxed = Box<dyn Layer<Registry> + Send + Sync>;

/// The console half: journald, `<N>` lines, or plain lines on stderr.
fn console_layer() -> Boxed {
    if stderr_is_journal() {
        match tracing_journald::layer() {
            Ok(layer) => return Box::new(layer.with_syslog_identifier("signaltty".to_owned())),
            Err(_) => {
                return Box::new(
                    tracing_subscriber::fmt::layer()
                        .with_writer(std::io::stderr)
                        .with_ansi(false)
                        .event_format(Prioritized),
                );
            },
        }
    }
    Box::new(
        tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_ansi(std::io::stderr().is_terminal())
            .with_timer(Stamp),
    )
}

/// Installs the logger. Returns the problems found on the way (a filter that
/// does not parse, a log file that cannot be opened), for the caller to log.
pub fn init(settings: &Settings) -> Vec<String> {
    let mut trouble = Vec::new();
    let (text, _) = filter_setting(settings);
    let filter = match parse_filter(&text) {
        Ok(f) => f,
        Err(_) => {
            if let Some(p) = filter_problem(settings) {
                trouble.push(p.to_string());
            }
            EnvFilter::new(FALLBACK_FILTER)
        },
    };
    let file: Option<Boxed> = settings.path(K::LogFile).and_then(|path: PathBuf| {
        match RotatingFile::open(&path, settings.int(K::LogMaxBytes)) {
            Ok(f) => Some(Box::new(
                tracing_subscriber::fmt::layer()
                    .with_writer(f)
                    .with_ansi(false)
                    .with_timer(Stamp),
            ) as Boxed),
            Err(e) => {
                trouble.push(format!("cannot open log file {}: {e}", path.display()));
                None
            },
        }
    });
    let layers: Vec<Boxed> = std::iter::once(console_layer()).chain(file).collect();
    // A second init (never in the server) keeps the first logger.
    let _ = tracing_subscriber::registry()
        .with(layers.with_filter(filter))
        .try_init();
    install_panic_hook();
    trouble
}

/// A panic is logged before the default hook prints it, so a detached
/// server (stderr closed) still leaves it in its log file.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        log::error!("panic: {info}");
        previous(info);
    }));
}

#[cfg(test)]
mod tests;
