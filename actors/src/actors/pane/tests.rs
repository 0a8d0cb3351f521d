//! Pane actor tests on a fake PTY (the actor tests of
//! docs/ARCHITECTURE.md#testing): output into the grid, the ring and the
//! events; the bounded input; the exit; hooks through the actor. The Supervisor
//! is a `PublishProbe`; every wait is named and bounded.

use super::*;
use crate::config::Config;
use crate::testkit::{FakePty, FakeWrites, PublishProbe, Published};
use signaltty_protocol::pane::{AgentKind, Attention, Lifecycle, PtySize};
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::state::Severity;
use std::time::Instant;

/// A pane on a fake PTY, publishing to a probe.
struct Fixture {
    pane: Addr<Pane>,
    pty: FakePty,
    published: Published,
}

fn config() -> Config {
    crate::testkit::config(&std::env::temp_dir().join("signaltty-pane-tests"))
}

fn start(kind: AgentKind, config: &Config) -> Fixture {
    let pty = FakePty::new();
    let (probe, published) = PublishProbe::start();
    let mut state = crate::domain::state::tests::pane(kind);
    state.pty_size = PtySize { rows: 10, cols: 40 };
    let pane = Pane::new(
        state,
        pty.handle(),
        probe.recipient(),
        crate::actors::publish::PtyOut::unbounded(),
        config,
    )
    .start();
    Fixture {
        pane,
        pty,
        published,
    }
}

