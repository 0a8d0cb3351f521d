//! `signaltty agents record AGENT`: every distinct screen of an agent's pane,
//! written in the screen-fixture format while a person drives the agent, so
//! a rule for a new release can be written the same day
//! (docs/agents.md#recording-a-new-versions-screens).
//!
//! The recorder is a plain client: it polls the pane's screen and title
//! (every 50 ms), and reads each new frame with the same rules the server
//! applies to that pane (the server's agents directory, the pane's kind and
//! process, the pane's width), so a frame's name says what the rules read on
//! exactly that screen. Frames are written as they come: an interrupted
//! recording keeps everything it saw.

use crate::args::{Global, RecordArgs};
use crate::cli::{connect, fail_with, fetch, typed};
use signaltty_model::agents::AgentSet;
use signaltty_model::agents::screen::{ScreenState, View, classify};
use signaltty_model::client::Client;
use signaltty_protocol::pane::{LiveState, ReadMode};
use signaltty_protocol::pane::{PaneGetResult, PaneReadParams, PaneReadResult, PaneTarget};
use signaltty_protocol::state::{AgentsParams, AgentsResult, PaneExplainResult};
use signaltty_protocol::{ErrorCode, Method, PaneRef};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often the screen is read.
const POLL: Duration = Duration::from_millis(50);
/// How long the first frames wait for the agent's version to be known
/// (it names the directory) before `unknown` is used.
const VERSION_WAIT: Duration = Duration::from_secs(5);

/// `signaltty agents record AGENT [--pane P] [--out DIR] [--for SECS] [-- ARGV…]`.
pub fn record(global: &Global, args: RecordArgs) -> i32 {
    match run(global, args) {
        Ok(code) | Err(code) => code,
    }
}

