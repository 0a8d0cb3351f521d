//! What /proc says about a process: its CPU time (whole, and per thread) and its
//! memory.

use super::{Context, Res};
use std::fs;
use std::path::Path;

/// Clock ticks per second, the unit of /proc CPU times (`CLK_TCK`; 100 if unknown).
pub fn clock_ticks() -> u64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .filter(|&h| h > 0)
        .unwrap_or(100) as u64
}

/// User + system CPU seconds of a process so far (/proc/PID/stat fields 14 and 15).
pub fn cpu_seconds(pid: u32) -> Res<f64> {
    cpu_seconds_at(Path::new(&format!("/proc/{pid}/stat")))
}

fn cpu_seconds_at(path: &Path) -> Res<f64> {
    let path = path.display().to_string();
    let text = fs::read_to_string(&path).ctx(|| path.clone())?;
    let after = text
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .ok_or_else(|| format!("cannot parse {path}"))?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let tick = |i: usize| -> Res<f64> {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .ok_or_else(|| format!("cannot parse {path}"))
    };
    // `after` starts at field 3 (state): utime is field 14, stime field 15.
    Ok((tick(11)? + tick(12)?) / clock_ticks() as f64)
}

/// CPU seconds of each live thread of `pid`: (tid, name, seconds).
pub fn thread_cpu(pid: u32) -> Vec<(u32, String, f64)> {
    let Ok(dir) = fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in dir.flatten() {
        let Some(tid) = entry.file_name().to_str().and_then(|t| t.parse().ok()) else {
            continue;
        };
        let comm = fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
        // /proc/PID/task/TID/stat has the layout of /proc/PID/stat.
        if let Ok(secs) = cpu_seconds_at(&entry.path().join("stat")) {
            out.push((tid, comm.trim().to_owned(), secs));
        }
    }
    out
}

/// The thread that used the most CPU between two `thread_cpu` snapshots (among
/// those alive at both): (name, seconds).
pub fn busiest_thread(
    before: &[(u32, String, f64)],
    after: &[(u32, String, f64)],
) -> (String, f64) {
    after
        .iter()
        .filter_map(|(tid, name, secs)| {
            let (_, _, was) = before.iter().find(|(t, _, _)| t == tid)?;
            Some((name.clone(), secs - was))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or_default()
}

/// A `kB` field of /proc/PID/status (VmRSS, VmHWM); the kernel's kB are KiB.
pub fn proc_status_kb(pid: u32, key: &str) -> Res<u64> {
    let path = format!("/proc/{pid}/status");
    let text = fs::read_to_string(&path).ctx(|| path.clone())?;
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no {key} in {path}"))
}

/// Resident set size, in KiB.
pub fn rss_kb(pid: u32) -> Res<u64> {
    proc_status_kb(pid, "VmRSS")
}
