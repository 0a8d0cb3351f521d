//! Input, output and resize: writes that reach the child or time out on one
//! that never reads, what a close does to pending writes, output read in chunks
//! up to the exit, and SIGWINCH.

use super::*;
use nix::fcntl::OFlag;

#[test]
fn input_reaches_the_child_and_comes_back() {
    let _serial = SERIAL.lock();
    let mut pane = Pane::start(&["cat"]);
    let write = pending(pane.pty().write(b"abc\n".to_vec(), Instant::now() + WAIT));
    assert_eq!(write.wait(WAIT).0, Ok(4));
    // Once from the terminal's echo, once from cat.
    pane.wait_until("abc twice", WAIT, |p| p.text().matches("abc").count() >= 2);
    pane.pty().close(Signal::SIGTERM);
    assert_eq!(pane.wait_exit(), Some(128 + 15));
}

/// A pane whose child never reads, with its terminal in raw mode: once the line
/// discipline's and the PTY's buffers are full, writes block. (In canonical mode
/// the kernel drops input past a full line instead of blocking the writer.)
fn stuck_pane() -> Pane {
    let mut pane = Pane::start(&["sh", "-c", "stty raw -echo; echo ready; exec sleep 100"]);
    pane.wait_output("ready");
    pane
}

#[test]
fn a_write_to_a_child_that_never_reads_times_out_without_blocking_other_panes() {
    let _serial = SERIAL.lock();
    let mut stuck = stuck_pane();
    let mut other = Pane::start(&["cat"]);
    let mib = vec![b'x'; 1 << 20];
    let blocked = pending(
        stuck
            .pty()
            .write(mib, Instant::now() + Duration::from_secs(1)),
    );
    // The other pane's input and signals work meanwhile.
    let quick = pending(other.pty().write(b"ping\n".to_vec(), Instant::now() + WAIT));
    let (result, took) = quick.wait(WAIT);
    assert_eq!(result, Ok(5));
    assert!(
        took < Duration::from_millis(500),
        "the other pane's write took {took:?}"
    );
    other.wait_output("ping");
    other.pty().signal(Signal::SIGCONT, false).unwrap();

    let (result, took) = blocked.wait(WAIT);
    let error = result.unwrap_err();
    assert_eq!(error.kind, WriteErrorKind::Timeout, "{error}");
    assert!(error.written > 0 && error.written < 1 << 20, "{error}");
    assert!(
        took >= Duration::from_millis(950) && took < Duration::from_millis(1500),
        "timed out after {took:?}"
    );
    for pane in [&mut stuck, &mut other] {
        pane.pty().close_with_grace(Signal::SIGTERM, Duration::ZERO);
        pane.wait_exit();
    }
}

#[test]
fn a_write_fills_the_terminal_up_to_its_deadline() {
    let _serial = SERIAL.lock();
    let mut stuck = stuck_pane();
    let first = pending(
        stuck
            .pty()
            .write(vec![b'x'; 1 << 20], Instant::now() + Duration::from_secs(1)),
    );
    let error = first.wait(WAIT).0.unwrap_err();
    assert_eq!(error.kind, WriteErrorKind::Timeout, "{error}");
    // The kernel takes bytes in as its line discipline makes room, and does not
    // always say so: the write kept trying until its deadline, so nothing is
    // left for two more bytes.
    let (result, took) = pending(
        stuck
            .pty()
            .write(b"y\r".to_vec(), Instant::now() + Duration::from_millis(500)),
    )
    .wait(WAIT);
    assert_eq!(
        result.map_err(|e| e.kind),
        Err(WriteErrorKind::Timeout),
        "after {took:?}"
    );
    stuck
        .pty()
        .close_with_grace(Signal::SIGTERM, Duration::ZERO);
    stuck.wait_exit();
}

#[test]
fn a_queued_write_times_out_at_its_own_deadline() {
    let _serial = SERIAL.lock();
    let mut pane = stuck_pane();
    let first = pending(pane.pty().write(vec![b'x'; 1 << 20], Instant::now() + WAIT));
    let second = pending(
        pane.pty()
            .write(b"y".to_vec(), Instant::now() + Duration::from_millis(300)),
    );
    let (result, took) = second.wait(WAIT);
    assert_eq!(result, Err(WriteError::new(WriteErrorKind::Timeout, 0)));
    assert!(took < Duration::from_millis(600), "answered after {took:?}");
    pane.pty().close(Signal::SIGHUP);
    assert_eq!(first.wait(WAIT).0.unwrap_err().kind, WriteErrorKind::Exited);
    pane.wait_exit();
}

