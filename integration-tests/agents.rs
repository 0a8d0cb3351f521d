//! Agent manifests and screen rules through the real binary
//! (docs/agents.md#manifests, docs/screen-rules.md): a hook-less Claude
//! look-alike classified by the bundled rules until its first hook, agents.list
//! and agents.reload, and explain.

use crate::support::agents::{script, type_line, wait_state, workspace};
use crate::support::process::BIN;
use crate::support::{TestEnv, TestServer, err, ok, str_field};
use serde_json::json;
use signaltty_protocol::ErrorCode;
use std::path::PathBuf;

/// Screen rules through the server
/// (docs/screen-rules.md#what-the-winning-rule-does,
/// docs/screen-rules.md#withdrawing-a-screen-question): working, blocked with a
/// question, idle (the question withdrawn), then the first hook switches the
/// rules off.
#[test]
fn a_hookless_claude_is_classified_by_its_screen_until_it_sends_a_hook() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["attention.cleared"]})));
    let ws = workspace(&mut c, &server, "agents");
    let bin = server.env().root().join("bin");
    std::fs::create_dir_all(&bin).expect("bin dir");
    let claude = bin.join("claude");
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("integration-tests/fixtures/agents/screen-claude");
    std::fs::copy(&fixture, &claude).expect("copy the look-alike");
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": [claude], "env": {"SIGNALTTY_BIN": BIN}}),
    ));
    let pane = str_field(&pane["pane"], "id").to_owned();

    let working = wait_state(&mut c, &pane, "working");
    assert_eq!(working["attention"], "none");
    let explain = ok(c.call("pane.explain", json!({"pane_id": pane})));
    assert_eq!(explain["kind"], "claude");
    assert_eq!(explain["source"], "bundled");
    assert_eq!(explain["classifies"], true);
    assert_eq!(explain["matched"]["id"], "live_turn_working");
    assert!(
        explain["matched"]["region_text"]
            .as_str()
            .is_some_and(|t| t.contains("esc to interrupt")),
        "{explain}"
    );
    assert_eq!(explain["lifecycle"]["source"], "screen:live_turn_working");

    type_line(&mut c, &pane, "");
    let blocked = wait_state(&mut c, &pane, "input_required");
    assert_eq!(blocked["lifecycle"], "blocked");

    type_line(&mut c, &pane, "");
    let idle = wait_state(&mut c, &pane, "idle");
    assert_eq!(
        idle["attention"], "none",
        "the screen's question is withdrawn"
    );
    let cleared = sub.next_event();
    assert_eq!(cleared.payload["reason"], "screen");

    type_line(&mut c, &pane, "");
    let done = wait_state(&mut c, &pane, "done");
    assert_eq!(done["attention"], "unread");
    ok(c.call(
        "pane.wait_for_output",
        json!({"pane_id": pane, "match": "MARK", "mode": "screen", "timeout_s": 20}),
    ));
    let explain = ok(c.call("pane.explain", json!({"pane_id": pane})));
    assert_eq!(explain["hooked"], true);
    assert_eq!(
        explain["classifies"], false,
        "a hooked process is not classified from its screen"
    );
    assert_eq!(
        explain["matched"]["id"], "live_turn_working",
        "what the rules would say is still shown"
    );
    assert_eq!(
        ok(c.call("pane.get", json!({"pane_id": pane})))["pane"]["lifecycle"],
        "done"
    );
}

