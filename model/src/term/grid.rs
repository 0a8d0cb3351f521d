//! The cells of one screen (main or alternate): rows of fixed-size cells, each
//! with its character and colours. Pure data and the edits a VT parser makes;
//! the cursor, modes and escape sequences live in `screen`.
//!
//! A cell is 16 bytes with its style inline (no style table to collect). A
//! row allocates its cells as they are written (docs/terminal.md#memory), so
//! a blank 80 × 24 grid holds its 24 row headers and no cell, and only the
//! main grid exists until a program switches to the alternate screen.
//!
//! A grid crosses an in-place upgrade (`export.rs`) in a compact form of its
//! own (`grid/wire.rs`): per row the characters up to the last styled or
//! non-blank cell and the runs of equal style, so a blank row costs a few bytes.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

mod wire;
use wire::GridWire;

/// A colour: the default, one of the 256 indexed colours, or 24-bit RGB, packed
/// into a `u32` (tag in the top byte). Serialised as that `u32`; one that no
/// constructor makes is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(into = "u32", try_from = "u32")]
pub(crate) struct Color(u32);

impl From<Color> for u32 {
    fn from(color: Color) -> u32 {
        color.0
    }
}

impl TryFrom<u32> for Color {
    type Error = String;

    fn try_from(packed: u32) -> Result<Color, String> {
        match packed & 0xff00_0000 {
            0 if packed == 0 => Ok(Color(packed)),
            TAG_INDEXED if packed <= TAG_INDEXED | 0xff => Ok(Color(packed)),
            TAG_RGB => Ok(Color(packed)),
            _ => Err(format!("{packed:#x} is not a colour")),
        }
    }
}

const TAG_INDEXED: u32 = 1 << 24;
const TAG_RGB: u32 = 2 << 24;

impl Color {
    pub const DEFAULT: Color = Color(0);

    pub fn indexed(i: u8) -> Color {
        Color(TAG_INDEXED | u32::from(i))
    }

    pub fn rgb(r: u8, g: u8, b: u8) -> Color {
        Color(TAG_RGB | u32::from(r) << 16 | u32::from(g) << 8 | u32::from(b))
    }

    /// What the colour is, for writing it back out.
    pub fn kind(self) -> ColorKind {
        match self.0 & 0xff00_0000 {
            TAG_INDEXED => ColorKind::Indexed(self.0 as u8),
            TAG_RGB => ColorKind::Rgb((self.0 >> 16) as u8, (self.0 >> 8) as u8, self.0 as u8),
            _ => ColorKind::Default,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ColorKind {
    Default,
    Indexed(u8),
    Rgb(u8, u8, u8),
}

/// SGR attribute bits of a [`Pen`].
pub(crate) mod attr {
    pub const BOLD: u8 = 1;
    pub const DIM: u8 = 1 << 1;
    pub const ITALIC: u8 = 1 << 2;
    pub const UNDERLINE: u8 = 1 << 3;
    pub const BLINK: u8 = 1 << 4;
    pub const INVERSE: u8 = 1 << 5;
    pub const HIDDEN: u8 = 1 << 6;
    pub const STRIKE: u8 = 1 << 7;
}

/// The style characters are drawn with: colours and SGR attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub(crate) struct Pen {
    pub fg: Color,
    pub bg: Color,
    pub attrs: u8,
}

/// What a cell is besides its character.
pub(crate) mod flag {
    /// The first half of a double-width character.
    pub const WIDE: u8 = 1;
    /// The second half of a double-width character: no character of its own.
    pub const WIDE_CONT: u8 = 1 << 1;
    /// Combining characters follow the base character (in the row's side list).
    pub const COMBINING: u8 = 1 << 2;
}

/// One character cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cell {
    pub ch: char,
    pub fg: Color,
    pub bg: Color,
    pub attrs: u8,
    pub flags: u8,
}

impl Cell {
    /// An erased cell: a space in the background colour of `pen` (erasing keeps
    /// the background, as xterm and tmux do).
    pub fn blank(pen: Pen) -> Cell {
        Cell {
            ch: ' ',
            fg: Color::DEFAULT,
            bg: pen.bg,
            attrs: 0,
            flags: 0,
        }
    }

    pub fn pen(&self) -> Pen {
        Pen {
            fg: self.fg,
            bg: self.bg,
            attrs: self.attrs,
        }
    }

