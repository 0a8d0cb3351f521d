//! Environment overrides of `pane.spawn`, `pane.split` and the CLI's `--env`
//! (docs/panes.md): every override reaches the child except the refused ones,
//! which are `BAD_PARAMS` naming them; malformed keys and values are refused
//! the same way; and no override value is ever written to the state
//! directory or the journal (only `agent.config_env` is kept).

use crate::support::life::state_dir;
use crate::support::{Client, DEADLINE, TestServer, expect_code, ok, str_field, wait_until};
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;
use std::path::{Path, PathBuf};

fn workspace(c: &mut Client, server: &TestServer) -> String {
    let cwd = server.env().root().to_string_lossy().into_owned();
    let ws = ok(c.call("workspace.create", json!({"name": "env", "cwd": cwd})));
    str_field(&ws["workspace"], "id").to_owned()
}

/// A command that writes `$var` into `out` (atomically) and then waits.
fn write_var(var: &str, out: &Path) -> Value {
    let out = out.to_string_lossy();
    json!([
        "/bin/sh",
        "-c",
        format!("printf %s \"${var}\" > '{out}.tmp' && mv '{out}.tmp' '{out}'; exec sleep 600")
    ])
}

/// What the child wrote into `out`.
#[track_caller]
fn written(out: &Path) -> String {
    wait_until(
        &format!("{} to be written", out.display()),
        DEADLINE,
        || std::fs::read_to_string(out).ok(),
    )
}

/// Every file under `dir` whose bytes contain `needle`.
fn files_containing(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_containing(&path, needle));
        } else if std::fs::read(&path)
            .is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
        {
            found.push(path);
        }
    }
    found
}

#[test]
fn overrides_reach_the_child_and_no_secret_reaches_the_disk() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let root = server.env().root().to_owned();
    let secret = format!("secret-{}", std::process::id());
    let split_secret = format!("split-secret-{}", std::process::id());
    let out = root.join("spawned.out");
    let spawned = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "argv": write_var("ANTHROPIC_API_KEY", &out),
               "env": {"ANTHROPIC_API_KEY": secret, "CLAUDE_CONFIG_DIR": "profile",
                       "PLAIN_VAR": "x"}}),
    ));
    assert_eq!(written(&out), secret, "the child sees the override");
    let pane = str_field(&spawned["pane"], "id").to_owned();
    // Only the config directory is kept on the pane, made absolute.
    let kept = &spawned["pane"]["agent"]["config_env"];
    assert_eq!(
        kept,
        &json!({"CLAUDE_CONFIG_DIR": root.join("profile").to_string_lossy()}),
        "{spawned}"
    );
    let split_out = root.join("split.out");
    ok(c.call(
        "pane.split",
        json!({"pane_id": pane, "argv": write_var("SPLIT_TOKEN", &split_out),
               "env": {"SPLIT_TOKEN": split_secret}}),
    ));
    assert_eq!(
        written(&split_out),
        split_secret,
        "pane.split passes env too"
    );

    // A clean stop writes the snapshot and the tails; then nothing under the
    // state home (snapshot, tails, journal) nor the server's log holds either
    // secret, and the journal's pane.created events carry no env.
    ok(c.call("server.shutdown", json!({"force": true})));
    let mut server = server;
    server.process().wait_exit();
    let state_home = server.env().state_home();
    assert!(
        state_dir(server.env()).join("snapshot.json").is_file(),
        "the snapshot was written"
    );
    for needle in [secret.as_str(), split_secret.as_str()] {
        let found = files_containing(&state_home, needle);
        assert!(found.is_empty(), "{needle} reached the disk: {found:?}");
        assert!(!server.stderr().contains(needle), "{needle} is in the log");
    }
    let journal = std::fs::read_to_string(state_dir(server.env()).join("audit.jsonl"))
        .unwrap_or_else(|e| panic!("the journal: {e}"));
    let created: Vec<Value> = journal
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["event"] == "pane.created")
        .collect();
    assert_eq!(created.len(), 2, "{journal}");
    for record in created {
        let pane = &record["payload"]["pane"];
        assert!(pane.get("env").is_none(), "{record}");
        assert!(!pane.to_string().contains("PLAIN_VAR"), "{record}");
    }
}

