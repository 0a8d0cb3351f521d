//! Tests of the pure parts of launching a pane: the child environment, the
//! executable and kind, and the pane object built.

use super::*;

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[test]
fn the_service_managers_variables_never_reach_a_child() {
    let server: Vec<(String, String)> = MANAGER_VARS
        .iter()
        .map(|k| ((*k).to_owned(), "x".to_owned()))
        .collect();
    let env = child_env(server, &BTreeMap::new(), "pane_1", Path::new("/s"));
    for key in MANAGER_VARS {
        assert!(!env.iter().any(|(k, _)| k == key), "{key}: {env:?}");
    }
}

#[test]
fn the_child_environment_filters_blocks_and_injects_in_order() {
    let server = vec![
        ("PATH".to_owned(), "/bin".to_owned()),
        ("LD_PRELOAD".to_owned(), "evil.so".to_owned()),
        ("SIGNALTTY_SOCKET".to_owned(), "/old.sock".to_owned()),
    ];
    let request = map(&[
        ("LANG", "C.UTF-8"),
        ("CODEX_HOME", "/c"),
        ("SIGNALTTY_PANE", "forged"),
        ("HOME", "/elsewhere"),
        ("LD_LIBRARY_PATH", "/x"),
    ]);
    let env: BTreeMap<_, _> = child_env(server, &request, "pane_1", Path::new("/run/s.sock"))
        .into_iter()
        .collect();
    assert_eq!(env.get("PATH").map(String::as_str), Some("/bin"));
    assert!(!env.contains_key("LD_PRELOAD") && !env.contains_key("LD_LIBRARY_PATH"));
    assert_eq!(env["HOME"], "/elsewhere", "every other override is passed");
    assert_eq!(env["LANG"], "C.UTF-8");
    assert_eq!(env["CODEX_HOME"], "/c");
    assert_eq!(env["TERM"], "xterm-256color");
    assert_eq!(
        env["SIGNALTTY_PANE"], "pane_1",
        "the server's pane id always wins"
    );
    assert_eq!(env["SIGNALTTY_SOCKET"], "/run/s.sock");
    let with_term = child_env(
        vec![("TERM".to_owned(), "screen".to_owned())],
        &BTreeMap::new(),
        "p",
        Path::new("/s"),
    );
    assert!(with_term.contains(&("TERM".to_owned(), "screen".to_owned())));
}

#[test]
fn overrides_name_every_refused_or_malformed_key_and_accept_the_rest() {
    assert_eq!(
        check_overrides(&map(&[
            ("ANTHROPIC_API_KEY", "secret"),
            ("PATH", "/x"),
            ("SIGNALTTY_PANE", "forged")
        ])),
        Ok(())
    );
    let why = check_overrides(&map(&[
        ("LD_PRELOAD", "a.so"),
        ("SIGNALTTY_SOCKET", "/s"),
        ("OK", "fine"),
    ]))
    .unwrap_err();
    assert!(why.contains("LD_PRELOAD, SIGNALTTY_SOCKET"), "{why}");
    assert!(!why.contains("OK"), "{why}");
    let why = check_overrides(&map(&[("", "v"), ("A=B", "v"), ("N\0UL", "v")])).unwrap_err();
    assert!(
        why.contains("\"\"") && why.contains("\"A=B\"") && why.contains("N\\0UL"),
        "{why}"
    );
    let why = check_overrides(&map(&[("GOOD_KEY", "bad\0value")])).unwrap_err();
    assert!(why.contains("values of \"GOOD_KEY\""), "{why}");
    assert!(check_overrides(&map(&[("LD_LIBRARY_PATH", "/x")])).is_err());
}

