//! Character sets (docs/terminal.md#character-sets): G0 and G1, designated by
//! `ESC ( F` and `ESC ) F` and invoked by SI (G0) and SO (G1). The DEC special
//! graphics set (`F` = `0`) turns `_` … `~` into line drawing, as ncurses
//! draws its boxes under `TERM=xterm*`; every other designation reads as
//! ASCII. The cells hold the drawn characters, so a screen read, a snapshot
//! and a client attaching later all show `┌──┐`, not `lqqk`.

use serde::{Deserialize, Serialize};

/// One designated set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Charset {
    #[default]
    Ascii,
    DecGraphics,
}

/// G0, G1 and which of them is invoked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Charsets {
    g: [Charset; 2],
    /// SO: G1 is invoked; SI: G0.
    shifted: bool,
}

impl Charsets {
    /// Both sets ASCII, G0 invoked: a new terminal's state.
    pub(super) fn is_ascii(&self) -> bool {
        *self == Charsets::default()
    }

    /// `ESC ( F` (`which` 0) or `ESC ) F` (`which` 1).
    pub(super) fn designate(&mut self, which: usize, set: u8) {
        if let Some(g) = self.g.get_mut(which) {
            *g = if set == b'0' {
                Charset::DecGraphics
            } else {
                Charset::Ascii
            };
        }
    }

    /// SO (`true`) or SI (`false`).
    pub(super) fn shift(&mut self, out: bool) {
        self.shifted = out;
    }

    /// The character `c` prints as.
    #[inline]
    pub(super) fn map(&self, c: char) -> char {
        match self.g[usize::from(self.shifted)] {
            Charset::Ascii => c,
            Charset::DecGraphics => dec_graphic(c),
        }
    }

    /// The bytes that put a terminal in this state (for a client attaching).
    pub(super) fn formatted(&self, out: &mut String) {
        let designation = |g: Charset| if g == Charset::DecGraphics { '0' } else { 'B' };
        out.push_str("\x1b(");
        out.push(designation(self.g[0]));
        out.push_str("\x1b)");
        out.push(designation(self.g[1]));
        out.push(if self.shifted { '\x0e' } else { '\x0f' });
    }
}

/// The DEC special graphics set: the VT100's line drawing and symbols for
/// `_` … `~`; anything else is unchanged.
fn dec_graphic(c: char) -> char {
    match c {
        '_' => ' ',
        '`' => '◆',
        'a' => '▒',
        'b' => '␉',
        'c' => '␌',
        'd' => '␍',
        'e' => '␊',
        'f' => '°',
        'g' => '±',
        'h' => '␤',
        'i' => '␋',
        'j' => '┘',
        'k' => '┐',
        'l' => '┌',
        'm' => '└',
        'n' => '┼',
        'o' => '⎺',
        'p' => '⎻',
        'q' => '─',
        'r' => '⎼',
        's' => '⎽',
        't' => '├',
        'u' => '┤',
        'v' => '┴',
        'w' => '┬',
        'x' => '│',
        'y' => '≤',
        'z' => '≥',
        '{' => 'π',
        '|' => '≠',
        '}' => '£',
        '~' => '·',
        c => c,
    }
}
