//! Tests of the CLI's shared plumbing (the `--env` parser) and of its shape:
//! no command module uses another. A command module names only `crate::cli`
//! (mod.rs), the shared top-level modules, and the model and protocol crates;
//! what two commands share moves to mod.rs or to a shared module.

use super::*;
use std::path::Path;

#[test]
fn env_flags_need_a_key_and_an_equals_sign() {
    assert_eq!(parse_env("A=b=c"), Ok(("A".into(), "b=c".into())));
    assert_eq!(parse_env("EMPTY="), Ok(("EMPTY".into(), String::new())));
    assert!(parse_env("NOEQUALS").is_err());
    assert!(parse_env("=value").is_err());
    assert_eq!(env_param(Vec::new()), None);
    assert_eq!(
        env_param(vec![("K".into(), "1".into()), ("K".into(), "2".into())]),
        Some([("K".to_owned(), "2".to_owned())].into_iter().collect()),
        "the last of a repeated key wins"
    );
}

#[test]
fn no_command_module_uses_another() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    let commands = command_modules(&std::fs::read_to_string(dir.join("mod.rs")).unwrap());
    assert!(commands.len() > 10, "{commands:?}");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    assert!(files.len() > commands.len(), "{files:?}");
    let mut found = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&dir).unwrap();
        let text = std::fs::read_to_string(file).unwrap();
        for (line, why) in violations(&module_path(rel), &text, &commands) {
            found.push(format!("src/cli/{}:{line}: {why}", rel.display()));
        }
    }
    assert!(
        found.is_empty(),
        "a command module may use only crate::cli (mod.rs), {}, and the model and protocol \
         crates; move what two commands share into src/cli/mod.rs or a shared module:\n{}",
        SHARED.join(", "),
        found.join("\n")
    );
}

#[test]
fn the_layout_check_names_each_use_of_another_command_module() {
    let commands: Vec<String> = ["pane", "decision", "doctor", "agents"]
        .map(String::from)
        .to_vec();
    let text = r#"//! Uses `crate::cli::decision` in a comment only.
use crate::cli::{call, fail};
use crate::cli::{fetch, decision::print};
use super::decision;
use crate::paint::columns;
use crate::serve::ServerArgs;
fn f() -> &'static str {
    let _ = "crate::cli::decision::x";
    crate::cli::decision::answer();
    super::super::board::run();
    signaltty_actors::run_server();
    "super::pane"
}
"#;
    let lines: Vec<usize> = violations(&["pane".to_owned()], text, &commands)
        .into_iter()
        .map(|(line, _)| line)
        .collect();
    assert_eq!(lines, [3, 4, 6, 9, 11]);
    // Inside a command's own folder, `super::` is that command.
    let doctor = ["doctor".to_owned(), "agents".to_owned()];
    let text = "use super::verdict::Check;\nuse super::super::fail;\nuse super::super::agents;\n";
    let found = violations(&doctor, text, &commands);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, 3);
    assert!(found[0].1.contains("crate::cli::agents"), "{found:?}");
}

/// The top-level modules of the binary a command module may use.
const SHARED: &[&str] = &[
    "args", "attach", "board", "launch", "logger", "paint", "remote", "systemd", "web",
];

/// The modules `mod.rs` declares, but its tests: the commands.
fn command_modules(mod_rs: &str) -> Vec<String> {
    mod_rs
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let name = l
                .strip_prefix("pub mod ")
                .or_else(|| l.strip_prefix("mod "))?;
            name.strip_suffix(';').map(str::to_owned)
        })
        .filter(|name| name != "tests")
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path under `crate::cli` of a file under `src/cli`:
/// `doctor/mod.rs` is `["doctor"]`, `doctor/agents.rs` `["doctor", "agents"]`.
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop()
        && last != "mod.rs"
    {
        parts.push(last.trim_end_matches(".rs").to_owned());
    }
    parts
}