#[test]
fn a_task_worker_and_a_child_get_the_servers_context_over_the_overrides() {
    let socket = PathBuf::from("/run/s.sock");
    let mut r = recipe(&socket);
    r.request_env = map(&[
        ("SIGNALTTY_TASK", "forged"),
        ("SIGNALTTY_PARENT_PANE", "forged"),
    ]);
    r.task_id = Some("task_1".into());
    r.parent = Some(Lineage {
        parent: PaneId::from_random(7),
        root: PaneId::from_random(7),
    });
    let (_, spec) = build_pane(r);
    assert_eq!(env_of(&spec, "SIGNALTTY_TASK"), Some("task_1"));
    assert_eq!(
        env_of(&spec, "SIGNALTTY_PARENT_PANE"),
        Some(PaneId::from_random(7).as_str())
    );
}

#[test]
fn relative_executables_with_a_slash_are_anchored_and_bare_names_are_not() {
    let cwd = Path::new("/home/u/proj");
    assert_eq!(
        anchor_argv(vec!["./bin/run".into(), "-x".into()], cwd),
        vec!["/home/u/proj/bin/run", "-x"]
    );
    assert_eq!(
        anchor_argv(vec!["../tools/a".into()], cwd),
        vec!["/home/u/tools/a"]
    );
    assert_eq!(anchor_argv(vec!["codex".into()], cwd), vec!["codex"]);
    assert_eq!(
        anchor_argv(vec!["/usr/bin/env".into()], cwd),
        vec!["/usr/bin/env"]
    );
}

#[test]
fn kinds_come_from_the_basename_and_titles_too() {
    assert_eq!(detect_kind(&["/opt/bin/codex".into()]), AgentKind::Codex);
    assert_eq!(detect_kind(&["cursor-agent".into()]), AgentKind::Cursor);
    assert_eq!(detect_kind(&["bash".into()]), AgentKind::Generic);
    assert_eq!(detect_kind(&[]), AgentKind::None);
    assert_eq!(initial_title(&["/bin/sh".into(), "-c".into()]), "sh");
    assert_eq!(initial_title(&[]), "shell");
}

#[test]
fn only_config_dirs_are_remembered_and_made_absolute() {
    let request = map(&[
        ("CODEX_HOME", "cfg/codex"),
        ("CLAUDE_CONFIG_DIR", "/abs"),
        ("LANG", "C"),
    ]);
    let kept = config_env(&request, Path::new("/w")).unwrap();
    assert_eq!(
        kept,
        map(&[
            ("CLAUDE_CONFIG_DIR", "/abs"),
            ("CODEX_HOME", "/w/cfg/codex")
        ])
    );
    assert_eq!(config_env(&map(&[("LANG", "C")]), Path::new("/w")), None);
}

fn recipe(socket: &Path) -> PaneRecipe<'_> {
    PaneRecipe {
        id: PaneId::from_random(1),
        workspace: WorkspaceId::from_random(2),
        argv: vec!["./bin/agent".into(), "--fast".into()],
        cwd: PathBuf::from("/work/repo"),
        size: PtySize::clamped(120, 40),
        kind: AgentKind::Claude,
        request_env: map(&[
            ("CLAUDE_CONFIG_DIR", "conf"),
            ("LD_PRELOAD", "/evil.so"),
            ("RANDOM_VAR", "x"),
        ]),
        parent: None,
        relationship: None,
        label: Some("review".into()),
        task_id: None,
        server_env: vec![
            ("PATH".into(), "/usr/bin".into()),
            ("LD_PRELOAD".into(), "/server.so".into()),
            ("SIGNALTTY_SOCKET".into(), "/old.sock".into()),
        ],
        socket,
        now: Timestamp::now(),
    }
}

fn env_of<'a>(spec: &'a SpawnSpec, key: &str) -> Option<&'a str> {
    spec.env
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

#[test]
fn a_built_pane_is_live_unknown_and_unplaced_with_its_command_anchored() {
    let socket = PathBuf::from("/run/s.sock");
    let (pane, spec) = build_pane(recipe(&socket));
    assert_eq!(pane.argv, vec!["/work/repo/bin/agent", "--fast"]);
    assert_eq!(spec.argv, pane.argv);
    assert_eq!(pane.title, "agent");
    assert_eq!(pane.cwd, "/work/repo");
    assert_eq!(spec.cwd, PathBuf::from("/work/repo"));
    assert_eq!((spec.cols, spec.rows), (120, 40));
    assert_eq!(pane.pty_size, PtySize::clamped(120, 40));
    assert_eq!(pane.live, LiveState::Live);
    assert_eq!(pane.lifecycle, Lifecycle::Unknown);
    assert_eq!(pane.attention, Attention::None);
    assert_eq!(pane.tab_id.0, "", "the Workspace places it");
    assert_eq!(pane.label.as_deref(), Some("review"));
    assert_eq!(pane.agent.kind, AgentKind::Claude);
    assert_eq!(pane.relationship, None);
    assert_eq!(pane.root_pane_id, None);
}

