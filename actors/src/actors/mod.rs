//! The actors: each owns one piece of the server's state and the workflows
//! that change it, and is reached only by typed messages (docs/ARCHITECTURE.md,
//! "Who owns what"). One actor per file or folder, its messages beside it.

pub mod arbiters;
pub mod connection;
pub mod decision;
pub mod directory;
pub mod pane;
pub mod publish;
pub mod radar;
pub mod services;
pub mod submit;
pub mod subscriber;
pub mod supervisor;
pub mod task;
pub mod workspace;
pub mod worktrees;
