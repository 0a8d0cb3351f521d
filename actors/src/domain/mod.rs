//! The pure models the actors drive: plain structs and functions with no
//! actix, no I/O and no clock of their own, unit-tested without a System. The
//! registry and the read model, the event ring and filters, the state engine,
//! the task state machine, layouts, launches and the checkout reservations.

pub mod ages;
pub mod ask;
pub mod autocontinue;
pub mod events;
pub mod hibernate;
pub mod launch;
pub mod launch_tree;
pub mod layout;
pub mod projection;
pub mod registry;
pub mod slug;
pub mod state;
pub mod task;
pub mod turns;
pub mod waits;
pub mod worktrees;
