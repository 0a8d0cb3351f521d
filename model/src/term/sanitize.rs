//! Text cleaning for everything a program in a pane can put in front of a person:
//! titles, notification titles and bodies, restored scrollback
//! (docs/terminal.md#titles, docs/terminal.md#the-osc-scanner-and-the-bell).

/// The longest title kept, in characters (docs/terminal.md#titles).
pub const MAX_TITLE_CHARS: usize = 200;
/// The longest notification body kept, in characters
/// (docs/terminal.md#the-osc-scanner-and-the-bell).
pub const MAX_BODY_CHARS: usize = 2000;

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';
/// The 8-bit forms of CSI and OSC, as they appear once decoded from UTF-8.
const C1_CSI: char = '\u{9b}';
const C1_OSC: char = '\u{9d}';

/// Cleans untrusted text: strips ANSI escape sequences, drops every control
/// character except `\n` and `\t`, trims whitespace at both ends and keeps at most
/// `max_chars` characters. Applying it twice changes nothing.
pub fn sanitize(text: &str, max_chars: usize) -> String {
    let stripped = strip_ansi(text);
    let kept: String = stripped
        .chars()
        .filter(|&c| c == '\n' || c == '\t' || !c.is_control())
        .collect();
    let trimmed = kept.trim();
    match trimmed.char_indices().nth(max_chars) {
        // Cutting can expose whitespace that sat in the middle.
        Some((cut, _)) => trimmed[..cut].trim_end().to_owned(),
        None => trimmed.to_owned(),
    }
}

/// Removes ANSI escape sequences: CSI (`ESC [` … final byte, or 8-bit CSI), OSC
/// (`ESC ]` … BEL or ST), DCS/SOS/PM/APC strings (`ESC P|X|^|_` … ST) and two-byte
/// escapes (`ESC` + intermediates + final). An unfinished sequence at the end is
/// dropped. An `ESC` followed by anything else (a control, a non-ASCII character)
/// is dropped alone and the character is kept. Other control characters are left
/// for the caller.
pub fn strip_ansi(text: &str) -> String {
    if !text.contains([ESC, C1_CSI, C1_OSC]) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ESC => match chars.peek().copied() {
                Some('[') => {
                    chars.next();
                    skip_csi(&mut chars);
                },
                Some(']') => {
                    chars.next();
                    skip_string(&mut chars, true);
                },
                Some('P' | 'X' | '^' | '_') => {
                    chars.next();
                    skip_string(&mut chars, false);
                },
                Some(' '..='/') => {
                    // Intermediates, then one final byte.
                    while chars.next_if(|c| matches!(c, ' '..='/')).is_some() {}
                    chars.next_if(|c| matches!(c, '0'..='~'));
                },
                Some('0'..='~') => {
                    chars.next();
                },
                _ => {},
            },
            C1_CSI => skip_csi(&mut chars),
            C1_OSC => skip_string(&mut chars, true),
            _ => out.push(c),
        }
    }
    out
}

/// Skips the parameters, intermediates and final byte of a CSI sequence. Stops
/// without consuming at anything that cannot belong to one.
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while chars
        .next_if(|c| matches!(c, '0'..='?' | ' '..='/'))
        .is_some()
    {}
    chars.next_if(|c| matches!(c, '@'..='~'));
}

/// Skips a string sequence up to and including its terminator: ST (`ESC \`), or
/// BEL when `bel_ends` (OSC).
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, bel_ends: bool) {
    while let Some(c) = chars.next() {
        if c == BEL && bel_ends {
            return;
        }
        if c == ESC && chars.next_if_eq(&'\\').is_some() {
            return;
        }
    }
}

#[cfg(test)]
mod tests;
