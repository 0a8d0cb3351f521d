//! `signaltty service install --web` and the web view's unit
//! (docs/service.md#the-web-view-under-systemd), with the same fake
//! `systemctl` as the server's units: the file written and read back, the
//! exact calls, what a plain install leaves alone, the refusals shared with
//! `signaltty web`, uninstall, and no user manager at all.

use super::*;

const WEB: &str = "signaltty-web.service";

/// The words of a unit's `ExecStart=`, double quotes honoured.
fn exec_words(text: &str) -> Vec<String> {
    let value = directive(text, "ExecStart").unwrap_or_default();
    let mut words = Vec::new();
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        let mut word = String::new();
        if c == '"' {
            while let Some(c) = chars.next() {
                match c {
                    '\\' => word.extend(chars.next()),
                    '"' => break,
                    c => word.push(c),
                }
            }
        } else {
            word.push(c);
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                word.push(c);
            }
        }
        words.push(word.replace("%%", "%").replace("$$", "$"));
    }
    words
}

/// `BIN web --no-pair-link` and `flags`: what the unit must start.
fn view_command(flags: &[&str]) -> Vec<String> {
    let mut words = vec![
        canonical_bin().display().to_string(),
        "web".to_owned(),
        "--no-pair-link".to_owned(),
    ];
    words.extend(flags.iter().map(|f| (*f).to_owned()));
    words
}

/// Asserts exit 1 and returns stderr.
#[track_caller]
fn refused(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(1), "{}", shown(out));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn install_web_writes_the_view_unit_starts_it_and_is_idempotent() {
    let fake = Fake::new();
    let stdout = success(&fake.cli(&["service", "install", "--web"]));
    assert_eq!(
        fake.calls(),
        [
            "--user daemon-reload",
            "--user enable --now signaltty.socket",
            "--user enable --now signaltty-web.service"
        ]
    );
    assert!(
        stdout.contains(&format!("created: {}", fake.unit(WEB).display())),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "web view: http://127.0.0.1:7681 (signaltty-web.service); pair a browser with \
             `signaltty web pair`"
        ),
        "{stdout}"
    );

    let unit = fake.read_unit(WEB);
    assert!(unit.starts_with("# signaltty-managed "), "{unit}");
    assert_eq!(
        exec_words(&unit),
        view_command(&["--listen", "127.0.0.1:7681"])
    );
    for (key, value) in [
        ("Wants", "signaltty.socket signaltty.service"),
        ("After", "signaltty.socket signaltty.service"),
        ("Type", "exec"),
        ("Restart", "on-failure"),
        ("RestartSec", "5s"),
        ("WantedBy", "default.target"),
    ] {
        assert_eq!(directive(&unit, key).as_deref(), Some(value), "{key}");
    }
    assert!(directive(&unit, "Environment").is_some_and(|e| e.contains("PATH=")));
    verify_with_systemd_analyze(&fake);

    // Again, everything enabled and active: nothing written, only questions.
    fake.clear();
    fake.answer("enabled", "active");
    let json = success_json(&fake.cli(&["--json", "service", "install", "--web"]));
    assert_eq!(json["changed"], Value::Bool(false), "{json}");
    assert_eq!(json["web"]["listen"], "127.0.0.1:7681", "{json}");
    assert_eq!(
        fake.calls(),
        [
            "--user is-enabled signaltty.socket",
            "--user is-active signaltty.socket",
            "--user is-enabled signaltty-web.service",
            "--user is-active signaltty-web.service"
        ]
    );
    assert_eq!(fake.read_unit(WEB), unit);

    // Status: the web unit, ours, where it listens, and how to pair.
    let status = success_json(&fake.cli(&["--json", "service", "status"]));
    let web = &status["web"];
    assert_eq!(web["installed"], Value::Bool(true), "{status}");
    assert_eq!(web["owner"], "ours", "{web}");
    assert_eq!(web["enabled"], "enabled", "{web}");
    assert_eq!(web["active"], "active", "{web}");
    assert_eq!(web["listen"], "127.0.0.1:7681", "{web}");
    assert_eq!(web["url"], "http://127.0.0.1:7681", "{web}");
    assert_eq!(web["tls"], Value::Bool(false), "{web}");
    assert_eq!(web["exec_start_is_this_binary"], Value::Bool(true), "{web}");
    assert_eq!(status["units"].as_array().map(Vec::len), Some(2));
    let text = success(&fake.cli(&["service", "status"]));
    assert!(text.contains("listens on 127.0.0.1:7681"), "{text}");
    assert!(text.contains("`signaltty web pair`"), "{text}");

    // The doctor names it beside the server's units.
    let home = fake.env.home();
    let out = fake.env.cli(&[
        "doctor".as_ref(),
        "--json".as_ref(),
        "--home".as_ref(),
        home.as_os_str(),
    ]);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("doctor printed no JSON ({e}): {}", shown(&out)));
    let service = report["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["check"] == "service"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(service["verdict"], "ok", "{service}");
    assert!(
        service["detail"]
            .as_str()
            .is_some_and(|d| d.ends_with("signaltty-web.service enabled, active on 127.0.0.1:7681")),
        "{service}"
    );
}

