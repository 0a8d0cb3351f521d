//! What the server process holds, sampled in a measurement window: its
//! resident memory, threads, open descriptors and zombie children. A
//! window first parks the transient load (the churner then holds exactly
//! the target number of panes; attach sessions, full readers, vanishers and
//! never-readers pause), so that two windows see the same structure under
//! the same steady load (hooks, questions, answers, pane output, the
//! recorder and the board go on); it lets the server settle for 5 s, then
//! takes a sample every 250 ms for 10 s and keeps the medians.

use super::shared::Shared;
use super::streams::TRANSIENT;
use std::time::{Duration, Instant};

/// The settling time and the sampling time of a window.
pub const SETTLE: Duration = Duration::from_secs(5);
pub const SAMPLING: Duration = Duration::from_secs(10);
const EVERY: Duration = Duration::from_millis(250);
/// How long the transient load may take to pause: a never-reader's cycle
/// ends with its cut, which may take a few minutes at most.
const PARK_DEADLINE: Duration = Duration::from_secs(360);

/// One look at the server process.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    pub rss_kb: u64,
    /// The anonymous part of the RSS (the heap, stacks), without mapped files.
    pub anon_kb: u64,
    /// Every thread but the blocking pool's and the PTY writers: the main
    /// thread, the two arbiters, the journal's, the PTY reaper, one reader
    /// per live pane.
    pub threads: u64,
    /// The PTY writer threads (`pty-w-<pid>`): one for each live pane that
    /// has been sent input, so their number follows which panes are live,
    /// not what the server holds on to.
    pub writers: u64,
    /// The threads of tokio's blocking pool (`tokio-rt-worker`). The pool is
    /// elastic: a thread is made when blocking calls overlap and leaves after
    /// 10 s idle, so its size is how many overlapped lately, not a holding.
    pub pool: u64,
    pub fds: u64,
    pub zombies: u64,
}

/// The process's figures now, `None` once it is gone.
pub fn sample(pid: u32) -> Option<Sample> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    let threads = field("Threads:")?;
    let pool = pool_threads(pid);
    let writers = thread_names(pid).get("pty-w-N").copied().unwrap_or(0);
    Some(Sample {
        rss_kb: field("VmRSS:")?,
        anon_kb: field("RssAnon:")?,
        threads: threads.saturating_sub(pool + writers),
        writers,
        pool,
        fds: std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count() as u64,
        zombies: crate::support::zombie_children(pid).len() as u64,
    })
}

/// The threads of `pid` by name, numbers left out (`pty-N`).
pub fn thread_names(pid: u32) -> std::collections::BTreeMap<String, u64> {
    let mut names = std::collections::BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return names;
    };
    for t in tasks.flatten() {
        let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
        let name: String = comm
            .trim()
            .chars()
            .map(|c| if c.is_ascii_digit() { 'N' } else { c })
            .collect::<String>()
            .replace("NN", "N")
            .replace("NN", "N")
            .replace("NN", "N");
        *names.entry(name).or_default() += 1;
    }
    names
}

/// How many threads of `pid` are tokio's blocking pool's.
pub fn pool_threads(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter(|t| {
            std::fs::read_to_string(t.path().join("comm"))
                .is_ok_and(|c| c.trim() == "tokio-rt-worker")
        })
        .count() as u64
}

