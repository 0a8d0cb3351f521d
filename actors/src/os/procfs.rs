//! What the server reads from `/proc` about processes
//! (docs/terminal.md#the-process-refresh,
//! docs/terminal.md#hook-attribution-by-process), and about its own threads'
//! scheduling (for the snapshot's timings). Blocking file reads: callers run
//! them off the actors' threads.

use crate::os::pty::reap::parse_stat;
use signaltty_model::agents::programs::{basename, name_of};
use signaltty_protocol::PaneId;
use std::collections::HashMap;

/// The most parent links followed from a hook's process to its pane.
pub const MAX_ANCESTRY: usize = 64;
/// The most shell levels the refresh descends through
/// (docs/terminal.md#the-process-refresh).
pub const MAX_SHELL_DEPTH: usize = 8;
/// Programs the refresh looks through to their newest child.
pub const SHELLS: &[&str] = &["sh", "bash", "zsh", "fish", "dash"];

/// One process as the table knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Proc {
    ppid: u32,
    /// Start time in clock ticks after boot: newer children have larger ones.
    start: u64,
}

/// Every process's parent and start time, read once per refresh.
#[derive(Debug, Default)]
pub struct ProcessTable {
    procs: HashMap<u32, Proc>,
    children: HashMap<u32, Vec<u32>>,
}

impl ProcessTable {
    /// Reads `/proc/*/stat`. Processes that vanish meanwhile are skipped.
    pub fn scan() -> ProcessTable {
        let mut table = ProcessTable::default();
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return table;
        };
        for entry in dir.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(line) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            if let Some(proc) = parse_proc(&line) {
                table.children.entry(proc.ppid).or_default().push(pid);
                table.procs.insert(pid, proc);
            }
        }
        table
    }

    /// The newest child of `pid`.
    fn newest_child(&self, pid: u32) -> Option<u32> {
        self.children
            .get(&pid)?
            .iter()
            .copied()
            .max_by_key(|c| (self.procs.get(c).map_or(0, |p| p.start), *c))
    }

    /// Every process below `pid` (children, their children, …), at most
    /// 4096 of them, each once.
    pub fn descendants(&self, pid: u32) -> Vec<u32> {
        let mut found = Vec::new();
        let mut seen = std::collections::HashSet::from([pid]);
        let mut next = vec![pid];
        while let Some(p) = next.pop() {
            for &child in self.children.get(&p).into_iter().flatten() {
                if found.len() >= 4096 {
                    return found;
                }
                if seen.insert(child) {
                    found.push(child);
                    next.push(child);
                }
            }
        }
        found
    }

    /// The process a pane is running (docs/terminal.md#the-process-refresh):
    /// from the pane's own process, down through shells to their newest child,
    /// at most 8 levels.
    pub fn deepest(&self, pid: u32) -> u32 {
        let mut current = pid;
        for _ in 0..MAX_SHELL_DEPTH {
            if !SHELLS.contains(&program_name(current).as_deref().unwrap_or("")) {
                break;
            }
            match self.newest_child(current) {
                Some(child) => current = child,
                None => break,
            }
        }
        current
    }
}