    /// A space with no style: what trimming may drop.
    pub fn is_plain_blank(&self) -> bool {
        self.ch == ' ' && self.flags == 0 && self.pen() == Pen::default()
    }
}

/// How many cells a row grows by at least (`Row::grow`).
const GROW_CELLS: usize = 16;

/// An unstyled blank: what a row holds past its stored cells.
pub(crate) const BLANK: Cell = Cell {
    ch: ' ',
    fg: Color::DEFAULT,
    bg: Color::DEFAULT,
    attrs: 0,
    flags: 0,
};

/// One row of cells, allocated as it is written
/// (docs/terminal.md#the-grid): it stores its cells up to the last one
/// written, and every cell after those, up to the grid's width, is an
/// unstyled blank ([`BLANK`]). A blank row stores none and allocates nothing.
/// Erasing to the end of the row with the default background drops the
/// stored cells but keeps their allocation, so the rows a flood of output
/// scrolls through are reused without allocating; [`Row::shrink`] gives it
/// back.
#[derive(Debug, Clone, Default)]
pub(crate) struct Row {
    /// At most the grid's width.
    cells: Vec<Cell>,
    /// The text continues on the next row (autowrap happened here).
    pub wrapped: bool,
    /// Combining characters, by column, for cells flagged `COMBINING`.
    combining: Marks,
}

/// The combining marks of a row, by column. Boxed: nearly every row has
/// none, and then they cost one pointer in the row's header.
// The box is the point: 8 bytes in every row instead of a `Vec`'s 24.
#[allow(clippy::box_collection)]
#[derive(Debug, Clone, Default)]
struct Marks(Option<Box<Vec<(u16, String)>>>);

impl Marks {
    fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    fn iter(&self) -> impl Iterator<Item = &(u16, String)> {
        self.0.iter().flat_map(|marks| marks.iter())
    }

    fn iter_mut(&mut self) -> impl Iterator<Item = &mut (u16, String)> {
        self.0.iter_mut().flat_map(|marks| marks.iter_mut())
    }

    fn retain(&mut self, keep: impl FnMut(&(u16, String)) -> bool) {
        if let Some(marks) = &mut self.0 {
            marks.retain(keep);
            if marks.is_empty() {
                self.0 = None;
            }
        }
    }

    fn clear(&mut self) {
        self.0 = None;
    }

    fn to_vec(&self) -> Vec<(u16, String)> {
        self.iter().cloned().collect()
    }

    #[cfg(test)]
    fn heap_bytes(&self) -> usize {
        self.0.as_ref().map_or(0, |marks| {
            size_of::<Vec<(u16, String)>>()
                + marks.capacity() * size_of::<(u16, String)>()
                + marks.iter().map(|(_, s)| s.capacity()).sum::<usize>()
        })
    }
}

impl From<Vec<(u16, String)>> for Marks {
    fn from(marks: Vec<(u16, String)>) -> Marks {
        Marks((!marks.is_empty()).then(|| Box::new(marks)))
    }
}

impl Row {
    /// The stored cells: the row up to (at least) its last written cell; the
    /// rest of the row is unstyled blanks.
    #[inline]
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// The cell at `col` (an unstyled blank past the stored ones).
    #[inline]
    pub fn cell(&self, col: usize) -> Cell {
        self.cells.get(col).copied().unwrap_or(BLANK)
    }

    /// The stored cells, at least `upto` of them (`upto` ≤ `cols`, the grid's
    /// width): the row grows with blanks to hold them.
    #[inline]
    pub fn cells_mut(&mut self, upto: usize, cols: usize) -> &mut [Cell] {
        if self.cells.len() < upto {
            self.grow(upto, cols);
        }
        &mut self.cells
    }

    /// Stores blanks up to `upto` at least, reserving no more than the grid's
    /// width. It stores up to `GROW_CELLS` more (trailing blanks are stored or
    /// not alike): printing along a fresh row then grows it once every
    /// `GROW_CELLS` characters instead of at every one.
    fn grow(&mut self, upto: usize, cols: usize) {
        let len = upto.max(self.cells.len() + GROW_CELLS).min(cols).max(upto);
        let capacity = self.cells.capacity();
        if len > capacity {
            // Doubling, but never past the width: a full row is exactly `cols`.
            let target = (capacity * 2).max(len).min(cols).max(len);
            self.cells.reserve_exact(target - self.cells.len());
        }
        self.cells.resize(len, BLANK);
    }

    /// Gives back what the stored cells do not use (a blank row then holds no
    /// allocation at all).
    pub fn shrink(&mut self) {
        let end = self
            .cells
            .iter()
            .rposition(|c| *c != BLANK)
            .map_or(0, |p| p + 1);
        self.cells.truncate(end);
        self.cells.shrink_to_fit();
    }

    /// The heap bytes the row holds.
    #[cfg(test)]
    pub fn heap_bytes(&self) -> usize {
        self.cells.capacity() * size_of::<Cell>() + self.combining.heap_bytes()
    }