#[test]
fn agents_list_and_reload_swap_the_manifests_and_report_bad_files() {
    let mut env = TestEnv::new();
    let dir = env.root().join("agents");
    std::fs::create_dir_all(&dir).expect("agents dir");
    env.set_var("SIGNALTTY_AGENTS_DIR", &dir);
    let server = TestServer::start_in(env);
    let mut c = server.client();

    // The manifests load on a thread of their own once the server is up.
    let listed =
        crate::support::wait_until("the bundled manifests", crate::support::DEADLINE, || {
            let listed = ok(c.call("agents.list", json!({})));
            listed["manifests"]
                .as_array()
                .is_some_and(|a| !a.is_empty())
                .then_some(listed)
        });
    assert_eq!(listed["dir"], dir.to_string_lossy().as_ref());
    let bundled: Vec<&str> = listed["manifests"]
        .as_array()
        .map(|a| a.iter().map(|m| str_field(m, "file")).collect())
        .unwrap_or_default();
    assert!(
        bundled.contains(&"claude.toml") && bundled.contains(&"codex.toml"),
        "{listed}"
    );
    assert_eq!(listed["failures"], json!([]));

    std::fs::write(
        dir.join("wrap.toml"),
        "[agent]\nkind = \"codex\"\nbinaries = [\"codex-wrap\"]\n[[screen]]\nid = \"mine\"\nstate = \"working\"\nregex = ['busy']\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("zz-broken.toml"),
        "[agent]\nkind = \"codex\"\n[[screen]]\nid = \"oops\"\nstate = \"idle\"\nregion = \"sideways\"\nregex = ['x']\n",
    )
    .expect("write");
    let reloaded = ok(c.call("agents.reload", json!({})));
    let mine = reloaded["manifests"]
        .as_array()
        .and_then(|a| a.iter().find(|m| m["file"] == "wrap.toml").cloned())
        .expect("the new manifest");
    assert_eq!(mine["kind"], "codex");
    assert_eq!(mine["screen_rules"], 1);
    assert_eq!(mine["bundled"], false);
    assert_eq!(reloaded["failures"][0]["file"], "zz-broken.toml");
    let error = str_field(&reloaded["failures"][0], "error");
    assert!(
        error.contains("'oops'") && error.contains("bad region"),
        "{error}"
    );
    assert_eq!(
        ok(c.call("agents.list", json!({}))),
        reloaded,
        "the swapped set is the active one"
    );

    // A directory that cannot be listed keeps the active set.
    std::fs::remove_dir_all(&dir).expect("remove");
    std::fs::write(&dir, "not a directory").expect("write");
    assert_eq!(
        err(c.call("agents.reload", json!({}))).code,
        ErrorCode::IoError
    );
    assert_eq!(ok(c.call("agents.list", json!({}))), reloaded);
}

#[test]
fn agents_check_validates_a_file_and_classifies_a_screen_from_stdin() {
    let env = TestEnv::new();
    let good = env.root().join("good.toml");
    std::fs::write(
        &good,
        "[agent]\nkind = \"generic\"\nbinaries = [\"aider\"]\n[[screen]]\nid = \"thinking\"\nstate = \"working\"\nregex = ['(?m)^Thinking']\n[[screen]]\nid = \"fallback\"\nstate = \"idle\"\npriority = -1000\nregex = ['']\n",
    )
    .expect("write");
    let path = good.to_string_lossy().into_owned();
    let server = TestServer::start_in(env);
    let out = server.cli_with_stdin(&["agents", "check", &path], b"aider v1\nThinking...\n");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("valid, kind Generic, 2 screen rules"),
        "{text}"
    );
    assert!(text.contains("winner: thinking (working)"), "{text}");

    let bad = server.env().root().join("bad.toml");
    std::fs::write(&bad, "[agent]\nkind = \"generic\"\n[[screen]]\nid = \"r9\"\nstate = \"working\"\nregex = ['(']\n").expect("write");
    let out = server.cli_with_stdin(&["agents", "check", &bad.to_string_lossy()], b"");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("'r9'") && stderr.contains("bad regex"),
        "{stderr}"
    );
}

/// An idle pane is evaluated again when the rules change: `agents.reload`
/// classifies a quiet screen at once, without waiting for output or the
/// process refresh.
#[test]
fn a_reload_classifies_an_idle_screen_by_the_new_rules() {
    let mut env = TestEnv::new();
    let dir = env.root().join("agents");
    std::fs::create_dir_all(&dir).expect("agents dir");
    env.set_var("SIGNALTTY_AGENTS_DIR", &dir);
    let server = TestServer::start_in(env);
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "agents");
    let claude = script(
        server.env().root(),
        "claude",
        "printf '* Cogitating… (3s · esc to interrupt)\\r\\nzz-custom-question\\r\\n'\nexec sleep 600\n",
    );
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": [claude]}),
    ));
    let pane = str_field(&pane["pane"], "id").to_owned();
    // The bundled rules have classified the quiet screen once.
    ok(c.call(
        "wait",
        json!({"pane_id": pane, "until": "working", "timeout_s": 20}),
    ));
    std::fs::write(
        dir.join("claude.toml"),
        "[agent]\nkind = \"claude\"\n[[screen]]\nid = \"custom_question\"\nstate = \"blocked\"\nregex = ['zz-custom-question']\n",
    )
    .expect("write");
    ok(c.call("agents.reload", json!({})));
    // Well inside the 10 s process refresh: the reload itself re-evaluated.
    let blocked = ok(c.call(
        "wait",
        json!({"pane_id": pane, "until": "blocked", "timeout_s": 5}),
    ));
    assert_eq!(blocked["attention"], "input_required");
    let explain = ok(c.call("pane.explain", json!({"pane_id": pane})));
    assert_eq!(explain["matched"]["id"], "custom_question");
}

