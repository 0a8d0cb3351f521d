//! Routing of `subscribe` (docs/protocol.md#subscriptions): the fence at
//! the head, then a replay from the ring or, further back, from the journal
//! files on a blocking thread, and the subscription registered in the same
//! turn as its fence, so no event is lost or doubled between replay and live.

use super::{Cx, Reply, Routed, fail, later};
use crate::actors::connection::ConnHandle;
use crate::domain::events::{EventFilter, ReplaySource, coverage, finish_replay, replay_record};
use crate::error::Error;
use crate::store::journal::replay::DiskReplay;
use bytes::Bytes;
use signaltty_protocol::Seq;
use signaltty_protocol::subscribe::{Replay, ReplayStatus, SubscribeParams, SubscribeResult};

pub(super) fn subscribe(
    cx: &mut Cx<'_>,
    conn: &ConnHandle,
    generation: u64,
    p: SubscribeParams,
) -> Routed {
    let filter = EventFilter::new(p.events, p.task_ids);
    let head = cx.events.head();
    let Some(after) = p.from_seq.map(Seq) else {
        cx.events.subscribe(conn, generation, filter, head);
        return super::ready(Ok(SubscribeResult {
            subscribed: true,
            seq: head.0,
            replay: None,
        }));
    };
    let disk = cx.events.disk().and_then(|d| d.coverage());
    let (status, retained_after, source) =
        coverage(after, head, cx.events.ring().retained_after(), disk);
    match source {
        Some(ReplaySource::Ring) => {
            let events = cx.events.ring().matching(after, head, &filter);
            let (replay, lines) = finish_replay(status, after, head, retained_after, events);
            Box::pin(actix::fut::ready(subscribed_reply(
                cx, conn, generation, filter, head, replay, lines,
            )))
        },
        Some(ReplaySource::Disk) => {
            // Register now, in the same turn as the fence, so live events after
            // `head` are held by the connection until the replay is written.
            cx.events.subscribe(conn, generation, filter.clone(), head);
            let Some(disk) = cx.events.disk().cloned() else {
                return fail(Err(Error::JournalFailed("journal history vanished".into())));
            };
            // Every journal line after `after` is checked and the matching ones
            // counted before the reply; they are read again as the client reads.
            let open = actix_rt::task::spawn_blocking(move || {
                let files = disk.open_generations()?;
                DiskReplay::counted(files, after, head, filter)
            });
            later(async move {
                let failed = |why: String| {
                    log::error!("replay from the journal failed: {why}");
                    let replay =
                        replay_record(ReplayStatus::Unavailable, after, head, retained_after, 0);
                    not_subscribed(head, replay)
                };
                let (feed, returned) = match open.await {
                    Ok(Ok(opened)) => opened,
                    Ok(Err(why)) => return failed(why),
                    Err(join) => return failed(join.to_string()),
                };
                let replay = replay_record(status, after, head, retained_after, returned);
                let mut reply = replay_reply(head, replay, Vec::new());
                reply.feed = Some(Box::new(feed));
                reply
            })
        },
        None => {
            let (replay, _) = finish_replay(status, after, head, retained_after, Vec::new());
            Box::pin(actix::fut::ready(not_subscribed(head, replay)))
        },
    }
}

/// A complete replay from the ring, or a truncated one: registers the subscription
/// only when complete.
fn subscribed_reply(
    cx: &mut Cx<'_>,
    conn: &ConnHandle,
    generation: u64,
    filter: EventFilter,
    head: Seq,
    replay: Replay,
    lines: Vec<Bytes>,
) -> Reply {
    if replay.status == ReplayStatus::Complete {
        cx.events.subscribe(conn, generation, filter, head);
    }
    replay_reply(head, replay, lines)
}

/// The reply once the replay is known: `subscribed:true` followed by the replayed
/// frames when it is complete, else `not_subscribed`.
fn replay_reply(head: Seq, replay: Replay, lines: Vec<Bytes>) -> Reply {
    if replay.status != ReplayStatus::Complete {
        return not_subscribed(head, replay);
    }
    let mut reply = Reply::of(Ok(SubscribeResult {
        subscribed: true,
        seq: head.0,
        replay: Some(replay),
    }));
    reply.after = lines;
    reply
}

/// `subscribed:false`, no replay frames, and the connection closes after the reply
/// (docs/persistence.md#replay-coverage).
fn not_subscribed(head: Seq, replay: Replay) -> Reply {
    let mut reply = Reply::of(Ok(SubscribeResult {
        subscribed: false,
        seq: head.0,
        replay: Some(replay),
    }));
    reply.close_after = true;
    reply
}
