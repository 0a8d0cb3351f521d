//! Reading `config.toml`: every entry is checked against the knob table and
//! kept with its line; everything wrong with an entry becomes a [`Problem`]
//! located at `path:line` (and column for syntax errors), and that entry is
//! left out. A syntax error makes the whole file unreadable: none of it is used.

use super::knobs::{self, K, Kind, Value};
use super::{Problem, Where};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// A config file larger than this is not read (a config is a few KiB).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// One accepted entry of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: K,
    pub value: Value,
    /// 1-based line of the value.
    pub line: usize,
}

/// What was read from a config file.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    pub entries: Vec<Entry>,
    pub problems: Vec<Problem>,
    /// The file could not be parsed at all: nothing of it is used.
    pub unreadable: bool,
}

/// 1-based line and column (in chars) of byte `offset` of `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

struct Ctx<'a> {
    path: &'a Path,
    text: &'a str,
    out: Parsed,
}

impl Ctx<'_> {
    fn problem(&mut self, offset: usize, column: bool, key: Option<String>, message: String) {
        let (line, col) = line_col(self.text, offset);
        self.out.problems.push(Problem {
            at: Where::File {
                path: self.path.to_path_buf(),
                line,
                column: column.then_some(col),
            },
            key,
            message,
        });
    }
}

/// Parses `text`, the contents of `path`.
pub fn parse(path: &Path, text: &str) -> Parsed {
    let mut cx = Ctx {
        path,
        text,
        out: Parsed::default(),
    };
    let root = match DeTable::parse(text) {
        Ok(root) => root,
        Err(e) => {
            let offset = e.span().map_or(0, |s| s.start);
            let message = format!(
                "TOML syntax error: {}; the whole file is ignored",
                e.message().trim_end()
            );
            cx.problem(offset, true, None, message);
            cx.out.unreadable = true;
            return cx.out;
        },
    };
    let known = knobs::sections().join("], [");
    for (name, section) in root.get_ref() {
        let offset = name.span().start;
        if name.get_ref() == crate::remote::hosts::SECTION {
            // The machines reached over ssh: a table of tables that
            // `remote::hosts` reads and checks itself.
            hosts_problems(&mut cx, offset);
            continue;
        }
        let Some(_) = knobs::sections().into_iter().find(|s| *s == name.get_ref()) else {
            let message = format!(
                "unknown section [{}]; known: [{known}], [hosts.NAME]",
                name.get_ref()
            );
            cx.problem(offset, false, Some(name.get_ref().to_string()), message);
            continue;
        };
        let DeValue::Table(table) = section.get_ref() else {
            let message = format!(
                "`{}` must be a section ([{}]), found {}",
                name.get_ref(),
                name.get_ref(),
                section.get_ref().type_str()
            );
            cx.problem(offset, false, Some(name.get_ref().to_string()), message);
            continue;
        };
        for (key, value) in table {
            entry(&mut cx, name.get_ref(), key, value);
        }
    }
    // The table is kept in key order; report in the file's order.
    cx.out.problems.sort_by_key(|p| match p.at {
        Where::File { line, .. } => line,
        _ => 0,
    });
    cx.out
}

/// The hosts table's problems, at the line of its first header.
fn hosts_problems(cx: &mut Ctx<'_>, offset: usize) {
    for message in crate::remote::hosts::parse(cx.text).problems {
        let key = message.split(':').next().map(str::to_owned);
        cx.problem(offset, false, key, message);
    }
}

fn entry(
    cx: &mut Ctx<'_>,
    section: &str,
    key: &Spanned<Cow<'_, str>>,
    value: &Spanned<DeValue<'_>>,
) {
    let full = format!("{section}.{}", key.get_ref());
    let Some(knob) = knobs::by_key(section, key.get_ref()) else {
        let keys: Vec<&str> = knobs::KNOBS
            .iter()
            .filter(|k| k.section == section)
            .map(|k| k.key)
            .collect();
        let message = format!("unknown key `{full}`; [{section}] has: {}", keys.join(", "));
        cx.problem(key.span().start, false, Some(full), message);
        return;
    };
    let offset = value.span().start;
    let (line, _) = line_col(cx.text, offset);
    let checked = match (knob.kind, value.get_ref()) {
        (Kind::Int { min, max, unit }, DeValue::Integer(i)) => {
            match i128::from_str_radix(i.as_str(), i.radix()) {
                Ok(n) if n >= i128::from(min) && n <= i128::from(max) => {
                    u64::try_from(n).map(Value::Int).map_err(|_| String::new())
                },
                Ok(n) => Err(format!(
                    "{n} is out of range: expected {} from {min} to {max}",
                    unit.describe()
                )),
                Err(_) => Err(format!("expected {} from {min} to {max}", unit.describe())),
            }
        },
        (Kind::Int { min, max, unit }, other) => Err(format!(
            "expected an integer ({}, {min} to {max}), found {}",
            unit.describe(),
            other.type_str()
        )),
        (Kind::Path, DeValue::String(s)) => check_path(s).map(Value::Path),
        (Kind::Path, other) => Err(format!(
            "expected an absolute path (a string), found {}",
            other.type_str()
        )),
        (Kind::Filter, DeValue::String(s)) if !s.trim().is_empty() => {
            Ok(Value::Text(s.trim().to_owned()))
        },
        (Kind::Filter, DeValue::String(_)) => Err("expected a log level, found \"\"".to_owned()),
        (Kind::Filter, other) => Err(format!(
            "expected a log level or filter (a string), found {}",
            other.type_str()
        )),
        (Kind::Bool, DeValue::Boolean(b)) => Ok(Value::Bool(*b)),
        (Kind::Bool, other) => Err(format!(
            "expected true or false, found {}",
            other.type_str()
        )),
    };
    match checked {
        Ok(value) => cx.out.entries.push(Entry {
            id: knob.id,
            value,
            line,
        }),
        Err(message) => cx.problem(offset, false, Some(full), message),
    }
}

/// An absolute, non-empty path.
pub fn check_path(s: &str) -> Result<PathBuf, String> {
    let p = PathBuf::from(s);
    if s.is_empty() {
        Err("expected an absolute path, found \"\"".to_owned())
    } else if !p.is_absolute() {
        Err(format!("expected an absolute path, found \"{s}\""))
    } else {
        Ok(p)
    }
}
