//! What a link does with what it hears, and with silence: the hello's
//! check, each frame handed to its channel, and the keepalive that ends a
//! link whose bridge stopped answering.

use super::{HELLO_WITHIN, LOST_AFTER, LinkError, PING_AFTER, Shared};
use crate::remote::hosts::Host;
use crate::remote::mux::{self, Frame, Hello};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Whether the remote speaks this client's protocol and mux format.
pub(super) fn check_hello(host: &Host, hello: &Hello) -> Result<(), LinkError> {
    if hello.protocol == signaltty_protocol::PROTOCOL && hello.signaltty_bridge == mux::MUX {
        return Ok(());
    }
    Err(LinkError::Mismatch(format!(
        "{}: the remote signaltty {} speaks {} over {}, this one {} over {}: \
         install the same version on both machines",
        host.name,
        hello.version,
        hello.protocol,
        hello.signaltty_bridge,
        signaltty_protocol::PROTOCOL,
        mux::MUX
    )))
}

pub(super) fn on_frame(shared: &Shared, frame: Frame<'_>) {
    let chan = |ch: u32| shared.channels.lock().get(&ch).cloned();
    match frame {
        Frame::Data { ch, line } => {
            if let Some(c) = chan(ch) {
                c.state.lock().lines.push_back(line.to_owned());
                c.cv.notify_all();
            }
        },
        Frame::Closed { ch, reason } => {
            if let Some(c) = shared.channels.lock().remove(&ch) {
                c.close(reason);
            }
        },
        Frame::Credit { ch, bytes } => {
            if let Some(c) = chan(ch) {
                c.state.lock().send.granted(bytes);
                c.cv.notify_all();
            }
        },
        Frame::Ping { token } => {
            let _ = shared.send(&Frame::Pong { token }.encode());
        },
        Frame::Pong { token } => {
            if let Ok(n) = token.parse() {
                shared.pongs.lock().insert(n, Instant::now());
                shared.pong_cv.notify_all();
            }
        },
        // The bridge never sends these; a bridge that does is ignored.
        Frame::Open { .. } | Frame::Close { .. } => {},
    }
}

/// Pings a silent link and ends one that stays silent: a host that stops
/// answering is marked lost within [`LOST_AFTER`].
pub(super) fn keepalive(shared: &Arc<Shared>) {
    // Silence counts once the bridge has spoken; until then the hello's own
    // deadline holds.
    if shared.wait_hello(HELLO_WITHIN).is_err() {
        return;
    }
    shared.heard();
    loop {
        if shared.lost.lock().is_some() {
            return;
        }
        let silent = shared.silent_for();
        if silent >= LOST_AFTER {
            let why = format!(
                "{}: not answering (silent for {} s)",
                shared.host.name,
                silent.as_secs()
            );
            shared.writer.lock().take();
            shared.kill();
            shared.end(&why);
            return;
        }
        if silent >= PING_AFTER {
            let token = shared.next_ping.fetch_add(1, Ordering::Relaxed);
            // A write that blocks on a stuck pipe must not stop the watch:
            // it is sent from its own short thread.
            let s = shared.clone();
            let _ = std::thread::Builder::new()
                .name("link-ping".into())
                .spawn(move || {
                    let _ = s.send(
                        &Frame::Ping {
                            token: &token.to_string(),
                        }
                        .encode(),
                    );
                });
        }
        let mut lost = shared.lost.lock();
        if lost.is_none() {
            let _ = shared
                .lost_cv
                .wait_for(&mut lost, Duration::from_millis(500));
        }
    }
}
