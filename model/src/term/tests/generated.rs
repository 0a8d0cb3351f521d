//! Generated streams with shrinking: any bytes in any chunking keep the
//! terminal's invariants and give the screen of the whole stream, and on
//! text, line breaks, cursor moves, erases and colours the grid shows what
//! the `vt100` emulator shows.

use super::*;
use crate::generated::config;
use proptest::prelude::*;

/// Bytes biased towards what drives the parser: escapes, CSI parameters and
/// finals, C1 controls and UTF-8 lead bytes.
fn noisy_bytes(max_len: usize) -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        2 => Just(0x1b),
        2 => proptest::sample::select(&b"\r\n[]?;0123456789HJKmlhr\x07\x9b\x9d\xc3\xe6\xf0"[..]),
        5 => any::<u8>(),
    ];
    proptest::collection::vec(byte, 0..max_len)
}

/// Sorted cut positions in `0..=len`.
fn cuts(len: usize, at: &[prop::sample::Index]) -> Vec<usize> {
    let mut cuts: Vec<usize> = at.iter().map(|i| i.index(len + 1)).collect();
    cuts.sort_unstable();
    cuts
}

/// Feeds `bytes` cut at `cuts`, checking the invariants after every chunk.
fn fed_in_chunks(
    rows: u16,
    cols: u16,
    bytes: &[u8],
    cuts: &[usize],
) -> Result<Terminal, TestCaseError> {
    let mut term = Terminal::new(rows, cols);
    term.checks.verify = false;
    let mut start = 0;
    for &cut in cuts.iter().chain(std::iter::once(&bytes.len())) {
        term.feed(&bytes[start..cut]);
        start = cut;
        let (row, col) = term.screen.cursor_position();
        prop_assert!(row < usize::from(rows) && col <= usize::from(cols));
        prop_assert_eq!(term.size(), (rows, cols));
        let grid = term.screen.grid();
        prop_assert_eq!(
            (grid.rows(), grid.cols()),
            (usize::from(rows), usize::from(cols))
        );
        prop_assert_eq!(
            term.screen.check(usize::from(rows), usize::from(cols)),
            Ok(())
        );
        prop_assert!(term.ring_len() <= RING_LINES);
        term.verify_now();
    }
    Ok(term)
}

/// One piece of the output both emulators agree on.
fn vt_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[ -~]{1,30}",
        2 => Just("\r\n".to_owned()),
        1 => Just("\r".to_owned()),
        1 => Just("\n".to_owned()),
        1 => (1u16..30, 1u16..100).prop_map(|(r, c)| format!("\x1b[{r};{c}H")),
        1 => Just("\x1b[H".to_owned()),
        1 => (0u16..12, proptest::sample::select(&["C", "D"][..]))
            .prop_map(|(n, d)| format!("\x1b[{n}{d}")),
        // Up and down end a pending wrap in xterm and tmux, and so in the
        // grid (docs/terminal.md#the-grid), not in `vt100`: they start from a
        // column.
        1 => (0u16..12, proptest::sample::select(&["A", "B"][..]), 1u16..100)
            .prop_map(|(n, d, c)| format!("\x1b[{c}G\x1b[{n}{d}")),
        1 => proptest::sample::select(&["", "0", "1", "2"][..]).prop_map(|p| format!("\x1b[{p}J")),
        1 => proptest::sample::select(&["", "0", "1", "2"][..]).prop_map(|p| format!("\x1b[{p}K")),
        1 => proptest::sample::select(&["0", "1", "4", "7", "31", "1;32", "38;5;208", "48;2;1;2;3", ""][..])
            .prop_map(|p| format!("\x1b[{p}m")),
    ]
}

proptest! {
    // Three kilobytes a case fed twice, checked after every chunk: fewer cases
    // keep it under two seconds in a debug build.
    #![proptest_config(config(48))]

    /// Any bytes, any size, any chunking: no panic, the cursor on the grid,
    /// the size unchanged, the ring within its cap and mirroring the grid, and
    /// the screen of the whole stream fed at once.
    #[test]
    fn any_bytes_in_any_chunking_keep_the_invariants(
        rows in 1u16..40,
        cols in 1u16..120,
        bytes in noisy_bytes(3000),
        at in proptest::collection::vec(any::<prop::sample::Index>(), 0..16),
    ) {
        let split = fed_in_chunks(rows, cols, &bytes, &cuts(bytes.len(), &at))?;
        let whole = fed_in_chunks(rows, cols, &bytes, &[])?;
        prop_assert_eq!(split.screen_text(), whole.screen_text());
        prop_assert_eq!(split.alternate_screen(), whole.alternate_screen());
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// The seeded shell-like streams of `props.rs`, in any chunking: the same
    /// invariants, and the screen of the whole stream.
    #[test]
    fn generated_shell_output_in_any_chunking_keeps_the_invariants(
        seed in any::<u64>(),
        rows in 1u16..30,
        cols in 1u16..100,
        at in proptest::collection::vec(any::<prop::sample::Index>(), 0..16),
    ) {
        let bytes = props::stream(&mut props::Rng::new(seed), 60);
        let split = fed_in_chunks(rows, cols, &bytes, &cuts(bytes.len(), &at))?;
        let whole = fed_in_chunks(rows, cols, &bytes, &[])?;
        prop_assert_eq!(split.screen_text(), whole.screen_text());
    }

    /// Printable text, line breaks, CUP, CUU/CUD/CUF/CUB, ED, EL and SGR in
    /// any chunking: every row of the grid holds the text `vt100` shows.
    #[test]
    fn the_grid_matches_vt100_on_text_moves_erases_and_colours(
        rows in 1u16..30,
        cols in 1u16..100,
        pieces in proptest::collection::vec(vt_piece(), 0..60),
        at in proptest::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        let bytes = pieces.concat().into_bytes();
        let mut ours = Terminal::new(rows, cols);
        ours.checks.verify = false;
        let mut theirs = vt100::Parser::new(non_zero(rows), non_zero(cols), 0);
        let mut start = 0;
        for &cut in cuts(bytes.len(), &at).iter().chain(std::iter::once(&bytes.len())) {
            ours.feed(&bytes[start..cut]);
            theirs.process(&bytes[start..cut]);
            start = cut;
            let (got, expected) = props::both_rows(&ours, &theirs);
            prop_assert_eq!(got, expected, "after byte {}", cut);
        }
    }
}