#[test]
fn install_web_beside_the_server_units_adds_only_its_unit_and_a_plain_install_keeps_it() {
    let fake = Fake::new();
    success(&fake.cli(&["service", "install"]));
    let service = fake.read_unit("signaltty.service");
    fake.answer("enabled", "active");
    fake.clear();
    let json = success_json(&fake.cli(&[
        "--json",
        "service",
        "install",
        "--web",
        "--listen",
        "127.0.0.1:7690",
        "--public-url",
        "https://box.example.ts.net/",
    ]));
    let actions: Vec<String> = json["files"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|f| format!("{} {}", f["unit"], f["action"]).replace('"', ""))
        .collect();
    assert_eq!(
        actions,
        [
            "signaltty.service unchanged",
            "signaltty.socket unchanged",
            "signaltty-web.service created"
        ]
    );
    assert_eq!(
        fake.calls(),
        [
            "--user is-enabled signaltty.socket",
            "--user is-active signaltty.socket",
            "--user daemon-reload",
            "--user enable --now signaltty-web.service"
        ],
        "the socket is neither enabled nor started again"
    );
    assert_eq!(json["web"]["url"], "https://box.example.ts.net", "{json}");
    assert_eq!(fake.read_unit("signaltty.service"), service);
    assert_eq!(
        exec_words(&fake.read_unit(WEB)),
        view_command(&[
            "--listen",
            "127.0.0.1:7690",
            "--public-url",
            "https://box.example.ts.net/"
        ])
    );

    // Edited by hand: a plain install does not touch it, and says nothing
    // changed; `--web` refuses it; `--web --force` replaces and restarts it.
    let edited = format!("{}# mine\n", fake.read_unit(WEB));
    std::fs::write(fake.unit(WEB), &edited).unwrap_or_else(|e| panic!("{e}"));
    fake.clear();
    let stdout = success(&fake.cli(&["service", "install"]));
    assert!(stdout.contains("nothing changed"), "{stdout}");
    assert!(!stdout.contains(WEB), "{stdout}");
    assert_eq!(fake.read_unit(WEB), edited);
    assert!(fake.calls().iter().all(|c| !c.contains(WEB)));
    fake.clear();
    let stderr = refused(&fake.cli(&["service", "install", "--web"]));
    assert!(stderr.contains("REFUSED"), "{stderr}");
    assert!(stderr.contains("edited"), "{stderr}");
    assert_eq!(fake.read_unit(WEB), edited);
    assert!(fake.calls().is_empty(), "{:?}", fake.calls());
    let stdout = success(&fake.cli(&["service", "install", "--web", "--force"]));
    assert!(stdout.contains("replaced:"), "{stdout}");
    assert_eq!(
        exec_words(&fake.read_unit(WEB)),
        view_command(&["--listen", "127.0.0.1:7681"]),
        "the flags given are the unit's whole command"
    );
    assert_eq!(
        fake.calls()[2..],
        [
            "--user daemon-reload",
            "--user enable signaltty-web.service",
            "--user restart signaltty-web.service"
        ]
    );
}

