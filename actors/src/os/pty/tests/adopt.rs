//! Handing a child over as an in-place upgrade does: a PTY released with its
//! child still running, and a child adopted by a new reader, with or without
//! pidfds.

use super::*;

/// A child left running on its PTY as an in-place upgrade leaves it for the new
/// binary: started on a master this process keeps, with nobody watching it.
// The test's adopted pane reaps it by pid (`reap::reap`), as the server does.
#[allow(clippy::zombie_processes)]
fn orphaned_child(argv: &[&str]) -> (OwnedFd, u32) {
    let _one_at_a_time = SPAWN_LOCK.lock();
    let pair = open::open_pty(24, 80).expect("a pty");
    let child = open::spawn_child(&spec(argv), &pair.slave).expect("the child starts");
    (pair.master, child.id())
}

/// Adopts `master` and `pid` into a pane under test.
fn adopted(master: OwnedFd, pid: u32) -> Pane {
    let (tx, events) = mpsc::channel();
    let pty = adopt(master, pid, Box::new(ChannelSink(tx))).expect("adopted");
    assert_eq!(pty.pid(), pid);
    Pane::watching(pty, events)
}

/// What the child printed before it was adopted is still in the kernel's
/// buffer; what it prints after, the input it is given and its exit all reach
/// the new pane.
fn adopted_child_is_read_written_and_reaped() {
    let (master, pid) = orphaned_child(&[
        "sh",
        "-c",
        "stty -echo; echo before; read x; echo got:$x; exit 5",
    ]);
    let mut pane = adopted(master, pid);
    pane.wait_output("before");
    let wrote = pending(pane.pty().write(b"hello\n".to_vec(), Instant::now() + WAIT));
    assert_eq!(wrote.wait(WAIT).0.ok(), Some(6));
    pane.wait_output("got:hello");
    assert_eq!(pane.wait_finished(), Some(5));
    assert!(
        nix::sys::wait::waitpid(Pid::from_raw(pid.cast_signed()), None).is_err(),
        "the adopted child is reaped: no zombie is left"
    );
}

#[test]
fn an_adopted_child_is_read_written_and_reaped() {
    let _serial = SERIAL.lock();
    adopted_child_is_read_written_and_reaped();
}

#[test]
fn without_pidfds_an_adopted_child_is_reaped_by_the_waiter() {
    let _serial = SERIAL.lock();
    without_pidfd(adopted_child_is_read_written_and_reaped);
}

#[test]
fn a_pid_that_is_not_a_child_is_not_adopted() {
    let _serial = SERIAL.lock();
    let pair = open::open_pty(24, 80).expect("a pty");
    let (tx, _events) = mpsc::channel();
    // pid 1 is never a child of a test.
    let refused = adopt(pair.master, 1, Box::new(ChannelSink(tx)));
    match refused {
        Ok(_) => panic!("pid 1 was adopted"),
        Err(err) => assert!(err.to_string().contains("not a child"), "{err}"),
    }
}

/// A released PTY's child keeps running and printing; adopted again (as the
/// next binary does after the exec), its output continues where the first
/// reader stopped: no line is lost or doubled, and the child is reaped once.
fn released_child_continues_when_adopted() {
    let mut first = Pane::start(&[
        "sh",
        "-c",
        "stty -echo; i=0; while [ $i -lt 300 ]; do echo n$i; i=$((i+1)); sleep 0.002; done; exit 4",
    ]);
    first.wait_output("n20\r\n");
    let pid = first.pty().pid();
    let master = first.pty().release().expect("released");
    first.wait_until("released", WAIT, |p| p.order.last() == Some(&"released"));
    assert!(first.exited.is_none() && first.bytes_at_end.is_none());
    assert!(
        first.pty().release().is_err(),
        "a second release is refused"
    );
    // Nothing follows `released`, and dropping the handle signals nobody.
    drop(first.pty.take());
    assert!(first.events.try_recv().is_err());
    assert!(
        kill(Pid::from_raw(pid.cast_signed()), None).is_ok(),
        "the child lives"
    );
    let mut second = adopted(master, pid);
    assert_eq!(second.wait_finished(), Some(4));
    // The bytes of both readers, back to back: the first may have stopped
    // inside a line.
    let mut bytes = first.output.clone();
    bytes.extend_from_slice(&second.output);
    let all = String::from_utf8_lossy(&bytes).replace('\r', "");
    let expected: Vec<String> = (0..300).map(|i| format!("n{i}")).collect();
    let numbers: Vec<String> = all.lines().map(str::to_owned).collect();
    assert_eq!(numbers, expected);
    assert_not_our_zombie(pid.cast_signed());
}

#[test]
fn a_released_child_continues_when_adopted() {
    let _serial = SERIAL.lock();
    released_child_continues_when_adopted();
}

#[test]
fn without_pidfds_a_released_child_continues_when_adopted() {
    let _serial = SERIAL.lock();
    without_pidfd(released_child_continues_when_adopted);
}
