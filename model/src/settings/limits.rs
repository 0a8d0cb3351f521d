//! The server's queue bounds and deadlines, assembled from the settings
//! table (`knobs.rs`), whose defaults they start from.

use std::time::Duration;

/// The journal rotates `audit.jsonl` past this size (8 MiB).
pub const JOURNAL_ROTATE_BYTES: u64 = 8 * 1024 * 1024;
/// The most bytes of a pane's saved history tail (64 KiB).
pub const HISTORY_TAIL_BYTES: usize = 65_536;
/// The deadline of each git a `worktree.*` method runs (20 s).
pub const WORKTREE_GIT_DEADLINE: Duration = Duration::from_secs(20);
/// How long `task.finish`'s merge may take (120 s).
pub const MERGE_TIMEOUT: Duration = Duration::from_secs(120);

/// Queue bounds and deadlines. Tests shrink these rather than wait them out.
#[derive(Debug, Clone)]
pub struct Limits {
    /// A subscriber connection whose unwritten output passes this is closed.
    pub slow_subscriber_bytes: u64,
    /// Any connection whose unwritten output passes this is closed.
    pub max_queued_bytes: u64,
    /// Events kept in memory for replay.
    pub ring_events: usize,
    /// Events a subscriber's mailbox holds before it counts as lagging.
    pub subscriber_mailbox: usize,
    /// How long shutdown waits for connections to flush before stopping anyway.
    pub shutdown_grace: Duration,
    /// The journal rotates `audit.jsonl` past this size.
    pub journal_rotate_bytes: u64,
    /// Changes are refused while the state directory's filesystem has less
    /// free space than this (docs/reliability.md#a-full-disk: 1 MiB).
    pub state_dir_reserve_bytes: u64,
    /// State events held in memory while the state directory takes no
    /// writes; past it they are dropped and a `journal.gap` says so.
    pub hold_events: usize,
    /// How often live panes' processes are looked at in `/proc`
    /// (docs/agents.md#process-detection: 10 s; tests shorten it).
    pub process_refresh: Duration,
    /// How long a Cursor tool call runs before it counts as waiting for
    /// approval (docs/agents.md#cursor-approval-inference: 10 s; tests shorten
    /// it).
    pub cursor_approval_wait: Duration,
    /// How often a due snapshot is written
    /// (docs/persistence.md#when-a-snapshot-is-written: 2 s).
    pub snapshot_interval: Duration,
    /// The most bytes of a pane's saved history tail
    /// (docs/configuration.md#the-file: 64 KiB; `[history] tail_bytes`); a tail
    /// file holds about twice this.
    pub history_tail_bytes: usize,
    /// Auto-resume starts at most this many agents at once (`restore.max_parallel`).
    pub restore_max_parallel: usize,
    /// An auto-resumed agent counts as started once it reaches a prompt, or after this.
    pub restore_start_wait: Duration,
    /// Idle agents of a workspace that set nothing of its own are hibernated
    /// after this (`hibernate.after_s`); zero: never.
    pub hibernate_after: Duration,
    /// Auto-continue types its prompt this long after a usage limit's reset
    /// time (docs/states.md#auto-continue: 60 s; `auto_continue.margin_s`).
    pub auto_continue_margin: Duration,
    /// Tasks running (neither queued nor terminal, and starts under way) at
    /// most (docs/tasks.md#settings: `SIGNALTTY_MAX_PARALLEL_TASKS`,
    /// `--max-tasks`); more wait in docs/tasks.md#the-task-queue, 0 starts none.
    pub max_parallel_tasks: usize,
    /// A working task whose worker is silent this long needs input
    /// (docs/tasks.md#the-silent-worker-watchdog: 600 s;
    /// `SIGNALTTY_WORKER_SILENT_TIMEOUT_S`, `--worker-silent-timeout`); zero
    /// disables the watchdog.
    pub worker_silent_timeout: Duration,
    /// The deadline of each git a `worktree.*` method runs
    /// (docs/worktrees.md#running-git: 20 s; `SIGNALTTY_WORKTREE_TIMEOUT_MS`
    /// shortens it for tests).
    pub worktree_git_deadline: Duration,
    /// How long `task.finish`'s merge may take (docs/tasks.md#settings: 120 s;
    /// `SIGNALTTY_MERGE_TIMEOUT_MS`).
    pub merge_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            slow_subscriber_bytes: 4 * 1024 * 1024,
            max_queued_bytes: 64 * 1024 * 1024,
            ring_events: 1024,
            subscriber_mailbox: 4096,
            shutdown_grace: Duration::from_secs(3),
            journal_rotate_bytes: JOURNAL_ROTATE_BYTES,
            state_dir_reserve_bytes: 1024 * 1024,
            hold_events: 10_000,
            process_refresh: Duration::from_secs(10),
            cursor_approval_wait: Duration::from_secs(10),
            snapshot_interval: Duration::from_secs(2),
            history_tail_bytes: HISTORY_TAIL_BYTES,
            restore_max_parallel: 3,
            restore_start_wait: Duration::from_secs(10),
            hibernate_after: Duration::ZERO,
            auto_continue_margin: Duration::from_secs(60),
            max_parallel_tasks: 4,
            worker_silent_timeout: Duration::from_secs(600),
            worktree_git_deadline: WORKTREE_GIT_DEADLINE,
            merge_timeout: MERGE_TIMEOUT,
        }
    }
}