    /// Erases the whole row in place (`cols` wide).
    pub fn clear(&mut self, pen: Pen, cols: usize) {
        self.cells.clear();
        if pen.bg != Color::DEFAULT {
            self.grow(cols, cols);
            self.cells.fill(Cell::blank(pen));
        }
        self.wrapped = false;
        self.combining.clear();
    }

    /// Erases columns `from..to` (clamped to `cols`), splitting no wide
    /// character in two.
    pub fn erase(&mut self, from: usize, to: usize, pen: Pen, cols: usize) {
        let to = to.min(cols);
        if from >= to {
            return;
        }
        self.fix_wide_edges(from, to, pen);
        if pen.bg == Color::DEFAULT && to >= self.cells.len() {
            // Up to the end of what is stored: the rest is blank already.
            self.cells.truncate(from);
        } else {
            self.cells_mut(to, cols)[from..to].fill(Cell::blank(pen));
        }
        if !self.combining.is_empty() {
            self.combining
                .retain(|(col, _)| !(from..to).contains(&usize::from(*col)));
        }
    }

    /// Before `from..to` is overwritten: blanks the half of a wide character
    /// left outside the range. (A cell flagged `WIDE_CONT` is stored, and so
    /// is the one before it.)
    fn fix_wide_edges(&mut self, from: usize, to: usize, pen: Pen) {
        if from > 0 && self.cell(from).flags & flag::WIDE_CONT != 0 {
            self.cells[from - 1] = Cell::blank(pen);
        }
        if self.cell(to).flags & flag::WIDE_CONT != 0 {
            self.cells[to] = Cell::blank(pen);
        }
    }

    /// Inserts `n` blanks at `col`, shifting the rest right (ICH).
    pub fn insert_blanks(&mut self, col: usize, n: usize, pen: Pen, cols: usize) {
        let len = cols;
        // At the second half of a wide character, as in tmux: after it.
        let col = col + usize::from(self.cell(col).flags & flag::WIDE_CONT != 0);
        if col >= len {
            return;
        }
        let n = n.min(len - col);
        self.grow(len, cols);
        self.fix_wide_edges(col, col, pen);
        self.cells[col..].rotate_right(n);
        self.cells[col..col + n].fill(Cell::blank(pen));
        self.after_shift(len);
        self.shift_combining(col, n as isize);
    }

    /// Deletes `n` cells at `col`, shifting the rest left (DCH).
    pub fn delete_cells(&mut self, col: usize, n: usize, pen: Pen, cols: usize) {
        let len = cols;
        if col >= len {
            return;
        }
        let n = n.min(len - col);
        self.grow(len, cols);
        self.fix_wide_edges(col, col + n, pen);
        self.combining
            .retain(|(c, _)| !(col..col + n).contains(&usize::from(*c)));
        self.cells[col..].rotate_left(n);
        self.cells[len - n..].fill(Cell::blank(pen));
        self.shift_combining(col + n, -(n as isize));
        self.after_shift(len);
    }

    /// A wide character pushed past the last column loses its second half:
    /// blank it, and drop combining marks pushed off the row.
    fn after_shift(&mut self, len: usize) {
        if let Some(last) = self.cells.last_mut()
            && last.flags & flag::WIDE != 0
        {
            *last = BLANK;
        }
        if self.cells[0].flags & flag::WIDE_CONT != 0 {
            self.cells[0] = BLANK;
        }
        self.combining.retain(|(c, _)| usize::from(*c) < len);
    }

    fn shift_combining(&mut self, from: usize, by: isize) {
        for (col, _) in self.combining.iter_mut() {
            if usize::from(*col) >= from {
                *col = (*col as isize + by).clamp(0, u16::MAX as isize) as u16;
            }
        }
    }

    /// The row's text: one char per cell (none for the second half of a wide
    /// character) plus combining marks, trailing spaces dropped.
    pub fn text(&self) -> String {
        let end = self
            .cells
            .iter()
            .rposition(|c| c.ch != ' ' || c.flags & flag::COMBINING != 0)
            .map_or(0, |p| p + 1);
        let cells = &self.cells[..end];
        let mut out = String::with_capacity(end);
        if self.combining.is_empty() {
            for cell in cells {
                if cell.flags & flag::WIDE_CONT == 0 {
                    out.push(cell.ch);
                }
            }
        } else {
            for (col, cell) in cells.iter().enumerate() {
                if cell.flags & flag::WIDE_CONT != 0 {
                    continue;
                }
                out.push(cell.ch);
                if cell.flags & flag::COMBINING != 0 {
                    out.push_str(self.combining_at(col));
                }
            }
        }
        out
    }

    pub fn combining_at(&self, col: usize) -> &str {
        self.combining
            .iter()
            .find(|(c, _)| usize::from(*c) == col)
            .map_or("", |(_, s)| s.as_str())
    }

