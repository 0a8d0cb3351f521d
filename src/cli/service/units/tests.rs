//! The units `service install` writes: a notify service started by its
//! socket, a private socket on the default path, stable bytes, awkward binary
//! paths quoted and read back, and edits noticed through the marker.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::systemd::unit_file::{parse_ini, web_listen};
use std::path::Path;

/// The value of `key` in `[section]`; fails when it is absent or repeated.
fn one(entries: &[(String, String, String)], section: &str, key: &str) -> String {
    let found: Vec<_> = entries
        .iter()
        .filter(|(s, k, _)| s == section && k == key)
        .collect();
    assert_eq!(found.len(), 1, "[{section}] {key}: {entries:?}");
    found[0].2.clone()
}

#[test]
fn the_service_unit_is_a_notify_service_started_by_its_socket() {
    let text = service_unit(Path::new("/opt/bin/signaltty"), Some("/usr/bin:/bin")).unwrap();
    assert!(text.starts_with(MARKER), "{text}");
    assert_eq!(ownership(&text), Ownership::Ours);
    let ini = parse_ini(&text);
    let sections: Vec<&str> = ini.iter().map(|(s, _, _)| s.as_str()).collect();
    assert!(
        sections
            .iter()
            .all(|s| ["Unit", "Service", "Install"].contains(s)),
        "{sections:?}"
    );
    assert_eq!(one(&ini, "Unit", "Requires"), SOCKET);
    assert_eq!(one(&ini, "Unit", "After"), SOCKET);
    assert_eq!(one(&ini, "Service", "Type"), "notify");
    assert_eq!(one(&ini, "Service", "NotifyAccess"), "main");
    assert_eq!(
        one(&ini, "Service", "ExecStart"),
        "/opt/bin/signaltty server"
    );
    assert_eq!(one(&ini, "Service", "Restart"), "on-failure");
    assert_eq!(one(&ini, "Service", "RestartSec"), "2s");
    assert_eq!(one(&ini, "Service", "RestartPreventExitStatus"), "3");
    assert_eq!(one(&ini, "Service", "KillMode"), "mixed");
    assert_eq!(
        one(&ini, "Service", "Environment"),
        "\"PATH=/usr/bin:/bin\""
    );
    assert_eq!(one(&ini, "Install", "Also"), SOCKET);
    let program = exec_start_program(&text).unwrap();
    assert!(Path::new(&program).is_absolute(), "{program}");
    assert_eq!(program, "/opt/bin/signaltty");
}

#[test]
fn the_socket_unit_listens_privately_on_the_default_socket() {
    let text = socket_unit();
    assert_eq!(ownership(&text), Ownership::Ours);
    let ini = parse_ini(&text);
    assert_eq!(
        one(&ini, "Socket", "ListenStream"),
        "%t/signaltty/signaltty.sock"
    );
    assert_eq!(one(&ini, "Socket", "SocketMode"), "0600");
    assert_eq!(one(&ini, "Socket", "DirectoryMode"), "0700");
    assert_eq!(one(&ini, "Socket", "RemoveOnStop"), "yes");
    assert_eq!(one(&ini, "Socket", "Service"), SERVICE);
    assert_eq!(one(&ini, "Install", "WantedBy"), "sockets.target");
    assert!(
        !ini.iter().any(|(_, k, _)| k == "Accept"),
        "one server for every connection, never one per connection"
    );
}

#[test]
fn unit_files_are_byte_for_byte_stable() {
    // What an unchanged re-install compares against: the same inputs always
    // give the same bytes.
    let a = service_unit(Path::new("/x/signaltty"), None).unwrap();
    let b = service_unit(Path::new("/x/signaltty"), None).unwrap();
    assert_eq!(a, b);
    assert!(!a.contains("Environment="), "no PATH given, none written");
    assert_eq!(socket_unit(), socket_unit());
}

