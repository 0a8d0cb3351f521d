//! Tasks (spec/tasks.md): one orchestrated worker each, an agent pane in its
//! own git worktree. The pure parts are plain modules with unit tests — the
//! contract and prompt (`contract.rs`), the state machine (`machine.rs`), the
//! starts under way (`book.rs`), the git steps of a start (`start.rs`) — and
//! each task has an actor (`actor.rs`) owning its machine. `task.*` methods
//! are routed in `router/tasks.rs`.

pub mod actor;
pub mod book;
pub mod contract;
pub mod finish;
pub mod machine;
pub mod start;

/// The book the server keeps.
pub type ServerTaskBook = book::TaskBook<actix::Addr<actor::TaskActor>>;
