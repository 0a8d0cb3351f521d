//! Hosts added, checked and listed; commands, `HOST:PANE` and `--all-hosts`
//! over real ssh; a remote question answered here; a host that goes away.

use super::*;
use serde_json::Value;
use std::io::Write as _;
use std::process::Stdio;

#[test]
fn hosts_are_added_checked_listed_and_driven_over_real_ssh() {
    let sshd = Sshd::start(&["hosta", "hostb"]);
    let local = TestServer::start();
    add_hosts(&local, &sshd);

    let listed = json(local.cli(&["--json", "host", "list"]), "host list");
    let names: Vec<&str> = listed["hosts"]
        .as_array()
        .map(|a| a.iter().filter_map(|h| h["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["hosta", "hostb"], "{listed}");

    let check = json(
        local.cli(&["--json", "host", "check", "hosta"]),
        "host check",
    );
    assert_eq!(check["reachable"], true, "{check}");
    assert_eq!(check["version"], env!("CARGO_PKG_VERSION"), "{check}");
    assert_eq!(check["protocol"], "signaltty/1", "{check}");
    // No XDG_RUNTIME_DIR over ssh: the remote server took the /tmp fallback.
    let uid = sshd.account("hosta").uid();
    assert_eq!(
        check["socket"],
        format!("/tmp/signaltty-{uid}/signaltty.sock"),
        "{check}"
    );
    assert!(
        check["rtt_ms"].as_f64().is_some_and(|ms| ms < 1000.0),
        "{check}"
    );

    // A pane on hosta, read back by --host and by HOST:PANE.
    let name = sshd.account("hosta").name().to_owned();
    let pane = spawn_on(
        &local,
        "hosta",
        "echo remote-hello-$(id -un); exec sleep 600",
    );
    let want = format!("remote-hello-{name}");
    wait_until("the remote pane's output", REMOTE, || {
        let out = local.cli(&["--host", "hosta", "pane", "read", &pane]);
        text(&out).contains(&want).then_some(())
    });
    let read = ok(
        local.cli(&["pane", "read", &format!("hosta:{pane}")]),
        "HOST:PANE read",
    );
    assert!(read.contains(&want), "{read}");
    // The same pane is not on this machine.
    assert!(!local.cli(&["pane", "read", &pane]).status.success());

    // Three servers, each pane with the host it lives on.
    spawn_on(&local, "local", "exec sleep 600");
    let fleet = json(
        local.cli(&["--json", "pane", "list", "--all-hosts"]),
        "pane list --all-hosts",
    );
    let answered: Vec<(String, bool)> = fleet["hosts"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|h| (h["host"].as_str().unwrap_or("").to_owned(), h["ok"] == true))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        answered,
        [
            ("local".to_owned(), true),
            ("hosta".to_owned(), true),
            ("hostb".to_owned(), true)
        ],
        "{fleet}"
    );
    let mut where_panes: Vec<(String, String)> = Vec::new();
    for ws in fleet["workspaces"].as_array().into_iter().flatten() {
        for p in ws["panes"].as_array().into_iter().flatten() {
            assert_eq!(p["host"], ws["host"], "{ws}");
            where_panes.push((
                p["host"].as_str().unwrap_or("").to_owned(),
                p["id"].as_str().unwrap_or("").to_owned(),
            ));
        }
    }
    assert!(
        where_panes.contains(&("hosta".to_owned(), pane.clone())),
        "{fleet}"
    );
    assert_eq!(
        where_panes.iter().filter(|(h, _)| h == "local").count(),
        1,
        "{fleet}"
    );
    assert!(!where_panes.iter().any(|(h, _)| h == "hostb"), "{fleet}");

    // A name that is no host is a clear error, not a hang.
    let out = local.cli(&["--host", "nowhere", "status"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("BAD_PARAMS") && err.contains("hosta, hostb"),
        "{err}"
    );
    stop_hosts(&local, &sshd);
}

#[test]
fn a_question_raised_on_a_host_is_answered_here_and_its_reporter_gets_the_verdict() {
    let sshd = Sshd::start(&["hosta"]);
    let local = TestServer::start();
    add_hosts(&local, &sshd);
    let pane = spawn_on(&local, "hosta", "exec sleep 600");
    let reporter = remote_reporter(&sshd, "hosta", &pane);

    let decision = wait_until(
        "the remote question in decisions --all-hosts",
        REMOTE,
        || {
            let v: Value =
                serde_json::from_str(&text(&local.cli(&["--json", "decisions", "--all-hosts"])))
                    .ok()?;
            v["decisions"]
                .as_array()?
                .iter()
                .find(|d| d["host"] == "hosta" && d["pane_id"] == pane.as_str())
                .cloned()
        },
    );
    let options: Vec<&str> = decision["decision"]["options"]
        .as_array()
        .map(|o| o.iter().filter_map(|o| o["id"].as_str()).collect())
        .unwrap_or_default();
    assert!(
        options.contains(&"once") && options.contains(&"deny"),
        "{decision}"
    );
    let attention = json(
        local.cli(&["--json", "attention", "--all-hosts"]),
        "attention --all-hosts",
    );
    assert!(
        attention["panes"]
            .as_array()
            .is_some_and(|p| p.iter().any(|p| p["host"] == "hosta")),
        "{attention}"
    );

    ok(
        local.cli(&["answer", &format!("hosta:{pane}"), "once"]),
        "answer HOST:PANE",
    );
    allowed(reporter);
    stop_hosts(&local, &sshd);
}

#[test]
fn a_host_that_goes_away_is_reported_while_the_other_answers() {
    let a = Sshd::start(&["hosta"]);
    let mut b = Sshd::start(&["hostb"]);
    let local = TestServer::start();
    add_hosts(&local, &a);
    add_hosts(&local, &b);
    spawn_on(&local, "hosta", "exec sleep 600");
    spawn_on(&local, "hostb", "exec sleep 600");
    b.stop();
    let started = std::time::Instant::now();
    let fleet = json(
        local.cli(&["--json", "pane", "list", "--all-hosts"]),
        "pane list --all-hosts",
    );
    let took = started.elapsed();
    let host = |name: &str| {
        fleet["hosts"]
            .as_array()
            .and_then(|a| a.iter().find(|h| h["host"] == name).cloned())
            .unwrap_or_default()
    };
    assert_eq!(host("local")["ok"], true, "{fleet}");
    assert_eq!(host("hosta")["ok"], true, "{fleet}");
    assert_eq!(host("hostb")["ok"], false, "{fleet}");
    assert_eq!(host("hostb")["error"]["code"], "NO_SUCH_SERVER", "{fleet}");
    let why = host("hostb")["error"]["message"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert!(why.starts_with("hostb: "), "{why}");
    assert!(took < Duration::from_secs(25), "took {took:?}");
    let panes_of = |name: &str| {
        fleet["workspaces"]
            .as_array()
            .map(|w| w.iter().filter(|w| w["host"] == name).count())
            .unwrap_or(0)
    };
    assert_eq!(panes_of("hosta"), 1, "{fleet}");
    assert_eq!(panes_of("hostb"), 0, "{fleet}");
    stop_hosts(&local, &a);
}

/// A stand-in for the remote signaltty: a shell script under the harness's
/// folder that the account can run.
fn fake_remote(sshd: &Sshd, name: &str, script: &str) -> String {
    let path = sshd.root().join("bin").join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{script}\n"))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    crate::support::process::set_mode(&path, 0o755);
    path.to_string_lossy().into_owned()
}

#[test]
fn a_missing_old_or_foreign_remote_is_a_clear_error() {
    let sshd = Sshd::start(&["hosta"]);
    let local = TestServer::start();
    let cfg = sshd.ssh_config_path().to_string_lossy().into_owned();
    let add = |name: &str, bin: &str| {
        ok(
            local.cli(&[
                "host",
                "add",
                name,
                "hosta",
                "--ssh-config",
                &cfg,
                "--remote-bin",
                bin,
            ]),
            "host add",
        );
    };
    let missing = sshd
        .root()
        .join("bin/not-there")
        .to_string_lossy()
        .into_owned();
    add("missing", &missing);
    add(
        "old",
        &fake_remote(
            &sshd,
            "old",
            "echo \"error: unexpected argument '--mux' found\" >&2; exit 2",
        ),
    );
    add(
        "foreign",
        &fake_remote(
            &sshd,
            "foreign",
            r#"echo 'Welcome!'; echo '{"signaltty_bridge":"mux/1","version":"9.0.0","protocol":"signaltty/9","socket":"/x","started":false}'; exec sleep 30"#,
        ),
    );
    add(
        "garbage",
        &fake_remote(&sshd, "garbage", "echo 'not a bridge'; exit 0"),
    );
    let failed = |name: &str| {
        let out = local.cli(&["--host", name, "status"]);
        assert!(!out.status.success(), "{name} must fail");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = failed("missing");
    assert!(
        e.contains("NO_SUCH_SERVER") && e.contains("--remote-bin"),
        "{e}"
    );
    let e = failed("old");
    assert!(e.contains("BAD_PROTOCOL") && e.contains("too old"), "{e}");
    let e = failed("foreign");
    assert!(
        e.contains("BAD_PROTOCOL") && e.contains("signaltty/9") && e.contains("9.0.0"),
        "{e}"
    );
    let e = failed("garbage");
    assert!(
        e.contains("NO_SUCH_SERVER") && e.contains("not a bridge"),
        "{e}"
    );
    // host check says the same and exits 1.
    let out = local.cli(&["host", "check", "missing"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--remote-bin"));
}

/// `ssh HOST signaltty bridge`, plain, is a socket for any script: a request
/// line in, its answer out, starting the host's server first; with
/// `--no-start` and no server it fails and says why.
#[test]
fn the_plain_bridge_relays_json_lines_and_starts_the_server() {
    let sshd = Sshd::start(&["hosta"]);
    let bin = sshd.binary_for_accounts().to_string_lossy().into_owned();
    let out = sshd.ssh("hosta", &[bin.as_str(), "bridge", "--no-start"]);
    assert!(!out.status.success(), "no server yet: --no-start must fail");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("NO_SUCH_SERVER"), "{err}");

    let mut cmd = sshd.ssh_command("hosta");
    cmd.arg(format!("{bin} bridge"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("ssh bridge: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        let line =
            r#"{"protocol":"signaltty/1","id":"far-1","method":"server.status","params":{}}"#;
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .unwrap_or_else(|e| panic!("write: {e}"));
        // Closing stdin ends the bridge once the answer is out.
    }
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("bridge: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    let reply: Value = text
        .lines()
        .find_map(|l| serde_json::from_str::<Value>(l).ok())
        .unwrap_or_else(|| {
            panic!(
                "no answer: {text:?} / {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    assert_eq!(reply["id"], "far-1", "{reply}");
    assert_eq!(reply["ok"], true, "{reply}");
    assert_eq!(reply["result"]["protocol"], "signaltty/1", "{reply}");
    // The server it started outlives the session.
    let again = sshd.ssh("hosta", &[bin.as_str(), "status"]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let _ = sshd.ssh("hosta", &[bin.as_str(), "stop", "--force"]);
}

/// `HOST:PANE` in the commands that drive a pane: input, wait, mark-seen,
/// close.
#[test]
fn host_pane_references_drive_a_remote_pane() {
    let sshd = Sshd::start(&["hosta"]);
    let local = TestServer::start();
    add_hosts(&local, &sshd);
    let pane = spawn_on(&local, "hosta", "read line; echo got-$line; exit 0");
    let at = format!("hosta:{pane}");
    ok(
        local.cli(&["pane", "input", &at, "--text", "ref", "--enter"]),
        "pane input HOST:PANE",
    );
    ok(
        local.cli(&["wait", &at, "--until", "exited", "--timeout", "30"]),
        "wait HOST:PANE --until exited",
    );
    let read = ok(local.cli(&["pane", "read", &at]), "pane read HOST:PANE");
    assert!(read.contains("got-ref"), "{read}");
    ok(local.cli(&["mark-seen", &at]), "mark-seen HOST:PANE");
    ok(local.cli(&["pane", "close", &at]), "pane close HOST:PANE");
    let listed = text(&local.cli(&["--host", "hosta", "pane", "list"]));
    assert!(!listed.contains(&pane), "{listed}");
    stop_hosts(&local, &sshd);
}
