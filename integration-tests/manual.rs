//! Everyday CLI surface (issue 18): completions that each shell loads and
//! completes from, man pages that `man -l` renders, an install that puts only
//! `signaltty` on PATH, and state colours and widths in `pane list`,
//! `attention` and `decisions` (`--color`, `NO_COLOR`, 80 columns in tmux).

use crate::support::agents::{spawn_fake_with, wait_state, workspace};
use crate::support::tmux::Tmux;
use crate::support::{TestEnv, TestServer, ok, str_field};
use serde_json::json;
use std::path::Path;
use std::process::{Command, Output};

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The completion script for `shell`, written into the env's dir.
fn completion_script(env: &TestEnv, shell: &str) -> std::path::PathBuf {
    let out = env.cli(&["completions", shell]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = env.root().join(format!("signaltty.{shell}"));
    std::fs::write(&path, &out.stdout).unwrap_or_else(|e| panic!("write: {e}"));
    path
}

fn run(cmd: &mut Command) -> Output {
    let out = crate::support::process::run_with_deadline(cmd, "a shell");
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn bash_loads_the_completions_and_completes_commands_and_subcommands() {
    let env = TestEnv::new();
    let script = completion_script(&env, "bash");
    run(Command::new("bash").arg("-n").arg(&script));
    let probe = format!(
        "source {}; \
         COMP_WORDS=(signaltty pa); COMP_CWORD=1; _signaltty signaltty pa signaltty; echo \"1:${{COMPREPLY[*]}}\"; \
         COMP_WORDS=(signaltty pane sp); COMP_CWORD=2; _signaltty signaltty sp pane; echo \"2:${{COMPREPLY[*]}}\"",
        script.display()
    );
    let out = stdout(&run(Command::new("bash").args(["-c", &probe])));
    assert!(out.contains("1:pane"), "{out}");
    assert!(out.contains("2:spawn split"), "{out}");
}

#[test]
fn zsh_fish_and_elvish_accept_their_completions() {
    let env = TestEnv::new();
    let mut checked = 0;
    if have("zsh") {
        let script = completion_script(&env, "zsh");
        run(Command::new("zsh").arg("-n").arg(&script));
        let probe = format!(
            "autoload -Uz compinit; compinit -u -d {}/zcomp; source {}; whence -w _signaltty",
            env.root().display(),
            script.display()
        );
        let out = stdout(&run(Command::new("zsh").args(["-f", "-c", &probe])));
        assert!(out.contains("_signaltty: function"), "{out}");
        checked += 1;
    } else {
        eprintln!("zsh is not installed (.ci/run installs it): zsh completions not checked");
    }
    if have("fish") {
        let script = completion_script(&env, "fish");
        run(Command::new("fish").arg("--no-execute").arg(&script));
        let probe = format!(
            "source {}; complete -C 'signaltty pane sp'",
            script.display()
        );
        let mut cmd = Command::new("fish");
        cmd.args(["--no-config", "-c", &probe])
            .env("HOME", env.home());
        let out = stdout(&run(&mut cmd));
        assert!(out.contains("spawn\t"), "{out}");
        assert!(out.contains("split\t"), "{out}");
        checked += 1;
    } else {
        eprintln!("fish is not installed (.ci/run installs it): fish completions not checked");
    }
    if have("elvish") {
        // The script registers itself with the interactive editor, which a
        // script run does not load: the same script, bound to a plain map,
        // is then asked for `signaltty pane <Tab>`.
        let script = completion_script(&env, "elvish");
        let text = std::fs::read_to_string(&script).unwrap_or_else(|e| panic!("read: {e}"));
        let bound = format!(
            "var arg-completer = [&]\nfn stub-candidate {{|text &display=''| put $text }}\n{}\n\
             for c [($arg-completer[signaltty] signaltty pane '')] {{ echo $c }}\n",
            text.replace("edit:completion:arg-completer", "arg-completer")
                .replace("edit:complex-candidate", "stub-candidate")
        );
        let probe = env.root().join("probe.elv");
        std::fs::write(&probe, bound).unwrap_or_else(|e| panic!("write: {e}"));
        let mut cmd = Command::new("elvish");
        cmd.arg("-norc").arg(&probe).env("HOME", env.home());
        let out = stdout(&run(&mut cmd));
        assert!(out.lines().any(|l| l == "spawn"), "{out}");
        checked += 1;
    } else {
        eprintln!("elvish is not installed (.ci/run installs it): elvish completions not checked");
    }
    eprintln!("{checked} of 3 shells checked");
}

#[test]
fn man_pages_render_one_per_command() {
    let env = TestEnv::new();
    let dir = env.root().join("man");
    let out = env.cli(&["man", "--dir", &dir.to_string_lossy()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout(&out).contains("man pages"), "{}", stdout(&out));
    let top = env.cli(&["man"]);
    assert!(top.status.success());
    assert!(stdout(&top).contains(".TH signaltty 1"), "{}", stdout(&top));
    assert!(
        have("man"),
        "man is not installed (.ci/run installs man-db)"
    );
    for page in [
        "signaltty.1",
        "signaltty-pane-spawn.1",
        "signaltty-task-start.1",
        "signaltty-man.1",
    ] {
        let path = dir.join(page);
        assert!(path.is_file(), "{page} was not written");
        let mut cmd = Command::new("man");
        cmd.arg("-l")
            .arg(&path)
            .env("MANWIDTH", "80")
            .env("MANPAGER", "cat")
            .env("PAGER", "cat");
        let out = run(&mut cmd);
        let text = stdout(&out);
        assert!(text.contains("SYNOPSIS"), "{page}: {text}");
        assert!(text.contains("signaltty"), "{page}: {text}");
    }
}

#[test]
fn cargo_install_installs_only_signaltty_and_the_benchmarks_stay_buildable() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &Path| -> toml::Table {
        let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        text.parse()
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };
    let manifest = read(&root.join("Cargo.toml"));
    let bins: Vec<&str> = manifest["bin"]
        .as_array()
        .map(|a| a.iter().filter_map(|b| b["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(bins, ["signaltty"], "the root package's binaries");
    // `cargo build --bins` at the root (docs/performance.md) still builds them.
    let default_members: Vec<&str> = manifest["workspace"]["default-members"]
        .as_array()
        .map(|a| a.iter().filter_map(|m| m.as_str()).collect())
        .unwrap_or_default();
    assert!(default_members.contains(&"benches"), "{default_members:?}");
    let benches = read(&root.join("benches/Cargo.toml"));
    let bench_bins: Vec<&str> = benches["bin"]
        .as_array()
        .map(|a| a.iter().filter_map(|b| b["name"].as_str()).collect())
        .unwrap_or_default();
    for b in [
        "signaltty-bench",
        "signaltty-pty-bench",
        "signaltty-state-bench",
    ] {
        assert!(bench_bins.contains(&b), "{b} in {bench_bins:?}");
    }
}

/// A server with one workspace whose cwd is long, a bash pane with a long
/// title, a notification (attention `unread` with a long message) and a
/// fake Claude asking a long question.
fn busy_server() -> (TestServer, String) {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "colours");
    let deep = server
        .env()
        .root()
        .join("a-rather-long-directory-name/with/several/levels/below/it");
    std::fs::create_dir_all(&deep).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": str_field(&tab["tab"], "id"),
               "cwd": deep.to_string_lossy(), "argv": ["bash", "--norc"]}),
    ));
    let pane = str_field(&pane["pane"], "id").to_owned();
    ok(c.call(
        "notify",
        json!({"pane_id": pane, "title": "a very long notification title that goes on",
               "body": "and a body that is much longer than any terminal line could ever hold \
                        in eighty columns of text, so it has to be cut"}),
    ));
    let agent = spawn_fake_with(&mut c, &ws, "fake-claude", json!({}));
    wait_state(&mut c, &agent, "idle");
    ok(c.call(
        "hook-event",
        json!({"agent": "claude", "event": "Notification", "pane_id": agent,
               "payload": {"notification_type": "question"},
               "decision": {"id": "q1",
                            "prompt": "Which of these files should be rewritten first, given that the tests only cover two of them?",
                            "options": [{"id": "a", "label": "src/a-very-long-file-name.rs"},
                                        {"id": "b", "label": "src/another-long-file-name.rs"},
                                        {"id": "c", "label": "src/yet-another-file.rs"}]}}),
    ));
    (server, ws)
}

