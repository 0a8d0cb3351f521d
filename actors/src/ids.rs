//! The server's own ids (a connection's [`ConnId`]) and the random bits of
//! new wire ids, from the operating system's generator. The wire ids
//! themselves (`PaneId`, `TaskId`, …) are the protocol crate's.

/// Identifies one client connection for the life of the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConnId(pub u64);

/// 128 random bits. Falls back to time and a counter only if the OS generator
/// fails, which on Linux it does not once the system has booted.
pub fn random_u128() -> u128 {
    let mut buf = [0u8; 16];
    if getrandom::fill(&mut buf).is_ok() {
        return u128::from_le_bytes(buf);
    }
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    nanos
        ^ (u128::from(COUNTER.fetch_add(1, Ordering::Relaxed)) << 64)
        ^ u128::from(std::process::id())
}
