//! Reading tails back: after an append cut short or zeroed, and, as a property
//! over generated output and save schedules, as the tail the pane's ring had at
//! the last save.

use super::*;

#[test]
fn an_append_cut_anywhere_or_zeroed_reads_as_the_tail_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Screen::printed(&numbered(0, 1000));
    let mut saves = Saves::new();
    saves.save(dir.path(), 1, &[("pane_a", &a)]);
    a.print(&numbered(1000, 10));
    saves.save(dir.path(), 2, &[("pane_a", &a)]);
    let before = read(dir.path(), "pane_a");
    let good = file_len(dir.path(), "pane_a") as usize;
    a.print(&numbered(1010, 30));
    assert_eq!(saves.save(dir.path(), 3, &[("pane_a", &a)]).appended, 1);
    let path = tail_path(dir.path(), &pid("pane_a"));
    let full = fs::read(&path).unwrap();
    assert_eq!(read(dir.path(), "pane_a"), a.expected());

    for cut in good..full.len() {
        fs::write(&path, &full[..cut]).unwrap();
        assert_eq!(read(dir.path(), "pane_a"), before, "cut at {cut}");
    }
    // A power loss can leave the appended blocks zeroed, or any of them.
    let mut zeroed = full.clone();
    zeroed[good..].fill(0);
    fs::write(&path, &zeroed).unwrap();
    assert_eq!(read(dir.path(), "pane_a"), before);
    let mut middle = full.clone();
    middle[good + 40..good + 80].fill(0);
    fs::write(&path, &middle).unwrap();
    assert_eq!(read(dir.path(), "pane_a"), before);
    let mut flipped = full;
    let last = flipped.len() - 5;
    flipped[last] ^= 1;
    fs::write(&path, &flipped).unwrap();
    assert_eq!(read(dir.path(), "pane_a"), before);
}

#[test]
fn after_a_torn_append_the_next_save_rewrites_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Screen::printed(&numbered(0, 100));
    let mut saves = Saves::new();
    saves.save(dir.path(), 1, &[("pane_a", &a)]);
    let path = tail_path(dir.path(), &pid("pane_a"));
    // Half a record, as a write that failed half way leaves it.
    let mut torn = fs::read(&path).unwrap();
    torn.extend_from_slice(b"@120 0123456789abcdef\nhhalf a li");
    fs::write(&path, &torn).unwrap();
    a.print("next");
    let report = saves.save(dir.path(), 2, &[("pane_a", &a)]);
    assert_eq!((report.whole, report.appended), (1, 0));
    assert_eq!(read(dir.path(), "pane_a"), a.expected());
}

// ---- whatever was printed -------------------------------------------------------

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

/// Output of many kinds: lines short and long (wrapping many rows), blank
/// lines, redraws in place, screen clears, the alternate screen.
fn chunk(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..1 + rng.below(40) {
        match rng.below(12) {
            0 => out.extend_from_slice(b"\r\n"),
            1 => out.extend_from_slice(b"\x1b[2J"),
            2 => out.extend_from_slice(b"\x1b[?1049h"),
            3 => out.extend_from_slice(b"\x1b[?1049l"),
            4 => out.extend_from_slice(b"\x1b[H\x1b[Kredrawn top"),
            5 => out.extend(std::iter::repeat_n(b'w', 3_000)),
            6 => out.extend_from_slice("é ünïcødé\r\n".as_bytes()),
            _ => {
                let n = rng.below(120) as usize;
                out.extend((0..n).map(|i| b'a' + (i % 26) as u8));
                out.extend_from_slice(b"\r\n");
            },
        }
    }
    out
}

#[test]
fn whatever_a_pane_printed_the_file_reads_as_its_tail_at_the_last_save() {
    let (mut appended, mut whole) = (0, 0);
    for seed in 1..=16u64 {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let rows = 2 + rng.below(40) as u16;
        let cols = 10 + rng.below(200) as u16;
        let mut a = Screen::new(rows, cols);
        let mut saves = Saves::new();
        for round in 0..30u64 {
            for _ in 0..rng.below(6) {
                a.term.feed(&chunk(&mut rng));
            }
            match rng.below(20) {
                0 => a.term.clear_history(),
                1 => a
                    .term
                    .resize(2 + rng.below(40) as u16, 10 + rng.below(200) as u16),
                _ => {},
            }
            let report = saves.save(dir.path(), round + 1, &[("pane_a", &a)]);
            (appended, whole) = (appended + report.appended, whole + report.whole);
            let path = tail_path(dir.path(), &pid("pane_a"));
            if path.exists() {
                assert!(fs::metadata(&path).unwrap().len() <= COMPACT_AT as u64);
            }
            assert_eq!(
                read(dir.path(), "pane_a"),
                a.expected(),
                "seed {seed} round {round} ({rows}x{cols})"
            );
        }
    }
    // Both ways of writing were exercised.
    assert!(
        appended > 50 && whole > 50,
        "{appended} appends, {whole} rewrites"
    );
}