/// Each line of `text` (the file of module `crate::cli::<module…>`) that
/// names another command module, a top-level module that is not shared, or
/// the server crate, with what it names.
fn violations(module: &[String], text: &str, commands: &[String]) -> Vec<(usize, String)> {
    let own = module.first();
    let mut here = vec!["cli".to_owned()];
    here.extend(module.iter().cloned());
    let mut out = Vec::new();
    for (line, path) in paths(&code_only(text)) {
        let absolute: Vec<String> = match path[0].as_str() {
            "crate" => path[1..].to_vec(),
            "super" => {
                let ups = path.iter().take_while(|s| *s == "super").count();
                let mut abs = here[..here.len().saturating_sub(ups)].to_vec();
                abs.extend(path[ups..].iter().cloned());
                abs
            },
            _ => {
                out.push((line, format!("uses {}, the server crate", path.join("::"))));
                continue;
            },
        };
        let Some(top) = absolute.first() else {
            continue;
        };
        if top == "cli" {
            if let Some(other) = absolute.get(1)
                && commands.contains(other)
                && Some(other) != own
            {
                out.push((
                    line,
                    format!("uses crate::cli::{other}, another command module"),
                ));
            }
        } else if !SHARED.contains(&top.as_str()) {
            out.push((line, format!("uses crate::{top}, not a shared module")));
        }
    }
    out
}

/// `text` with comments and the contents of string and char literals
/// blanked, lines kept.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !ident_before(&chars, i) {
            // A raw string: r"…", r#"…"#.
            let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let end: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            i += 2 + hashes;
            out.push_str(&" ".repeat(2 + hashes));
            while i < chars.len() && !chars[i..].starts_with(&end.chars().collect::<Vec<_>>()) {
                out.push(blank(chars[i]));
                i += 1;
            }
            out.push_str(&" ".repeat(end.len()));
            i += end.len();
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if let Some(&c) = chars.get(i) {
                    out.push(blank(c));
                }
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && (chars.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A char literal ('"', '\'', '\u{7f}'); a lifetime has no closing quote.
            let end = if next == Some('\\') {
                (i + 3..chars.len())
                    .find(|&j| chars[j] == '\'')
                    .unwrap_or(i + 2)
            } else {
                i + 2
            };
            out.extend(std::iter::repeat_n(' ', end + 1 - i));
            i = end + 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// Every path that starts with `crate`, `super` or `signaltty_actors`, with
/// its line: `crate::cli::{call, pane::x}` gives `crate::cli::call` and
/// `crate::cli::pane`, each cut after the first segment inside the braces.
fn paths(code: &str) -> Vec<(usize, Vec<String>)> {
    // Tokens: identifiers (and `*`), `::`, `{`, `}`, `,`, each with its line.
    let mut tokens: Vec<(usize, String)> = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c.is_alphanumeric() || c == '_' {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                tokens.push((n + 1, chars[start..i].iter().collect()));
                continue;
            }
            if c == ':' && chars.get(i + 1) == Some(&':') {
                tokens.push((n + 1, "::".to_owned()));
                i += 2;
                continue;
            }
            if !c.is_whitespace() {
                tokens.push((n + 1, c.to_string()));
            }
            i += 1;
        }
    }
    let mut out = Vec::new();
    for start in 0..tokens.len() {
        let head = tokens[start].1.as_str();
        let after_sep = start > 0 && tokens[start - 1].1 == "::";
        if after_sep || !["crate", "super", "signaltty_actors"].contains(&head) {
            continue;
        }
        let line = tokens[start].0;
        let mut prefix = vec![head.to_owned()];
        let mut i = start + 1;
        while tokens.get(i).is_some_and(|t| t.1 == "::") {
            match tokens.get(i + 1).map(|t| t.1.as_str()) {
                Some("{") => {
                    // One path per item of the group: its first segment.
                    let mut depth = 0;
                    let mut item_start = true;
                    for (l, t) in &tokens[i + 1..] {
                        match t.as_str() {
                            "{" => depth += 1,
                            "}" if depth == 1 => break,
                            "}" => depth -= 1,
                            "," if depth == 1 => item_start = true,
                            name if depth == 1 && item_start => {
                                item_start = false;
                                let mut path = prefix.clone();
                                if name != "self" {
                                    path.push(name.to_owned());
                                }
                                out.push((*l, path));
                            },
                            _ => {},
                        }
                    }
                    prefix.clear();
                    break;
                },
                Some(name) if name != "{" => {
                    prefix.push(name.to_owned());
                    i += 2;
                },
                _ => break,
            }
        }
        if !prefix.is_empty() {
            out.push((line, prefix));
        }
    }
    out
}