#[test]
fn close_cancels_active_and_queued_writes_promptly() {
    let _serial = SERIAL.lock();
    let mut pane = stuck_pane();
    let active = pending(pane.pty().write(vec![b'x'; 1 << 20], Instant::now() + WAIT));
    // A probe that times out while queued proves the active write is stuck.
    let probe = pending(
        pane.pty()
            .write(b"p".to_vec(), Instant::now() + Duration::from_millis(200)),
    );
    assert_eq!(
        probe.wait(WAIT).0,
        Err(WriteError::new(WriteErrorKind::Timeout, 0))
    );
    let queued = pending(pane.pty().write(b"more".to_vec(), Instant::now() + WAIT));
    let closing = Instant::now();
    pane.pty().close(Signal::SIGHUP);
    let took = closing.elapsed();
    assert!(took < CLOSE_RETURNS, "close blocked for {took:?}");
    let (result, _) = active.wait(WAIT);
    let error = result.unwrap_err();
    assert_eq!(error.kind, WriteErrorKind::Exited, "{error}");
    assert!(error.written > 0 && error.written < 1 << 20, "{error}");
    let (result, _) = queued.wait(WAIT);
    assert_eq!(result, Err(WriteError::new(WriteErrorKind::Exited, 0)));
    let took = closing.elapsed();
    assert!(took < Duration::from_millis(500), "cancel took {took:?}");
    // A write after close is answered at once: the answer is there when `write`
    // returns. (Timing it through `pending` measured how soon a helper thread got a
    // core, which a busy machine can delay past any small bound.)
    let mut late = pane.pty().write(b"x".to_vec(), Instant::now() + WAIT);
    assert_eq!(
        late.try_recv(),
        Ok(Err(WriteError::new(WriteErrorKind::Exited, 0))),
        "a write after close was not answered at once"
    );
    assert_eq!(pane.wait_exit(), Some(128 + 1));
    assert!(pane.bytes_at_end.is_none(), "no output_ended after close");
}

#[test]
fn resize_sends_sigwinch_and_sets_the_size() {
    let _serial = SERIAL.lock();
    let script = "stty size; trap 'stty size; exit 0' WINCH; echo ready; \
                  while :; do sleep 0.05; done";
    let mut pane = Pane::start(&["sh", "-c", script]);
    pane.wait_output("ready");
    assert!(pane.text().contains("24 80"), "{:?}", pane.text());
    pane.pty().resize(30, 100).unwrap();
    pane.wait_output("30 100");
    assert_eq!(pane.wait_exit(), Some(0));
}

#[test]
fn the_last_output_before_exit_is_never_lost() {
    let _serial = SERIAL.lock();
    let mut pane = Pane::start(&["sh", "-c", "head -c 1000000 /dev/zero | tr '\\0' x; exit 0"]);
    assert_eq!(pane.wait_finished(), Some(0));
    let at_end = pane.bytes_at_end.unwrap();
    assert!(
        at_end >= 1_000_000,
        "only {at_end} bytes before output_ended"
    );
    assert_eq!(
        pane.output.iter().filter(|&&b| b == b'x').count(),
        1_000_000
    );
    assert_eq!(pane.order, ["output", "ended", "exited"]);
}

/// A non-blocking pipe holding `bytes`, for `read_more`.
fn pipe_with(bytes: usize) -> (OwnedFd, OwnedFd) {
    let (rx, tx) = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK).expect("a pipe");
    // A pipe holds 64 KiB by default; make room for more.
    nix::fcntl::fcntl(&tx, nix::fcntl::FcntlArg::F_SETPIPE_SZ(1 << 20)).expect("a larger pipe");
    let data = vec![b'x'; bytes];
    let mut written = 0;
    while written < bytes {
        written += nix::unistd::write(&tx, &data[written..]).expect("write to the pipe");
    }
    (rx, tx)
}

#[test]
fn a_chunk_takes_in_what_is_already_waiting_up_to_the_maximum() {
    let (rx, _tx) = pipe_with(MAX_CHUNK_BYTES + 5000);
    let mut buf = b"first".to_vec();
    reader::read_more(&rx, &mut buf);
    assert_eq!(buf.len(), MAX_CHUNK_BYTES);
    assert!(buf.starts_with(b"firstxx"));

    // Less than the maximum waiting: all of it, then it stops at EAGAIN.
    let (rx, _tx) = pipe_with(10_000);
    let mut buf = Vec::new();
    reader::read_more(&rx, &mut buf);
    assert_eq!(buf.len(), 10_000);

    // Nothing waiting: the chunk stays as it was.
    let (rx, _tx) = pipe_with(0);
    let mut buf = b"only".to_vec();
    reader::read_more(&rx, &mut buf);
    assert_eq!(buf, b"only");
}
