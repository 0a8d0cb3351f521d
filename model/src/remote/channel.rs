//! One protocol connection over a host's link: its reading half hands the
//! channel's lines on as bytes and gives credit back as they are read; its
//! writing half sends whole lines while the channel has credit. The channel
//! is closed when both halves are gone.

use super::link::{Chan, Shared};
use super::mux::{self, Frame};
use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Both halves of one channel hold this; the channel is closed when both
/// are gone.
struct Handle {
    shared: Arc<Shared>,
    chan: Arc<Chan>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        let open = self.chan.state.lock().closed.is_none();
        self.shared.channels.lock().remove(&self.chan.id);
        if open {
            let _ = self
                .shared
                .send(&Frame::Close { ch: self.chan.id }.encode());
        }
    }
}

/// One protocol connection over a link.
pub struct Channel {
    handle: Arc<Handle>,
}

impl Channel {
    pub(super) fn new(shared: Arc<Shared>, chan: Arc<Chan>) -> Channel {
        Channel {
            handle: Arc::new(Handle { shared, chan }),
        }
    }

    /// The reading and the writing half.
    pub fn split(self) -> (ChannelReader, ChannelWriter) {
        (
            ChannelReader {
                handle: self.handle.clone(),
                timeout: None,
            },
            ChannelWriter {
                handle: self.handle,
                pending: Vec::new(),
            },
        )
    }
}

/// The reading half: the channel's lines as a byte stream.
pub struct ChannelReader {
    handle: Arc<Handle>,
    timeout: Option<Duration>,
}

impl ChannelReader {
    /// How long a read may wait; `None`: forever. A read that times out
    /// fails with `WouldBlock`, as a socket's does.
    pub fn set_timeout(&mut self, timeout: Option<Duration>) {
        self.timeout = timeout;
    }
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let chan = &self.handle.chan;
        let deadline = self.timeout.map(|t| Instant::now() + t);
        let mut st = chan.state.lock();
        loop {
            if !st.lines.is_empty() {
                break;
            }
            if let Some(why) = st.closed.clone() {
                if why.is_empty() || st.reported {
                    return Ok(0);
                }
                st.reported = true;
                return Err(match st.error.clone() {
                    // The link's own failure, kind and all.
                    Some(e) => std::io::Error::other(e),
                    None => std::io::Error::new(std::io::ErrorKind::NotConnected, why),
                });
            }
            match deadline {
                Some(d) => {
                    if chan.cv.wait_until(&mut st, d).timed_out() && st.lines.is_empty() {
                        if st.closed.is_some() {
                            continue;
                        }
                        return Err(std::io::ErrorKind::WouldBlock.into());
                    }
                },
                None => chan.cv.wait(&mut st),
            }
        }
        let pos = st.pos;
        let (n, done, cost) = match st.lines.front() {
            Some(front) => {
                let bytes = front.as_bytes();
                if pos < bytes.len() {
                    let n = (bytes.len() - pos).min(buf.len());
                    buf[..n].copy_from_slice(&bytes[pos..pos + n]);
                    (n, false, 0)
                } else {
                    buf[0] = b'\n';
                    (1, true, mux::cost(front))
                }
            },
            None => (0, false, 0),
        };
        let give = if done {
            st.lines.pop_front();
            st.pos = 0;
            st.recv.consumed(cost)
        } else {
            st.pos += n;
            None
        };
        drop(st);
        if let Some(bytes) = give {
            let _ = self
                .handle
                .shared
                .send(&Frame::Credit { ch: chan.id, bytes }.encode());
        }
        Ok(n)
    }
}

/// The writing half: whole lines become data frames, sent while the
/// channel has credit.
pub struct ChannelWriter {
    handle: Arc<Handle>,
    pending: Vec<u8>,
}

impl ChannelWriter {
    /// Closes the channel now: the server sees its connection close, and the
    /// reading half ends.
    pub fn shutdown(&self) {
        let chan = &self.handle.chan;
        let open = chan.state.lock().closed.is_none();
        if open {
            let _ = self
                .handle
                .shared
                .send(&Frame::Close { ch: chan.id }.encode());
            chan.close("");
        }
    }

    fn send_line(&self, line: &str) -> std::io::Result<()> {
        let chan = &self.handle.chan;
        let mut st = chan.state.lock();
        loop {
            if let Some(e) = &st.error {
                return Err(std::io::Error::other(e.clone()));
            }
            if let Some(why) = &st.closed {
                let why = if why.is_empty() {
                    "the server closed the connection"
                } else {
                    why
                };
                return Err(std::io::Error::new(
                    std::io::ErrorKind::BrokenPipe,
                    why.to_owned(),
                ));
            }
            if st.send.open() {
                break;
            }
            chan.cv.wait(&mut st);
        }
        st.send.sent(mux::cost(line));
        drop(st);
        self.handle
            .shared
            .send(&Frame::Data { ch: chan.id, line }.encode())
            .map_err(std::io::Error::other)
    }
}

impl Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            let text = String::from_utf8_lossy(&line[..end]);
            let text = text.trim_end_matches('\r');
            if !text.is_empty() {
                self.send_line(text)?;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
