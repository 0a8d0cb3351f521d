//! Settings resolution: the knob table, precedence (flag, env, file,
//! default), problems reported at their line and falling through, the default
//! file read back, the file's path, and the board's alerts.

use super::knobs::{K, KNOBS, Value};
use super::*;

fn env() -> Env {
    Env {
        uid: 1000,
        home: Some("/home/u".into()),
        xdg_runtime_dir: Some("/run/user/1000".into()),
        ..Env::default()
    }
}

fn path() -> PathBuf {
    PathBuf::from("/home/u/.config/signaltty/config.toml")
}

fn run(env: &Env, flags: &[(K, Value)], file: Option<&str>) -> Settings {
    resolve(&Inputs {
        env,
        flags,
        file_path: path(),
        file: file.map_or(FileInput::Absent, |t| FileInput::Text(t.to_owned())),
    })
}

fn file_at(line: usize) -> Origin {
    Origin::File { path: path(), line }
}

fn env_origin(var: &str) -> Origin {
    Origin::Env {
        var: var.to_owned(),
    }
}

fn flag_origin(flag: &str) -> Origin {
    Origin::Flag {
        flag: flag.to_owned(),
    }
}

#[test]
fn the_table_has_every_knob_once_with_valid_defaults() {
    let mut names = std::collections::HashSet::new();
    for knob in KNOBS {
        assert!(names.insert(knob.name()), "{} twice", knob.name());
        let n = KNOBS.iter().filter(|k| k.id == knob.id).count();
        assert_eq!(n, 1, "{:?} has {n} rows", knob.id);
        if let knobs::Kind::Int { min, max, .. } = knob.kind {
            let Value::Int(d) = knobs::default_value(knob.id, &env()) else {
                panic!("{} has a non-integer default", knob.name());
            };
            assert!((min..=max).contains(&d), "{} default {d}", knob.name());
        }
    }
    let s = run(&env(), &[], None);
    assert_eq!(s.entries.len(), KNOBS.len());
    assert!(s.problems.is_empty(), "{:?}", s.problems);
}

/// The precedence table: for several knobs, each row adds one source and
/// the highest one given wins.
#[test]
fn precedence_is_flag_then_env_then_file_then_default() {
    struct Row {
        id: K,
        file: &'static str,
        var: &'static str,
        env_value: &'static str,
        flag: Value,
        flag_name: &'static str,
        default: Value,
        file_value: Value,
        env_parsed: Value,
    }
    let rows = [
        Row {
            id: K::MaxParallelTasks,
            file: "[tasks]\nmax_parallel = 2\n",
            var: "SIGNALTTY_MAX_PARALLEL_TASKS",
            env_value: "3",
            flag: Value::Int(5),
            flag_name: "--max-tasks",
            default: Value::Int(4),
            file_value: Value::Int(2),
            env_parsed: Value::Int(3),
        },
        Row {
            id: K::WorkerSilent,
            file: "[tasks]\nworker_silent_timeout_s = 0\n",
            var: "SIGNALTTY_WORKER_SILENT_TIMEOUT_S",
            env_value: "30",
            flag: Value::Int(7),
            flag_name: "--worker-silent-timeout",
            default: Value::Int(600),
            file_value: Value::Int(0),
            env_parsed: Value::Int(30),
        },
        Row {
            id: K::Socket,
            file: "[server]\nsocket = \"/f/s.sock\"\n",
            var: "SIGNALTTY_SOCKET",
            env_value: "/e/s.sock",
            flag: Value::Path("/x/s.sock".into()),
            flag_name: "--socket",
            default: Value::Path("/run/user/1000/signaltty/signaltty.sock".into()),
            file_value: Value::Path("/f/s.sock".into()),
            env_parsed: Value::Path("/e/s.sock".into()),
        },
        Row {
            id: K::LogLevel,
            file: "[log]\nlevel = \"warn\"\n",
            var: "SIGNALTTY_LOG",
            env_value: "debug",
            flag: Value::Text("trace".into()),
            flag_name: "flag",
            default: Value::Text("info".into()),
            file_value: Value::Text("warn".into()),
            env_parsed: Value::Text("debug".into()),
        },
    ];
    for row in rows {
        let name = knobs::knob(row.id).map(|k| k.name()).unwrap_or_default();
        let e = env();
        let with_env = env().with_var(row.var, row.env_value);
        let flags = [(row.id, row.flag.clone())];
        let cases = [
            (&e, &[][..], None, row.default.clone(), Origin::Default),
            (
                &e,
                &[][..],
                Some(row.file),
                row.file_value.clone(),
                file_at(2),
            ),
            (
                &with_env,
                &[][..],
                Some(row.file),
                row.env_parsed.clone(),
                env_origin(row.var),
            ),
            (
                &with_env,
                &flags[..],
                Some(row.file),
                row.flag.clone(),
                flag_origin(row.flag_name),
            ),
            (
                &e,
                &flags[..],
                None,
                row.flag.clone(),
                flag_origin(row.flag_name),
            ),
        ];
        for (n, (env, flags, file, value, origin)) in cases.into_iter().enumerate() {
            let s = run(env, flags, file);
            let got = s.get(row.id).map(|e| (e.value.clone(), e.origin.clone()));
            assert_eq!(got, Some((value, origin)), "{name}, case {n}");
            assert!(s.problems.is_empty(), "{name}, case {n}: {:?}", s.problems);
        }
    }
}

