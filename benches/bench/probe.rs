//! What the server and the machine did during a measured window: the server's CPU
//! (all threads and its journal thread), cache flushes of the journal's disk, this
//! process's CPU, and the busy CPU of everything else (the noise in the figures).

use crate::common::procfs::clock_ticks;
use crate::common::{Context, Res};
use nix::sys::resource::{UsageWho, getrusage};
use nix::sys::socket::sockopt;
use serde_json::{Value, json};
use std::fs;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Where the server keeps its journal, and how to read its resource counters.
#[derive(Debug)]
pub struct Probe {
    pid: i32,
    /// `/proc/PID/task/TID` of the server's `journal` thread.
    journal_task: Option<PathBuf>,
    /// The directory holding `audit.jsonl`.
    pub state_dir: Option<PathBuf>,
    /// Filesystem type of the state directory.
    pub fs: String,
    pub tmpfs: bool,
    /// `/sys/block/DEV/stat` of the disk under the state directory, and DEV.
    pub disk_stat: Option<(PathBuf, String)>,
}

impl Probe {
    /// Finds the server at the other end of `stream` (SO_PEERCRED) and its journal.
    pub fn find(stream: &UnixStream) -> Res<Probe> {
        let cred = nix::sys::socket::getsockopt(stream, sockopt::PeerCredentials)
            .ctx(|| "SO_PEERCRED".into())?;
        let pid = cred.pid();
        let tasks = PathBuf::from(format!("/proc/{pid}/task"));
        let journal_task = fs::read_dir(&tasks).ok().and_then(|entries| {
            entries.flatten().map(|e| e.path()).find(|p| {
                fs::read_to_string(p.join("comm")).is_ok_and(|c| c.trim_end() == "journal")
            })
        });
        let state_dir = fs::read_dir(format!("/proc/{pid}/fd"))
            .ok()
            .and_then(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| fs::read_link(e.path()).ok())
                    .find(|p| p.file_name().is_some_and(|n| n == "audit.jsonl"))
            })
            .and_then(|p| p.parent().map(Path::to_path_buf));
        let (fs, tmpfs) = match &state_dir {
            Some(d) => fs_type(d),
            None => ("unknown".to_owned(), false),
        };
        let disk_stat = state_dir.as_deref().and_then(disk_stat);
        Ok(Probe {
            pid,
            journal_task,
            state_dir,
            fs,
            tmpfs,
            disk_stat,
        })
    }

    pub fn snapshot(&self) -> Snapshot {
        let tasks = fs::read_dir(format!("/proc/{}/task", self.pid)).ok();
        let server_cpu_ns = tasks.map(|entries| {
            entries
                .flatten()
                .filter_map(|e| schedstat_ns(&e.path()))
                .sum::<u64>()
        });
        let journal = self.journal_task.as_deref();
        Snapshot {
            at: Instant::now(),
            server_cpu_ns,
            journal_cpu_ns: journal.and_then(schedstat_ns),
            flushes: self.disk_stat.as_ref().and_then(|(p, _)| {
                // Field 16 of /sys/block/DEV/stat: flush requests completed.
                let text = fs::read_to_string(p).ok()?;
                text.split_whitespace().nth(15)?.parse().ok()
            }),
            bench_cpu: self_cpu(),
            busy_ns: machine_busy_ns(),
        }
    }
}

fn schedstat_ns(task: &Path) -> Option<u64> {
    let text = fs::read_to_string(task.join("schedstat")).ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn self_cpu() -> Duration {
    let tv = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec().max(0) as u64)
            + Duration::from_micros(t.tv_usec().max(0) as u64)
    };
    match getrusage(UsageWho::RUSAGE_SELF) {
        Ok(u) => tv(u.user_time()) + tv(u.system_time()),
        Err(_) => Duration::ZERO,
    }
}

/// The filesystem type name of `dir`, and whether it is tmpfs.
fn fs_type(dir: &Path) -> (String, bool) {
    use nix::sys::statfs::{
        BTRFS_SUPER_MAGIC, EXT4_SUPER_MAGIC, OVERLAYFS_SUPER_MAGIC, TMPFS_MAGIC, XFS_SUPER_MAGIC,
        statfs,
    };
    let Ok(st) = statfs(dir) else {
        return ("unknown".to_owned(), false);
    };
    let t = st.filesystem_type();
    let name = match t {
        t if t == TMPFS_MAGIC => "tmpfs".to_owned(),
        t if t == EXT4_SUPER_MAGIC => "ext4".to_owned(),
        t if t == XFS_SUPER_MAGIC => "xfs".to_owned(),
        t if t == BTRFS_SUPER_MAGIC => "btrfs".to_owned(),
        t if t == OVERLAYFS_SUPER_MAGIC => "overlayfs".to_owned(),
        t => format!("fs magic {:#x}", t.0),
    };
    (name, t == TMPFS_MAGIC)
}

