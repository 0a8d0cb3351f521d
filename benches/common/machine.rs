//! The machine a run measured on: CPU model and count, kernel, load average.

use serde_json::{Value, json};
use std::fs;

/// `{cpus_online, cpus_usable, cpu, kernel}`; usable CPUs are those this process may
/// run on (fewer under `taskset`).
pub fn describe() -> Value {
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_owned())
        .unwrap_or_default();
    let online = cpuinfo
        .lines()
        .filter(|l| l.starts_with("processor"))
        .count();
    let usable = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    let kernel = fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    json!({ "cpus_online": online, "cpus_usable": usable, "cpu": cpu, "kernel": kernel })
}

/// "U of N CPUs (MODEL), kernel K" of a `describe()` value.
pub fn one_line(m: &Value) -> String {
    format!(
        "{} of {} CPUs ({}), kernel {}",
        m["cpus_usable"],
        m["cpus_online"],
        m["cpu"].as_str().unwrap_or(""),
        m["kernel"].as_str().unwrap_or("")
    )
}

/// The 1-, 5- and 15-minute load averages: other work on the machine skews every figure.
pub fn loadavg() -> String {
    fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