/// The medians of one window, and when and where it was taken.
#[derive(Debug, Clone)]
pub struct Window {
    pub name: &'static str,
    /// Seconds since the soak's load began.
    pub at_s: u64,
    /// Which server life (1: the first process image; each restart and
    /// each upgrade starts the next).
    pub life: u64,
    pub samples: usize,
    pub rss_kb: u64,
    pub rss_min_kb: u64,
    pub rss_max_kb: u64,
    pub anon_kb: u64,
    /// The threads by name at the window's last sample.
    pub names: String,
    pub threads: u64,
    pub writers: u64,
    pub pool: u64,
    pub pool_max: u64,
    pub fds: u64,
    pub zombies: u64,
    pub zombies_max: u64,
    pub live_panes: usize,
    /// Hook events sent a second while it sampled.
    pub hooks_per_s: f64,
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

/// Opens a window: parks the transient load, settles, samples; `None` when
/// the soak failed or stopped meanwhile.
pub fn window(sh: &Shared, pid: u32, name: &'static str, began: Instant) -> Option<Window> {
    sh.set_quiet(true);
    let parked = Instant::now();
    while sh.running() && !TRANSIENT.iter().all(|t| sh.parked().contains(t)) {
        if parked.elapsed() > PARK_DEADLINE {
            sh.fail(format!(
                "{name}: the transient load did not pause within {PARK_DEADLINE:?} (parked: {:?})",
                sh.parked()
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let live_panes = sh.live_count();
    let at_s = began.elapsed().as_secs();
    let life = sh.epoch() + 1;
    let mut samples = Vec::new();
    let hooks = || sh.counter("hooks sent direct") + sh.counter("hooks sent cli");
    let mut hooks_per_s = 0.0;
    if sh.pace(SETTLE) {
        let (from, since) = (hooks(), Instant::now());
        let until = Instant::now() + SAMPLING;
        while Instant::now() < until && sh.running() {
            match sample(pid) {
                Some(s) => samples.push(s),
                None => sh.fail(format!("{name}: the server {pid} is gone")),
            }
            sh.pace(EVERY);
        }
        hooks_per_s = (hooks() - from) as f64 / since.elapsed().as_secs_f64();
    }
    sh.set_quiet(false);
    if !sh.running() || samples.is_empty() {
        return None;
    }
    let rss: Vec<u64> = samples.iter().map(|s| s.rss_kb).collect();
    Some(Window {
        name,
        at_s,
        life,
        samples: samples.len(),
        rss_kb: median(rss.clone()),
        rss_min_kb: rss.iter().copied().min().unwrap_or(0),
        rss_max_kb: rss.iter().copied().max().unwrap_or(0),
        anon_kb: median(samples.iter().map(|s| s.anon_kb).collect()),
        names: format!("{:?}", thread_names(pid)),
        threads: median(samples.iter().map(|s| s.threads).collect()),
        writers: median(samples.iter().map(|s| s.writers).collect()),
        pool: median(samples.iter().map(|s| s.pool).collect()),
        pool_max: samples.iter().map(|s| s.pool).max().unwrap_or(0),
        fds: median(samples.iter().map(|s| s.fds).collect()),
        zombies: median(samples.iter().map(|s| s.zombies).collect()),
        zombies_max: samples.iter().map(|s| s.zombies).max().unwrap_or(0),
        live_panes,
        hooks_per_s,
    })
}

/// What differs by more than 5 % between the baseline and the end: RSS may
/// not grow past `rss_percent`, threads (but the blocking pool's) and
/// descriptors may not move past 5 % either way (the same panes and
/// connections hold the same ones), and no zombie may be left that the
/// baseline did not have.
pub fn compare(base: &Window, end: &Window, rss_percent: u64) -> Vec<String> {
    let mut problems = Vec::new();
    let grew = |b: u64, e: u64| e * 100 > b * 105;
    let shrank = |b: u64, e: u64| e * 100 < b * 95;
    if end.rss_kb * 100 > base.rss_kb * (100 + rss_percent) {
        problems.push(format!(
            "RSS grew from {} kB to {} kB (more than {rss_percent} %)",
            base.rss_kb, end.rss_kb
        ));
    }
    for (what, b, e) in [
        ("threads", base.threads, end.threads),
        ("descriptors", base.fds, end.fds),
    ] {
        if grew(b, e) || shrank(b, e) {
            problems.push(format!("{what}: {b} at the baseline, {e} at the end"));
        }
    }
    if end.writers > end.live_panes as u64 + 1 {
        problems.push(format!(
            "{} PTY writer threads for {} live panes",
            end.writers, end.live_panes
        ));
    }
    if end.zombies > base.zombies {
        problems.push(format!(
            "zombie children: {} at the baseline, {} at the end",
            base.zombies, end.zombies
        ));
    }
    if base.live_panes != end.live_panes {
        problems.push(format!(
            "the windows held {} and {} panes",
            base.live_panes, end.live_panes
        ));
    }
    problems
}

/// A window as one line of the report.
pub fn line(w: &Window) -> String {
    format!(
        "{:<14} at {:>5} s, life {:>2}: RSS {:>7} kB (min {} max {}, anon {}), threads {:>3} + writers {} + pool {} (max {}), fds {:>4}, zombies {} (max {}), {} panes, {} samples, hooks {:.1}/s",
        w.name,
        w.at_s,
        w.life,
        w.rss_kb,
        w.rss_min_kb,
        w.rss_max_kb,
        w.anon_kb,
        w.threads,
        w.writers,
        w.pool,
        w.pool_max,
        w.fds,
        w.zombies,
        w.zombies_max,
        w.live_panes,
        w.samples,
        w.hooks_per_s
    ) + &format!("\n      threads: {}", w.names)
}

/// The server's figures every few seconds through the whole run.
pub struct Trace {
    began: Instant,
    every: Duration,
    next: Instant,
    /// Seconds since the load began, the server life, the sample.
    pub points: Vec<(u64, u64, Sample)>,
}

impl Trace {
    pub fn new(began: Instant, every: Duration) -> Trace {
        Trace {
            began,
            every,
            next: began,
            points: Vec::new(),
        }
    }

    /// Takes a sample when one is due.
    pub fn tick(&mut self, sh: &Shared, pid: u32) {
        if Instant::now() < self.next {
            return;
        }
        self.next += self.every;
        if let Some(s) = sample(pid) {
            self.points
                .push((self.began.elapsed().as_secs(), sh.epoch() + 1, s));
        }
    }

    /// RSS growth in kB a minute over the points of `life` between the two
    /// windows (a least-squares line), or `None` with fewer than 3 points.
    pub fn rss_slope(&self, life: u64, from_s: u64, to_s: u64) -> Option<f64> {
        let pts: Vec<(f64, f64)> = self
            .points
            .iter()
            .filter(|(t, l, _)| *l == life && *t >= from_s && *t <= to_s)
            .map(|(t, _, s)| (*t as f64 / 60.0, s.rss_kb as f64))
            .collect();
        if pts.len() < 3 {
            return None;
        }
        let n = pts.len() as f64;
        let (mx, my) = (
            pts.iter().map(|p| p.0).sum::<f64>() / n,
            pts.iter().map(|p| p.1).sum::<f64>() / n,
        );
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
        (sxx > 0.0).then(|| sxy / sxx)
    }

    /// One line per `step_s` seconds.
    pub fn lines(&self, step_s: u64) -> Vec<String> {
        let mut out = Vec::new();
        let mut next = 0;
        for (t, life, s) in &self.points {
            if *t < next {
                continue;
            }
            next = t + step_s;
            out.push(format!(
                "{t:>5} s life {life:>2}: RSS {:>7} kB (anon {:>7}), threads {:>3} + writers {:>2} + pool {:>2}, fds {:>4}, zombies {}",
                s.rss_kb, s.anon_kb, s.threads, s.writers, s.pool, s.fds, s.zombies
            ));
        }
        out
    }
}
