//! Where a pane's terminal spends its heap (docs/performance.md#memory-per-idle-pane):
//! a counting allocator, per thread, measures what each part of a
//! [`Terminal`] holds, and the tests fail when a blank or idle terminal
//! holds more than its lazily allocated parts should.

// The workspace denies `unsafe_code`: a global allocator is an `unsafe impl`
// that forwards to the system allocator; each block says why it is sound.
#![allow(unsafe_code)]

use super::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting the bytes each thread holds.
struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    // During a thread's teardown the counter may be gone: nothing to count then.
    let _ = LIVE.try_with(|live| live.set(live.get() + delta));
}

// SAFETY: every method forwards to `System` with the same arguments and only
// adds the sizes to a thread-local counter, which allocates nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator (so from `System`) with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        count(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`, and `new_size` is the caller's valid size.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        new
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The heap bytes this thread holds now.
pub(super) fn live() -> isize {
    LIVE.with(Cell::get)
}

/// What `make` returns, with the heap bytes it holds (what making it left
/// allocated on this thread).
pub(super) fn held<T>(make: impl FnOnce() -> T) -> (T, isize) {
    let before = live();
    let value = make();
    (value, live() - before)
}

/// What bash (`--norc --noprofile`, bracketed paste on) prints at start on an
/// 80 × 24 terminal: the idle pane of the memory benchmark.
pub(super) const BASH_PROMPT: &[u8] = b"\x1b[?2004hbash-5.2$ ";

/// A terminal that does not check its ring after every batch (the checks
/// allocate, which is not what is measured).
fn unchecked(rows: u16, cols: u16) -> Terminal {
    let mut term = Terminal::new(rows, cols);
    term.checks.verify = false;
    term
}

/// The bytes of the grid's row headers alone: what a grid of blank rows holds.
fn rows_only(rows: usize) -> usize {
    rows * size_of::<super::grid::Row>()
}

#[test]
fn print_where_an_idle_terminal_spends_its_heap() {
    let (screen, screen_bytes) = held(|| Screen::new(24, 80));
    let (ring, ring_bytes) = held(|| RenderedRing::new(24));
    let (scanner, scanner_bytes) = held(OscScanner::new);
    let (mut term, new_bytes) = held(|| unchecked(24, 80));
    let before = live();
    let _ = term.feed(BASH_PROMPT);
    let prompt_bytes = live() - before;
    let (mut busy, _) = held(|| unchecked(24, 80));
    let before = live();
    for i in 0..200 {
        let _ = busy.feed(format!("line {i} {}\r\n", "x".repeat(70)).as_bytes());
    }
    let _ = busy.feed(b"\x1b[H\x1b[2J");
    let cleared_bytes = live() - before;
    busy.shrink_to_fit();
    let shrunk_bytes = live() - before;
    println!(
        "inline: Terminal {} B (vte::Parser {} B)",
        size_of::<Terminal>(),
        size_of::<crate::term::Parser>()
    );
    println!("heap of an 80 x 24 terminal:");
    println!("  screen (grid) new       {screen_bytes:>7} B");
    println!("  rendered ring new       {ring_bytes:>7} B");
    println!("  OSC scanner new         {scanner_bytes:>7} B");
    println!("  Terminal::new in all    {new_bytes:>7} B");
    println!("  + the bash prompt       {prompt_bytes:>7} B");
    println!("  200 lines then clear    {cleared_bytes:>7} B (ring history included)");
    println!("  ... then shrink_to_fit  {shrunk_bytes:>7} B");
    drop((screen, ring, scanner));
}

#[test]
fn a_blank_terminal_allocates_no_cells() {
    let (term, bytes) = held(|| unchecked(24, 80));
    assert_eq!(term.screen.heap_bytes(), rows_only(24));
    // Row headers, the ring's 24 empty lines and the `Arc` around the ring:
    // 32 968 bytes while the grid's cells were allocated up front.
    assert!(bytes < 3 * 1024, "a blank terminal holds {bytes} bytes");
}

