//! The module graph of this crate, read from its sources: no two modules
//! import each other, directly or around a circle, and the pure models
//! (`domain/`) import nothing that runs actors, talks to the OS or stores.
//! docs/ARCHITECTURE.md ("The crate's layout") draws the layers these tests
//! hold the code to.
//!
//! A module is a file's place in the tree two levels down from a group
//! (`actors::pane`, `domain::state`, `os::git`, `store::journal`) or one
//! level down for the crate's top files (`config`, `error`, `ids`). An edge
//! is any `crate::…` or `super::…` path in a file's code; test modules
//! (`tests.rs`, `tests/` and the testkit) are left out, since tests may
//! reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The groups whose children are modules of their own.
const GROUPS: [&str; 4] = ["actors", "domain", "os", "store"];

/// Circles allowed to stay, each with why. None today: a new one must be
/// argued for here.
const ALLOWED_CIRCLES: &[(&[&str], &str)] = &[];

/// What the pure models may import besides one another.
const DOMAIN_MAY_USE: [&str; 3] = ["config", "error", "ids"];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every non-test source file, with its module path (`["actors", "pane",
/// "hooks"]` for `actors/pane/hooks.rs`).
fn files() -> Vec<(PathBuf, Vec<String>)> {
    let mut out = Vec::new();
    walk(&src(), &mut Vec::new(), &mut out);
    out
}

fn walk(dir: &Path, at: &mut Vec<String>, out: &mut Vec<(PathBuf, Vec<String>)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        if is_test(&name) {
            continue;
        }
        if path.is_dir() {
            at.push(name);
            walk(&path, at, out);
            at.pop();
        } else if let Some(stem) = name.strip_suffix(".rs") {
            let mut module = at.clone();
            if stem != "mod" && stem != "lib" {
                module.push(stem.to_owned());
            }
            out.push((path, module));
        }
    }
}

fn is_test(name: &str) -> bool {
    name == "tests"
        || name == "tests.rs"
        || name == "testkit"
        || name == "testkit.rs"
        || name == "fixtures"
        || name == "golden"
}

/// The module a path belongs to in the graph.
fn key(path: &[String]) -> Option<String> {
    let first = path.first()?;
    if GROUPS.contains(&first.as_str()) {
        let second = path.get(1)?;
        Some(format!("{first}::{second}"))
    } else {
        Some(first.clone())
    }
}

/// The code of a file without comments and string literals.
fn code(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or_default();
        // Paths never appear inside string literals in this crate's imports;
        // dropping quoted text keeps messages that mention modules out.
        let mut quoted = false;
        for c in line.chars() {
            if c == '"' {
                quoted = !quoted;
            } else if !quoted {
                out.push(c);
            }
        }
        out.push('\n');
    }
    out
}

/// The module paths a file's code names: `crate::a::b…` and `super::…`
/// resolved against `at`, including the members of `use crate::{a, b::c}`.
fn references(code: &str, at: &[String]) -> BTreeSet<Vec<String>> {
    let mut found = BTreeSet::new();
    let text = code;
    for (start, _) in text.match_indices("crate::") {
        let before = text[..start].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &text[start + "crate::".len()..];
        for path in expand(rest) {
            found.insert(path);
        }
    }
    for (start, _) in text.match_indices("super::") {
        let before = text[..start].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        // `super` of a file `a/b.rs` (module a::b) is `a`; of `a/b/mod.rs`
        // (also a::b) it is `a` too.
        let mut base: Vec<String> = at.to_vec();
        let mut rest = &text[start..];
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        for path in expand(rest) {
            let mut full = base.clone();
            full.extend(path);
            found.insert(full);
        }
    }
    found
}

/// The paths a `use` tail or an expression path names: `a::b::C` gives
/// `[a, b, C]`; `{a::X, b}` gives each member.
fn expand(rest: &str) -> Vec<Vec<String>> {
    let mut segments = Vec::new();
    let mut chars = rest.char_indices().peekable();
    let mut current = String::new();
    while let Some((i, c)) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            current.push(c);
        } else if c == ':' && rest[i..].starts_with("::") {
            chars.next();
            segments.push(std::mem::take(&mut current));
        } else if c == '{' && current.is_empty() {
            let inner = &rest[i + 1..];
            let end = matching_brace(inner);
            return members(&inner[..end])
                .into_iter()
                .flat_map(|member| expand(member.trim()))
                .map(|tail| segments.iter().cloned().chain(tail).collect())
                .collect();
        } else {
            break;
        }
    }
    if !current.is_empty() {
        segments.push(current);
    }
    if segments.is_empty() {
        Vec::new()
    } else {
        vec![segments]
    }
}

