//! The deadline-bound runner: a quick program read whole, a hanging one cut at
//! its deadline, a missing one not started.

use super::*;

#[test]
fn a_quick_program_is_read_and_a_hanging_one_is_cut_at_the_deadline() {
    match run(
        OsStr::new("/bin/sh"),
        &["-c", "echo one; echo two"],
        Duration::from_secs(5),
    ) {
        Ran::Exited { status, stdout } => {
            assert!(status.success());
            assert_eq!(stdout, "one\ntwo\n");
        },
        other => panic!("{other:?}"),
    }
    let started = Instant::now();
    let ran = run(
        OsStr::new("/bin/sh"),
        &["-c", "sleep 30 & sleep 30"],
        Duration::from_millis(200),
    );
    assert!(matches!(ran, Ran::TimedOut), "{ran:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(matches!(
        run(
            OsStr::new("/nonexistent/prog"),
            &["x"],
            Duration::from_secs(1)
        ),
        Ran::NotStarted(_)
    ));
}
