//! The screens captured from the real agents, read by the bundled rules: each
//! must tell its state, and the fidelity table per agent and version is printed.

use super::*;

/// The kind a fixture directory's agent name stands for: a kind of its own,
/// else that of the bundled manifest naming it as a binary (a generic agent
/// such as `grok`, whose rules are scoped to that program).
fn fixture_kind(agent: &str) -> Option<AgentKind> {
    AgentKind::parse(agent).or_else(|| {
        let set = AgentSet::bundled_only();
        set.bundled.iter().find(|m| m.names(agent)).map(|m| m.kind)
    })
}

/// Real screens the bundled rules are known to read wrong, each with why:
/// (fixture directory, file stem, reason). docs/agents.md shows them beside
/// the fidelity table. A miss not listed here fails the fixture test, and so
/// does a listed one the rules now read right (take it out).
const KNOWN_MISSES: &[(&str, &str, &str)] = &[];

/// One captured screen: `<agent>-<version>/<state>[-<what>].txt`, its first
/// line `# title: …`.
pub(super) struct Fixture {
    /// The directory: `gemini-0.61.0`.
    pub dir: String,
    pub agent: String,
    pub kind: AgentKind,
    /// The file name without `.txt`: `working-hooks`.
    pub stem: String,
    pub title: String,
    pub screen: String,
    /// What the name says the screen is.
    pub expected: ScreenState,
}

/// Every captured screen, sorted by directory and file.
pub(super) fn fixtures() -> Vec<Fixture> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../integration-tests/fixtures/real-screens");
    let sorted = |dir: &std::path::Path| {
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        paths.sort();
        paths
    };
    let name_of = |p: &std::path::Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let mut all = Vec::new();
    for dir in sorted(&root) {
        let name = name_of(&dir);
        let agent = name.split_once('-').map_or(name.as_str(), |(a, _)| a);
        let kind = fixture_kind(agent).unwrap_or_else(|| panic!("{name}: unknown agent"));
        for file in sorted(&dir) {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let (first, screen) = text.split_once('\n').unwrap_or((&text, ""));
            let stem = name_of(&file).trim_end_matches(".txt").to_owned();
            // `blocked-hook-trust.txt` is a second blocked screen, and so on.
            let base = stem.split('-').next().unwrap_or_default();
            let expected = match (stem.as_str(), base) {
                ("hook-running", _) => ScreenState::Working,
                (s, _) if s.starts_with("rate-limited") => ScreenState::RateLimited,
                (_, "idle" | "done") => ScreenState::Idle,
                (_, "working") => ScreenState::Working,
                (_, "blocked") => ScreenState::Blocked,
                (_, "interrupted") => ScreenState::Interrupted,
                _ => panic!("{name}/{stem}: no expected state for this file name"),
            };
            all.push(Fixture {
                dir: name.clone(),
                agent: agent.to_owned(),
                kind,
                title: first
                    .strip_prefix("# title: ")
                    .unwrap_or_default()
                    .to_owned(),
                screen: screen.to_owned(),
                stem,
                expected,
            });
        }
    }
    all
}

/// Screens captured from the real agents at pinned versions by the real-agent
/// suite (`SIGNALTTY_CAPTURE_SCREENS=DIR`), one directory per agent and
/// version: the bundled rules must tell each state. A new agent release that
/// draws differently shows up here as a failing fixture. Prints the fidelity
/// table (right / total per agent and version; `--nocapture` shows it).
#[test]
fn the_real_agents_screens_are_classified_by_the_bundled_rules() {
    let mut table = vec![
        "| agent | version | screens right / total | known misses |".to_owned(),
        "|---|---|---|---|".to_owned(),
    ];
    let mut unexpected = Vec::new();
    let mut known_seen = Vec::new();
    let all = fixtures();
    let mut rows: Vec<(String, usize, usize, usize)> = Vec::new();
    for f in &all {
        if rows.last().is_none_or(|r| r.0 != f.dir) {
            rows.push((f.dir.clone(), 0, 0, 0));
        }
        let Some(row) = rows.last_mut() else { continue };
        let got = state_of(f.kind, &f.agent, &f.screen, &f.title);
        let listed = KNOWN_MISSES
            .iter()
            .any(|(d, s, _)| *d == f.dir && *s == f.stem);
        row.2 += 1;
        if got.as_ref().map(|(s, _)| *s) == Some(f.expected) {
            row.1 += 1;
            if listed {
                unexpected.push(format!(
                    "{}/{}.txt is read right now: unlist it",
                    f.dir, f.stem
                ));
            }
        } else if listed {
            row.3 += 1;
            known_seen.push(format!("{}/{}", f.dir, f.stem));
        } else {
            unexpected.push(format!(
                "{}/{}.txt (title {:?}): expected {:?}, got {got:?}",
                f.dir, f.stem, f.title, f.expected
            ));
        }
    }
    for (dir, right, total, known) in rows {
        let (agent, version) = dir.split_once('-').unwrap_or((&dir, "?"));
        table.push(format!(
            "| {agent} | {version} | {right} / {total} | {known} |"
        ));
    }
    println!("{}", table.join("\n"));
    for (d, f, why) in KNOWN_MISSES {
        println!("known miss {d}/{f}.txt: {why}");
        if !known_seen.contains(&format!("{d}/{f}"))
            && !unexpected
                .iter()
                .any(|u| u.starts_with(&format!("{d}/{f}.")))
        {
            unexpected.push(format!(
                "{d}/{f}.txt is listed as a known miss but no such fixture exists"
            ));
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
    assert!(all.len() >= 15, "only {} real screens found", all.len());
}

/// Qwen Code's title states its turn, but a terminal that drops titles (or a
/// session name without the prefix) still reads the same from its screen.
#[test]
fn qwen_codes_real_screens_read_the_same_without_their_title() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../integration-tests/fixtures/real-screens/qwen-0.24.4");
    for (file, expected, rule) in [
        ("idle", ScreenState::Idle, "idle_fallback"),
        ("working", ScreenState::Working, "esc_to_cancel_working"),
        (
            "hook-running",
            ScreenState::Working,
            "esc_to_cancel_working",
        ),
        ("blocked", ScreenState::Blocked, "confirmation_prompt"),
        ("done", ScreenState::Idle, "idle_fallback"),
    ] {
        let text = std::fs::read_to_string(dir.join(format!("{file}.txt"))).unwrap_or_default();
        let screen = text.split_once('\n').map_or("", |(_, s)| s);
        let got = state_of(AgentKind::Generic, "qwen", screen, "");
        assert_eq!(got, Some((expected, rule.to_owned())), "{file}");
    }
}
