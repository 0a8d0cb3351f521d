//! A grid as it crosses an in-place upgrade (`export.rs`): per row the
//! characters up to the last styled or non-blank cell and the runs of equal
//! style, so a blank row costs a few bytes.

use super::{Cell, Color, Grid, Marks, Pen, Row, flag};
use serde::{Deserialize, Serialize};

/// A run of cells of one style: how many, then their `fg`, `bg`, `attrs`, `flags`.
type Run = (u16, Color, Color, u8, u8);

/// A row as it crosses an upgrade. The cells after `text` are unstyled blanks.
#[derive(Serialize, Deserialize)]
struct RowWire {
    /// One character per cell, up to the last one that is not an unstyled blank.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    text: String,
    /// The style of those cells, run by run; none when they are all unstyled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    styles: Vec<Run>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    wrapped: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    combining: Vec<(u16, String)>,
}

/// A grid as it crosses an upgrade.
#[derive(Serialize, Deserialize)]
pub(super) struct GridWire {
    cols: usize,
    rows: Vec<RowWire>,
}

impl From<&Row> for RowWire {
    fn from(row: &Row) -> RowWire {
        let end = row
            .cells
            .iter()
            .rposition(|c| !c.is_plain_blank())
            .map_or(0, |p| p + 1);
        let cells = &row.cells[..end];
        let mut styles: Vec<Run> = Vec::new();
        for cell in cells {
            let style = (cell.fg, cell.bg, cell.attrs, cell.flags);
            match styles.last_mut() {
                Some(run) if (run.1, run.2, run.3, run.4) == style && run.0 < u16::MAX => {
                    run.0 += 1
                },
                _ => styles.push((1, cell.fg, cell.bg, cell.attrs, cell.flags)),
            }
        }
        if let [(_, fg, bg, 0, 0)] = styles[..]
            && fg == Color::DEFAULT
            && bg == Color::DEFAULT
        {
            styles.clear();
        }
        RowWire {
            text: cells.iter().map(|c| c.ch).collect(),
            styles,
            wrapped: row.wrapped,
            combining: row.combining.to_vec(),
        }
    }
}

impl RowWire {
    /// The row of `cols` cells it describes, or why it does not fit.
    fn into_row(self, cols: usize) -> Result<Row, String> {
        let mut chars = self.text.chars();
        // Stored up to the last cell that is not an unstyled blank: a blank
        // row allocates nothing (docs/terminal.md#the-grid).
        let mut cells = Vec::new();
        if self.styles.is_empty() {
            cells.extend(chars.by_ref().map(|ch| Cell {
                ch,
                ..Cell::blank(Pen::default())
            }));
        } else {
            for (n, fg, bg, attrs, flags) in self.styles {
                if flags & !(flag::WIDE | flag::WIDE_CONT | flag::COMBINING) != 0 {
                    return Err(format!("unknown cell flags {flags:#x}"));
                }
                for _ in 0..n {
                    let ch = chars
                        .next()
                        .ok_or("a row's styles cover more cells than its text")?;
                    cells.push(Cell {
                        ch,
                        fg,
                        bg,
                        attrs,
                        flags,
                    });
                }
            }
            if chars.next().is_some() {
                return Err("a row's styles cover fewer cells than its text".to_owned());
            }
        }
        if cells.len() > cols {
            return Err(format!(
                "a row of {} cells in a grid of {cols} columns",
                cells.len()
            ));
        }
        if let Some((col, _)) = self.combining.iter().find(|(c, _)| usize::from(*c) >= cols) {
            return Err(format!("combining marks at column {col} of {cols}"));
        }
        cells.shrink_to_fit();
        Ok(Row {
            cells,
            wrapped: self.wrapped,
            combining: Marks::from(self.combining),
        })
    }
}

impl Serialize for Grid {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        GridWire {
            cols: self.cols,
            rows: self.rows.iter().map(RowWire::from).collect(),
        }
        .serialize(serializer)
    }
}

impl TryFrom<GridWire> for Grid {
    type Error = String;

    fn try_from(wire: GridWire) -> Result<Grid, String> {
        if !(1..=usize::from(u16::MAX)).contains(&wire.cols) {
            return Err(format!("a grid of {} columns", wire.cols));
        }
        let rows = wire
            .rows
            .into_iter()
            .map(|row| row.into_row(wire.cols))
            .collect::<Result<_, _>>()?;
        Ok(Grid {
            rows,
            cols: wire.cols,
        })
    }
}
