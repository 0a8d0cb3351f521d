//! README's tour, run as written (issue 26): every `$ ` line of the tour's
//! console block runs in a shell, in a fresh home with a stand-in `claude`
//! on PATH (`fixtures/agents/tour-claude`), and what it prints must match the
//! lines README shows under it. So an edit of README that no longer runs, or
//! a change of the CLI's output that README does not show, fails here.
//!
//! How README's output is read:
//! - ids (`pane_0b6f2c1e…`, `ws_5d0c…`, `tab_…`) stand for any id of their
//!   kind; one with hex digits is bound to the id it first matched, must
//!   match that same id (or its short form) wherever it appears again, and
//!   is replaced by it in the commands that follow;
//! - `/home/me` is the home, `/run/user/1000` the runtime dir, durations
//!   (`3s`, `2m5s`) any duration;
//! - `…` inside a line is any text, a line that is only `…` any lines;
//! - a line whose output shows `signaltty: CODE: …` must fail; every other
//!   line must succeed;
//! - lines that attach to a terminal interactively are skipped (`SKIPPED`).

use crate::support::process::BIN;
use crate::support::{TestEnv, TestServer};
use regex::Regex;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Lines that take over the terminal, and why they are not run here.
const SKIPPED: &[(&str, &str)] = &[
    (
        "signaltty attach ",
        "attaches this terminal to the pane until Ctrl-\\ (tested in attach.rs)",
    ),
    (
        "signaltty board",
        "draws the full-screen board until q (tested in board.rs)",
    ),
];

/// How long one line may run (a task's worker runs a whole turn).
const LINE_DEADLINE: Duration = Duration::from_secs(60);

