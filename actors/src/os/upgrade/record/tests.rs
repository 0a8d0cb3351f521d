//! Tests of the handoff record and its envelope: round trips, and what is
//! refused with why.

use super::*;

#[test]
fn the_envelope_round_trips_and_refuses_nonsense() {
    let e = Envelope {
        listener: 3,
        managed: true,
        reply: Some((9, "cli-0".into())),
        panes: vec![(11, 4242), (12, 4250)],
    };
    assert_eq!(
        e.to_env(),
        "listener=3;managed=1;reply=9:636c692d30;panes=11:4242,12:4250"
    );
    assert_eq!(Envelope::parse(&e.to_env()), Ok(e.clone()));
    assert_eq!(e.fds(), vec![3, 9, 11, 12]);
    let none = Envelope {
        listener: 5,
        ..Envelope::default()
    };
    assert_eq!(Envelope::parse(&none.to_env()), Ok(none));
    // A later version's extra key is skipped.
    assert_eq!(
        Envelope::parse("listener=4;later=x;panes=").map(|e| e.listener),
        Ok(4)
    );
    for bad in [
        "",
        "panes=7:100",
        "listener=2",
        "listener=x",
        "listener=3;panes=7",
        "listener=3;panes=7:0",
        "listener",
        "listener=3;reply=9:6",
        "listener=3;reply=9:zz",
    ] {
        assert!(Envelope::parse(bad).is_err(), "{bad:?} parsed");
    }
}

#[test]
fn a_record_of_another_version_or_corrupt_is_refused_with_why() {
    let future = br#"{"version": 99, "whatever": true}"#;
    let why = parse(future).expect_err("refused");
    assert!(why.contains("version 99"), "{why}");
    assert!(
        parse(b"{not json")
            .expect_err("refused")
            .contains("corrupt")
    );
    assert!(parse(b"{}").expect_err("refused").contains("no version"));
    let half = br#"{"version": 1, "seq": 3}"#;
    assert!(parse(half).expect_err("refused").contains("corrupt"));
}
