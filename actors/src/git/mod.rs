//! Git for workspaces, tasks, worktrees and diffs: a cheap probe that reads
//! `.git` directly (`probe.rs`), and the one way the server runs git
//! (`run.rs`: its own process group, no prompt, a deadline, bounded output).

mod probe;
pub mod run;
pub mod worktree;

pub use probe::probe;
pub use run::{Git, GitError, GitOutput};

#[cfg(test)]
mod tests;