#[test]
fn the_agents_dir_variable_beats_the_flag() {
    let e = env().with_var("SIGNALTTY_AGENTS_DIR", "/env/agents");
    let flags = [(K::AgentsDir, Value::Path("/flag/agents".into()))];
    let s = run(&e, &flags, Some("[agents]\ndir = \"/file/agents\"\n"));
    assert_eq!(s.path(K::AgentsDir), Some(PathBuf::from("/env/agents")));
    let s = run(&env(), &flags, Some("[agents]\ndir = \"/file/agents\"\n"));
    assert_eq!(s.path(K::AgentsDir), Some(PathBuf::from("/flag/agents")));
    let s = run(&env(), &[], Some("[agents]\ndir = \"/file/agents\"\n"));
    assert_eq!(s.path(K::AgentsDir), Some(PathBuf::from("/file/agents")));
    let s = run(&env(), &[], None);
    assert_eq!(
        s.path(K::AgentsDir),
        Some(PathBuf::from("/home/u/.config/signaltty/agents"))
    );
}

#[test]
fn the_file_sets_limits_and_an_explicit_socket() {
    let text = "[server]\nsocket = \"/s/x.sock\"\nshutdown_grace_ms = 500\n\n\
                [snapshot]\ninterval_ms = 250\n[journal]\nrotate_bytes = 0x1000\n";
    let s = run(&env(), &[], Some(text));
    assert!(s.problems.is_empty(), "{:?}", s.problems);
    let l = s.limits();
    assert_eq!(l.shutdown_grace, Duration::from_millis(500));
    assert_eq!(l.snapshot_interval, Duration::from_millis(250));
    assert_eq!(l.journal_rotate_bytes, 4096);
    assert_eq!(l.max_parallel_tasks, 4);
    assert_eq!(
        s.socket(&env()),
        (PathBuf::from("/s/x.sock"), SocketOrigin::Explicit)
    );
    assert_eq!(
        s.get(K::SnapshotInterval).map(|e| &e.origin),
        Some(&file_at(6))
    );
    let s = run(&env(), &[], None);
    assert_eq!(s.socket(&env()).1, SocketOrigin::Default);
    assert_eq!(s.limits().merge_timeout, Limits::default().merge_timeout);
}

fn problem_lines(s: &Settings) -> Vec<(Option<usize>, Option<usize>, String)> {
    s.problems
        .iter()
        .map(|p| match &p.at {
            Where::File { line, column, .. } => (Some(*line), *column, p.message.clone()),
            _ => (None, None, p.message.clone()),
        })
        .collect()
}

