//! A child's end: exit codes, signals, the teardown of a close or a dropped
//! PTY, and the reaping of the child with or without pidfds.

use super::*;

#[test]
fn output_then_eof_then_exit_code() {
    let _serial = SERIAL.lock();
    let mut pane = Pane::start(&["sh", "-c", "printf hello; exit 7"]);
    assert_eq!(pane.wait_finished(), Some(7));
    assert!(pane.text().contains("hello"), "{:?}", pane.text());
    assert_eq!(pane.order, ["output", "ended", "exited"]);
}

#[test]
fn a_child_killed_by_sigkill_exits_137() {
    let _serial = SERIAL.lock();
    let mut pane = Pane::start(&["sh", "-c", "kill -9 $$"]);
    assert_eq!(pane.wait_exit(), Some(137));
}

#[test]
fn close_kills_every_process_group_of_the_session_after_the_grace() {
    // The shell and both background jobs ignore SIGHUP and
    // SIGTERM; one job runs in the shell's group, one in a group of its own.
    let _serial = SERIAL.lock();
    let script = "trap '' HUP TERM; sleep 1000 & echo same=$!; \
                  set -m; sleep 1000 & echo own=$!; echo ready; wait";
    let mut pane = Pane::start(&["sh", "-c", script]);
    pane.wait_output("ready");
    let pid = pane.pty().pid().cast_signed();
    let same = number_after(&pane, "same=");
    let own = number_after(&pane, "own=");
    let stat =
        |pid: i32| parse_stat(&fs::read_to_string(format!("/proc/{pid}/stat")).unwrap()).unwrap();
    assert_eq!(stat(same).pgrp, pid);
    assert_ne!(stat(own).pgrp, pid, "set -m gives the job its own group");
    assert_eq!(stat(own).session, pid);

    let closing = Instant::now();
    pane.pty().close(Signal::SIGTERM);
    let took = closing.elapsed();
    assert!(took < CLOSE_RETURNS, "close blocked for {took:?}");
    for job in [pid, same, own] {
        assert!(!is_dead(job), "{job} died before the grace");
    }
    let margin = Duration::from_secs(3);
    for job in [same, own] {
        assert!(
            wait_dead(job, CLOSE_GRACE + margin),
            "{job} survived the close"
        );
    }
    assert_eq!(pane.wait_exit(), Some(128 + 9));
    let took = closing.elapsed();
    assert!(
        took >= CLOSE_GRACE && took < CLOSE_GRACE + margin,
        "teardown took {took:?}"
    );
}

#[test]
fn exit_is_reported_while_a_background_job_holds_the_terminal() {
    let _serial = SERIAL.lock();
    // The job ignores the SIGHUP the kernel sends when the session leader exits.
    let script = "trap '' HUP; sleep 1000 & echo bg=$!; echo bye; exit 3";
    let mut pane = Pane::start(&["sh", "-c", script]);
    assert_eq!(pane.wait_exit(), Some(3));
    assert!(
        pane.text().contains("bye"),
        "output before the exit came first: {:?}",
        pane.text()
    );
    assert!(
        pane.bytes_at_end.is_none(),
        "the job still holds the terminal"
    );
    close_kills_the_background_job(&pane);
}

#[test]
fn signals_reach_the_child_or_its_group_until_it_is_reaped() {
    let _serial = SERIAL.lock();
    let script = "trap 'echo got-usr1' USR1; echo ready; while :; do sleep 0.05; done";
    let mut pane = Pane::start(&["sh", "-c", script]);
    pane.wait_output("ready");
    pane.pty().signal(Signal::SIGUSR1, false).unwrap();
    pane.wait_output("got-usr1");
    pane.pty().signal(Signal::SIGTERM, true).unwrap();
    assert_eq!(pane.wait_exit(), Some(128 + 15));
    let error = pane.pty().signal(Signal::SIGTERM, false).unwrap_err();
    assert_eq!(error.raw_os_error(), Some(nix::libc::ESRCH));
    pane.pty().close(Signal::SIGTERM);
    assert!(pane.pty().resize(10, 10).is_err());
}

#[test]
fn dropping_the_pty_hangs_up() {
    let _serial = SERIAL.lock();
    let mut pane = Pane::start(&["sleep", "1000"]);
    drop(pane.pty.take());
    assert_eq!(pane.wait_exit(), Some(128 + 1));
}

/// A sink that pauses the reading after each chunk until the test resumes
/// it, as a Pane whose consumer lags would.
struct GatedSink {
    events: mpsc::Sender<Event>,
    resume: mpsc::Sender<Resume>,
}

impl PtySink for GatedSink {
    fn bind(&mut self, resume: Resume) {
        let _ = self.resume.send(resume);
    }
    fn output(&mut self, chunk: Vec<u8>) -> Flow {
        let _ = self.events.send(Event::Output(chunk));
        Flow::Pause
    }
    fn output_ended(&mut self) {
        let _ = self.events.send(Event::Ended);
    }
    fn exited(&mut self, code: Option<i32>) {
        let _ = self.events.send(Event::Exited(code));
    }
}

/// A pane whose sink pauses after every chunk, and its `Resume`.
fn gated(argv: &[&str]) -> (Pane, Resume) {
    let (events_tx, events) = mpsc::channel();
    let (resume_tx, resume) = mpsc::channel();
    let sink = GatedSink {
        events: events_tx,
        resume: resume_tx,
    };
    let pty = spawn(&spec(argv), Box::new(sink)).unwrap();
    let resume = resume.recv_timeout(WAIT).expect("the sink is bound");
    (Pane::watching(pty, events), resume)
}