/// A status line cut by the pane's right edge and overdrawn at its start
/// (docs/screen-rules.md#phrases), through the server: a hook-less Gemini
/// look-alike in an 80-column pane draws "? for shortcuts…(esc to can" as its
/// last column and reads working, then done. The same line in a 100-column
/// pane ends short of the edge, and is not a sign.
#[test]
fn a_status_line_cut_at_the_panes_edge_reads_working() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "cut");
    let rule = "─".repeat(40);
    let line = format!(
        "? for shortcutsks: ~/.gemini/hooks/{} (esc to can",
        "x".repeat(80 - 35 - 12)
    );
    assert_eq!(line.chars().count(), 80);
    let gemini = script(
        server.env().root(),
        "gemini",
        &format!(
            "printf '\\033]0;gemini\\007'\n\
             printf 'Gemini\\r\\n\\r\\n? for shortcuts\\r\\n{rule}\\r\\n >   Type your message\\r\\n'\n\
             read -r _\n\
             printf '\\033[2J\\033[HGemini\\r\\n\\r\\n%s\\r\\n{rule}\\r\\n >   Type your message\\r\\n' \"$LINE\"\n\
             read -r _\n\
             printf '\\033[2J\\033[HGemini\\r\\n\\r\\n? for shortcuts\\r\\n{rule}\\r\\n >   Type your message\\r\\nMARK\\r\\n'\n\
             sleep 600\n"
        ),
    );
    let spawn = |c: &mut crate::support::Client, cols: u16| {
        let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
        let pane = ok(c.call(
            "pane.spawn",
            json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": [gemini],
                   "cols": cols, "rows": 24, "env": {"LINE": line}}),
        ));
        str_field(&pane["pane"], "id").to_owned()
    };
    let wide = spawn(&mut c, 100);
    let narrow = spawn(&mut c, 80);
    for pane in [&wide, &narrow] {
        wait_state(&mut c, pane, "idle");
        type_line(&mut c, pane, "");
        ok(c.call(
            "pane.wait_for_output",
            json!({"pane_id": pane, "match": "(esc to can", "mode": "screen", "timeout_s": 20}),
        ));
    }
    let working = wait_state(&mut c, &narrow, "working");
    assert_eq!(working["lifecycle"], "working");
    let explain = ok(c.call("pane.explain", json!({"pane_id": narrow})));
    assert_eq!(explain["kind"], "gemini");
    assert_eq!(explain["matched"]["id"], "esc_cancel_working", "{explain}");
    assert_eq!(explain["lifecycle"]["source"], "screen:esc_cancel_working");
    let explain = ok(c.call("pane.explain", json!({"pane_id": wide})));
    assert_eq!(explain["matched"]["id"], "idle_fallback", "{explain}");

    type_line(&mut c, &narrow, "");
    let done = wait_state(&mut c, &narrow, "done");
    assert_eq!(done["attention"], "unread");
}

