//! The repository's docs/ are the contract the code cites: every
//! `docs/<page>.md#<anchor>` written in a source file of any crate, and every
//! link between the docs pages, must name a page that exists and a heading
//! it has (GitHub's anchor of the heading). A renamed heading fails here,
//! naming the file that still cites the old one. Nothing may cite the design
//! notes the code was first written from: they are not in the repository.

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

/// The section sign, written as an escape so this file never holds one.
const SECTION: char = '\u{a7}';

/// The directory of the design notes, as a path names it (built from pieces so
/// this file never cites it).
const NOTES_DIR: &str = concat!("spec", "/");

/// The files of the design notes the code was first written from. None is a
/// page of docs/, so a citation of one can only mean the notes.
const NOTES_ONLY: [&str; 5] = [
    "ipc",
    "data-model",
    "lifecycle",
    "pty-terminal",
    // The reliability tests owed; docs/reliability.md is the page of what
    // was built.
    "reliability",
];

/// The other notes the project was started with (the dependency pitfalls,
/// the style examples, the reviews and peer notes): outside the repository
/// too, so never cited either.
const OTHER_NOTES: [&str; 4] = ["deps", "STYLE", "peers", "architecture-review-2"];

/// The pages of docs/ whose names the notes share: cited with a section
/// number, such a name means the notes, not the page.
const SHARED_NAMES: [&str; 3] = ["tasks", "persistence", "agents"];

fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// Where `file` (a bare name such as `ipc`, without `.md`) is written as
/// `<file>.md` in `line`, not as the tail of a longer name: the byte offsets
/// of the name's start and of what follows `.md`.
fn mentions(line: &str, file: &str) -> Vec<(usize, usize)> {
    let needle = format!("{file}.md");
    line.match_indices(&needle)
        .map(|(at, _)| (at, at + needle.len()))
        .filter(|&(at, _)| !line[..at].chars().next_back().is_some_and(name_char))
        .collect()
}

/// Whether `line` cites the design notes rather than a docs page: a section
/// sign, a file under the notes' directory ([`NOTES_DIR`]), a notes-only file not
/// written as a docs link (`docs/`, `(`, `/` before it), any of the
/// [`OTHER_NOTES`], or a shared name followed by a section number.
fn cites_the_notes(line: &str) -> bool {
    if line.contains(SECTION) {
        return true;
    }
    let in_notes_dir = line.match_indices(NOTES_DIR).any(|(at, _)| {
        let rest = &line[at + NOTES_DIR.len()..];
        let name_len = rest.chars().take_while(|c| name_char(*c)).count();
        name_len > 0 && rest[name_len..].starts_with(".md")
    });
    let other_notes = OTHER_NOTES
        .iter()
        .any(|file| !mentions(line, file).is_empty());
    let notes_only = NOTES_ONLY.iter().any(|file| {
        mentions(line, file)
            .into_iter()
            .any(|(at, _)| !(line[..at].ends_with('(') || line[..at].ends_with('/')))
    });
    let numbered = SHARED_NAMES.iter().any(|file| {
        mentions(line, file).into_iter().any(|(_, end)| {
            line[end..]
                .trim_start_matches([' ', '\t'])
                .starts_with(|c: char| c == SECTION || c.is_ascii_digit())
        })
    });
    in_notes_dir || notes_only || other_notes || numbered
}

/// The design notes are not in the repository: a person with a clone cannot
/// open them, so neither the code nor the docs may cite them. Each rule is
/// cited by the docs heading that states it.
#[test]
fn nothing_cites_the_design_notes() {
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
    files.extend(pages().keys().map(|page| root().join("docs").join(page)));
    files.extend(["README.md", "CONTRIBUTING.md"].map(|f| root().join(f)));
    let mut wrong = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let shown = file.strip_prefix(root()).unwrap_or(file).display();
        for (n, line) in text.lines().enumerate() {
            if cites_the_notes(line) {
                wrong.push(format!("{shown}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "citations of the design notes (cite a docs/ heading instead):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn citations_of_the_notes_are_told_from_docs_links() {
    let (s, dir) = (SECTION, NOTES_DIR);
    let [ipc, _, lifecycle, _, reliability] = NOTES_ONLY;
    let [tasks, persistence, _] = SHARED_NAMES;
    for cited in [
        format!("(see {s}6.2)"),
        format!("see {dir}{tasks}.md for it"),
        format!("the table of {lifecycle}.md"),
        format!("`{ipc}.md` says so"),
        format!("{tasks}.md {s}10 step 4"),
        format!("{persistence}.md 8.3"),
        format!("docs/{tasks}.md {s}2"),
        format!("see {reliability}.md X1"),
        format!("({}.md pitfall 5)", OTHER_NOTES[0]),
        format!("{}.md example 2", OTHER_NOTES[1]),
    ] {
        assert!(cites_the_notes(&cited), "{cited}");
    }
    for fine in [
        format!("docs/{tasks}.md#starting-a-task"),
        format!("[the rules]({persistence}.md#rotation)"),
        // In a source file the citation test above reports it: no such page.
        format!("docs/{lifecycle}.md is no page"),
        format!("[x](./{ipc}.md)"),
        format!("{tasks}.md, then the rest"),
        format!("my-{ipc}.md"),
        format!("[what was measured](docs/{reliability}.md#benchmark)"),
        format!("a {dir} directory"),
    ] {
        assert!(!cites_the_notes(&fine), "{fine}");
    }
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
