//! The settings every generated-input property of the server runs with, and a
//! strategy for arbitrary JSON values: a bounded number of cases in the normal
//! test run, `PROPTEST_CASES` for a long one, a fixed seed unless
//! `PROPTEST_RNG_SEED` names another.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use serde_json::Value;

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

/// Any JSON value up to four levels deep, with keys and strings from a small
/// alphabet so objects share keys with what the parsers look for.
pub(crate) fn json(keys: &'static [&'static str]) -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        3 => proptest::sample::select(keys).prop_map(str::to_owned),
        1 => "[a-z_]{0,6}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        proptest::sample::select(keys).prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|fields| Value::Object(fields.into_iter().collect())),
        ]
    })
}
