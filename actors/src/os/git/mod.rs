//! Git for workspaces, tasks, worktrees and diffs: a cheap probe that reads
//! `.git` directly (`probe.rs`), and the one way the server runs git
//! (`run.rs`: its own process group, no prompt, a deadline, bounded output),
//! the `dirty` check (`status.rs`) and the read-only diffs (`diff/`).

pub mod diff;
mod probe;
pub mod radar;
pub mod run;
pub mod status;
pub mod task_finish;
pub mod task_start;
pub mod turns;
pub mod worktree;

pub use probe::probe;
pub use run::{Git, GitError};

#[cfg(test)]
mod tests;