#[test]
fn colour_is_off_into_a_pipe_on_with_always_and_no_color_wins_over_auto() {
    let (server, ws) = busy_server();
    for args in [
        vec!["pane", "list", ws.as_str()],
        vec!["attention"],
        vec!["decisions"],
    ] {
        let plain = server.cli(&args);
        assert!(
            plain.status.success(),
            "{}",
            String::from_utf8_lossy(&plain.stderr)
        );
        assert!(
            !stdout(&plain).contains('\x1b'),
            "{args:?} piped: {}",
            stdout(&plain)
        );
        let mut always = args.clone();
        always.extend(["--color", "always"]);
        let out = server.cli(&always);
        assert!(
            stdout(&out).contains("\x1b["),
            "{args:?} --color always: {}",
            stdout(&out)
        );
        // The text is the piped text with colour added, nothing else.
        assert_eq!(strip_sgr(&stdout(&out)), stdout(&plain), "{args:?}");
        let mut never = args.clone();
        never.extend(["--color", "never"]);
        assert!(
            !stdout(&server.cli(&never)).contains('\x1b'),
            "{args:?} never"
        );
    }
}

#[test]
fn on_an_80_column_terminal_states_are_coloured_and_lines_fit() {
    let (server, ws) = busy_server();
    // What each must show, and whether something on it had to be cut: a
    // long cwd or message is cut with `…`; a question is wrapped whole.
    for (args, expect, cut) in [
        (vec!["pane", "list", ws.as_str()], "blocked", true),
        (vec!["attention"], "input_required", true),
        (vec!["decisions"], "cover two of them?", false),
    ] {
        for no_color in [false, true] {
            let extra: &[(&str, &str)] = if no_color { &[("NO_COLOR", "1")] } else { &[] };
            let tmux = Tmux::run_once(server.env(), extra, &args, 80, 30);
            let screen = tmux.screen();
            assert!(screen.contains(expect), "{args:?}:\n{screen}");
            for line in screen.lines() {
                let cols = line.chars().count();
                assert!(cols <= 80, "{args:?}: a line of {cols} columns:\n{screen}");
            }
            assert_eq!(screen.contains('…'), cut, "{args:?}:\n{screen}");
            // Every option of the question is on the screen, one per line.
            if args[0] != "pane" {
                assert!(
                    screen.contains("3) src/yet-another-file.rs [c]"),
                    "{screen}"
                );
            }
            let coloured = tmux.screen_with_colours();
            assert_eq!(
                coloured.contains("\x1b["),
                !no_color,
                "{args:?} NO_COLOR={no_color}:\n{coloured}"
            );
        }
    }
}

/// `text` without its SGR sequences.
fn strip_sgr(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}
