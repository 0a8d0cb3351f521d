//! The unified diff parser (docs/diffs.md#one-files-diff): one file's `git
//! diff` into hunks of numbered lines, cut at [`MAX_LINES`] on a whole line.

use super::MAX_LINES;
use signaltty_protocol::diff::{DiffLine, FileContent, Hunk, LineKind};

/// The reason for a patch that is not UTF-8 text.
pub const NOT_UTF8: &str = "The diff is not valid UTF-8 text.";

/// Parses one file's patch as printed by `git diff` (no colour, `+`/`-`/space
/// indicators). Empty is `unchanged`; a binary change is `binary`; a patch
/// without hunks (a mode change, an empty new file) is text with a notice.
pub fn parse_patch(bytes: &[u8]) -> FileContent {
    if bytes.is_empty() {
        return FileContent::Unchanged {};
    }
    let mut lines = bytes.split(|b| *b == b'\n').peekable();
    let mut header: Vec<&[u8]> = Vec::new();
    while let Some(line) = lines.next_if(|l| !l.starts_with(b"@@ ")) {
        if line.starts_with(b"Binary files ") || line.starts_with(b"GIT binary patch") {
            return FileContent::Binary {};
        }
        header.push(line);
    }
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut shown = 0usize;
    let mut truncated = false;
    let (mut old, mut new) = (0u64, 0u64);
    for line in lines {
        if line.starts_with(b"@@ ") {
            let Some(hunk) = hunk_header(line) else {
                return FileContent::Unavailable {
                    reason: "Git printed a hunk header this server cannot read.".to_owned(),
                };
            };
            old = hunk.old_start;
            new = hunk.new_start;
            hunks.push(hunk);
            continue;
        }
        let Some(hunk) = hunks.last_mut() else {
            continue;
        };
        // The empty piece after the final newline, or a blank line git never
        // prints with our settings: neither is a line of the file.
        let Some((&marker, rest)) = line.split_first() else {
            continue;
        };
        let kind = match marker {
            b' ' => LineKind::Context,
            b'+' => LineKind::Added,
            b'-' => LineKind::Removed,
            b'\\' => LineKind::NoNewline,
            // A second file's header (never asked for) ends the patch.
            _ => break,
        };
        if shown == MAX_LINES {
            truncated = true;
            break;
        }
        let text = match kind {
            LineKind::NoNewline => rest.strip_prefix(b" ").unwrap_or(rest),
            _ => rest,
        };
        let Ok(text) = std::str::from_utf8(text) else {
            return FileContent::Unavailable {
                reason: NOT_UTF8.to_owned(),
            };
        };
        let (old_line, new_line) = match kind {
            LineKind::Context => {
                old += 1;
                new += 1;
                (Some(old - 1), Some(new - 1))
            },
            LineKind::Added => {
                new += 1;
                (None, Some(new - 1))
            },
            LineKind::Removed => {
                old += 1;
                (Some(old - 1), None)
            },
            LineKind::NoNewline => (None, None),
        };
        hunk.lines.push(DiffLine {
            kind,
            text: text.to_owned(),
            old_line,
            new_line,
        });
        shown += 1;
    }
    let notice = hunks.is_empty().then(|| notice(&header));
    FileContent::Text {
        hunks,
        truncated,
        notice,
    }
}

/// Why a patch has no hunks, from its header.
fn notice(header: &[&[u8]]) -> String {
    let field = |name: &[u8]| {
        header.iter().find_map(|l| {
            l.strip_prefix(name)
                .map(|v| String::from_utf8_lossy(v).trim().to_owned())
        })
    };
    if field(b"new file mode ").is_some() {
        return "Empty file added.".to_owned();
    }
    if field(b"deleted file mode ").is_some() {
        return "Empty file deleted.".to_owned();
    }
    match (field(b"old mode "), field(b"new mode ")) {
        (Some(old), Some(new)) => format!("File mode changed from {old} to {new}."),
        _ => "Only metadata changed; there is no content to show.".to_owned(),
    }
}

/// Parses `@@ -a[,b] +c[,d] @@[ heading]`.
fn hunk_header(line: &[u8]) -> Option<Hunk> {
    let text = std::str::from_utf8(line).ok()?;
    let rest = text.strip_prefix("@@ -")?;
    let (ranges, heading) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |r: &str| -> Option<(u64, u64)> {
        match r.split_once(',') {
            Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (old_start, old_count) = range(old)?;
    let (new_start, new_count) = range(new)?;
    Some(Hunk {
        old_start,
        old_count,
        new_start,
        new_count,
        heading: heading.strip_prefix(' ').unwrap_or(heading).to_owned(),
        lines: Vec::new(),
    })
}

/// An untracked file's text as one hunk of additions, cut like a patch.
pub fn all_added(text: &str) -> FileContent {
    if text.is_empty() {
        return FileContent::Text {
            hunks: Vec::new(),
            truncated: false,
            notice: Some("Empty file.".to_owned()),
        };
    }
    let body = text.strip_suffix('\n');
    let no_newline = body.is_none();
    let body = body.unwrap_or(text);
    let total = body.split('\n').count() as u64;
    let mut lines: Vec<DiffLine> = body
        .split('\n')
        .take(MAX_LINES)
        .zip(1..)
        .map(|(line, n)| DiffLine {
            kind: LineKind::Added,
            text: line.to_owned(),
            old_line: None,
            new_line: Some(n),
        })
        .collect();
    let mut truncated = total > MAX_LINES as u64;
    if no_newline {
        if lines.len() < MAX_LINES {
            lines.push(DiffLine {
                kind: LineKind::NoNewline,
                text: "No newline at end of file".to_owned(),
                old_line: None,
                new_line: None,
            });
        } else {
            truncated = true;
        }
    }
    FileContent::Text {
        hunks: vec![Hunk {
            old_start: 0,
            old_count: 0,
            new_start: 1,
            new_count: total,
            heading: String::new(),
            lines,
        }],
        truncated,
        notice: None,
    }
}
