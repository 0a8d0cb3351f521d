//! The C allocator's settings for a process that runs for weeks
//! (docs/reliability.md#what-the-soak-found).
//!
//! glibc's malloc, left at its defaults, let the server's resident memory
//! climb under a steady load while what it held stayed flat: its threshold
//! for serving a large block with its own mapping rises each time such a
//! block is freed, so the server's short-lived large buffers (a replay's
//! batches, a burst of terminal output, a long reply) end up carved out of
//! the heaps, and the holes they leave are not reused well by the many
//! small allocations around them; and every thread that allocates may get
//! an arena of its own, each with such holes. The settings below keep large
//! blocks in mappings of their own (returned to the system when freed), give
//! free memory at the top of a heap back sooner, and share two arenas
//! between all threads. The soak measures the difference.
//!
//! A variable the user set for glibc's malloc (`MALLOC_ARENA_MAX`,
//! `MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_`, or `glibc.malloc`
//! tunables in `GLIBC_TUNABLES`) wins: then nothing is changed.

// The workspace denies `unsafe_code`: `mallopt` is a C function, and calling
// one is unsafe. The one unsafe block carries a `// SAFETY:` comment.
#![allow(unsafe_code)]

/// Blocks from this size up get a mapping of their own.
pub const MMAP_THRESHOLD: i32 = 128 * 1024;
/// Free memory past this much at the top of a heap goes back to the system.
pub const TRIM_THRESHOLD: i32 = 128 * 1024;
/// The arenas all threads share.
pub const ARENA_MAX: i32 = 2;

/// Whether the environment already tunes glibc's malloc.
pub fn user_tuned(var: impl Fn(&str) -> Option<String>) -> bool {
    [
        "MALLOC_ARENA_MAX",
        "MALLOC_MMAP_THRESHOLD_",
        "MALLOC_TRIM_THRESHOLD_",
    ]
    .iter()
    .any(|name| var(name).is_some())
        || var("GLIBC_TUNABLES").is_some_and(|t| t.contains("glibc.malloc."))
}

/// Applies the settings, unless the environment tunes malloc itself; says
/// what it did, for the log.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn tune() -> String {
    if user_tuned(|name| std::env::var(name).ok()) {
        return "malloc: left as the environment sets it".to_owned();
    }
    let settings = [
        (libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD, "mmap_threshold"),
        (libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD, "trim_threshold"),
        (libc::M_ARENA_MAX, ARENA_MAX, "arena_max"),
    ];
    let mut said = Vec::new();
    for (param, value, name) in settings {
        // SAFETY: `mallopt` only changes the allocator's parameters; it takes
        // two integers, touches no memory of ours, and is safe to call from
        // any thread at any time (glibc takes its own locks).
        let ok = unsafe { libc::mallopt(param, value) } == 1;
        said.push(if ok {
            format!("{name}={value}")
        } else {
            format!("{name} refused")
        });
    }
    format!("malloc: {}", said.join(", "))
}

/// How many panes gone since the last [`give_back`] make it worth one: a
/// thousand idle panes hold tens of MB of heap that stays resident once they
/// close, until the allocator is asked to return it.
const PANES_WORTH_GIVING_BACK: usize = 32;

/// Panes whose actor stopped since the last time [`panes_went_away`] said yes.
static GONE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Counts a pane whose actor stopped (closed, or its workspace closed).
pub fn pane_went_away() {
    GONE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// Whether enough panes went away since this last said yes that freed memory
/// should go back to the system. Counted as they go, not sampled: a thousand
/// panes opened and closed between two looks still count.
pub fn panes_went_away() -> bool {
    went_away(&GONE)
}

/// [`panes_went_away`] over the count in `gone`.
fn went_away(gone: &std::sync::atomic::AtomicUsize) -> bool {
    use std::sync::atomic::Ordering::Relaxed;
    // One step, so a pane counted between a look and a reset is not lost.
    gone.fetch_update(Relaxed, Relaxed, |n| {
        (n >= PANES_WORTH_GIVING_BACK).then_some(0)
    })
    .is_ok()
}

/// Returns the heap's free pages to the system (`malloc_trim(0)`): glibc only
/// gives back the top of a heap by itself. It walks every arena under its
/// lock: for a blocking thread, after many panes closed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn give_back() {
    // SAFETY: malloc_trim takes an integer, touches no memory of ours and takes
    // the allocator's own locks; it is safe from any thread at any time.
    unsafe { libc::malloc_trim(0) };
}

/// Another C library: nothing to ask.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn give_back() {}

/// Another C library: its allocator is left as it is.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn tune() -> String {
    "malloc: not glibc's, left as it is".to_owned()
}

#[cfg(test)]
mod tests {
    use super::{PANES_WORTH_GIVING_BACK, user_tuned, went_away};

    #[test]
    fn memory_goes_back_once_enough_panes_went_away() {
        use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
        let gone = AtomicUsize::new(0);
        assert!(!went_away(&gone));
        gone.fetch_add(PANES_WORTH_GIVING_BACK - 1, Relaxed);
        assert!(!went_away(&gone));
        gone.fetch_add(1, Relaxed);
        assert!(went_away(&gone));
        // Counted again from nothing.
        assert!(!went_away(&gone));
        gone.fetch_add(1000, Relaxed);
        assert!(went_away(&gone));
    }

    #[test]
    fn a_malloc_variable_of_the_user_leaves_the_allocator_alone() {
        assert!(!user_tuned(|_| None));
        assert!(!user_tuned(
            |n| (n == "GLIBC_TUNABLES").then(|| "glibc.pthread.rseq=0".to_owned())
        ));
        assert!(user_tuned(
            |n| (n == "MALLOC_ARENA_MAX").then(|| "4".to_owned())
        ));
        assert!(user_tuned(
            |n| (n == "MALLOC_MMAP_THRESHOLD_").then(|| "65536".to_owned())
        ));
        assert!(user_tuned(|n| {
            (n == "GLIBC_TUNABLES").then(|| "glibc.malloc.arena_max=1".to_owned())
        }));
    }
}