#[test]
fn bad_entries_are_reported_at_their_line_and_the_rest_is_used() {
    let text = "[tasks]\n\
                max_parallel = 2\n\
                max_paralel = 3\n\
                merge_timeout_ms = \"fast\"\n\
                worker_silent_timeout_s = -1\n\
                [snapshot]\n\
                interval_ms = 0\n\
                [nope]\n\
                x = 1\n\
                [server]\n\
                socket = \"relative.sock\"\n";
    let s = run(&env(), &[], Some(text));
    let got = problem_lines(&s);
    assert_eq!(got.len(), 6, "{got:#?}");
    let at = |line: usize, needle: &str| {
        assert!(
            got.iter()
                .any(|(l, _, m)| *l == Some(line) && m.contains(needle)),
            "no problem at line {line} containing {needle:?}: {got:#?}"
        );
    };
    at(3, "unknown key `tasks.max_paralel`");
    at(4, "expected an integer (milliseconds");
    at(4, "found string");
    at(5, "-1 is out of range");
    at(7, "0 is out of range: expected milliseconds from 1");
    at(8, "unknown section [nope]");
    at(11, "expected an absolute path");
    // The good entry is used; the bad ones keep their defaults.
    assert_eq!(s.int(K::MaxParallelTasks), 2);
    assert_eq!(s.limits().merge_timeout, Limits::default().merge_timeout);
    assert_eq!(s.limits().snapshot_interval, Duration::from_secs(2));
    assert_eq!(s.socket(&env()).1, SocketOrigin::Default);
    let shown = s.problems[0].to_string();
    assert!(
        shown.starts_with("/home/u/.config/signaltty/config.toml:"),
        "{shown}"
    );
}

#[test]
fn a_syntax_error_ignores_the_whole_file_with_line_and_column() {
    let text = "[tasks]\nmax_parallel = 2\nmerge_timeout_ms = = 5\n";
    let s = run(&env(), &[], Some(text));
    let got = problem_lines(&s);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert_eq!(got[0].0, Some(3));
    assert!(got[0].1.is_some(), "a column: {got:?}");
    assert!(got[0].2.contains("the whole file is ignored"), "{got:?}");
    assert_eq!(s.int(K::MaxParallelTasks), 4, "nothing of the file is used");
    assert!(s.file_found);
    assert!(s.file_ignored);
    assert!(!run(&env(), &[], Some("[tasks]\nmax_parallel = 2\n")).file_ignored);
}

#[test]
fn bad_variables_and_flags_are_problems_and_fall_through() {
    let e = env().with_var("SIGNALTTY_MAX_PARALLEL_TASKS", "zero");
    let s = run(&e, &[], Some("[tasks]\nmax_parallel = 2\n"));
    assert_eq!(s.int(K::MaxParallelTasks), 2, "the file decides");
    assert_eq!(s.problems.len(), 1);
    assert_eq!(
        s.problems[0].at,
        Where::Env {
            var: "SIGNALTTY_MAX_PARALLEL_TASKS".into()
        }
    );
    // SIGNALTTY_MERGE_TIMEOUT_MS=0 counted as unset before; it still does.
    let e = env().with_var("SIGNALTTY_MERGE_TIMEOUT_MS", "0");
    let s = run(&e, &[], None);
    assert_eq!(s.limits().merge_timeout, Limits::default().merge_timeout);
    assert_eq!(s.problems.len(), 1);
    let flags = [(K::SnapshotInterval, Value::Int(0))];
    let s = run(&env(), &flags, None);
    assert_eq!(s.limits().snapshot_interval, Duration::from_secs(2));
    assert!(matches!(&s.problems[0].at, Where::Flag { flag } if flag == "--snapshot-interval-ms"));
    // The first log variable that is set wins.
    let e = env().with_var("RUST_LOG", "signaltty=debug");
    assert_eq!(
        run(&e, &[], None)
            .get(K::LogLevel)
            .map(|e| e.origin.clone()),
        Some(env_origin("RUST_LOG"))
    );
}

