//! Which tasks have an actor, and the starts under way
//! (docs/tasks.md#the-parallel-task-cap, docs/tasks.md#repeated-starts): the
//! cap's reservations and the idempotency keys being started. A plain struct
//! the Supervisor owns.

use std::collections::{HashMap, HashSet};

/// The tasks' actors and the starts under way; `A` is the actor's address.
#[derive(Debug)]
pub struct TaskBook<A> {
    actors: HashMap<signaltty_protocol::TaskId, A>,
    /// Starts that hold a slot of the cap but have not committed a task yet.
    starting: usize,
    /// Idempotency keys whose start is under way.
    keys: HashSet<String>,
}

impl<A> Default for TaskBook<A> {
    fn default() -> Self {
        TaskBook {
            actors: HashMap::new(),
            starting: 0,
            keys: HashSet::new(),
        }
    }
}

/// The cap is reached: `(active_tasks, max_parallel_tasks)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapReached(pub usize, pub usize);

impl<A> TaskBook<A> {
    /// Takes a slot of the cap for a start, given how many tasks are not
    /// terminal: refused when those and the starts under way reach `cap`.
    pub fn reserve(&mut self, active: usize, cap: usize) -> Result<(), CapReached> {
        let busy = active + self.starting;
        if busy >= cap {
            return Err(CapReached(busy, cap));
        }
        self.starting += 1;
        Ok(())
    }

    /// Gives a slot back: the start failed, or its task is committed (and
    /// counts as active from then on).
    pub fn release(&mut self) {
        self.starting = self.starting.saturating_sub(1);
    }

    /// Claims an idempotency key for a start; `false` if one is under way.
    pub fn claim_key(&mut self, key: &str) -> bool {
        self.keys.insert(key.to_owned())
    }

    /// Frees a claimed key.
    pub fn free_key(&mut self, key: &str) {
        self.keys.remove(key);
    }

    /// Registers a task's actor.
    pub fn insert(&mut self, id: signaltty_protocol::TaskId, actor: A) {
        self.actors.insert(id, actor);
    }

    /// Forgets the actor of a start that ended before its task was
    /// committed.
    pub fn remove(&mut self, id: &signaltty_protocol::TaskId) -> Option<A> {
        self.actors.remove(id)
    }

    /// A task's actor.
    pub fn get(&self, id: &signaltty_protocol::TaskId) -> Option<&A> {
        self.actors.get(id)
    }
}

#[cfg(test)]
mod tests;