#[test]
fn awkward_binary_paths_are_quoted_and_read_back() {
    let exe = Path::new("/home/a b/100%/$bin/signal\"tty");
    let text = service_unit(exe, Some("/p%q")).unwrap();
    let line = parse_ini(&text)
        .into_iter()
        .find(|(_, k, _)| k == "ExecStart")
        .unwrap()
        .2;
    assert_eq!(line, r#""/home/a b/100%%/$$bin/signal\"tty" server"#);
    assert_eq!(exec_start_program(&text).unwrap(), exe.to_str().unwrap());
    assert!(text.contains("Environment=\"PATH=/p%%q\""), "{text}");
    assert!(service_unit(Path::new("relative/signaltty"), None).is_err());
}

#[test]
fn an_edit_or_a_missing_marker_is_noticed() {
    let text = socket_unit();
    let edited = text.replace("SocketMode=0600", "SocketMode=0666");
    assert_eq!(ownership(&edited), Ownership::Edited);
    let appended = format!("{text}# mine\n");
    assert_eq!(ownership(&appended), Ownership::Edited);
    let unmarked = text.split_once('\n').unwrap().1;
    assert_eq!(ownership(unmarked), Ownership::Foreign);
    assert_eq!(ownership(""), Ownership::Foreign);
    assert_eq!(
        ownership(&format!("{MARKER} zz\n[Unit]\n")),
        Ownership::Edited
    );
}

/// The flags `service install --web` hands over, awkward ones included.
fn flags(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

#[test]
fn the_web_unit_starts_the_view_after_the_server_without_a_pairing_link() {
    let text = web_unit(
        Path::new("/opt/bin/signaltty"),
        &flags(&["--listen", "127.0.0.1:7681"]),
        Some("/usr/bin:/bin"),
    )
    .unwrap();
    assert!(text.starts_with(MARKER), "{text}");
    assert_eq!(ownership(&text), Ownership::Ours);
    let ini = parse_ini(&text);
    assert_eq!(
        one(&ini, "Unit", "Wants"),
        "signaltty.socket signaltty.service"
    );
    assert_eq!(
        one(&ini, "Unit", "After"),
        "signaltty.socket signaltty.service"
    );
    assert_eq!(one(&ini, "Unit", "StartLimitIntervalSec"), "120s");
    assert_eq!(one(&ini, "Unit", "StartLimitBurst"), "5");
    assert_eq!(one(&ini, "Service", "Type"), "exec");
    assert_eq!(
        one(&ini, "Service", "ExecStart"),
        "/opt/bin/signaltty web --no-pair-link --listen 127.0.0.1:7681"
    );
    assert_eq!(one(&ini, "Service", "Restart"), "on-failure");
    assert_eq!(one(&ini, "Service", "RestartSec"), "5s");
    assert_eq!(
        one(&ini, "Service", "Environment"),
        "\"PATH=/usr/bin:/bin\""
    );
    assert_eq!(one(&ini, "Install", "WantedBy"), "default.target");
    assert!(
        !ini.iter()
            .any(|(_, k, _)| k == "Requires" || k == "BindsTo"),
        "the view outlives a server restart and follows it: {ini:?}"
    );
    assert_eq!(
        exec_start_words(&text).unwrap(),
        flags(&[
            "/opt/bin/signaltty",
            "web",
            "--no-pair-link",
            "--listen",
            "127.0.0.1:7681"
        ])
    );
    assert_eq!(
        text,
        web_unit(
            Path::new("/opt/bin/signaltty"),
            &flags(&["--listen", "127.0.0.1:7681"]),
            Some("/usr/bin:/bin"),
        )
        .unwrap(),
        "byte for byte stable"
    );
}

#[test]
fn every_web_flag_round_trips_through_exec_start() {
    let exe = Path::new("/home/a b/$bin/signal%tty");
    let words = flags(&[
        "--listen",
        "[::]:8443",
        "--all-hosts",
        "--tls-cert",
        "/etc/certs/my cert.pem",
        "--tls-key",
        "/etc/certs/key\"s;.pem",
        "--public-url",
        "https://box.example/100%/$x",
    ]);
    let text = web_unit(exe, &words, None).unwrap();
    let line = one(&parse_ini(&text), "Service", "ExecStart");
    assert_eq!(
        line,
        r#""/home/a b/$$bin/signal%%tty" web --no-pair-link --listen [::]:8443 --all-hosts --tls-cert "/etc/certs/my cert.pem" --tls-key "/etc/certs/key\"s;.pem" --public-url https://box.example/100%%/$$x"#
    );
    let mut expected = flags(&[exe.to_str().unwrap(), "web", "--no-pair-link"]);
    expected.extend(words);
    assert_eq!(exec_start_words(&text).unwrap(), expected);
    assert_eq!(exec_start_program(&text).unwrap(), exe.to_str().unwrap());
    assert!(
        !text.contains("Environment="),
        "no PATH given, none written"
    );
    assert!(web_unit(Path::new("signaltty"), &[], None).is_err());
}

#[test]
fn exec_start_words_are_read_as_systemd_splits_them() {
    let unit = |value: &str| format!("[Service]\nExecStart={value}\n");
    assert_eq!(
        exec_start_words(&unit("-/bin/x  a \"b c\" \"\" \"d\\\\e\"")).unwrap(),
        flags(&["/bin/x", "a", "b c", "", "d\\e"])
    );
    assert_eq!(exec_start_words(&unit("/bin/x \"open")), None);
    assert_eq!(exec_start_words(&unit("")), None);
    assert_eq!(exec_start_words("[Unit]\nExecStart=/bin/x\n"), None);
}

#[test]
fn the_web_units_address_is_read_back_with_the_default_when_unsaid() {
    let text = web_unit(
        Path::new("/bin/signaltty"),
        &flags(&["--listen", "[::1]:8080", "--all-hosts"]),
        None,
    )
    .unwrap();
    assert_eq!(web_listen(&text), "[::1]:8080");
    assert_eq!(
        web_listen("[Service]\nExecStart=/bin/signaltty web\n"),
        "127.0.0.1:7681"
    );
}