#[test]
fn an_unreadable_file_is_one_problem() {
    let s = resolve(&Inputs {
        env: &env(),
        flags: &[],
        file_path: path(),
        file: FileInput::Unreadable("cannot open: denied".into()),
    });
    assert_eq!(s.problems.len(), 1);
    assert!(s.problems[0].to_string().contains("cannot open: denied"));
    assert!(s.file_ignored);
}

#[test]
fn the_default_file_parses_back_to_exactly_the_defaults() {
    for e in [env(), Env::default()] {
        let text = default_file(&e);
        let from_file = run(&e, &[], Some(&text));
        assert!(from_file.problems.is_empty(), "{:?}", from_file.problems);
        let defaults = run(&e, &[], None);
        for (a, b) in from_file.entries.iter().zip(&defaults.entries) {
            assert_eq!(a.value, b.value, "{}", a.knob.name());
        }
        for knob in KNOBS {
            assert!(
                text.contains(&format!("{} = ", knob.key)),
                "{} missing",
                knob.name()
            );
        }
        // Every integer and text key is written out, not left commented.
        let set = from_file
            .entries
            .iter()
            .filter(|e| e.origin != Origin::Default)
            .count();
        let written = KNOBS
            .iter()
            .filter(|k| !matches!(k.kind, knobs::Kind::Path))
            .count();
        assert_eq!(set, written);
    }
}

#[test]
fn the_config_file_path_follows_the_xdg_rules_and_the_override() {
    assert_eq!(file_path(&env()), path());
    let mut e = env();
    e.xdg_config_home = Some("/c".into());
    assert_eq!(file_path(&e), PathBuf::from("/c/signaltty/config.toml"));
    e.xdg_config_home = Some("relative".into());
    assert_eq!(file_path(&e), path());
    assert_eq!(
        file_path(&Env::default()),
        PathBuf::from("/tmp/signaltty-config/config.toml")
    );
    let e = env().with_var(CONFIG_VAR, "/elsewhere.toml");
    assert_eq!(file_path(&e), PathBuf::from("/elsewhere.toml"));
}

#[test]
fn line_and_column_count_chars() {
    assert_eq!(file::line_col("ab\ncdé=x", 7), (2, 4));
    assert_eq!(file::line_col("", 5), (1, 1));
}

#[test]
fn the_boards_alerts_come_from_its_flags_then_the_file_then_on_and_off() {
    let e = env();
    let defaults = run(&e, &[], None);
    assert!(defaults.bool(K::BoardBell));
    assert!(!defaults.bool(K::BoardNotify));
    let file = "[board]\nbell = false\nnotify = true\n";
    let from_file = run(&e, &[], Some(file));
    assert!(!from_file.bool(K::BoardBell));
    assert!(from_file.bool(K::BoardNotify));
    assert_eq!(
        from_file.get(K::BoardBell).map(|x| &x.origin),
        Some(&file_at(2))
    );
    let flagged = run(&e, &[(K::BoardBell, Value::Bool(true))], Some(file));
    assert!(flagged.bool(K::BoardBell));
    assert_eq!(
        flagged.get(K::BoardBell).map(|x| &x.origin),
        Some(&flag_origin("--bell"))
    );
    // A wrong type is a problem at its line; the default stays.
    let bad = run(&e, &[], Some("[board]\nbell = \"loud\"\n"));
    assert!(bad.bool(K::BoardBell));
    assert_eq!(problem_lines(&bad)[0].0, Some(2));
    assert!(
        problem_lines(&bad)[0].2.contains("expected true or false"),
        "{:?}",
        bad.problems
    );
}

#[test]
fn mcp_answers_are_off_unless_the_file_turns_them_on() {
    let e = env();
    assert!(!run(&e, &[], None).bool(K::McpAllowAnswers));
    let on = run(&e, &[], Some("[mcp]\nallow_answers = true\n"));
    assert!(on.bool(K::McpAllowAnswers));
    assert_eq!(
        on.get(K::McpAllowAnswers).map(|x| &x.origin),
        Some(&file_at(2))
    );
}
