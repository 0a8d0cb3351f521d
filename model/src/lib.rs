//! What the signaltty server and its clients both need and that serves
//! nothing: where things are ([`env`]) and every setting ([`settings`]), the
//! terminal model ([`term`]), agent manifests and screen rules ([`agents`]),
//! the hook installers ([`integration`]), the journal and snapshot as their
//! readers see them ([`journal`], [`snapshot`]), and the blocking protocol
//! client ([`client`]). The server crate (`signaltty-actors`) and the CLI,
//! the board, `attach` and the doctor all build on it; it depends on the
//! protocol crate alone.

pub mod agents;
pub mod client;
pub mod env;
#[cfg(test)]
mod generated;
pub mod integration;
pub mod journal;
pub mod remote;
pub mod settings;
pub mod snapshot;
pub mod term;

pub use env::{Env, SocketOrigin};
