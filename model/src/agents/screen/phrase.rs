//! Phrases: literal screen text that still reads when the pane's width cuts
//! it off or another string is drawn over the start of its line
//! (docs/screen-rules.md#phrases).

use unicode_width::UnicodeWidthStr;

/// The fewest characters of a phrase that count when the right edge cuts it.
const CUT_MIN_CHARS: usize = 4;

/// A phrase as written, kept lower-cased for a case-insensitive comparison.
#[derive(Debug, Clone)]
pub struct Phrase {
    lower: String,
    /// The shortest prefix (in characters) that counts at a cut edge.
    cut_min: usize,
}

impl Phrase {
    /// A phrase of at least `CUT_MIN_CHARS` non-blank characters.
    pub fn parse(source: &str) -> Result<Phrase, String> {
        let lower = source.to_lowercase();
        let chars = lower.chars().count();
        if lower.trim().chars().count() < CUT_MIN_CHARS {
            return Err(format!(
                "a phrase needs at least {CUT_MIN_CHARS} characters besides blanks"
            ));
        }
        Ok(Phrase {
            cut_min: chars.div_ceil(2).max(CUT_MIN_CHARS).min(chars),
            lower,
        })
    }

    /// Whether one of `text`'s lines holds the phrase whole, or a line as
    /// wide as the screen (`width` columns; 0: none is) ends with its first
    /// half or more: the phrase cut by the right edge.
    pub fn is_in(&self, text: &str, width: usize) -> bool {
        text.split('\n').any(|line| self.is_in_line(line, width))
    }

    fn is_in_line(&self, line: &str, width: usize) -> bool {
        let line = line.to_lowercase();
        if line.contains(&self.lower) {
            return true;
        }
        let line = line.trim_end();
        let used = line.width();
        if width == 0 || used + self.lower.len() < width {
            return false;
        }
        // Prefixes from the longest down to the shortest that counts. A
        // prefix ending in blanks reaches the edge with them: screen text
        // drops trailing blanks.
        let ends: Vec<usize> = self
            .lower
            .char_indices()
            .map(|(at, _)| at)
            .skip(self.cut_min)
            .collect();
        ends.iter().rev().any(|&end| {
            let prefix = &self.lower[..end];
            let core = prefix.trim_end();
            let blanks = prefix[core.len()..].chars().count();
            used + blanks == width && line.ends_with(core)
        })
    }

    pub fn as_str(&self) -> &str {
        &self.lower
    }
}
