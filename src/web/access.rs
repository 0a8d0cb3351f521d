//! Who may see the web view (docs/web.md#pairing): the pairing codes, the
//! paired browsers' sessions, their CSRF tokens and the rate limit on wrong
//! codes, as plain data with the clock given, so every rule is tested
//! without a server or a browser. Nothing secret is kept: codes and cookies
//! are held as SHA-256 hashes only and compared in constant time; a
//! session's CSRF token is derived from its cookie, so it is never stored
//! either, and a page served again after a restart gets the same token.

use sha2::{Digest, Sha256};
use std::collections::VecDeque;

/// How long a pairing code may be used (milliseconds).
pub const CODE_LIFETIME_MS: u64 = 10 * 60 * 1000;
/// Wrong codes allowed within [`FAILURE_WINDOW_MS`] before pairing is
/// refused until the oldest of them is out of the window.
pub const MAX_FAILURES: usize = 5;
/// See [`MAX_FAILURES`].
pub const FAILURE_WINDOW_MS: u64 = 60 * 1000;
/// Random bytes in a session cookie and in a CSRF token.
const SECRET_BYTES: usize = 32;
/// Random bytes in a pairing code (typed from a URL or a QR code).
const CODE_BYTES: usize = 16;
/// A session not used for this long ends (milliseconds: 30 days).
pub const IDLE_LIFETIME_MS: u64 = 30 * 24 * 60 * 60 * 1000;

/// A secret's hash: what is kept instead of the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct Hashed([u8; 32]);

impl Hashed {
    pub fn of(secret: &str) -> Hashed {
        Hashed(Sha256::digest(secret.as_bytes()).into())
    }

    /// As hex, for the sessions file.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Back from [`Hashed::to_hex`].
    pub fn from_hex(hex: &str) -> Option<Hashed> {
        if hex.len() != 64 || !hex.is_ascii() {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(Hashed(out))
    }

    /// Whether `secret` hashes to this, without an early exit on the first
    /// differing byte.
    pub fn matches(&self, secret: &str) -> bool {
        let other = Hashed::of(secret);
        self.0
            .iter()
            .zip(other.0.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
    }
}

impl std::fmt::Debug for Hashed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hashed(…)")
    }
}

/// Fresh randomness as lower-case hex: a code, a cookie, a token.
pub fn random_hex(bytes: usize) -> Result<String, String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| format!("no randomness: {e}"))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// One paired browser.
#[derive(Debug, Clone)]
pub struct Session {
    /// A short public id for `web sessions` and `web revoke ID`.
    pub id: String,
    /// What the browser said it is, for people.
    pub label: String,
    pub paired_at_ms: u64,
    pub seen_at_ms: u64,
    pub cookie: Hashed,
}

/// The CSRF token of the session whose cookie is `cookie`: a hash of it
/// under a label of its own, so the token can be handed to the page again
/// and checked without keeping it, and knowing it tells nothing of the
/// cookie.
pub fn csrf_of(cookie: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"signaltty web csrf\0");
    h.update(cookie.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// What a successful pairing hands the browser (never stored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paired {
    pub session_id: String,
    /// The session cookie's value.
    pub cookie: String,
    /// The token state-changing requests carry.
    pub csrf: String,
}

/// Why a pairing was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Too many wrong codes lately: try again after this many ms.
    RateLimited { retry_after_ms: u64 },
    /// Not a code that is open (wrong, used, or expired: not told apart).
    BadCode,
}

/// The access state of one web view process.
#[derive(Debug, Default)]
pub struct Access {
    /// Open codes and when each expires.
    codes: Vec<(Hashed, u64)>,
    sessions: Vec<Session>,
    failures: VecDeque<u64>,
}

impl Access {
    /// A new single-use pairing code, valid for [`CODE_LIFETIME_MS`].
    pub fn new_code(&mut self, now_ms: u64) -> Result<String, String> {
        let code = random_hex(CODE_BYTES)?;
        self.add_code(&code, now_ms);
        Ok(code)
    }

    fn add_code(&mut self, code: &str, now_ms: u64) {
        self.codes.retain(|(_, until)| *until > now_ms);
        self.codes
            .push((Hashed::of(code), now_ms + CODE_LIFETIME_MS));
    }

    /// Pairs a browser with `code`: the code is used up, a session begins.
    pub fn pair(&mut self, code: &str, label: &str, now_ms: u64) -> Result<Paired, Refused> {
        while self
            .failures
            .front()
            .is_some_and(|at| at + FAILURE_WINDOW_MS <= now_ms)
        {
            self.failures.pop_front();
        }
        if self.failures.len() >= MAX_FAILURES {
            let oldest = self.failures.front().copied().unwrap_or(now_ms);
            return Err(Refused::RateLimited {
                retry_after_ms: (oldest + FAILURE_WINDOW_MS).saturating_sub(now_ms),
            });
        }
        self.codes.retain(|(_, until)| *until > now_ms);
        let Some(at) = self.codes.iter().position(|(h, _)| h.matches(code)) else {
            self.failures.push_back(now_ms);
            return Err(Refused::BadCode);
        };
        self.codes.remove(at);
        let secret = |n| random_hex(n).map_err(|_| Refused::BadCode);
        let cookie = secret(SECRET_BYTES)?;
        let paired = Paired {
            session_id: secret(4)?,
            csrf: csrf_of(&cookie),
            cookie,
        };
        self.sessions.push(Session {
            id: paired.session_id.clone(),
            label: label.chars().take(120).collect(),
            paired_at_ms: now_ms,
            seen_at_ms: now_ms,
            cookie: Hashed::of(&paired.cookie),
        });
        Ok(paired)
    }

    /// The session a request's cookie belongs to (and notes it was seen).
    pub fn session(&mut self, cookie: &str, now_ms: u64) -> Option<&Session> {
        self.sessions
            .retain(|s| s.seen_at_ms + IDLE_LIFETIME_MS > now_ms);
        let s = self
            .sessions
            .iter_mut()
            .find(|s| s.cookie.matches(cookie))?;
        s.seen_at_ms = now_ms;
        Some(s)
    }

    /// Whether a state-changing request may go ahead: a live session's
    /// cookie, that session's CSRF token, and an allowed Origin.
    pub fn may_change(
        &mut self,
        cookie: &str,
        csrf: &str,
        origin: Option<&str>,
        allowed: &[String],
        now_ms: u64,
    ) -> bool {
        let origin_ok = origin.is_some_and(|o| allowed.iter().any(|a| a == o));
        match self.session(cookie, now_ms) {
            Some(_) => origin_ok && Hashed::of(&csrf_of(cookie)).matches(csrf),
            None => false,
        }
    }

    /// The sessions kept from an earlier run (the sessions file).
    pub fn with_sessions(sessions: Vec<Session>) -> Access {
        Access {
            sessions,
            ..Access::default()
        }
    }

    /// The paired browsers, oldest first.
    pub fn sessions(&self) -> &[Session] {
        &self.sessions
    }

    /// Ends the session `id`; whether there was one.
    pub fn revoke(&mut self, id: &str) -> bool {
        let before = self.sessions.len();
        self.sessions.retain(|s| s.id != id);
        self.sessions.len() != before
    }

    /// Ends every session; how many there were.
    pub fn revoke_all(&mut self) -> usize {
        std::mem::take(&mut self.sessions).len()
    }
}

#[cfg(test)]
mod tests;