#[test]
fn install_web_refuses_what_signaltty_web_refuses_and_writes_nothing() {
    let fake = Fake::new();
    for flags in [
        &["--listen", "0.0.0.0:7681"][..],
        &[
            "--listen",
            "192.168.1.10:7681",
            "--public-url",
            "https://box.lan",
        ],
        &["--listen", "box:7681"],
        &["--public-url", "box.example.ts.net"],
        &["--tls-cert", "no-cert.pem", "--tls-key", "no-key.pem"],
    ] {
        let mut install = vec!["service", "install", "--web"];
        install.extend(flags);
        let stderr = refused(&fake.cli(&install));
        let mut web = vec!["web", "--no-qr"];
        web.extend(flags);
        assert_eq!(stderr, refused(&fake.cli(&web)), "{flags:?}");
        assert!(stderr.contains("BAD_PARAMS"), "{stderr}");
    }
    let stderr = refused(&fake.cli(&["service", "install", "--web", "--listen", "0.0.0.0:7681"]));
    assert!(
        stderr.contains("0.0.0.0:7681 is not a loopback address")
            && stderr.contains("--insecure-http"),
        "{stderr}"
    );
    assert!(!fake.unit_dir().exists(), "nothing written");
    assert!(fake.calls().is_empty(), "{:?}", fake.calls());

    // The web flags belong to --web.
    for flags in [
        &["--listen", "127.0.0.1:7681"][..],
        &["--insecure-http"],
        &["--web", "--tls-cert", "c.pem"],
    ] {
        let mut install = vec!["service", "install"];
        install.extend(flags);
        let out = fake.cli(&install);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {}", shown(&out));
    }

    // Said out loud, plain HTTP on the network is taken.
    success(&fake.cli(&[
        "service",
        "install",
        "--web",
        "--listen",
        "0.0.0.0:7681",
        "--insecure-http",
    ]));
    assert_eq!(
        exec_words(&fake.read_unit(WEB)),
        view_command(&["--listen", "0.0.0.0:7681", "--insecure-http"])
    );

    // TLS: the files are read as `signaltty web` reads them, and the unit
    // names them by absolute path (it does not run in this directory).
    let tls = fake.env.root().join("tls");
    std::fs::create_dir(&tls).unwrap_or_else(|e| panic!("{e}"));
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("integration-tests/fixtures/web-tls");
    for file in ["cert.pem", "key.pem"] {
        std::fs::copy(fixtures.join(file), tls.join(file)).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(tls.join("garbage.pem"), "not a key\n").unwrap_or_else(|e| panic!("{e}"));
    let garbage = ["--tls-cert", "tls/cert.pem", "--tls-key", "tls/garbage.pem"];
    let mut install = vec!["service", "install", "--web"];
    install.extend(garbage);
    let stderr = refused(&fake.cli(&install));
    let mut web = vec!["web", "--no-qr"];
    web.extend(garbage);
    assert_eq!(stderr, refused(&fake.cli(&web)));
    assert!(stderr.contains("--tls-key tls/garbage.pem"), "{stderr}");
    let json = success_json(&fake.cli(&[
        "--json",
        "service",
        "install",
        "--web",
        "--listen",
        "0.0.0.0:8443",
        "--tls-cert",
        "tls/cert.pem",
        "--tls-key",
        "tls/key.pem",
    ]));
    let tls = std::fs::canonicalize(&tls).unwrap_or_else(|e| panic!("{e}"));
    let (cert, key) = (tls.join("cert.pem"), tls.join("key.pem"));
    assert_eq!(
        exec_words(&fake.read_unit(WEB)),
        view_command(&[
            "--listen",
            "0.0.0.0:8443",
            "--tls-cert",
            &cert.display().to_string(),
            "--tls-key",
            &key.display().to_string()
        ])
    );
    assert_eq!(json["web"]["url"], "https://0.0.0.0:8443", "{json}");
    let status = success_json(&fake.cli(&["--json", "service", "status"]));
    assert_eq!(status["web"]["tls"], Value::Bool(true), "{status}");
}

#[test]
fn install_web_refuses_while_a_web_view_not_started_by_systemd_answers() {
    let fake = Fake::new();
    // Stand in for `signaltty web` in a terminal: its control socket answers.
    std::fs::create_dir(fake.env.default_socket_dir()).unwrap_or_else(|e| panic!("{e}"));
    let control = fake.env.default_socket_dir().join("web.sock");
    let _view = std::os::unix::net::UnixListener::bind(&control)
        .unwrap_or_else(|e| panic!("cannot bind {}: {e}", control.display()));
    let stderr = refused(&fake.cli(&["service", "install", "--web"]));
    assert!(
        stderr.contains("ALREADY_RUNNING: a web view not started by systemd"),
        "{stderr}"
    );
    assert!(!fake.unit(WEB).exists(), "nothing written");
    assert_eq!(fake.calls(), ["--user is-active signaltty-web.service"]);

    // A plain install does not look at it.
    fake.clear();
    success(&fake.cli(&["service", "install"]));
    assert!(fake.calls().iter().all(|c| !c.contains(WEB)));

    // Forced: written and enabled, not started; the user starts it later.
    fake.answer("enabled", "active");
    std::fs::write(fake.dir.join(format!("active-{WEB}")), "inactive")
        .unwrap_or_else(|e| panic!("{e}"));
    fake.clear();
    let json = success_json(&fake.cli(&["--json", "service", "install", "--web", "--force"]));
    assert_eq!(
        fake.calls(),
        [
            "--user is-active signaltty-web.service",
            "--user is-enabled signaltty.socket",
            "--user is-active signaltty.socket",
            "--user daemon-reload",
            "--user enable signaltty-web.service"
        ]
    );
    let warnings = json["warnings"].to_string();
    assert!(
        warnings.contains("web view not started by systemd"),
        "{json}"
    );
    assert_eq!(
        json["todo"],
        serde_json::json!(["systemctl --user start signaltty-web.service"]),
        "{json}"
    );
}

#[test]
fn uninstall_removes_the_web_unit_too_and_uninstall_web_only_it() {
    let fake = Fake::new();
    success(&fake.cli(&["service", "install", "--web"]));
    fake.clear();
    let stdout = success(&fake.cli(&["service", "uninstall", "--web"]));
    assert!(
        stdout.contains(&format!("removed: {}", fake.unit(WEB).display())),
        "{stdout}"
    );
    assert!(!fake.unit(WEB).exists());
    assert!(fake.unit("signaltty.service").exists());
    assert!(fake.unit("signaltty.socket").exists());
    assert_eq!(
        fake.calls(),
        [
            "--user --version",
            "--user disable --now signaltty-web.service",
            "--user daemon-reload"
        ]
    );
    let status = success_json(&fake.cli(&["--json", "service", "status"]));
    assert_eq!(status["web"]["installed"], Value::Bool(false), "{status}");
    assert_eq!(status["installed"], Value::Bool(true), "{status}");

    success(&fake.cli(&["service", "install", "--web"]));
    fake.clear();
    success(&fake.cli(&["service", "uninstall"]));
    assert_eq!(
        fake.calls(),
        [
            "--user --version",
            "--user disable --now signaltty-web.service signaltty.socket signaltty.service",
            "--user daemon-reload"
        ]
    );
    for unit in [WEB, "signaltty.service", "signaltty.socket"] {
        assert!(!fake.unit(unit).exists(), "{unit}");
    }

    // A web unit of the user's own is neither stopped nor removed.
    std::fs::create_dir_all(fake.unit_dir()).unwrap_or_else(|e| panic!("{e}"));
    let own = "[Service]\nExecStart=/usr/bin/true\n";
    std::fs::write(fake.unit(WEB), own).unwrap_or_else(|e| panic!("{e}"));
    fake.clear();
    let stdout = success(&fake.cli(&["service", "uninstall", "--web"]));
    assert!(stdout.contains("kept:"), "{stdout}");
    assert_eq!(fake.read_unit(WEB), own);
    assert!(fake.calls().is_empty(), "{:?}", fake.calls());
}

#[test]
fn install_web_without_a_user_manager_writes_the_unit_and_says_what_to_run() {
    let fake = Fake::new();
    std::fs::write(fake.dir.join("unreachable"), "").unwrap_or_else(|e| panic!("{e}"));
    let json = success_json(&fake.cli(&["--json", "service", "install", "--web"]));
    assert!(fake.unit(WEB).exists());
    assert_eq!(
        json["todo"],
        serde_json::json!([
            "systemctl --user daemon-reload",
            "systemctl --user enable --now signaltty.socket",
            "systemctl --user enable --now signaltty-web.service"
        ]),
        "{json}"
    );
    let status = success_json(&fake.cli(&["--json", "service", "status"]));
    assert_eq!(status["web"]["enabled"], Value::Null, "{status}");
    assert_eq!(status["web"]["listen"], "127.0.0.1:7681", "{status}");
    let text = success(&fake.cli(&["service", "status"]));
    assert!(text.contains("enabled: unknown, active: unknown"), "{text}");

    // No systemctl at all: the same files, and uninstall just removes them.
    let mut bare = TestEnv::new();
    let empty = bare.root().join("empty-bin");
    std::fs::create_dir(&empty).unwrap_or_else(|e| panic!("{e}"));
    bare.set_var("PATH", &empty);
    let json = success_json(&bare.cli(&["--json", "service", "install", "--web"]));
    assert_eq!(
        json["todo"].as_array().and_then(|t| t.last()).cloned(),
        Some(Value::from(
            "systemctl --user enable --now signaltty-web.service"
        )),
        "{json}"
    );
    let unit = bare.root().join("config/systemd/user").join(WEB);
    assert!(unit.exists());
    let stdout = success(&bare.cli(&["service", "uninstall"]));
    assert!(stdout.contains("systemctl is not installed"), "{stdout}");
    assert!(!unit.exists());
}
