use super::*;

#[test]
fn every_frame_reads_back_as_itself() {
    let frames = [
        Frame::Data {
            ch: 3,
            line: r#"{"protocol":"signaltty/1","id":"1"}"#,
        },
        Frame::Open { ch: 1 },
        Frame::Close { ch: 2 },
        Frame::Closed { ch: 2, reason: "" },
        Frame::Closed {
            ch: 9,
            reason: "no server on /tmp/x.sock",
        },
        Frame::Credit {
            ch: 4,
            bytes: 262_144,
        },
        Frame::Ping { token: "17" },
        Frame::Pong { token: "17" },
    ];
    for f in frames {
        let line = f.encode();
        assert!(line.ends_with('\n'));
        assert_eq!(
            Frame::parse(line.trim_end_matches('\n')),
            Ok(f.clone()),
            "{line}"
        );
    }
}

#[test]
fn garbage_is_an_error_not_a_frame() {
    for bad in [
        "",
        "hello",
        "x {\"a\":1}",
        "0 {\"a\":1}",
        "1 credit -4",
        "1 credit",
        "1 wave",
        "0 open",
        "-1 open",
    ] {
        assert!(Frame::parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn a_reason_stays_on_one_line() {
    let line = Frame::Closed {
        ch: 1,
        reason: "a\nb",
    }
    .encode();
    assert_eq!(line, "1 closed a b\n");
}

#[test]
fn the_window_closes_at_zero_and_reopens_with_credit() {
    let mut w = Window::default();
    w.sent(WINDOW as usize - 10);
    assert!(w.open());
    w.sent(100); // a line may take it below zero
    assert!(!w.open());
    w.granted(CREDIT_STEP);
    assert!(w.open());
    let mut r = Window::default();
    assert_eq!(r.consumed(CREDIT_STEP as usize - 1), None);
    assert_eq!(r.consumed(1), Some(CREDIT_STEP));
    assert_eq!(r.owed, 0);
}

#[test]
fn a_hello_is_recognised_and_other_lines_are_not() {
    let hello = Hello {
        signaltty_bridge: MUX.into(),
        version: "0.1.0".into(),
        protocol: "signaltty/1".into(),
        socket: "/tmp/s".into(),
        started: true,
    };
    let line = serde_json::to_string(&hello).expect("json");
    assert_eq!(Hello::parse(&line), Some(hello));
    assert_eq!(Hello::parse("Welcome to devbox!"), None);
    assert_eq!(Hello::parse(r#"{"protocol":"signaltty/1"}"#), None);
}