fn hook(kind: AgentKind, event: &str, payload: serde_json::Value) -> Hook {
    Hook {
        kind,
        agent: serde_json::to_value(kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        event: event.to_owned(),
        payload,
        message: None,
        title: None,
        severity: Severity::Info,
        decision: None,
    }
}

/// Writes `bytes` through the pane and returns its answer.
async fn write(pane: &Addr<Pane>, bytes: &[u8]) -> Result<usize, Error> {
    pane.send(WriteInput {
        bytes: bytes.to_vec(),
    })
    .await
    .expect("the pane is running")
}

async fn read(pane: &Addr<Pane>, mode: ReadMode) -> PaneReadResult {
    pane.send(ReadPane {
        mode,
        lines: 100,
        after_seq: 0,
        strip_ansi: true,
    })
    .await
    .expect("the pane is running")
    .expect("reads never fail")
}

#[actix::test]
async fn output_bytes_reach_the_screen_the_tail_and_the_rendered_ring() {
    let f = start(AgentKind::None, &config());
    f.pty.output(&f.pane, b"hello\r\nworld\r\n").await;
    let screen = read(&f.pane, ReadMode::Screen).await;
    assert!(screen.text.starts_with("hello\nworld"), "{:?}", screen.text);
    let tail = read(&f.pane, ReadMode::Tail).await;
    assert!(tail.text.contains("hello\nworld"), "{:?}", tail.text);
    let rendered = read(&f.pane, ReadMode::Rendered).await;
    assert!(rendered.text.contains("hello"), "{:?}", rendered.text);
    assert!(rendered.next_seq.is_some_and(|n| n > 0));
}

#[actix::test]
async fn a_bell_raises_unread_and_an_osc_9_stores_a_notification() {
    let f = start(AgentKind::None, &config());
    f.pty.output(&f.pane, b"\x07").await;
    let batch = f.published.batch_with("attention.created").await;
    assert!(matches!(
        &batch[0],
        Event::AttentionCreated {
            attention: Attention::Unread,
            ..
        }
    ));
    f.pty.output(&f.pane, b"\x1b]9;build finished\x07").await;
    let batch = f.published.batch_with("notification.created").await;
    let Some(Event::NotificationCreated { notification, .. }) = batch.first() else {
        panic!("a notification first: {batch:?}");
    };
    assert_eq!(notification.body.as_deref(), Some("build finished"));
}

#[actix::test]
async fn a_title_sequence_publishes_pane_updated_with_the_title() {
    let f = start(AgentKind::None, &config());
    f.pty.output(&f.pane, b"\x1b]0;my build\x07").await;
    let batch = f.published.batch_with("pane.updated").await;
    let Some(Event::PaneUpdated { pane, .. }) = batch.first() else {
        panic!("pane.updated: {batch:?}");
    };
    assert_eq!(pane.title, "my build");
}

#[actix::test]
async fn input_is_written_to_the_pty_within_the_budget() {
    let f = start(AgentKind::None, &config());
    let before = Instant::now();
    let written = write(&f.pane, b"ls\r").await;
    assert_eq!(written.ok(), Some(3));
    assert_eq!(f.pty.written(), b"ls\r");
    let deadline = f.pty.deadlines()[0];
    assert!(deadline >= before + INPUT_BUDGET && deadline <= Instant::now() + INPUT_BUDGET);
}

#[actix::test]
async fn a_write_that_cannot_finish_within_the_budget_times_out_with_its_prefix() {
    let f = start(AgentKind::None, &config());
    f.pty.set_writes(FakeWrites::Stall { accept: 3 });
    let reply = f.pane.send(WriteInput {
        bytes: b"hello".to_vec(),
    });
    let reply = actix_rt::spawn(reply);
    crate::testkit::wait_for("the write to stall", || f.pty.stalled() == 1).await;
    assert!(!reply.is_finished(), "the pane waits for the write");
    f.pty.expire_writes();
    let result = reply
        .await
        .expect("the reply task ran")
        .expect("the pane is running");
    match result {
        Err(Error::Timeout { written, .. }) => assert_eq!(written, Some(3)),
        other => panic!("TIMEOUT with the prefix, not {other:?}"),
    }
    assert_eq!(f.pty.written(), b"hel");
}

#[actix::test]
async fn a_failing_write_is_an_io_error() {
    let f = start(AgentKind::None, &config());
    f.pty
        .set_writes(FakeWrites::Fail(crate::os::pty::WriteErrorKind::Io(
            "EIO".into(),
        )));
    let result = write(&f.pane, b"x").await;
    assert!(matches!(result, Err(Error::Io { .. })), "{result:?}");
}

#[actix::test]
async fn the_exit_publishes_pane_exited_then_the_agent_events_in_one_batch() {
    let f = start(AgentKind::Claude, &config());
    f.pty.exit(&f.pane, Some(0)).await;
    let batch = f.published.batch_with("pane.exited").await;
    let names: Vec<_> = batch.iter().map(Event::name).collect();
    assert_eq!(names, ["pane.exited", "agent.exited", "attention.created"]);
    let state = f.pane.send(GetPane).await.expect("the pane is running");
    assert_eq!(state.lifecycle, Lifecycle::Exited);
    assert!(!f.pane.send(IsLive).await.expect("the pane is running"));
}

#[actix::test]
async fn input_after_the_exit_fails_with_pane_exited() {
    let f = start(AgentKind::None, &config());
    f.pty.exit(&f.pane, Some(1)).await;
    f.published.batch_with("pane.exited").await;
    let result = write(&f.pane, b"x").await;
    assert!(
        matches!(result, Err(Error::PaneExited { written: None, .. })),
        "{result:?}"
    );
    let signalled = f
        .pane
        .send(SignalPane {
            signal: SignalName::Int,
            group: false,
        })
        .await
        .expect("the pane is running");
    assert!(matches!(signalled, Err(Error::PaneExited { .. })));
}

#[actix::test]
async fn a_stop_hook_is_published_before_the_hook_event_reply() {
    let f = start(AgentKind::Claude, &config());
    let reply = f
        .pane
        .send(hook(
            AgentKind::Claude,
            "UserPromptSubmit",
            serde_json::json!({}),
        ))
        .await
        .expect("the pane is running")
        .expect("the hook is taken");
    assert_eq!(reply.lifecycle, Some(Lifecycle::Working));
    assert!(f.published.names().contains(&"agent.working"));
    let reply = f
        .pane
        .send(hook(
            AgentKind::Claude,
            "Stop",
            serde_json::json!({"last_assistant_message": "fixed it"}),
        ))
        .await
        .expect("the pane is running")
        .expect("the hook is taken");
    assert_eq!(reply.lifecycle, Some(Lifecycle::Done));
    assert_eq!(reply.attention, Some(Attention::Unread));
    let names = f.published.names();
    assert!(
        names.ends_with(&["agent.done", "attention.created", "notification.created"]),
        "{names:?}"
    );
}

#[actix::test]
async fn a_cursor_approval_wait_from_the_config_blocks_the_pane() {
    let mut config = config();
    config.limits.cursor_approval_wait = Duration::from_millis(20);
    let f = start(AgentKind::Cursor, &config);
    f.pane
        .send(hook(
            AgentKind::Cursor,
            "preToolUse",
            serde_json::json!({"tool_use_id": "call_1", "tool_name": "Shell"}),
        ))
        .await
        .expect("the pane is running")
        .expect("the hook is taken");
    f.published
        .wait_for("agent.blocked after the approval wait", |log| {
            log.names().contains(&"agent.blocked")
        })
        .await;
    let state = f.pane.send(GetPane).await.expect("the pane is running");
    assert_eq!(state.attention, Attention::PermissionRequired);
}

#[actix::test]
async fn resize_signal_and_close_reach_the_pty() {
    let f = start(AgentKind::None, &config());
    let size = PtySize { rows: 20, cols: 60 };
    f.pane
        .send(ResizePane { size })
        .await
        .expect("the pane is running")
        .expect("resized");
    assert_eq!(f.pty.resized(), [(20, 60)]);
    assert_eq!(f.published.names(), ["pane.resized"]);
    f.pane
        .send(SignalPane {
            signal: SignalName::Int,
            group: true,
        })
        .await
        .expect("the pane is running")
        .expect("signalled");
    assert_eq!(
        f.pty.signals(),
        [(nix::sys::signal::Signal::SIGINT, SignalTarget::Group)]
    );
    f.pane
        .send(ClosePane {
            signal: SignalName::Term,
        })
        .await
        .expect("the pane is running");
    assert_eq!(f.pty.closed(), Some(nix::sys::signal::Signal::SIGTERM));
}

#[actix::test]
async fn a_terminal_query_is_answered_while_nobody_is_attached() {
    let f = start(AgentKind::None, &config());
    // DSR: where is the cursor? An unattached pane answers it itself.
    f.pty.output(&f.pane, b"ab\x1b[6n").await;
    crate::testkit::wait_for("the cursor report", || !f.pty.written().is_empty()).await;
    assert_eq!(f.pty.written(), b"\x1b[1;3R");
}