#[test]
fn an_idle_prompt_stores_only_its_own_cells() {
    let mut term = unchecked(24, 80);
    let _ = term.feed(BASH_PROMPT);
    assert_eq!(term.screen_text(), "bash-5.2$");
    let grid = term.screen.cell_bytes();
    assert!(
        grid <= 16 * size_of::<super::grid::Cell>(),
        "the prompt's row holds {grid} bytes"
    );
    term.shrink_to_fit();
    // Its ten cells at most (the space after `$` is an unstyled blank).
    let grid = term.screen.cell_bytes();
    assert!(grid <= 10 * size_of::<super::grid::Cell>(), "{grid} bytes");
}

#[test]
fn writing_then_clearing_gives_the_rows_back_on_shrink() {
    let mut term = unchecked(24, 80);
    for i in 0..24 {
        let _ = term.feed(format!("{i:>79}\r\n").as_bytes());
    }
    let full = term.screen.heap_bytes();
    assert!(full >= rows_only(24) + 23 * 80 * size_of::<super::grid::Cell>());
    let _ = term.feed(b"\x1b[H\x1b[2J");
    assert_eq!(term.screen_text(), "");
    // Erasing keeps the allocations for the next lines, until the pane is quiet.
    assert_eq!(term.screen.heap_bytes(), full);
    term.shrink_to_fit();
    assert_eq!(term.screen.heap_bytes(), rows_only(24));
    let _ = term.feed(b"again");
    assert_eq!(term.screen_text(), "again");
}

#[test]
fn scrolling_reuses_the_rows_without_allocating() {
    let mut term = unchecked(24, 80);
    let line = format!("{}\r\n", "y".repeat(80));
    for _ in 0..30 {
        let _ = term.feed(line.as_bytes());
    }
    let grid = term.screen.heap_bytes();
    for _ in 0..1000 {
        let _ = term.feed(line.as_bytes());
    }
    assert_eq!(term.screen.heap_bytes(), grid);
}

#[test]
fn resizing_adds_rows_that_allocate_nothing() {
    let mut term = unchecked(24, 80);
    let _ = term.feed(b"one\r\ntwo");
    term.shrink_to_fit();
    let before = term.screen.cell_bytes();
    term.resize(50, 120);
    let cells = size_of::<super::grid::Cell>();
    assert_eq!(term.screen.heap_bytes(), rows_only(50) + before);
    assert_eq!(before, 6 * cells, "three cells a line");
    term.resize(24, 2);
    assert_eq!(term.screen_text(), "on\ntw");
    assert!(term.screen.cell_bytes() <= 6 * cells);
}

#[test]
fn the_alternate_screen_holds_only_what_it_draws() {
    let mut term = unchecked(24, 80);
    let _ = term.feed(b"main");
    let main = term.screen.heap_bytes();
    let _ = term.feed(b"\x1b[?1049h\x1b[12;1Halt");
    assert!(term.alternate_screen());
    let alt = term.screen.heap_bytes() - main;
    assert!(
        alt <= rows_only(24) + 16 * size_of::<super::grid::Cell>(),
        "a one-word alternate screen holds {alt} bytes"
    );
    let _ = term.feed(b"\x1b[?1049l");
    assert_eq!(term.screen.heap_bytes(), main);
    assert_eq!(term.screen_text(), "main");
}

#[test]
fn an_erase_in_a_background_colour_stores_its_cells() {
    let mut term = unchecked(24, 80);
    let _ = term.feed(b"\x1b[41m\x1b[2K\x1b[0m");
    let row = term.styled_row(0);
    assert_eq!(row.len(), 80);
    assert!(
        row.iter()
            .all(|c| c.ch == ' ' && c.bg == CellColor::Indexed(1))
    );
    let _ = term.feed(b"\x1b[2K");
    term.shrink_to_fit();
    assert_eq!(term.screen.heap_bytes(), rows_only(24));
    assert!(
        term.styled_row(0)
            .iter()
            .all(|c| c.bg == CellColor::Default)
    );
}

#[test]
fn a_full_ring_reserves_no_more_than_it_holds() {
    let mut term = unchecked(24, 80);
    for i in 0..6000 {
        let _ = term.feed(format!("{i}\r\n").as_bytes());
    }
    let ring = term.ring.lock();
    assert_eq!(ring.len(), RING_LINES);
    let lines = ring.heap_bytes();
    // 5000 lines of about 4 bytes and 32 bytes of header each, not the 8192
    // headers a doubling history would reserve.
    assert!(
        lines < (RING_LINES + 64) * 40,
        "a full ring holds {lines} bytes"
    );
}