/// Parent and start time from a `/proc/PID/stat` line.
fn parse_proc(line: &str) -> Option<Proc> {
    let (_, rest) = line.rsplit_once(')')?;
    // After the command: state ppid pgrp session tty tpgid flags minflt cminflt
    // majflt cmajflt utime stime cutime cstime priority nice threads itrealvalue
    // starttime (field 22 of the whole line, 20th after the command).
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(Proc {
        ppid: fields.get(1)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

/// The basename of a process's `argv[0]` (what `process.title` sets too).
fn program_name(pid: u32) -> Option<String> {
    let argv = cmdline(pid)?;
    argv.first().map(|a| basename(a))
}

fn cmdline(pid: u32) -> Option<Vec<String>> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let args: Vec<String> = raw
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    (!args.is_empty()).then_some(args)
}

/// What a refresh sees of a pane's process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    /// Its name: the program's basename, or a runtime's script name.
    pub name: String,
    /// Its working directory.
    pub cwd: Option<String>,
    /// `SIGNALTTY_AGENT` from its environment (or the pane process's): a
    /// wrapper's hint, used only when detection finds nothing
    /// (docs/terminal.md#the-wrapper-hint).
    pub hint: Option<String>,
    /// The npm packages around its program, nearest first: `(name, version)`
    /// (docs/agents.md#checked-versions).
    pub packages: Vec<(String, String)>,
}

/// The process refresh's scan (docs/terminal.md#the-process-refresh): one pass
/// over `/proc`, then for each pane's process what it runs now (the newest
/// child, seen through shells), with a wrapper's `SIGNALTTY_AGENT` hint.
/// Blocking: run it on a blocking thread. `A` is whatever the caller needs back
/// per pane.
pub fn scan_panes<A>(panes: Vec<(u32, A)>) -> Vec<(A, Seen)> {
    let table = ProcessTable::scan();
    panes
        .into_iter()
        .filter_map(|(pid, addr)| {
            let target = table.deepest(pid);
            let mut seen = describe(target)?;
            if !SHELLS.contains(&seen.name.as_str()) {
                seen.hint = agent_hint(target).or_else(|| agent_hint(pid));
                seen.packages = packages_of(target);
            }
            Some((addr, seen))
        })
        .collect()
}

/// `SIGNALTTY_AGENT` in a process's environment, trimmed and lowercased.
pub fn agent_hint(pid: u32) -> Option<String> {
    let raw = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    raw.split(|&b| b == 0)
        .find_map(|kv| kv.strip_prefix(b"SIGNALTTY_AGENT="))
        .map(|v| String::from_utf8_lossy(v).trim().to_ascii_lowercase())
        .filter(|v| !v.is_empty())
}

/// Describes process `pid`: a runtime (`node`, `bun`, `deno`, `python`) is named
/// after the script it runs, without the extension.
pub fn describe(pid: u32) -> Option<Seen> {
    let argv = cmdline(pid)?;
    let cwd = std::fs::read_link(format!("/proc/{pid}/cwd"))
        .ok()
        .map(|p| p.to_string_lossy().into_owned());
    Some(Seen {
        name: name_of(&argv),
        cwd,
        hint: None,
        packages: Vec::new(),
    })
}

/// The most directories looked at above a program for its package.json.
const PACKAGE_DEPTH: usize = 8;
/// The most packages reported per process.
const MAX_PACKAGES: usize = 4;

/// The npm packages a process's program belongs to
/// (docs/agents.md#checked-versions): from its executable and from the
/// script a runtime or shell runs (argv's first two entries naming files,
/// symlinks followed, `node_modules/.bin/x` to the package), each directory
/// upwards with a `package.json` that has a name and a version, nearest
/// first.
pub fn packages_of(pid: u32) -> Vec<(String, String)> {
    let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
    let mut files: Vec<std::path::PathBuf> = std::fs::read_link(format!("/proc/{pid}/exe"))
        .ok()
        .into_iter()
        .collect();
    for arg in cmdline(pid).unwrap_or_default().iter().take(2) {
        if !arg.contains('/') {
            continue;
        }
        let path = match &cwd {
            Some(cwd) => cwd.join(arg),
            None => std::path::PathBuf::from(arg),
        };
        if let Ok(real) = std::fs::canonicalize(path) {
            files.push(real);
        }
    }
    let mut found: Vec<(String, String)> = Vec::new();
    for file in files {
        for dir in file.ancestors().skip(1).take(PACKAGE_DEPTH) {
            let Ok(text) = std::fs::read_to_string(dir.join("package.json")) else {
                continue;
            };
            let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
                continue;
            };
            if let (Some(name), Some(version)) = (json["name"].as_str(), json["version"].as_str()) {
                let entry = (name.to_owned(), version.to_owned());
                if !found.contains(&entry) && found.len() < MAX_PACKAGES {
                    found.push(entry);
                }
            }
        }
    }
    found
}

/// The parent of `pid`, if it exists and has one.
pub fn parent(pid: u32) -> Option<u32> {
    let line = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let ppid = parse_stat(&line)?.ppid;
    u32::try_from(ppid).ok().filter(|&p| p > 0)
}

/// Hook attribution by ancestry (docs/terminal.md#hook-attribution-by-process):
/// walks `/proc` parents from `pid` to the nearest process that a live pane
/// started. `panes` maps those processes' pids to their panes.
pub fn pane_of_process(pid: u32, panes: &HashMap<u32, PaneId>) -> Option<PaneId> {
    let mut current = pid;
    for _ in 0..MAX_ANCESTRY {
        if let Some(pane) = panes.get(&current) {
            return Some(pane.clone());
        }
        current = parent(current)?;
        if current <= 1 {
            return None;
        }
    }
    None
}

/// The calling thread's time on a CPU and time runnable but waiting for one
/// (`/proc/thread-self/schedstat`), to tell a slow piece of work from a
/// starved one. Zero where it cannot be read.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ThreadTimes {
    /// Time on a CPU.
    pub on_cpu: std::time::Duration,
    /// Time runnable, waiting for a CPU.
    pub waiting: std::time::Duration,
}

impl ThreadTimes {
    /// The calling thread's totals so far.
    pub fn now() -> ThreadTimes {
        let text = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
        let mut ns = text
            .split_whitespace()
            .map(|v| std::time::Duration::from_nanos(v.parse().unwrap_or(0)));
        ThreadTimes {
            on_cpu: ns.next().unwrap_or_default(),
            waiting: ns.next().unwrap_or_default(),
        }
    }

    /// The times from `earlier` to these.
    pub fn since(self, earlier: ThreadTimes) -> ThreadTimes {
        ThreadTimes {
            on_cpu: self.on_cpu.saturating_sub(earlier.on_cpu),
            waiting: self.waiting.saturating_sub(earlier.waiting),
        }
    }
}

#[cfg(test)]
mod tests;
