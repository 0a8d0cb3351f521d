//! Remote hosts (docs/remote.md): every machine runs its own server, and a
//! client reaches another machine's through the user's OpenSSH running
//! `signaltty bridge --mux` there. [`hosts`] is the config file's table,
//! [`ssh`] how ssh is run, [`mux`] the frames of the link and their credit,
//! [`link`] the client's end of one link, [`channel`] one connection
//! over it, [`links`] one link per host per process.

pub mod channel;
pub mod hosts;
pub mod link;
pub mod links;
pub mod mux;
pub mod ssh;

pub use hosts::{Host, LOCAL};
pub use link::{Link, LinkError};
pub use links::Links;
