//! The doctor's report as text: a line per check, wrapped to the terminal,
//! the fix under each problem, and a summary line.

use super::*;

/// The width of the check-name column.
const NAME_WIDTH: usize = 16;

/// The report as text: one line per check (verdict word, check, detail),
/// wrapped to `width` columns, the fix on an indented line under a problem,
/// then a summary line.
pub fn render(checks: &[Check], width: usize) -> String {
    let indent = 5 + NAME_WIDTH + 1;
    let mut out = String::new();
    for c in checks {
        let head = format!("{:<4} {:<NAME_WIDTH$} ", c.verdict.word(), c.check);
        wrap_into(&mut out, &head, &c.detail, indent, width);
        if let Some(fix) = &c.fix
            && c.verdict >= Verdict::Warn
        {
            wrap_into(&mut out, "     fix: ", fix, 10, width);
        }
    }
    let count = |v| checks.iter().filter(|c| c.verdict == v).count();
    let (fails, warns) = (count(Verdict::Fail), count(Verdict::Warn));
    out.push_str(&match (fails, warns) {
        (0, 0) => "all good\n".to_owned(),
        (0, w) => format!("no problems, {w} warning(s)\n"),
        (f, w) => format!("{f} problem(s), {w} warning(s)\n"),
    });
    out
}

/// Appends `head` + `text` wrapped at word boundaries to `width` columns,
/// continuation lines indented by `indent`. A word longer than a line is
/// cut.
fn wrap_into(out: &mut String, head: &str, text: &str, indent: usize, width: usize) {
    let room = width.saturating_sub(indent).max(20);
    let mut line = head.to_owned();
    let mut line_len = head.chars().count();
    let mut fresh = true;
    for word in text.split_whitespace() {
        let mut word: String = word.to_owned();
        loop {
            let w = word.chars().count();
            let space = usize::from(!fresh);
            if line_len + space + w <= width {
                if !fresh {
                    line.push(' ');
                }
                line.push_str(&word);
                line_len += space + w;
                fresh = false;
                break;
            }
            if fresh && w > room {
                // A word wider than a line: cut it where the line ends.
                let fits = width.saturating_sub(line_len).max(1);
                let cut: String = word.chars().take(fits).collect();
                line.push_str(&cut);
                word = word.chars().skip(fits).collect();
            }
            out.push_str(line.trim_end());
            out.push('\n');
            line = " ".repeat(indent);
            line_len = indent;
            fresh = true;
            if word.is_empty() {
                break;
            }
        }
    }
    out.push_str(line.trim_end());
    out.push('\n');
}
