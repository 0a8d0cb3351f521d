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
    /// Queued tasks whose start is under way (docs/tasks.md#the-task-queue).
    launching: HashSet<signaltty_protocol::TaskId>,
    /// The creation time (ms) of the last task queued, so the queue's order
    /// is the order of the requests even within one millisecond.
    last_queued_ms: i64,
}

impl<A> Default for TaskBook<A> {
    fn default() -> Self {
        TaskBook {
            actors: HashMap::new(),
            starting: 0,
            keys: HashSet::new(),
            launching: HashSet::new(),
            last_queued_ms: 0,
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

    /// Slots held by starts under way.
    pub fn starting(&self) -> usize {
        self.starting
    }

    /// Takes a slot for the start of queued task `id`, which the queue
    /// decided has one.
    pub fn launch(&mut self, id: signaltty_protocol::TaskId) {
        self.starting += 1;
        self.launching.insert(id);
    }

    /// The start of `id` ended (committed or not).
    pub fn launched(&mut self, id: &signaltty_protocol::TaskId) {
        self.launching.remove(id);
    }

    /// Whether queued task `id` is being started.
    pub fn is_launching(&self, id: &signaltty_protocol::TaskId) -> bool {
        self.launching.contains(id)
    }

    /// The creation time of a task queued at `now_ms`: later than every
    /// task queued before it.
    pub fn queue_stamp(&mut self, now_ms: i64) -> i64 {
        self.last_queued_ms = now_ms.max(self.last_queued_ms + 1);
        self.last_queued_ms
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
