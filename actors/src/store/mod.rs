//! What the server keeps on disk: the journal's writer (`journal/`), the
//! snapshot and the panes' history tails (`snapshot/`), and the restore that
//! rebuilds the world from them at start (`restore.rs`). The formats, as
//! readers see them, are in signaltty-model.

pub mod health;
pub mod journal;
pub mod restore;
pub mod snapshot;