/// One `$ ` line and the output README shows under it.
#[derive(Debug)]
struct Step {
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// The steps of the console block under "## A tour".
fn tour(readme: &str) -> Vec<Step> {
    let section = readme
        .split_once("\n## A tour\n")
        .map(|(_, rest)| rest)
        .unwrap_or_else(|| panic!("README.md has no \"## A tour\" section"));
    let start = section
        .find("```console\n")
        .unwrap_or_else(|| panic!("the tour has no ```console block"));
    let offset = readme.len() - section.len() + start;
    let first_line = readme[..offset].lines().count() + 2;
    let block = &section[start + "```console\n".len()..];
    let block = &block[..block.find("\n```").unwrap_or(block.len())];
    let mut steps: Vec<Step> = Vec::new();
    for (i, text) in block.lines().enumerate() {
        match text.strip_prefix("$ ") {
            Some(command) => steps.push(Step {
                line: first_line + i,
                command: command.to_owned(),
                expected: Vec::new(),
            }),
            None => match steps.last_mut() {
                Some(step) => step.expected.push(text.to_owned()),
                None => panic!("README.md:{}: output before any command", first_line + i),
            },
        }
    }
    steps
}

/// An id as README writes it: a kind, `_`, hex digits (maybe none), maybe `…`.
fn id_pattern() -> Regex {
    Regex::new(r"\b(ws|tab|pane|task|ctx)_([0-9a-f]*)(…?)").unwrap_or_else(|e| panic!("{e}"))
}

/// A duration as the CLI prints one.
const DURATION: &str = r"\d+[smhd](\d+[smhd])?";

/// One README output line as a regex; the ids in it, in order, as the keys
/// they are bound under (`None` for an anonymous one).
fn line_regex(expected: &str, home: &Path, runtime: &Path) -> (Regex, Vec<Option<String>>) {
    let ids = id_pattern();
    let duration = Regex::new(&format!(r"\b{DURATION}\b")).unwrap_or_else(|e| panic!("{e}"));
    let mut pattern = String::from("^");
    let mut keys = Vec::new();
    let literal = |text: &str, pattern: &mut String| {
        let text = text
            .replace("/home/me", "\u{1}")
            .replace("/run/user/1000", "\u{2}");
        for (i, part) in text.split('…').enumerate() {
            if i > 0 {
                pattern.push_str(".*");
            }
            let mut last = 0;
            for m in duration.find_iter(part) {
                push_literal(&part[last..m.start()], home, runtime, pattern);
                pattern.push_str(DURATION);
                last = m.end();
            }
            push_literal(&part[last..], home, runtime, pattern);
        }
    };
    let mut last = 0;
    for c in ids.captures_iter(expected) {
        let (Some(all), Some(kind), Some(hex)) = (c.get(0), c.get(1), c.get(2)) else {
            continue;
        };
        literal(&expected[last..all.start()], &mut pattern);
        pattern.push_str(&format!("({}_[0-9a-f]+)", kind.as_str()));
        keys.push(
            (!hex.as_str().is_empty()).then(|| format!("{}_{}", kind.as_str(), hex.as_str())),
        );
        last = all.end();
    }
    literal(&expected[last..], &mut pattern);
    pattern.push('$');
    let re = Regex::new(&pattern).unwrap_or_else(|e| panic!("{expected:?} as {pattern:?}: {e}"));
    (re, keys)
}

fn push_literal(text: &str, home: &Path, runtime: &Path, pattern: &mut String) {
    for ch in text.chars() {
        match ch {
            '\u{1}' => pattern.push_str(&regex::escape(&home.display().to_string())),
            '\u{2}' => pattern.push_str(&regex::escape(&runtime.display().to_string())),
            c => pattern.push_str(&regex::escape(&c.to_string())),
        }
    }
}

/// The ids bound so far: README's placeholder (kind and hex) → the real id.
type Bindings = BTreeMap<String, String>;

/// Whether `actual` matches README's `expected` line; the new bindings if so.
fn match_line(
    expected: &str,
    actual: &str,
    bound: &Bindings,
    home: &Path,
    runtime: &Path,
) -> Option<Bindings> {
    let (re, keys) = line_regex(expected, home, runtime);
    let caps = re.captures(actual.trim_end())?;
    let mut new = Bindings::new();
    for (i, key) in keys.iter().enumerate() {
        let (Some(key), Some(id)) = (key, caps.get(i + 1)) else {
            continue;
        };
        let id = id.as_str();
        match bound.get(key).or(new.get(key)) {
            // The same object again, maybe in its short form.
            Some(was) if was.starts_with(id) || id.starts_with(was.as_str()) => {},
            Some(_) => return None,
            None => {
                new.insert(key.clone(), id.to_owned());
            },
        }
    }
    Some(new)
}

/// Matches the output lines against README's, `…` lines lazily.
fn match_output(
    expected: &[String],
    actual: &[&str],
    bound: &Bindings,
    home: &Path,
    runtime: &Path,
) -> Option<Bindings> {
    let Some((first, rest)) = expected.split_first() else {
        return actual.is_empty().then(Bindings::new);
    };
    if first.trim() == "…" {
        for skip in 0..=actual.len() {
            if let Some(b) = match_output(rest, &actual[skip..], bound, home, runtime) {
                return Some(b);
            }
        }
        return None;
    }
    let (line, others) = actual.split_first()?;
    let here = match_line(first, line, bound, home, runtime)?;
    let mut all = bound.clone();
    all.extend(here.clone());
    let mut later = match_output(rest, others, &all, home, runtime)?;
    later.extend(here);
    Some(later)
}

/// The command with README's bound ids replaced by the real ones.
fn substitute(command: &str, bound: &Bindings, at: usize) -> String {
    let ids = id_pattern();
    let mut out = String::new();
    let mut last = 0;
    for c in ids.captures_iter(command) {
        let (Some(all), Some(kind), Some(hex)) = (c.get(0), c.get(1), c.get(2)) else {
            continue;
        };
        out.push_str(&command[last..all.start()]);
        let key = format!("{}_{}", kind.as_str(), hex.as_str());
        match bound.get(&key) {
            Some(id) => out.push_str(id),
            None => panic!(
                "README.md:{at}: `{}` is used before any output shows it: show the line \
                 that prints it",
                all.as_str()
            ),
        }
        last = all.end();
    }
    out.push_str(&command[last..]);
    out
}

/// Runs `script` with bash in `env`, stdout and stderr on one pipe, as a
/// terminal shows them; returns the exit code and the text.
fn run_line(env: &TestEnv, script: &str) -> (Option<i32>, String) {
    let (mut reader, writer) = std::io::pipe().unwrap_or_else(|e| panic!("pipe: {e}"));
    let err = writer.try_clone().unwrap_or_else(|e| panic!("pipe: {e}"));
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(script)
        .current_dir(env.home())
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(err);
    env.apply_env(&mut cmd);
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("bash: {e}"));
    drop(cmd);
    let reading = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = reader.read_to_end(&mut text);
        text
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() < LINE_DEADLINE => {
                std::thread::sleep(Duration::from_millis(5))
            },
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("`{script}` did not end within {LINE_DEADLINE:?}");
            },
        }
    };
    let text = reading.join().unwrap_or_default();
    (status.code(), String::from_utf8_lossy(&text).into_owned())
}

/// Stops whatever server the tour left (an upgrade may have replaced the
/// harness's), also when the test fails.
struct StopAtEnd<'a>(&'a TestEnv);

impl Drop for StopAtEnd<'_> {
    fn drop(&mut self) {
        let _ = self.0.command(&["stop", "--force"]).output();
    }
}

