//! Tasks (docs/tasks.md): one orchestrated worker each, an agent pane in its
//! own git worktree. The pure parts: the contract and the worker's prompt
//! (`contract.rs`), the state machine (`machine.rs`), the starts under way
//! (`book.rs`), the queue (`queue.rs`), what `task.wait` waits for
//! (`wait.rs`) and the conflict radar's bookkeeping (`radar.rs`). The actor
//! and its workflows are `actors/task/`; the git steps are
//! `os/git/task_start.rs` and `os/git/task_finish.rs`.

pub mod book;
pub mod contract;
pub mod machine;
pub mod queue;
pub mod radar;
#[cfg(test)]
pub(crate) mod sample;
pub mod wait;
