//! The settings every generated-input property of this crate runs with: a
//! bounded number of cases in the normal test run, `PROPTEST_CASES` for a long
//! one, a fixed seed unless `PROPTEST_RNG_SEED` names another.

use proptest::test_runner::{Config, RngSeed};

/// `default`, or the `PROPTEST_CASES` environment variable when it is set.
pub(crate) fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A property's config: `cases(default)` cases and no failure files (a case a
/// run finds is kept as a named test instead).
pub(crate) fn config(default: u32) -> Config {
    let mut config = Config {
        cases: cases(default),
        failure_persistence: None,
        ..Config::default()
    };
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        config.rng_seed = RngSeed::Fixed(0x5167_7a11);
    }
    config
}