    /// Adds a combining mark to the cell at `col` (< `cols`).
    pub fn add_combining(&mut self, col: usize, c: char, cols: usize) {
        let Ok(key) = u16::try_from(col) else { return };
        self.cells_mut(col + 1, cols)[col].flags |= flag::COMBINING;
        let marks = self.combining.0.get_or_insert_default();
        match marks.iter_mut().find(|(k, _)| *k == key) {
            // A cell keeps a handful of marks at most: enough for any real
            // script, and no unbounded growth from a flood of them.
            Some((_, marks)) if marks.chars().count() < 8 => marks.push(c),
            Some(_) => {},
            None => marks.push((key, c.to_string())),
        }
    }

    /// Drops the combining marks of the cell at `col` (it is being overwritten).
    #[inline]
    pub fn clear_combining(&mut self, col: usize) {
        if self.cell(col).flags & flag::COMBINING != 0 {
            self.combining.retain(|(c, _)| usize::from(*c) != col);
        }
    }

    /// Resizes to `cols` cells without reflow.
    fn set_cols(&mut self, cols: usize) {
        self.cells.truncate(cols);
        if self.cells.len() == cols
            && let Some(last) = self.cells.last_mut()
            && last.flags & flag::WIDE != 0
        {
            *last = BLANK;
        }
        self.combining.retain(|(c, _)| usize::from(*c) < cols);
        self.wrapped = false;
    }
}

/// The rows of one screen. Row 0 is the top.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "GridWire")]
pub(crate) struct Grid {
    rows: VecDeque<Row>,
    cols: usize,
}

impl Grid {
    pub fn new(rows: usize, cols: usize) -> Grid {
        Grid {
            rows: (0..rows).map(|_| Row::default()).collect(),
            cols,
        }
    }

    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn row(&self, i: usize) -> &Row {
        &self.rows[i]
    }

    pub fn row_mut(&mut self, i: usize) -> &mut Row {
        &mut self.rows[i]
    }

    pub fn iter(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter()
    }

    /// Scrolls rows `top..=bottom` up by `n`: the top `n` leave, `n` blank rows
    /// enter at the bottom.
    pub fn scroll_up(&mut self, top: usize, bottom: usize, n: usize, pen: Pen) {
        let n = n.min(bottom + 1 - top);
        if top == 0 && bottom + 1 == self.rows.len() {
            // The whole screen: rotate the ring buffer, reusing the rows.
            for _ in 0..n {
                if let Some(mut row) = self.rows.pop_front() {
                    row.clear(pen, self.cols);
                    self.rows.push_back(row);
                }
            }
            return;
        }
        for _ in 0..n {
            if let Some(mut row) = self.rows.remove(top) {
                row.clear(pen, self.cols);
                self.rows.insert(bottom, row);
            }
        }
    }

    /// Scrolls rows `top..=bottom` down by `n`: blank rows enter at the top.
    pub fn scroll_down(&mut self, top: usize, bottom: usize, n: usize, pen: Pen) {
        let n = n.min(bottom + 1 - top);
        for _ in 0..n {
            if let Some(mut row) = self.rows.remove(bottom) {
                row.clear(pen, self.cols);
                self.rows.insert(top, row);
            }
        }
    }

    /// Erases row `i`.
    pub fn clear_row(&mut self, i: usize, pen: Pen) {
        let cols = self.cols;
        self.rows[i].clear(pen, cols);
    }

    /// Gives back what the rows hold and do not use: a blank row then holds
    /// no allocation (docs/terminal.md#the-grid).
    pub fn shrink(&mut self) {
        for row in &mut self.rows {
            row.shrink();
        }
        self.rows.shrink_to_fit();
    }

    /// The heap bytes the grid's rows hold besides their headers.
    #[cfg(test)]
    pub fn cell_bytes(&self) -> usize {
        self.rows.iter().map(Row::heap_bytes).sum()
    }

    /// The heap bytes the grid holds.
    #[cfg(test)]
    pub fn heap_bytes(&self) -> usize {
        self.rows.capacity() * size_of::<Row>() + self.cell_bytes()
    }

    /// Erases every row.
    pub fn clear(&mut self, pen: Pen) {
        for row in &mut self.rows {
            row.clear(pen, self.cols);
        }
    }

    /// Resizes without reflow: rows are cut or added at the bottom, columns at
    /// the right. The caller scrolls first to keep the cursor visible.
    pub fn resize(&mut self, rows: usize, cols: usize) {
        if cols != self.cols {
            for row in &mut self.rows {
                row.set_cols(cols);
            }
            self.cols = cols;
        }
        self.rows.truncate(rows);
        self.rows
            .reserve_exact(rows.saturating_sub(self.rows.len()));
        while self.rows.len() < rows {
            self.rows.push_back(Row::default());
        }
    }
}