/// The members of a `{…}` group, split at its own commas only.
fn members(group: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(&group[start..i]);
                start = i + 1;
            },
            _ => {},
        }
    }
    out.push(&group[start..]);
    out
}

fn matching_brace(text: &str) -> usize {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return i,
            '}' => depth -= 1,
            _ => {},
        }
    }
    text.len()
}

/// The graph: each module and the modules it imports (itself left out).
fn graph() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let files = files();
    let modules: BTreeSet<String> = files.iter().filter_map(|(_, m)| key(m)).collect();
    let mut edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (path, module) in &files {
        let Some(from) = key(module) else {
            continue;
        };
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let where_ = path
            .strip_prefix(src())
            .unwrap_or(path)
            .display()
            .to_string();
        for reference in references(&code(&text), module) {
            let Some(to) = key(&reference) else {
                continue;
            };
            if to != from && modules.contains(&to) {
                edges
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_default()
                    .insert(where_.clone());
            }
        }
        edges.entry(from).or_default();
    }
    edges
}

/// Strongly connected components with more than one module (Tarjan).
fn circles(graph: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        next: usize,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        let graph = s.graph;
        for w in graph.get(v).into_iter().flat_map(BTreeMap::keys) {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[w].min(s.low[v]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.index[w].min(s.low[v]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found
}

/// How a circle's modules import one another, for the failure message.
fn describe(
    graph: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
    circle: &[String],
) -> String {
    let mut lines = Vec::new();
    for from in circle {
        for (to, files) in graph.get(from).into_iter().flatten() {
            if circle.contains(to) {
                let files: Vec<&str> = files.iter().map(String::as_str).collect();
                lines.push(format!("  {from} -> {to}  ({})", files.join(", ")));
            }
        }
    }
    lines.join("\n")
}

#[test]
fn the_modules_of_the_server_form_no_circle() {
    let graph = graph();
    assert!(
        graph.contains_key("actors::supervisor") && graph.contains_key("domain::registry"),
        "the walk found no modules: {:?}",
        graph.keys().collect::<Vec<_>>()
    );
    let unexplained: Vec<_> = circles(&graph)
        .into_iter()
        .filter(|c| {
            !ALLOWED_CIRCLES
                .iter()
                .any(|(allowed, _)| allowed.iter().copied().eq(c.iter().map(String::as_str)))
        })
        .collect();
    let text: Vec<String> = unexplained
        .iter()
        .map(|c| format!("{}:\n{}", c.join(" <-> "), describe(&graph, c)))
        .collect();
    assert!(
        unexplained.is_empty(),
        "modules that import each other (break the circle, or name it in ALLOWED_CIRCLES with why):\n{}",
        text.join("\n")
    );
}

#[test]
fn the_pure_models_import_no_actor_os_or_store_module() {
    let graph = graph();
    let mut wrong = Vec::new();
    for (from, targets) in &graph {
        if !from.starts_with("domain::") {
            continue;
        }
        for (to, files) in targets {
            if !to.starts_with("domain::") && !DOMAIN_MAY_USE.contains(&to.as_str()) {
                let files: Vec<&str> = files.iter().map(String::as_str).collect();
                wrong.push(format!("  {from} -> {to}  ({})", files.join(", ")));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "domain/ reaches out:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_circle_and_a_reach_are_found_in_a_small_graph() {
    let mut g: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut edge = |a: &str, b: &str| {
        g.entry(a.into())
            .or_default()
            .entry(b.into())
            .or_default()
            .insert(format!("{a}.rs"));
        g.entry(b.into()).or_default();
    };
    edge("a", "b");
    edge("b", "c");
    edge("c", "a");
    edge("c", "d");
    assert_eq!(
        circles(&g),
        vec![vec!["a".to_owned(), "b".into(), "c".into()]]
    );
    let refs = references(
        "use crate::{os::pty::Pty, domain::{layout, slug::X}};\nlet x = super::super::y::Z;",
        &["actors".into(), "pane".into(), "hooks".into()],
    );
    let keys: BTreeSet<_> = refs.iter().filter_map(|r| key(r)).collect();
    assert_eq!(
        keys,
        ["actors::y", "domain::layout", "domain::slug", "os::pty"]
            .into_iter()
            .map(String::from)
            .collect()
    );
}
