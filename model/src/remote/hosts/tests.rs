use super::*;

fn devbox() -> Host {
    Host {
        name: "devbox".into(),
        dest: "me@devbox.example".into(),
        remote_bin: Some("/home/me/.cargo/bin/signaltty".into()),
        remote_socket: None,
        ssh_options: vec!["Port=2222".into()],
        ssh_config: Some("/home/me/ssh.cfg".into()),
    }
}

#[test]
fn a_host_added_reads_back_and_the_rest_of_the_file_is_kept() {
    let before = "# my settings\n[server]\nshutdown_grace_ms = 100 # short\n";
    let after = with_host(before, &devbox()).expect("added");
    assert!(after.starts_with(before), "{after}");
    let table = parse(&after);
    assert_eq!(table.problems, Vec::<String>::new());
    assert_eq!(table.hosts, vec![devbox()]);
    let removed = without_host(&after, "devbox").expect("removed");
    assert_eq!(parse(&removed).hosts, vec![]);
    assert!(
        removed.contains("shutdown_grace_ms = 100 # short"),
        "{removed}"
    );
}

#[test]
fn a_taken_name_or_a_broken_file_is_refused() {
    let once = with_host("", &devbox()).expect("added");
    assert!(with_host(&once, &devbox()).unwrap_err().contains("already"));
    assert!(
        with_host("[server\n", &devbox())
            .unwrap_err()
            .contains("left as it is")
    );
    assert!(without_host("", "devbox").unwrap_err().contains("no host"));
}

#[test]
fn bad_entries_are_problems_and_left_out() {
    let text = "[hosts.ok]\ndest = \"a\"\n[hosts.nodest]\nremote_bin = \"x\"\n\
                [hosts.odd]\ndest = \"b\"\ncolour = 1\n[hosts.Bad]\ndest = \"c\"\n";
    let table = parse(text);
    assert_eq!(table.hosts.len(), 1);
    assert_eq!(table.hosts[0].name, "ok");
    assert_eq!(table.problems.len(), 3, "{:?}", table.problems);
    assert!(table.problems[0].contains("Bad"), "{:?}", table.problems);
}

#[test]
fn names_are_checked() {
    for good in ["devbox", "gpu-2", "a.b_c", "9"] {
        assert_eq!(check_name(good), Ok(()), "{good}");
    }
    for bad in ["", "local", "Dev", "a:b", "-x", "a b", &"x".repeat(33)] {
        assert!(check_name(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_file_is_replaced_whole_and_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("sub/config.toml");
    edit_file(&path, |t| with_host(t, &devbox())).expect("written");
    let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    std::fs::write(&path, "[hosts\n").expect("break it");
    assert!(edit_file(&path, |t| with_host(t, &devbox())).is_err());
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "[hosts\n");
    std::fs::write(&path, "").expect("empty");
    edit_file(&path, |t| with_host(t, &devbox())).expect("written");
    let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    assert_eq!(load(&path).hosts, vec![devbox()]);
}
