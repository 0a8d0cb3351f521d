//! Reading a master: what one readiness event takes in, up to `MAX_CHUNK_BYTES`
//! (docs/terminal.md#the-output-path).

use super::{MAX_CHUNK_BYTES, READ_CHUNK_BYTES};
use nix::errno::Errno;
use nix::unistd;
use std::os::fd::OwnedFd;

/// A read shorter than this ends the chunk.
const SHORT_READ: usize = 2048;

/// Why a read stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// The chunk reached `MAX_CHUNK_BYTES`: more may be waiting.
    Full,
    /// The master has nothing more now (`EAGAIN`).
    Drained,
    /// EOF or EIO (how a master says the last slave descriptor closed), or an
    /// error treated as one.
    End,
}

/// Appends what the master has ready now (the master is non-blocking) to `buf`,
/// up to `MAX_CHUNK_BYTES`, and says why it stopped. A short read ends it as
/// `Drained` without the read that would confirm it.
pub(super) fn read_more(master: &OwnedFd, buf: &mut Vec<u8>) -> Stop {
    while buf.len() < MAX_CHUNK_BYTES {
        let have = buf.len();
        let want = READ_CHUNK_BYTES.min(MAX_CHUNK_BYTES - have);
        buf.resize(have + want, 0);
        let read = unistd::read(master, &mut buf[have..]);
        buf.truncate(have + *read.as_ref().unwrap_or(&0));
        match read {
            Ok(0) | Err(Errno::EIO) => return Stop::End,
            // A short read has almost surely emptied the master: skip the read
            // that would say EAGAIN (a spinner's redraw is one small read). If
            // more came meanwhile, the level-triggered epoll reports it again.
            Ok(n) if n < SHORT_READ => return Stop::Drained,
            Ok(_) | Err(Errno::EINTR) => {},
            Err(Errno::EAGAIN) => return Stop::Drained,
            Err(e) => {
                log::warn!("pty: read failed, treating it as EOF: {e}");
                return Stop::End;
            },
        }
    }
    Stop::Full
}