/// The tour's environment: a fresh home with the XDG dirs where a fresh
/// machine has them (under the home, the runtime dir apart), `signaltty`
/// and the stand-in `claude` first on PATH, and a git identity, as a
/// developer's machine has one.
fn tour_env() -> TestEnv {
    let mut env = TestEnv::new();
    let home = env.home();
    env.set_var("XDG_STATE_HOME", home.join(".local/state"));
    env.set_var("XDG_CONFIG_HOME", home.join(".config"));
    env.remove_var("XDG_DATA_HOME");
    let bin = env.root().join("bin");
    std::fs::create_dir(&bin).unwrap_or_else(|e| panic!("{e}"));
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("integration-tests/fixtures/agents/tour-claude");
    for (name, target) in [("signaltty", PathBuf::from(BIN)), ("claude", fixture)] {
        std::os::unix::fs::symlink(target, bin.join(name)).unwrap_or_else(|e| panic!("{e}"));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin];
    dirs.extend(std::env::split_paths(&path));
    env.set_var(
        "PATH",
        std::env::join_paths(dirs).unwrap_or_else(|e| panic!("{e}")),
    );
    for (k, v) in [
        ("GIT_AUTHOR_NAME", "Me"),
        ("GIT_AUTHOR_EMAIL", "me@example.com"),
        ("GIT_COMMITTER_NAME", "Me"),
        ("GIT_COMMITTER_EMAIL", "me@example.com"),
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("NO_COLOR", "1"),
    ] {
        env.set_var(k, v);
    }
    env
}

#[test]
fn the_readme_tour_runs_as_written() {
    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap_or_else(|e| panic!("{e}"));
    let steps = tour(&readme);
    assert!(steps.len() > 20, "the tour has {} lines", steps.len());
    let server = TestServer::start_in(tour_env());
    let env = server.env();
    let _stop = StopAtEnd(env);
    let (home, runtime) = (env.home(), env.runtime_dir());
    let mut bound = Bindings::new();
    let mut skipped = Vec::new();
    let failure = Regex::new(r"^signaltty: [A-Z_]+: ").unwrap_or_else(|e| panic!("{e}"));
    for step in &steps {
        if let Some((_, why)) = SKIPPED.iter().find(|(p, _)| step.command.starts_with(p)) {
            skipped.push(format!("README.md:{}: {} ({why})", step.line, step.command));
            continue;
        }
        let script = substitute(&step.command, &bound, step.line);
        let (code, text) = run_line(env, &script);
        let actual: Vec<&str> = text.lines().collect();
        let shows_failure = step.expected.iter().any(|l| failure.is_match(l));
        assert!(
            (code == Some(0)) != shows_failure,
            "README.md:{}: `{}` exited {code:?}{}:\n{text}",
            step.line,
            step.command,
            if shows_failure {
                " but README shows it failing"
            } else {
                ""
            }
        );
        match match_output(&step.expected, &actual, &bound, &home, &runtime) {
            Some(new) => bound.extend(new),
            None => panic!(
                "README.md:{}: `{}` printed\n{text}\nbut README shows\n{}\n(ids, /home/me, \
                 /run/user/1000 and durations are masked; `…` is any text)",
                step.line,
                step.command,
                step.expected.join("\n")
            ),
        }
    }
    for s in &skipped {
        eprintln!("skipped {s}");
    }
}

#[test]
fn the_output_matcher_masks_ids_paths_and_times() {
    let home = Path::new("/tmp/h");
    let run = Path::new("/tmp/r");
    let bound = Bindings::new();
    let b = match_line(
        "pane_0b6f2c1e…  shell  [live]  up 3s  /home/me",
        "pane_0123abcd0123abcd0123abcd0123abcd  shell  [live]  up 2m5s  /tmp/h",
        &bound,
        home,
        run,
    );
    let b = b.unwrap_or_else(|| panic!("no match"));
    assert_eq!(b["pane_0b6f2c1e"], "pane_0123abcd0123abcd0123abcd0123abcd");
    // The same placeholder must be the same id (its short form too).
    assert!(match_line("x pane_0b6f2c1e", "x pane_0123abcd", &b, home, run).is_some());
    assert!(match_line("x pane_0b6f2c1e…", "x pane_ffff", &b, home, run).is_none());
    // `…` lines take any lines; other lines must all be there.
    let exp = ["a".to_owned(), "…".to_owned(), "z".to_owned()];
    assert!(match_output(&exp, &["a", "b", "c", "z"], &bound, home, run).is_some());
    assert!(match_output(&exp, &["a", "z"], &bound, home, run).is_some());
    assert!(match_output(&exp, &["a", "b"], &bound, home, run).is_none());
    assert!(match_output(&[], &["unexpected"], &bound, home, run).is_none());
    assert_eq!(
        substitute("signaltty attach pane_0b6f2c1e…", &b, 1),
        "signaltty attach pane_0123abcd0123abcd0123abcd0123abcd"
    );
}
