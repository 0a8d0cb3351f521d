use super::*;

fn host() -> Host {
    Host {
        name: "devbox".into(),
        dest: "-oProxyCommand=evil".into(),
        remote_bin: Some("~/.cargo/bin/signal tty".into()),
        remote_socket: Some("/tmp/it's.sock".into()),
        ssh_options: vec!["ControlMaster=no".into()],
        ssh_config: Some("/etc/cfg".into()),
    }
}

#[test]
fn the_users_options_come_first_and_the_destination_after_the_double_dash() {
    let args = argv(&host(), Path::new("/run/x/ssh"), false, "true");
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        &args[..5],
        ["-T", "-F", "/etc/cfg", "-o", "ControlMaster=no"]
    );
    let dash = args.iter().position(|a| a == "--").expect("--");
    assert_eq!(args[dash + 1], "-oProxyCommand=evil");
    assert_eq!(args[dash + 2], "true");
    assert!(args.contains(&"BatchMode=yes".to_owned()));
    assert!(args.contains(&"ControlPath=/run/x/ssh/%C".to_owned()));
}

#[test]
fn words_are_quoted_for_the_remote_shell() {
    assert_eq!(quote("signaltty"), "signaltty");
    assert_eq!(quote("a b"), "'a b'");
    assert_eq!(quote("it's"), r"'it'\''s'");
    assert_eq!(quote("~/.cargo/bin/signaltty"), "~/.cargo/bin/signaltty");
    assert_eq!(quote("~/my bin/s"), "~/'my bin/s'");
    assert_eq!(quote(""), "''");
    assert_eq!(quote("$(reboot)"), "'$(reboot)'");
    assert_eq!(
        bridge_command(&host()),
        r"exec ~/'.cargo/bin/signal tty' bridge --mux --socket '/tmp/it'\''s.sock'"
    );
    assert_eq!(
        exec_command(
            &host(),
            &["integration".into(), "install".into(), "--all".into()]
        ),
        r"exec ~/'.cargo/bin/signal tty' --socket '/tmp/it'\''s.sock' integration install --all"
    );
}

#[test]
fn a_missing_program_names_the_flag_to_use() {
    let text = explain_exit(&host(), Some(127), "sh: 1: exec: signaltty: not found\n");
    assert!(text.contains("--remote-bin"), "{text}");
    let text = explain_exit(
        &host(),
        Some(255),
        "ssh: connect to host x port 22: Connection refused\n",
    );
    assert!(text.contains("Connection refused"), "{text}");
    let text = explain_exit(
        &host(),
        Some(2),
        "error: unexpected argument '--mux' found\n",
    );
    assert!(text.contains("too old"), "{text}");
}

#[test]
fn a_deep_runtime_dir_gets_a_short_control_dir() {
    let env = Env {
        xdg_runtime_dir: Some("/run/user/1000".into()),
        uid: 1000,
        ..Env::default()
    };
    assert_eq!(
        control_dir(&env),
        PathBuf::from("/run/user/1000/signaltty/ssh")
    );
    let deep = Env {
        xdg_runtime_dir: Some(format!("/tmp/{}", "d".repeat(60)).into()),
        uid: 1000,
        ..Env::default()
    };
    assert_eq!(control_dir(&deep), PathBuf::from("/tmp/signaltty-1000-ssh"));
}
