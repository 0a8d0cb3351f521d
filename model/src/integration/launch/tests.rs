//! Setup at launch: which executable picks an agent, launches that turn hooks
//! off, Codex command lines, and the no-daemon probe.

use super::*;

fn argv(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_owned).collect()
}

#[test]
fn only_the_real_executable_name_picks_an_agent() {
    assert_eq!(
        agent_of(&argv("/usr/bin/claude --resume x")),
        Some(AgentKind::Claude)
    );
    assert_eq!(agent_of(&argv("codex")), Some(AgentKind::Codex));
    assert_eq!(agent_of(&argv("cursor-agent")), Some(AgentKind::Cursor));
    assert_eq!(agent_of(&argv("opencode")), Some(AgentKind::Opencode));
    assert_eq!(agent_of(&argv("gemini")), Some(AgentKind::Gemini));
    assert_eq!(agent_of(&argv("pi")), Some(AgentKind::Pi));
    for other in ["bash -c claude", "agent", "claude-wrapper", "node claude"] {
        assert_eq!(agent_of(&argv(other)), None, "{other}");
    }
}

#[test]
fn launches_that_turn_hooks_off_are_disabled() {
    assert!(disables_hooks(AgentKind::Claude, &argv("claude --bare")));
    assert!(disables_hooks(
        AgentKind::Claude,
        &argv("claude --setting-sources project,local")
    ));
    assert!(disables_hooks(
        AgentKind::Claude,
        &argv("claude --setting-sources=project")
    ));
    assert!(!disables_hooks(
        AgentKind::Claude,
        &argv("claude --setting-sources user,project")
    ));
    assert!(!disables_hooks(
        AgentKind::Claude,
        &argv("claude --resume abc")
    ));
    assert!(disables_hooks(
        AgentKind::Opencode,
        &argv("opencode --pure")
    ));
    assert!(!disables_hooks(AgentKind::Opencode, &argv("opencode")));
}

#[test]
fn codex_command_lines_are_classified_as_the_integrations_page_says() {
    use CodexRuntime::*;
    for (line, want) in [
        ("codex", Local),
        ("codex resume --last", Local),
        ("codex fix the tests", Local),
        ("codex -m gpt-5 --search", Local),
        ("codex -mgpt-5", Local),
        ("codex --model=gpt-5 -i a.png b.png --oss", Local),
        ("codex -c model=x -- --not-a-flag", Local),
        ("codex --no-daemon", Isolated),
        ("codex exec hi", Unchanged),
        ("codex --version", Unchanged),
        ("codex mcp list", Unchanged),
        ("codex --remote ws://x", Remote),
        ("codex --remote=ws://x", Remote),
        ("codex --frobnicate", Unsupported),
        ("codex -m", Unsupported),
        ("codex --image", Unsupported),
    ] {
        assert_eq!(codex_runtime(&argv(line)), want, "{line}");
    }
}

/// The probe decides: a Codex that accepts `--no-daemon --version` gets the
/// flag for exec; one that does not keeps its argv and says why.
#[test]
fn the_no_daemon_probe_gates_the_flag() {
    let dir = std::env::temp_dir().join(format!("signaltty-probe-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let write = |name: &str, body: &str| {
        let p = dir.join(name).join("codex");
        let _ = std::fs::create_dir_all(dir.join(name));
        std::fs::write(&p, body).unwrap_or_else(|e| panic!("{e}"));
        let mut perm = std::fs::metadata(&p)
            .unwrap_or_else(|e| panic!("{e}"))
            .permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        std::fs::set_permissions(&p, perm).unwrap_or_else(|e| panic!("{e}"));
        p.to_string_lossy().into_owned()
    };
    let good = write(
        "good",
        "#!/bin/sh\n[ \"$1\" = --no-daemon ] && exit 0\nexit 2\n",
    );
    let old = write("old", "#!/bin/sh\nexit 2\n");
    let slow = write("slow", "#!/bin/sh\nexec sleep 30\n");
    let env = vec![("PATH".to_owned(), "/usr/bin:/bin".to_owned())];
    assert!(probe_no_daemon(&good, &dir, &env));
    assert!(!probe_no_daemon(&old, &dir, &env));
    let started = Instant::now();
    assert!(!probe_no_daemon(&slow, &dir, &env));
    assert!(started.elapsed() < Duration::from_secs(3), "bounded");
    let _ = std::fs::remove_dir_all(&dir);
}
