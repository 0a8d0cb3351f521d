//! The server's own machine code in memory (docs/performance-pty.md#the-servers-own-code).
//!
//! The binary carries every client beside the server (the CLI, the board, the
//! web view), and the kernel maps a program's code 64 KiB around each page it
//! first runs ("fault-around"). A started server therefore kept about 8 MB of
//! code pages it had touched once or never, more than everything it allocates
//! with a hundred idle panes. Once it is up, the server tells the kernel to map
//! its code page by page from then on and lets go of what is mapped: the pages
//! it runs come back as they run (from the page cache, a minor fault each),
//! and its resident code is the code it uses.
//!
//! Only the executable mapping of the server's own file is touched: it is
//! never written (no text relocations in a Rust binary), so dropping a page
//! loses nothing. Read-only data stays alone: its relocated part is private
//! memory that must not be reverted to the file's bytes.

// The workspace denies `unsafe_code`: `madvise` is a C function. The unsafe
// block carries a `// SAFETY:` comment.
#![allow(unsafe_code)]

/// One mapping of `/proc/self/maps`: its range and whether it is executable
/// code of `path`.
fn code_ranges(maps: &str, exe: &str) -> Vec<(usize, usize)> {
    maps.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let range = fields.next()?;
            let perms = fields.next()?;
            let path = fields.nth(3)?;
            if perms != "r-xp" || path != exe {
                return None;
            }
            let (start, end) = range.split_once('-')?;
            let start = usize::from_str_radix(start, 16).ok()?;
            let end = usize::from_str_radix(end, 16).ok()?;
            (end > start).then_some((start, end - start))
        })
        .collect()
}

/// Makes the server's code page in page by page and drops what is mapped of
/// it now; says what it did, for the log.
pub fn shed_unused_code() -> String {
    let exe = match std::fs::read_link("/proc/self/exe") {
        Ok(p) => p.display().to_string(),
        Err(e) => return format!("code: left as it is ({e})"),
    };
    let maps = match std::fs::read_to_string("/proc/self/maps") {
        Ok(m) => m,
        Err(e) => return format!("code: left as it is ({e})"),
    };
    let ranges = code_ranges(&maps, &exe);
    let mut shed = 0;
    for (start, len) in &ranges {
        let addr = *start as *mut libc::c_void;
        // SAFETY: `addr..addr+len` is a whole executable mapping of this
        // process's own file, read from /proc/self/maps just now; it is never
        // written, so MADV_RANDOM (no fault-around) and MADV_DONTNEED (drop the
        // pages; the next access maps the file's page again, byte for byte the
        // same) change what is resident and nothing a thread can observe.
        let ok = unsafe {
            libc::madvise(addr, *len, libc::MADV_RANDOM) == 0
                && libc::madvise(addr, *len, libc::MADV_DONTNEED) == 0
        };
        if ok {
            shed += len;
        }
    }
    format!(
        "code: {} kB of the server's code mapped page by page as it runs",
        shed / 1024
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_executable_mappings_of_the_file_are_picked() {
        let maps = "\
55a5eef93000-55a5ef440000 r--p 00000000 fe:00 5383031 /usr/bin/signaltty
55a5ef440000-55a5f0281000 r-xp 004ac000 fe:00 5383031 /usr/bin/signaltty
55a5f0281000-55a5f0305000 r--p 012ec000 fe:00 5383031 /usr/bin/signaltty
55a5f0305000-55a5f0308000 rw-p 0136f000 fe:00 5383031 /usr/bin/signaltty
7fee009dc000-7fee00b32000 r-xp 00028000 fe:00 1234 /usr/lib/x86_64-linux-gnu/libc.so.6
7ffd1000-7ffd2000 r-xp 00000000 00:00 0 [vdso]
";
        assert_eq!(
            code_ranges(maps, "/usr/bin/signaltty"),
            [(0x55a5ef440000, 0x55a5f0281000 - 0x55a5ef440000)]
        );
    }

    #[test]
    fn shedding_the_code_keeps_it_running_and_resident_code_shrinks() {
        /// The resident kB of this test binary's executable mappings.
        fn code_rss_kb() -> u64 {
            let exe = std::fs::read_link("/proc/self/exe").expect("exe");
            let exe = exe.to_string_lossy();
            let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
            let mut total = 0;
            let mut ours = false;
            for line in smaps.lines() {
                let first = line.split_whitespace().next().unwrap_or("");
                if first.contains('-') && first.chars().all(|c| c == '-' || c.is_ascii_hexdigit()) {
                    // A mapping's header line.
                    ours = line.contains(" r-xp ") && line.ends_with(&*exe);
                } else if let Some(rss) = line.strip_prefix("Rss:")
                    && ours
                {
                    let kb = rss.trim().trim_end_matches("kB").trim();
                    total += kb.parse::<u64>().unwrap_or(0);
                }
            }
            total
        }
        let before = code_rss_kb();
        let said = shed_unused_code();
        assert!(said.contains("page by page"), "{said}");
        // Code runs after the shed: this very test, the formatting, the
        // allocator and the file reads below.
        let after = code_rss_kb();
        assert!(after < before, "{before} kB before, {after} kB after");
        assert_eq!(format!("{}", 6 * 7), "42");
    }
}