/// A stand-in Claude whose package says it is a release newer than the
/// bundled rules were checked on (docs/agents.md#checked-versions): the
/// process refresh reads its version from the package beside it, and
/// `pane.get`, `pane.explain` and `doctor` call its reading unverified. The
/// same stand-in as a checked release reads as checked.
#[test]
fn an_agent_newer_than_its_checked_versions_reads_unverified() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "versions");
    let stand_in = |c: &mut crate::support::Client, version: &str| {
        let dir = server
            .env()
            .root()
            .join(format!("v{version}/node_modules/@anthropic-ai/claude-code"));
        std::fs::create_dir_all(dir.join("bin")).expect("package dir");
        std::fs::write(
            dir.join("package.json"),
            format!(r#"{{"name": "@anthropic-ai/claude-code", "version": "{version}"}}"#),
        )
        .expect("package.json");
        let claude = dir.join("bin/claude");
        // A node script, as the real one is: the refresh names it after its
        // script and finds the package from the script's path.
        std::fs::write(
            &claude,
            "#!/usr/bin/env node\nprocess.stdout.write('stand-in\\r\\n');\nsetInterval(() => {}, 1 << 30);\n",
        )
        .expect("write the stand-in");
        crate::support::process::set_mode(&claude, 0o755);
        let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
        let pane = ok(c.call(
            "pane.spawn",
            json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": [claude]}),
        ));
        str_field(&pane["pane"], "id").to_owned()
    };
    let future = stand_in(&mut c, "9.0.0");
    let checked = stand_in(&mut c, "2.1.332");
    // The process refresh runs every 10 s.
    let agent_of = |c: &mut crate::support::Client, pane: &str| {
        crate::support::wait_until(
            "the agent's version",
            std::time::Duration::from_secs(40),
            || {
                let got = ok(c.call("pane.get", json!({"pane_id": pane})));
                got["pane"]["agent"]["version"]
                    .is_string()
                    .then(|| got["pane"]["agent"].clone())
            },
        )
    };
    let agent = agent_of(&mut c, &future);
    assert_eq!(agent["kind"], "claude");
    assert_eq!(agent["version"], "9.0.0");
    assert_eq!(agent["fidelity"], "unverified");
    let explain = ok(c.call("pane.explain", json!({"pane_id": future})));
    assert_eq!(explain["version"]["running"], "9.0.0", "{explain}");
    assert_eq!(explain["version"]["fidelity"], "unverified");
    assert!(
        explain["version"]["checked"]
            .as_array()
            .is_some_and(|c| c.contains(&json!("2.1.332"))),
        "{explain}"
    );
    let reason = str_field(&explain["version"], "reason");
    assert!(
        reason.contains("newer") && reason.contains("2.1.332"),
        "{reason}"
    );
    // Still its best reading: a known agent's idle screen reads idle.
    assert_eq!(explain["matched"]["id"], "idle_fallback");

    let agent = agent_of(&mut c, &checked);
    assert_eq!(agent["version"], "2.1.332");
    assert_eq!(agent["fidelity"], "checked");

    let home = server.env().home();
    let out = server.cli(&[
        "doctor".as_ref(),
        "--json".as_ref(),
        "--home".as_ref(),
        home.as_os_str(),
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "doctor --json printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    let versions = report["checks"]
        .as_array()
        .and_then(|a| a.iter().find(|c| c["check"] == "agent versions").cloned())
        .unwrap_or_else(|| panic!("no agent versions check: {report}"));
    assert_eq!(versions["verdict"], "warn", "{versions}");
    let detail = str_field(&versions, "detail");
    assert!(
        detail.contains("(claude 9.0.0; checked up to 2.1.332)"),
        "{detail}"
    );
    assert!(
        !detail.contains("claude 2.1.332"),
        "the checked pane is not listed: {detail}"
    );
}

/// An agent that prints for long while no sign of its rules matches (a
/// release that renamed its status line) reads `unknown` with the reason,
/// never a confident idle; when its output stops, its prompt reads idle
/// again (docs/screen-rules.md#when-no-sign-matches).
#[test]
fn long_output_that_no_rule_reads_is_unknown_until_it_stops() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "no-sign");
    // A hook-less Gemini look-alike whose status line is one no rule knows.
    let gemini = script(
        server.env().root(),
        "gemini",
        "printf '\\033]0;gemini\\007 >   Type your message\\r\\n'\n\
         read -r _\n\
         i=0\n\
         while [ $i -lt 260 ]; do\n\
           printf '\\033[2J\\033[H ✧ Pondering the request %s\\r\\n' \"$i\"\n\
           i=$((i + 1))\n\
           sleep 0.1\n\
         done\n\
         printf '\\033[2J\\033[Hanswered\\r\\n >   Type your message\\r\\n'\n\
         sleep 600\n",
    );
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": [gemini]}),
    ));
    let pane = str_field(&pane["pane"], "id").to_owned();
    wait_state(&mut c, &pane, "idle");
    type_line(&mut c, &pane, "");
    // The output runs 26 s; the reading turns unknown 20 s into it.
    let lifecycle = |c: &mut crate::support::Client, wanted: &str| {
        crate::support::wait_until(wanted, std::time::Duration::from_secs(60), || {
            let got = ok(c.call("pane.get", json!({"pane_id": pane})));
            (got["pane"]["lifecycle"] == wanted).then_some(())
        });
    };
    lifecycle(&mut c, "unknown");
    let explain = ok(c.call("pane.explain", json!({"pane_id": pane})));
    assert_eq!(
        explain["lifecycle"]["source"], "screen:no_sign",
        "{explain}"
    );
    assert_eq!(explain["matched"]["id"], "idle_fallback");
    let reason = str_field(&explain["matched"], "reason");
    assert!(reason.contains("unknown, not idle"), "{reason}");
    // Unknown while it prints: nothing it shows before it stops says idle.
    lifecycle(&mut c, "idle");
    let screen = ok(c.call("pane.read", json!({"pane_id": pane, "mode": "screen"})));
    assert!(
        screen.to_string().contains("answered"),
        "idle only once the output stopped: {screen}"
    );
}