#[test]
fn close_hangs_up_even_while_the_sink_has_paused_the_reading() {
    let _serial = SERIAL.lock();
    let (mut pane, _resume) = gated(&["sh", "-c", "while :; do echo flood; done"]);
    pane.wait_until("the first chunk", WAIT, |p| !p.output.is_empty());
    // The reading is now paused. SIGCONT and a long grace leave the hangup as
    // the only thing that can end the shell.
    let pid = pane.pty().pid().cast_signed();
    pane.pty().close_with_grace(Signal::SIGCONT, WAIT);
    assert!(
        wait_dead(pid, Duration::from_secs(2)),
        "the hangup did not reach the shell"
    );
    assert_eq!(pane.wait_exit(), Some(128 + 1));
    assert!(pane.bytes_at_end.is_none());
}

#[test]
fn a_paused_pane_is_read_no_more_until_resumed_and_loses_nothing() {
    let _serial = SERIAL.lock();
    let script = "i=0; while [ $i -lt 20000 ]; do echo line$i; i=$((i+1)); done; echo done";
    let (mut pane, resume) = gated(&["sh", "-c", script]);
    pane.wait_until("the first chunk", WAIT, |p| !p.output.is_empty());
    // Paused: nothing more arrives however long the shell has output waiting.
    let held = pane.output.len();
    let quiet = pane.events.recv_timeout(Duration::from_millis(300));
    assert!(quiet.is_err(), "output came while paused: {quiet:?}");
    assert_eq!(pane.output.len(), held);
    // Each resume lets exactly one more chunk through, until the end.
    while pane.exited.is_none() {
        resume.resume();
        match pane.events.recv_timeout(WAIT) {
            Ok(event) => pane.record(event),
            Err(e) => panic!(
                "nothing after a resume: {e}; got {} bytes",
                pane.output.len()
            ),
        }
    }
    let lines = pane.lines();
    let numbered: Vec<&String> = lines.iter().filter(|l| l.starts_with("line")).collect();
    assert_eq!(numbered.len(), 20_000, "lines were lost");
    for (i, line) in numbered.iter().enumerate() {
        assert_eq!(**line, format!("line{i}"));
    }
    assert_eq!(lines.last().map(String::as_str), Some("done"));
    assert_eq!(pane.order, ["output", "ended", "exited"]);
}

#[test]
fn stat_lines_parse_around_odd_command_names() {
    let line = "4242 (a) b (c)) S 1 4240 4239 34817 4240 4194560 0 0";
    let stat = parse_stat(line).unwrap();
    assert_eq!(
        stat,
        reap::Stat {
            pid: 4242,
            state: 'S',
            ppid: 1,
            pgrp: 4240,
            session: 4239,
            tty_nr: 34817,
            tpgid: 4240,
        }
    );
    assert_eq!(parse_stat("garbage"), None);
}

#[test]
fn exit_codes_follow_the_documented_rules() {
    use nix::sys::signal::Signal;
    use nix::sys::wait::WaitStatus;
    let pid = Pid::from_raw(4242);
    assert_eq!(reap::exit_code(WaitStatus::Exited(pid, 7)), Some(7));
    assert_eq!(
        reap::exit_code(WaitStatus::Signaled(pid, Signal::SIGKILL, false)),
        Some(137)
    );
    // Killed by SIGSEGV with a core dump.
    assert_eq!(
        reap::exit_code(WaitStatus::Signaled(pid, Signal::SIGSEGV, true)),
        Some(139)
    );
    // Not an end: the wait goes on.
    assert_eq!(
        reap::exit_code(WaitStatus::Stopped(pid, Signal::SIGSTOP)),
        None
    );
}

#[test]
fn without_pidfds_a_waiter_thread_reaps_and_reports_the_exit() {
    let _serial = SERIAL.lock();
    without_pidfd(|| {
        let baseline = pty_fd_count();
        let mut pane = Pane::start(&["sh", "-c", "printf hello; exit 7"]);
        assert_eq!(pane.wait_finished(), Some(7));
        assert!(pane.text().contains("hello"), "{:?}", pane.text());
        assert_eq!(pane.order, ["output", "ended", "exited"]);
        let pid = pane.pty().pid().cast_signed();
        drop(pane);
        assert_not_our_zombie(pid);
        assert_fds_back_to(baseline);

        let script = "trap '' HUP; sleep 1000 & echo bg=$!; echo bye; exit 3";
        let mut pane = Pane::start(&["sh", "-c", script]);
        assert_eq!(pane.wait_exit(), Some(3));
        close_kills_the_background_job(&pane);
    });
}

#[test]
fn a_pane_costs_no_thread_where_pidfds_exist() {
    let _serial = SERIAL.lock();
    let names = || -> Vec<String> {
        fs::read_dir("/proc/self/task")
            .unwrap()
            .filter_map(|task| fs::read_to_string(task.ok()?.path().join("comm")).ok())
            .map(|name| name.trim().to_owned())
            .collect()
    };
    let mut panes: Vec<Pane> = (0..20)
        .map(|_| Pane::start(&["sh", "-c", "exec sleep 1000"]))
        .collect();
    let pty_threads: Vec<String> = names()
        .into_iter()
        .filter(|name| name.starts_with("pty"))
        .collect();
    // One loop for every pane, and the one reaper thread once a pane has closed.
    assert!(
        pty_threads
            .iter()
            .all(|n| n == "pty-loop" || n == "pty-reaper"),
        "a pane has a thread of its own: {pty_threads:?}"
    );
    assert_eq!(
        pty_threads.iter().filter(|n| *n == "pty-loop").count(),
        1,
        "{pty_threads:?}"
    );
    for pane in &mut panes {
        let pid = pane.pty().pid();
        assert!(!is_dead(pid.cast_signed()), "the child is not running");
        pane.pty().signal(Signal::SIGKILL, false).unwrap();
        assert_eq!(pane.wait_exit(), Some(137));
    }
}
