#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use std::time::Duration;

#[test]
fn listen_vars_are_read_only_when_they_name_this_process() {
    let none = |pid, fds, names| parse_listen(42, pid, fds, names).unwrap();
    assert_eq!(none(None, None, None), None, "absent");
    assert_eq!(none(Some("42"), None, None), None, "no LISTEN_FDS");
    assert_eq!(none(None, Some("1"), None), None, "no LISTEN_PID");
    assert_eq!(none(Some("41"), Some("1"), None), None, "another process's");
    assert_eq!(none(Some("42"), Some("0"), None), None, "zero descriptors");
    assert_eq!(
        none(Some("42"), Some("1"), None),
        Some(ListenFds {
            count: 1,
            names: vec![]
        })
    );
    assert_eq!(
        none(Some(" 42 "), Some("2"), Some("signaltty.socket:extra")),
        Some(ListenFds {
            count: 2,
            names: vec!["signaltty.socket".into(), "extra".into()]
        })
    );
}

#[test]
fn malformed_listen_vars_are_errors_that_say_which() {
    let e = parse_listen(42, Some("x"), Some("1"), None).unwrap_err();
    assert!(e.contains("LISTEN_PID"), "{e}");
    let e = parse_listen(42, Some("42"), Some("-1"), None).unwrap_err();
    assert!(e.contains("LISTEN_FDS"), "{e}");
    let e = parse_listen(42, Some("42"), Some("one"), None).unwrap_err();
    assert!(e.contains("LISTEN_FDS"), "{e}");
    let e = parse_listen(42, Some("42"), Some("1"), Some("a:b")).unwrap_err();
    assert!(e.contains("LISTEN_FDNAMES"), "{e}");
    let e = parse_listen(42, Some("42"), Some("99999999999"), None).unwrap_err();
    assert!(e.contains("too large"), "{e}");
}

#[test]
fn notify_socket_values_are_paths_or_abstract_names() {
    let path = Notifier::from_value(OsStr::new("/run/user/1/systemd/notify")).unwrap();
    assert_eq!(
        path.target,
        NotifyTarget::Path("/run/user/1/systemd/notify".into())
    );
    let abs = Notifier::from_value(OsStr::new("@/org/freedesktop/systemd1/notify")).unwrap();
    assert_eq!(
        abs.target,
        NotifyTarget::Abstract(b"/org/freedesktop/systemd1/notify".to_vec())
    );
    for bad in ["relative/path", "@", "vsock:2:1234"] {
        assert!(Notifier::from_value(OsStr::new(bad)).is_err(), "{bad}");
    }
}

fn recv(socket: &UnixDatagram) -> String {
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut buf = [0u8; 4096];
    let n = socket.recv(&mut buf).unwrap();
    String::from_utf8(buf[..n].to_vec()).unwrap()
}

#[test]
fn readiness_reaches_a_path_socket_and_stopping_is_sent_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notify");
    let socket = UnixDatagram::bind(&path).unwrap();
    let notifier = Notifier::from_value(path.as_os_str()).unwrap();
    notifier.ready(Path::new("/run/x.sock"));
    let ready = recv(&socket);
    assert!(ready.lines().any(|l| l == "READY=1"), "{ready}");
    assert!(
        ready
            .lines()
            .any(|l| l == format!("MAINPID={}", std::process::id())),
        "{ready}"
    );
    notifier.stopping();
    notifier.clone().stopping();
    assert!(recv(&socket).lines().any(|l| l == "STOPPING=1"));
    socket.set_nonblocking(true).unwrap();
    let mut buf = [0u8; 64];
    assert_eq!(
        socket.recv(&mut buf).map_err(|e| e.kind()),
        Err(io::ErrorKind::WouldBlock),
        "STOPPING=1 is sent once, whoever asks again"
    );
}

#[test]
fn readiness_reaches_an_abstract_socket() {
    use std::os::linux::net::SocketAddrExt;
    let name = format!("signaltty-test-notify-{}", std::process::id());
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let socket = UnixDatagram::bind_addr(&addr).unwrap();
    let notifier = Notifier::from_value(OsStr::new(&format!("@{name}"))).unwrap();
    notifier.ready(Path::new("/run/x.sock"));
    assert!(recv(&socket).starts_with("READY=1\n"));
}

#[test]
fn a_notify_socket_nobody_listens_on_is_an_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let notifier = Notifier::from_value(dir.path().join("absent").as_os_str()).unwrap();
    assert!(notifier.send("READY=1\n").is_err());
    // And the logging wrapper only logs.
    notifier.ready(Path::new("/run/x.sock"));
}
