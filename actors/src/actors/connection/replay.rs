//! A replay from the journal files written as the client reads it
//! (docs/persistence.md#replay-coverage): one batch at a time, read on a
//! blocking thread while the client's unread output is below the low mark,
//! so a replay of any length costs the connection about one batch and the
//! low mark. Live events wait behind it, within the slow-subscriber bound; a
//! client that reads too slowly for them is cut off with the seq to resume
//! from, and loses nothing by resuming.

use super::flow::OUTPUT_LOW_BYTES;
use super::reply::ReplayFeed;
use super::{Connection, KickReason};
use actix::prelude::*;

/// About how many bytes of frames one batch reads.
pub const REPLAY_BATCH_BYTES: usize = 256 * 1024;

impl Connection {
    /// Writes the next batch of `feed` once the unwritten output is low; the
    /// reply is done when the feed is over.
    pub(super) fn feed_replay(&mut self, mut feed: Box<dyn ReplayFeed>, ctx: &mut Context<Self>) {
        if self.closing {
            return;
        }
        if self.flow.queued() > OUTPUT_LOW_BYTES {
            let low = self.flow.when_low();
            ctx.spawn(
                actix::fut::wrap_future::<_, Self>(low)
                    .map(move |(), act, ctx| act.feed_replay(feed, ctx)),
            );
            return;
        }
        let read = actix_rt::task::spawn_blocking(move || {
            let batch = feed.next_batch(REPLAY_BATCH_BYTES);
            (feed, batch)
        });
        ctx.spawn(
            actix::fut::wrap_future::<_, Self>(read).map(|read, act, ctx| match read {
                Ok((feed, Ok(Some(lines)))) => {
                    // Paced by the low mark, so bounded by the reply limit,
                    // not by the slow-subscriber bound meant for live events.
                    for (seq, line) in lines {
                        act.written_seq = act.written_seq.max(seq);
                        act.write(&line, false, ctx);
                    }
                    act.feed_replay(feed, ctx);
                },
                Ok((_, Ok(None))) => act.reply_done(false, ctx),
                Ok((_, Err(why))) => {
                    log::error!("replay from the journal failed: {why}");
                    let why = format!("the replay could not be read from the journal: {why}");
                    act.kick(KickReason::ReplayFailed, &why, ctx);
                },
                Err(join) => {
                    let why = format!("the replay's reader failed: {join}");
                    act.kick(KickReason::ReplayFailed, &why, ctx);
                },
            }),
        );
    }
}
