//! Names and handles: a workspace or tab name as people give it, and the
//! immutable slug a workspace's handle is derived from at create
//! (docs/objects.md#workspace-handles).

use crate::error::Error;

/// The longest workspace or tab name accepted, in bytes.
pub const MAX_NAME_BYTES: usize = 256;

/// A name for a workspace or a tab: not blank, at most [`MAX_NAME_BYTES`],
/// no control characters.
pub fn checked_name(name: &str) -> Result<String, Error> {
    if name.trim().is_empty() {
        return Err(Error::BadParams("name must not be empty".into()));
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(Error::BadParams(format!(
            "name is longer than {MAX_NAME_BYTES} bytes"
        )));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::BadParams(
            "name must not contain control characters".into(),
        ));
    }
    Ok(name.to_owned())
}

/// The longest slug before a collision suffix, in bytes.
pub const MAX_SLUG_BYTES: usize = 32;

/// Derives the slug of a workspace name: lowercase, ASCII `[a-z0-9]` kept, every run
/// of other characters replaced by one `-`, cut at 32 bytes, `-` trimmed at both
/// ends, `ws` when nothing is left. A slug never contains `_`, so it can never be
/// mistaken for a `ws_…` id.
pub fn slugify(name: &str) -> String {
    let mut slug = String::new();
    let mut pending_dash = false;
    for c in name.chars().flat_map(char::to_lowercase) {
        if slug.len() >= MAX_SLUG_BYTES {
            break;
        }
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            if pending_dash && !slug.is_empty() {
                slug.push('-');
                if slug.len() >= MAX_SLUG_BYTES {
                    break;
                }
            }
            pending_dash = false;
            slug.push(c);
        } else {
            pending_dash = true;
        }
    }
    let slug = slug.trim_matches('-');
    if slug.is_empty() {
        "ws".to_owned()
    } else {
        slug.to_owned()
    }
}

/// The first free handle for `name`: its slug, or the slug with `-2`, `-3`, … .
pub fn unique_handle(name: &str, taken: impl Fn(&str) -> bool) -> String {
    let base = slugify(name);
    if !taken(&base) {
        return base;
    }
    (2u64..)
        .map(|n| format!("{base}-{n}"))
        .find(|candidate| !taken(candidate))
        .unwrap_or(base)
}

#[cfg(test)]
mod tests;