#[test]
fn refused_and_malformed_overrides_are_bad_params_naming_them_and_create_nothing() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let argv = json!(["/bin/sh", "-c", "exec sleep 600"]);
    let refused = expect_code(
        c.call(
            "pane.spawn",
            json!({"workspace_id": ws, "argv": argv,
                   "env": {"LD_PRELOAD": "/x.so", "SIGNALTTY_SOCKET": "/s", "FINE": "1"}}),
        ),
        ErrorCode::BadParams,
    );
    assert!(
        refused.message.contains("LD_PRELOAD") && refused.message.contains("SIGNALTTY_SOCKET"),
        "{refused:?}"
    );
    assert!(!refused.message.contains("FINE"), "{refused:?}");
    let bad = expect_code(
        c.call(
            "pane.spawn",
            json!({"workspace_id": ws, "argv": argv,
                   "env": {"A=B": "1", "": "2", "NUL_VALUE": "a\u{0}b"}}),
        ),
        ErrorCode::BadParams,
    );
    for name in ["\"A=B\"", "\"\"", "NUL_VALUE"] {
        assert!(bad.message.contains(name), "{name}: {bad:?}");
    }
    // Nothing was created, not even the automatic tab.
    let got = ok(c.call("workspace.get", json!({"workspace_id": ws})));
    assert_eq!(got["tabs"], json!([]), "{got}");
    assert_eq!(got["panes"], json!([]), "{got}");
    // pane.split refuses them too, and the tab keeps its one pane.
    let pane = ok(c.call("pane.spawn", json!({"workspace_id": ws, "argv": argv})));
    let pane = str_field(&pane["pane"], "id").to_owned();
    let split = expect_code(
        c.call(
            "pane.split",
            json!({"pane_id": pane, "argv": argv, "env": {"LD_LIBRARY_PATH": "/l"}}),
        ),
        ErrorCode::BadParams,
    );
    assert!(split.message.contains("LD_LIBRARY_PATH"), "{split:?}");
    let got = ok(c.call("workspace.get", json!({"workspace_id": ws})));
    assert_eq!(got["panes"].as_array().map(Vec::len), Some(1), "{got}");
}

#[test]
fn the_cli_env_flag_reaches_spawn_split_and_new_and_a_malformed_one_is_a_usage_error() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let root = server.env().root().to_owned();
    let argv_of = |var: &str, out: &Path| -> Vec<String> {
        write_var(var, out)
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let out = root.join("cli-spawn.out");
    let mut args = vec![
        "pane".to_owned(),
        "spawn".into(),
        ws.clone(),
        "--env".into(),
        "CLI_VAR=a=b".into(),
        "--env".into(),
        "OTHER=1".into(),
        "--".into(),
    ];
    args.extend(argv_of("CLI_VAR", &out));
    let spawned = server.cli(&args);
    assert!(spawned.status.success(), "{spawned:?}");
    assert_eq!(written(&out), "a=b");

    let pane = ok(c.call("workspace.get", json!({"workspace_id": ws})))["panes"][0]["id"]
        .as_str()
        .map(str::to_owned)
        .expect("the spawned pane");
    let split_out = root.join("cli-split.out");
    let mut args = vec![
        "pane".to_owned(),
        "split".into(),
        pane,
        "--env".into(),
        "SPLIT_VAR=s".into(),
        "--".into(),
    ];
    args.extend(argv_of("SPLIT_VAR", &split_out));
    let split = server.cli(&args);
    assert!(split.status.success(), "{split:?}");
    assert_eq!(written(&split_out), "s");

    let new_out = root.join("cli-new.out");
    let mut args = vec![
        "new".to_owned(),
        "--cwd".into(),
        root.to_string_lossy().into_owned(),
        "--env".into(),
        "NEW_VAR=n".into(),
        "--".into(),
    ];
    args.extend(argv_of("NEW_VAR", &new_out));
    let new = server.cli(&args);
    assert!(new.status.success(), "{new:?}");
    assert_eq!(written(&new_out), "n");

    // Malformed: clap's usage error, exit 2, before any call.
    for bad in ["NOEQUALS", "=value"] {
        let out = server.cli(&["pane", "spawn", &ws, "--env", bad, "--", "true"]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("KEY=VALUE"),
            "{out:?}"
        );
    }
    // Refused by the server: exit 1 naming the key.
    let out = server.cli(&["pane", "spawn", &ws, "--env", "LD_PRELOAD=x", "--", "true"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("BAD_PARAMS") && err.contains("LD_PRELOAD"),
        "{err}"
    );
}
