//! The repository's docs/ are the contract the code cites: every
//! `docs/<page>.md#<anchor>` written in a source file of any crate, and every
//! link between the docs pages, must name a page that exists and a heading
//! it has (GitHub's anchor of the heading). A renamed heading fails here,
//! naming the file that still cites the old one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// GitHub's anchor of a heading: lowercased, spaces to `-`, punctuation
/// other than `-` and `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a markdown page (repeated headings get `-1`, `-2`, …).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let base = slug(heading);
        let n = seen.entry(base.clone()).or_default();
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

fn pages() -> BTreeMap<String, BTreeSet<String>> {
    let dir = root().join("docs");
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(e.path()).ok()?;
            name.ends_with(".md").then(|| (name, anchors(&text)))
        })
        .collect()
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for path in entries.flatten().map(|e| e.path()) {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// Every `docs/<page>.md#<anchor>` in `text`, with its line number.
fn citations(text: &str) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("docs/") {
            rest = &rest[at + "docs/".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            if name.is_empty() || !rest[name.len()..].starts_with(".md") {
                continue;
            }
            let page = format!("{name}.md");
            let after = &rest[page.len()..];
            let anchor: String = after
                .strip_prefix('#')
                .map(|a| {
                    a.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
                        .collect()
                })
                .unwrap_or_default();
            out.push((n + 1, page, anchor));
        }
    }
    out
}

#[test]
fn every_docs_section_the_code_cites_exists() {
    let pages = pages();
    assert!(pages.contains_key("ARCHITECTURE.md"), "{pages:?}");
    let mut files = Vec::new();
    for dir in [
        "src",
        "actors",
        "model",
        "protocol",
        "integration-tests",
        "benches",
    ] {
        sources(&root().join(dir), &mut files);
    }
    let mut wrong = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (line, page, anchor) in citations(&text) {
            let shown = file.strip_prefix(root()).unwrap_or(file).display();
            match pages.get(&page) {
                None => wrong.push(format!("{shown}:{line}: no page docs/{page}")),
                Some(anchors) if !anchor.is_empty() && !anchors.contains(&anchor) => {
                    wrong.push(format!("{shown}:{line}: docs/{page} has no #{anchor}"));
                },
                Some(_) => {},
            }
        }
    }
    assert!(wrong.is_empty(), "stale citations:\n{}", wrong.join("\n"));
}

#[test]
fn every_link_between_the_docs_pages_exists() {
    let pages = pages();
    let mut wrong = Vec::new();
    for page in pages.keys() {
        let text = std::fs::read_to_string(root().join("docs").join(page)).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find("](") {
                rest = &rest[at + 2..];
                let target: String = rest.chars().take_while(|c| *c != ')').collect();
                if target.contains("://") || target.starts_with("../") {
                    continue;
                }
                let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
                let file = if file.is_empty() { page.as_str() } else { file };
                if !file.ends_with(".md") {
                    continue;
                }
                match pages.get(file) {
                    None => wrong.push(format!("docs/{page}:{}: no page {file}", n + 1)),
                    Some(anchors) if !anchor.is_empty() && !anchors.contains(anchor) => {
                        wrong.push(format!("docs/{page}:{}: {file} has no #{anchor}", n + 1));
                    },
                    Some(_) => {},
                }
            }
        }
    }
    assert!(wrong.is_empty(), "broken links:\n{}", wrong.join("\n"));
}

#[test]
fn anchors_follow_githubs_rule() {
    assert_eq!(
        slug(" The start steps in order"),
        "the-start-steps-in-order"
    );
    assert_eq!(slug("`pane.spawn`"), "panespawn");
    assert_eq!(slug("One file's diff"), "one-files-diff");
    assert_eq!(
        anchors("# A\n## B c\n```\n# not\n```\n## B c\n"),
        ["a", "b-c", "b-c-1"]
            .into_iter()
            .map(String::from)
            .collect()
    );
    assert_eq!(
        citations("see docs/tasks.md#the-first-prompt and docs/cli.md."),
        vec![
            (1, "tasks.md".into(), "the-first-prompt".into()),
            (1, "cli.md".into(), String::new())
        ]
    );
}