#[test]
fn a_built_panes_environment_is_filtered_and_names_the_pane_and_socket() {
    let socket = PathBuf::from("/run/s.sock");
    let (pane, spec) = build_pane(recipe(&socket));
    assert_eq!(env_of(&spec, "SIGNALTTY_PANE"), Some(pane.id.as_str()));
    assert_eq!(env_of(&spec, "SIGNALTTY_SOCKET"), Some("/run/s.sock"));
    assert_eq!(env_of(&spec, "PATH"), Some("/usr/bin"));
    assert_eq!(env_of(&spec, "LD_PRELOAD"), None, "blocked both ways");
    assert_eq!(env_of(&spec, "RANDOM_VAR"), Some("x"), "passed through");
    assert_eq!(env_of(&spec, "CLAUDE_CONFIG_DIR"), Some("conf"));
    assert_eq!(env_of(&spec, "TERM"), Some("xterm-256color"));
    assert_eq!(env_of(&spec, "SIGNALTTY_PARENT_PANE"), None);
    // Only the config variables are remembered, made absolute.
    let kept = pane.agent.config_env.expect("config env");
    assert_eq!(kept.len(), 1);
    assert_eq!(kept["CLAUDE_CONFIG_DIR"], "/work/repo/conf");
}

#[test]
fn a_child_pane_names_its_parent_and_root_and_is_a_subagent_by_default() {
    let socket = PathBuf::from("/run/s.sock");
    let mut r = recipe(&socket);
    r.parent = Some(Lineage {
        parent: PaneId::from_random(7),
        root: PaneId::from_random(8),
    });
    let (pane, spec) = build_pane(r.clone());
    assert_eq!(pane.parent_pane_id, Some(PaneId::from_random(7)));
    assert_eq!(pane.root_pane_id, Some(PaneId::from_random(8)));
    assert_eq!(pane.relationship, Some(Relationship::Subagent));
    assert_eq!(
        env_of(&spec, "SIGNALTTY_PARENT_PANE"),
        Some(PaneId::from_random(7).as_str())
    );
    r.relationship = Some(Relationship::Fork);
    assert_eq!(build_pane(r).0.relationship, Some(Relationship::Fork));
}

fn v(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| (*a).to_owned()).collect()
}

#[test]
fn a_restored_plain_shell_resumes_as_itself_and_a_shell_command_does_not() {
    let socket = PathBuf::from("/run/s.sock");
    let mut r = recipe(&socket);
    r.argv = v(&["/bin/bash"]);
    let (mut pane, _) = build_pane(r);
    pane.restore_state = RestoreState::Restored;
    assert_eq!(resume_command(&pane), Some(v(&["/bin/bash"])));
    pane.argv = v(&["zsh", "-l"]);
    assert_eq!(resume_command(&pane), Some(v(&["zsh", "-l"])));
    pane.argv = v(&["sh", "-c", "make test"]);
    assert_eq!(resume_command(&pane), None);
    // An exited shell (it ended by itself) is not started again.
    pane.argv = v(&["bash"]);
    pane.restore_state = RestoreState::Exited;
    assert_eq!(resume_command(&pane), None);
    // A session's command wins, resolved.
    pane.agent.resume_argv = Some(v(&["claude", "--resume", "s9"]));
    pane.argv = v(&["/home/me/bin/claude"]);
    assert_eq!(
        resume_command(&pane),
        Some(v(&["/home/me/bin/claude", "--resume", "s9"]))
    );
}
