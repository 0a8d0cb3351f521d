//! The web and phone view (issue 29, under way): a client of the local
//! server like the board. So far only its access rules are built
//! ([`access`]): pairing codes, sessions, CSRF, the wrong-code limit.

pub mod access;
