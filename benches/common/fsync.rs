//! The fdatasync floor: what one durable append costs at least on a filesystem, the
//! part of a journaled event's latency that is the disk's.

use super::stats::sample;
use super::{Context, Res};
use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// Appends a `line_bytes`-byte line to the fresh file `path` and fdatasyncs it,
/// `warmup + n` times; returns the last `n` times. The file is removed afterwards.
pub fn fdatasync_samples(
    path: &Path,
    line_bytes: usize,
    warmup: usize,
    n: usize,
) -> Res<Vec<Duration>> {
    let mut file = fs::OpenOptions::new()
        .create_new(true)
        .append(true)
        .open(path)
        .ctx(|| format!("cannot create {}", path.display()))?;
    let mut line = vec![b'x'; line_bytes.saturating_sub(1)];
    line.push(b'\n');
    let samples = sample(warmup, n, |_| {
        let t = Instant::now();
        file.write_all(&line).ctx(|| "write".into())?;
        file.sync_data().ctx(|| "fdatasync".into())?;
        Ok(t.elapsed())
    });
    drop(file);
    let removed = fs::remove_file(path).ctx(|| format!("cannot remove {}", path.display()));
    let samples = samples?;
    removed?;
    Ok(samples)
}
