//! Statistics of the measured samples: the warm-up-then-measure loop, nearest-rank
//! percentiles, distribution summaries and medians.

use super::{Res, check_interrupted};
use std::time::Duration;

pub fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

pub fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs `once(i)` for `i` in `0..warmup + n`, failing once the run is interrupted,
/// and returns what the last `n` calls measured.
pub fn sample<T>(warmup: usize, n: usize, mut once: impl FnMut(usize) -> Res<T>) -> Res<Vec<T>> {
    let mut samples = Vec::with_capacity(n);
    for i in 0..warmup + n {
        check_interrupted()?;
        let got = once(i)?;
        if i >= warmup {
            samples.push(got);
        }
    }
    Ok(samples)
}

/// Nearest-rank percentile (`p` in 0..=1) of sorted samples; the default when empty.
pub fn percentile<T: Copy + Default>(sorted: &[T], p: f64) -> T {
    if sorted.is_empty() {
        return T::default();
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// A distribution of samples in µs. Signed: a difference of two clocks' readings
/// (a subscriber's receipt − the producer's reply) may be negative.
#[derive(Debug, Clone, Copy)]
pub struct Dist {
    pub n: usize,
    pub min: f64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

impl Dist {
    /// No samples: every figure NaN.
    pub const NAN: Dist = Dist {
        n: 0,
        min: f64::NAN,
        mean: f64::NAN,
        p50: f64::NAN,
        p90: f64::NAN,
        p99: f64::NAN,
        p999: f64::NAN,
        max: f64::NAN,
    };

    /// Of durations; `None` when there are none.
    pub fn of_durations(mut samples: Vec<Duration>) -> Option<Dist> {
        samples.sort_unstable();
        let n = samples.len();
        let sum: Duration = samples.iter().sum();
        let at = |p: f64| micros(percentile(&samples, p));
        (n > 0).then(|| Dist {
            n,
            min: micros(samples[0]),
            mean: micros(sum) / n as f64,
            p50: at(0.50),
            p90: at(0.90),
            p99: at(0.99),
            p999: at(0.999),
            max: micros(samples[n - 1]),
        })
    }

    /// Of samples already in µs; `None` when there are none.
    pub fn of_micros(mut samples: Vec<f64>) -> Option<Dist> {
        samples.sort_unstable_by(f64::total_cmp);
        let n = samples.len();
        let at = |p: f64| percentile(&samples, p);
        (n > 0).then(|| Dist {
            n,
            min: samples[0],
            mean: samples.iter().sum::<f64>() / n as f64,
            p50: at(0.50),
            p90: at(0.90),
            p99: at(0.99),
            p999: at(0.999),
            max: samples[n - 1],
        })
    }
}

/// Median of `values` (mean of the middle two for an even count), NaN ignored;
/// NaN when empty.
pub fn median(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.into_iter().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}
