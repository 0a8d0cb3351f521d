//! The log filter and levels: directives that parse, a bad filter reported at
//! its line, and syslog priorities.

use super::*;

#[test]
fn old_level_names_and_directives_parse_and_nonsense_does_not() {
    for ok in [
        "info",
        "debug",
        "WARN",
        "error",
        "trace",
        "off",
        "signaltty_actors=debug,info",
    ] {
        assert!(parse_filter(ok).is_ok(), "{ok}");
    }
    for bad in ["signaltty=loud", "a=b=c", "[unclosed"] {
        let err = parse_filter(bad).err();
        assert!(
            err.as_deref().is_some_and(|e| e.contains(bad)),
            "{bad}: {err:?}"
        );
    }
    let debug = parse_filter("debug").ok().and_then(|f| f.max_level_hint());
    assert_eq!(debug, Some(tracing_subscriber::filter::LevelFilter::DEBUG));
}

#[test]
fn a_bad_filter_from_the_file_is_a_problem_at_its_line() {
    use signaltty_model::Env;
    use signaltty_model::settings::{FileInput, Inputs, resolve};
    let env = Env::default();
    let s = resolve(&Inputs {
        env: &env,
        flags: &[],
        file_path: "/c/config.toml".into(),
        file: FileInput::Text("\n[log]\nlevel = \"x=loud\"\n".into()),
    });
    let p = filter_problem(&s).map(|p| p.to_string());
    assert!(
        p.as_deref()
            .is_some_and(|p| p.starts_with("/c/config.toml:3: ")),
        "{p:?}"
    );
    let env = Env::default().with_var("SIGNALTTY_LOG", "debug");
    let s = resolve(&Inputs {
        env: &env,
        flags: &[],
        file_path: "/c/config.toml".into(),
        file: FileInput::Absent,
    });
    assert!(filter_problem(&s).is_none());
}

#[test]
fn levels_map_to_syslog_priorities() {
    assert_eq!(priority(&Level::ERROR), 3);
    assert_eq!(priority(&Level::WARN), 4);
    assert_eq!(priority(&Level::INFO), 6);
    assert_eq!(priority(&Level::DEBUG), 7);
}
