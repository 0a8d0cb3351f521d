//! The in-place upgrade (issue 19, docs/terminal.md "Exit"): the server hands
//! its terminals, children and socket to a new binary by `execve` in the same
//! process. Built step by step; what is here is what that needs first:
//!
//! - [`binary`]: the new binary is checked before anything is stopped, so a
//!   missing, non-executable or foreign-architecture file is a clear error
//!   and the old server keeps running ("never worse than a restart").

pub mod binary;
