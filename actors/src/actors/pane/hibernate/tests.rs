//! The pane's side of hibernation on a fake PTY: the last check in its own
//! turn (unsent input, an attached terminal), the adapter's two Ctrl-C, the
//! exit taken as `pane.hibernated` with the agent state kept, and input
//! refused while the stop runs.

use super::super::{GetPane, Pane, WriteInput};
use super::Hibernate;
use crate::error::Error;
use crate::testkit::{FakePty, PublishProbe, Published};
use actix::prelude::*;
use signaltty_protocol::Event;
use signaltty_protocol::pane::{AgentKind, Attention, Lifecycle, LiveState, RestoreState};
use std::time::Duration;

struct Fixture {
    pane: Addr<Pane>,
    pty: FakePty,
    published: Published,
}

/// An idle Claude pane with its session and resume command.
fn start() -> Fixture {
    let config = crate::testkit::config(&std::env::temp_dir().join("signaltty-hibernate-tests"));
    let pty = FakePty::new();
    let (probe, published) = PublishProbe::start();
    let mut state = crate::domain::state::tests::pane(AgentKind::Claude);
    state.lifecycle = Lifecycle::Idle;
    state.attention = Attention::None;
    state.agent.agent_session_id = Some("s1".into());
    state.agent.resume_argv = Some(vec!["claude".into(), "--resume".into(), "s1".into()]);
    let pane = Pane::new(
        state,
        pty.handle(),
        probe.recipient(),
        crate::actors::publish::PtyOut::unbounded(),
        &config,
    )
    .start();
    Fixture {
        pane,
        pty,
        published,
    }
}

/// Asks the pane to hibernate after 1 ms of quiet, once more than that has
/// passed since its last touch.
async fn ask(pane: &Addr<Pane>) -> bool {
    actix_rt::time::sleep(Duration::from_millis(10)).await;
    pane.send(Hibernate {
        after: Duration::from_millis(1),
        quiet_for: Duration::from_secs(60),
        task_waits: false,
    })
    .await
    .expect("the pane is running")
}

async fn write(pane: &Addr<Pane>, bytes: &[u8]) -> Result<usize, Error> {
    pane.send(WriteInput {
        bytes: bytes.to_vec(),
    })
    .await
    .expect("the pane is running")
}

/// Claude Code's `SessionEnd`, as it sends it when it quits.
fn session_end() -> super::super::Hook {
    super::super::Hook {
        kind: AgentKind::Claude,
        agent: "claude".into(),
        event: "SessionEnd".into(),
        payload: serde_json::json!({"session_id": "s1", "hook_event_name": "SessionEnd"}),
        message: None,
        title: None,
        severity: signaltty_protocol::state::Severity::Info,
        decision: None,
    }
}

#[actix::test]
async fn two_ctrl_c_stop_the_agent_and_its_exit_is_a_hibernation_that_keeps_its_state() {
    let f = start();
    assert!(ask(&f.pane).await, "an idle agent with a session is due");
    crate::testkit::wait_for("the two Ctrl-C", || f.pty.written() == b"\x03\x03").await;
    // Input while the agent saves its session is refused, not lost.
    let refused = write(&f.pane, b"hello").await;
    assert!(
        matches!(refused, Err(Error::AgentNotReady(_))),
        "{refused:?}"
    );
    // Its session's end is the stop, not news.
    let ended = f
        .pane
        .send(session_end())
        .await
        .expect("the pane is running")
        .expect("a reply");
    assert_eq!(ended.reason.as_deref(), Some("hibernating"), "{ended:?}");
    f.pty.exit(&f.pane, Some(130)).await;
    let batch = f.published.batch_with("pane.hibernated").await;
    let names: Vec<_> = batch.iter().map(Event::name).collect();
    assert_eq!(
        names,
        ["pane.hibernated"],
        "no pane.exited, no agent.exited"
    );
    let state = f.pane.send(GetPane).await.expect("the pane is running");
    assert_eq!(state.restore_state, RestoreState::Hibernated);
    assert_eq!(state.live, LiveState::Exited { code: Some(130) });
    assert_eq!(state.lifecycle, Lifecycle::Idle);
    assert_eq!(state.attention, Attention::None);
    let record = state.hibernation.expect("the record");
    assert!(record.reason.contains("session s1"), "{}", record.reason);
    // A second ask finds no process, and a late SessionEnd changes nothing.
    assert!(!ask(&f.pane).await);
    let late = f
        .pane
        .send(session_end())
        .await
        .expect("the pane is running")
        .expect("a reply");
    assert!(!late.accepted, "{late:?}");
    let state = f.pane.send(GetPane).await.expect("the pane is running");
    assert_eq!(state.attention, Attention::None);
}

#[actix::test]
async fn typed_input_without_its_enter_keeps_the_agent_awake_until_the_enter() {
    let f = start();
    write(&f.pane, b"half a thought").await.expect("written");
    assert!(!ask(&f.pane).await, "unsent input keeps it awake");
    write(&f.pane, b"\r").await.expect("written");
    assert!(ask(&f.pane).await, "the Enter sent it");
}

#[actix::test]
async fn a_pane_asked_before_its_quiet_time_stays_awake() {
    let f = start();
    let asked = f
        .pane
        .send(Hibernate {
            after: Duration::from_secs(3600),
            quiet_for: Duration::from_secs(7200),
            task_waits: false,
        })
        .await
        .expect("the pane is running");
    assert!(!asked, "its own last touch is recent");
    assert!(f.pty.written().is_empty());
}