fn run(global: &Global, args: RecordArgs) -> Result<i32, i32> {
    if args.agent.is_empty() || args.agent.starts_with('.') || args.agent.contains('/') {
        return Err(fail_with(
            ErrorCode::BadParams,
            format!(
                "{:?} cannot name a directory: give the agent's program name, such as claude",
                args.agent
            ),
        ));
    }
    let mut client = connect(global)?;
    let pane = match args.pane {
        Some(pane) => pane,
        None => {
            let argv = if args.argv.is_empty() {
                vec![args.agent.clone()]
            } else {
                args.argv
            };
            let name = Some(format!("record-{}", args.agent));
            let (_, value) = crate::cli::launch(&mut client, None, name, None, None, vec![], argv)?;
            let launched: signaltty_protocol::pane::PaneLaunchResult = typed(value)?;
            let id = launched.pane.id.0;
            say!(
                "started {} in pane {id}: drive it with `signaltty attach {id}`",
                args.agent
            );
            id
        },
    };
    let agents: AgentsResult = fetch(&mut client, Method::AgentsList(AgentsParams {}))?;
    let set = AgentSet::load_or_bundled(agents.dir.as_deref().map(Path::new));
    let stop = stop_on_signals();
    let mut rec = Recording {
        agent: args.agent,
        out: args.out.unwrap_or_else(|| PathBuf::from(".")),
        dir: None,
        pending: Vec::new(),
        next: 0,
        counts: BTreeMap::new(),
        started: Instant::now(),
    };
    say!("recording {pane}'s screens; Ctrl-C stops");
    let until = args.duration.map(|s| rec.started + Duration::from_secs(s));
    let mut last: Option<(String, String)> = None;
    let ended = loop {
        if stop.load(Ordering::Relaxed) {
            break "stopped";
        }
        if until.is_some_and(|t| Instant::now() >= t) {
            break "time is up";
        }
        let Some(seen) = look(&mut client, &pane)? else {
            break "the pane is gone";
        };
        let key = (seen.title.clone(), seen.text.clone());
        if last.as_ref() != Some(&key) {
            last = Some(key);
            let frame = rec.read(&set, seen.clone(), &mut client, &pane)?;
            rec.pending.push(frame);
        }
        rec.flush(seen.version.as_deref(), false)?;
        if !seen.live {
            break "the pane's process exited";
        }
        std::thread::sleep(POLL);
    };
    rec.flush(None, true)?;
    let dir = rec.dir.clone().unwrap_or_default();
    let counts: Vec<String> = rec.counts.iter().map(|(s, n)| format!("{s} {n}")).collect();
    say!(
        "{ended}: {} screens in {} ({})",
        rec.counts.values().sum::<usize>(),
        dir.display(),
        counts.join(", ")
    );
    say!(
        "each is named after what the rules read on it; copy the ones to keep into \
         integration-tests/fixtures/real-screens/{}/, renamed to what the screen shows",
        dir.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    Ok(0)
}

/// The pane as one poll saw it.
#[derive(Clone)]
struct Seen {
    title: String,
    text: String,
    cols: u16,
    live: bool,
    lifecycle: String,
    version: Option<String>,
}

/// One recorded screen with what was read on it.
struct Frame {
    at: Duration,
    seen: Seen,
    /// What the rules read: `idle`, `working`, `blocked`, `interrupted`,
    /// `hold`, or `unmatched`.
    reading: &'static str,
    rule: String,
    lifecycle_source: String,
}

/// Reads the pane's screen and state; `None` once the pane is gone.
fn look(client: &mut Client, pane: &str) -> Result<Option<Seen>, i32> {
    let get = client.call(Method::PaneGet(PaneTarget {
        pane_id: PaneRef(pane.to_owned()),
    }));
    let got: PaneGetResult = match get {
        Ok(v) => typed(v)?,
        Err(e) if e.code == ErrorCode::NoSuchPane => return Ok(None),
        Err(e) => return Err(crate::cli::fail_call(e)),
    };
    let read = client.call(Method::PaneRead(PaneReadParams {
        pane_id: PaneRef(pane.to_owned()),
        mode: Some(ReadMode::Screen),
        lines: None,
        strip_ansi: None,
        after_seq: None,
    }));
    let screen: PaneReadResult = match read {
        Ok(v) => typed(v)?,
        Err(e) if e.code == ErrorCode::NoSuchPane => return Ok(None),
        Err(e) => return Err(crate::cli::fail_call(e)),
    };
    let p = got.pane;
    Ok(Some(Seen {
        title: p.title,
        text: screen.text,
        cols: p.pty_size.cols,
        live: matches!(p.live, LiveState::Live),
        lifecycle: serde_json::to_value(p.lifecycle)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        version: p.agent.version,
    }))
}

struct Recording {
    agent: String,
    out: PathBuf,
    /// `<out>/<agent>-<version>`, once named.
    dir: Option<PathBuf>,
    /// Frames not written yet (before the directory is named).
    pending: Vec<Frame>,
    /// The next frame's number.
    next: u32,
    counts: BTreeMap<&'static str, usize>,
    started: Instant,
}

impl Recording {
    /// Reads `seen` with the rules that apply to the pane's process now.
    fn read(
        &self,
        set: &AgentSet,
        seen: Seen,
        client: &mut Client,
        pane: &str,
    ) -> Result<Frame, i32> {
        let explain: PaneExplainResult = fetch(
            client,
            Method::PaneExplain(PaneTarget {
                pane_id: PaneRef(pane.to_owned()),
            }),
        )?;
        let (_, rules) = set.rules_for(explain.kind, &explain.process);
        let view = View::with_width(&seen.text, &seen.title, usize::from(seen.cols));
        let (reading, rule) = match classify(&rules, &view) {
            Some(i) => (
                match rules[i].state {
                    ScreenState::Idle => "idle",
                    ScreenState::Working => "working",
                    ScreenState::Blocked => "blocked",
                    ScreenState::Interrupted => "interrupted",
                    ScreenState::RateLimited => "rate_limited",
                    ScreenState::Hold => "hold",
                },
                rules[i].id.clone(),
            ),
            None => ("unmatched", "-".to_owned()),
        };
        Ok(Frame {
            at: self.started.elapsed(),
            seen,
            reading,
            rule,
            lifecycle_source: explain.lifecycle.source.unwrap_or_else(|| "-".into()),
        })
    }

    /// Writes the frames held so far once the directory can be named: the
    /// agent's version is known, `VERSION_WAIT` has passed, or (`at_end`)
    /// the recording ends.
    fn flush(&mut self, version: Option<&str>, at_end: bool) -> Result<(), i32> {
        if self.dir.is_none() {
            if version.is_none() && !at_end && self.started.elapsed() < VERSION_WAIT {
                return Ok(());
            }
            let version = version.unwrap_or("unknown");
            let dir = self.out.join(format!("{}-{version}", self.agent));
            std::fs::create_dir_all(&dir).map_err(|e| io_fail(&dir, &e))?;
            // Numbered on after the frames already there.
            self.next = next_number(&dir);
            self.dir = Some(dir);
        }
        for frame in std::mem::take(&mut self.pending) {
            self.write(&frame)?;
        }
        Ok(())
    }

    /// `<reading>-<NNN>.txt` in the fixture format, and a row of `frames.tsv`.
    fn write(&mut self, frame: &Frame) -> Result<(), i32> {
        let Some(dir) = self.dir.clone() else {
            return Ok(());
        };
        let n = self.next;
        self.next += 1;
        *self.counts.entry(frame.reading).or_default() += 1;
        let file = dir.join(format!("{}-{n:03}.txt", frame.reading));
        let body = format!("# title: {}\n{}\n", frame.seen.title, frame.seen.text);
        // A new name each time: a recording never replaces a frame.
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&file)
            .and_then(|mut f| f.write_all(body.as_bytes()))
            .map_err(|e| io_fail(&file, &e))?;
        let index = dir.join("frames.tsv");
        let header = !index.exists();
        let mut row = String::new();
        if header {
            row.push_str("frame\tms\treading\trule\tlifecycle\tsource\tcols\ttitle\n");
        }
        row.push_str(&format!(
            "{n:03}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            frame.at.as_millis(),
            frame.reading,
            frame.rule,
            frame.seen.lifecycle,
            frame.lifecycle_source,
            frame.seen.cols,
            frame.seen.title.replace(['\t', '\n'], " ")
        ));
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&index)
            .and_then(|mut f| f.write_all(row.as_bytes()))
            .map_err(|e| io_fail(&index, &e))
    }
}

/// One past the highest `<reading>-<NNN>.txt` already in `dir`.
fn next_number(dir: &Path) -> u32 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".txt")?;
            stem.rsplit_once('-')?.1.parse::<u32>().ok()
        })
        .max()
        .map_or(0, |n| n + 1)
}

fn io_fail(path: &Path, e: &std::io::Error) -> i32 {
    fail_with(
        ErrorCode::IoError,
        format!("cannot write {}: {e}", path.display()),
    )
}

/// A flag set by SIGINT, SIGTERM or SIGHUP (taken by a thread of their own,
/// blocked here first), so the recorder ends between two polls.
fn stop_on_signals() -> Arc<AtomicBool> {
    use nix::sys::signal::{SigSet, Signal};
    let stop = Arc::new(AtomicBool::new(false));
    let mut caught = SigSet::empty();
    for s in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        caught.add(s);
    }
    if caught.thread_block().is_ok() {
        let flag = stop.clone();
        std::thread::spawn(move || {
            if caught.wait().is_ok() {
                flag.store(true, Ordering::Relaxed);
            }
        });
    }
    stop
}