/// `/sys/block/DEV/stat` of the whole disk holding `dir` (none for tmpfs).
fn disk_stat(dir: &Path) -> Option<(PathBuf, String)> {
    use std::os::unix::fs::MetadataExt;
    let dev = fs::metadata(dir).ok()?.dev();
    let (major, minor) = (nix::sys::stat::major(dev), nix::sys::stat::minor(dev));
    let mut sys = fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    if sys.join("partition").exists() {
        sys = sys.parent()?.to_path_buf();
    }
    let name = sys.file_name()?.to_string_lossy().into_owned();
    let stat = sys.join("stat");
    stat.is_file().then_some((stat, name))
}

#[derive(Debug, Clone, Copy)]
pub struct Snapshot {
    at: Instant,
    /// Sum over the server's threads of their on-CPU time.
    server_cpu_ns: Option<u64>,
    journal_cpu_ns: Option<u64>,
    /// Flush (cache-flush) requests the state directory's disk completed.
    flushes: Option<u64>,
    /// This benchmark process's CPU time (user + system).
    bench_cpu: Duration,
    /// Busy CPU time of the whole machine (/proc/stat), ns.
    busy_ns: Option<u64>,
}

/// The machine's busy CPU time so far: all /proc/stat "cpu" times but idle and iowait.
fn machine_busy_ns() -> Option<u64> {
    let text = fs::read_to_string("/proc/stat").ok()?;
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let ticks: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|v| v.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is inside user).
    let busy: u64 = ticks
        .iter()
        .take(8)
        .enumerate()
        .filter(|(i, _)| *i != 3 && *i != 4)
        .map(|(_, v)| v)
        .sum();
    Some(busy * (1_000_000_000 / clock_ticks()))
}

/// Counter deltas over a window, with the events published in it.
#[derive(Debug, Clone, Copy)]
pub struct Usage {
    pub secs: f64,
    pub events: f64,
    pub server_cpu: Option<f64>,
    pub journal_cpu: Option<f64>,
    pub flushes: Option<u64>,
    pub bench_cpu: f64,
    /// Busy CPU seconds of everything else on the machine (neither the server nor
    /// this benchmark): other load that would distort the figures.
    pub other_cpu: Option<f64>,
}

impl Usage {
    /// `events_per_s` is the measured rate; the event count in the counter window
    /// is that rate times the window's length.
    pub fn between(a: &Snapshot, b: &Snapshot, events_per_s: f64) -> Usage {
        let secs = (b.at - a.at).as_secs_f64();
        let d = |x: Option<u64>, y: Option<u64>| Some(y?.saturating_sub(x?));
        let server_cpu = d(a.server_cpu_ns, b.server_cpu_ns).map(|ns| ns as f64 / 1e9);
        let bench_cpu = (b.bench_cpu.saturating_sub(a.bench_cpu)).as_secs_f64();
        let busy = d(a.busy_ns, b.busy_ns).map(|ns| ns as f64 / 1e9);
        Usage {
            secs,
            events: events_per_s * secs,
            server_cpu,
            journal_cpu: d(a.journal_cpu_ns, b.journal_cpu_ns).map(|ns| ns as f64 / 1e9),
            flushes: d(a.flushes, b.flushes),
            bench_cpu,
            other_cpu: busy
                .zip(server_cpu)
                .map(|(busy, server)| (busy - server - bench_cpu).max(0.0)),
        }
    }

    /// Events per disk cache flush: with the journal alone on its disk, events per
    /// fdatasync, i.e. the group-commit batch size.
    pub fn events_per_flush(&self) -> Option<f64> {
        self.flushes
            .filter(|f| *f > 0)
            .map(|f| self.events / f as f64)
    }

    /// CPU seconds per second.
    pub fn cores(&self, cpu: Option<f64>) -> Option<f64> {
        cpu.filter(|_| self.secs > 0.0).map(|c| c / self.secs)
    }

    fn flushes_per_event(&self) -> Option<f64> {
        self.flushes
            .filter(|_| self.events > 0.0)
            .map(|f| f as f64 / self.events)
    }

    pub fn server_us_per_event(&self) -> Option<f64> {
        self.server_cpu
            .filter(|_| self.events > 0.0)
            .map(|s| s * 1e6 / self.events)
    }

    fn bench_us_per_event(&self) -> Option<f64> {
        (self.events > 0.0).then(|| self.bench_cpu * 1e6 / self.events)
    }

    pub fn json(&self) -> Value {
        json!({
            "window_s": self.secs,
            "events": self.events,
            "server_cpu_s": self.server_cpu,
            "server_cpu_us_per_event": self.server_us_per_event(),
            "journal_thread_cpu_s": self.journal_cpu,
            "disk_flushes": self.flushes,
            "disk_flushes_per_event": self.flushes_per_event(),
            "events_per_disk_flush": self.events_per_flush(),
            "bench_cpu_s": self.bench_cpu,
            "bench_cpu_us_per_event": self.bench_us_per_event(),
            "other_cpu_s": self.other_cpu,
        })
    }
}
