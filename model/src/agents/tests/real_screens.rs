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

/// Screens captured from the real agents at pinned versions by the real-agent
/// suite (`SIGNALTTY_CAPTURE_SCREENS=DIR`), one directory per agent and
/// version: the bundled rules must tell each state. A new agent release that
/// draws differently shows up here as a failing fixture. Prints the fidelity
/// table (right / total per agent and version; `--nocapture` shows it).
#[test]
fn the_real_agents_screens_are_classified_by_the_bundled_rules() {
    use ScreenState::*;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../integration-tests/fixtures/real-screens");
    let mut checked = 0;
    let mut table = vec![
        "| agent | version | screens right / total | known misses |".to_owned(),
        "|---|---|---|---|".to_owned(),
    ];
    let mut unexpected = Vec::new();
    let mut known_seen = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.sort();
    for dir in dirs {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (agent, version) = name.split_once('-').unwrap_or((&name, "?"));
        let kind = fixture_kind(agent).unwrap_or_else(|| panic!("{name}: unknown agent"));
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        let (mut right, mut total, mut known) = (0, 0, 0);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let (first, screen) = text.split_once('\n').unwrap_or((&text, ""));
            let title = first.strip_prefix("# title: ").unwrap_or_default();
            let state = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            // `blocked-hook-trust.txt` is a second blocked screen, and so on.
            let base = state.split('-').next().unwrap_or_default();
            let expected = match (state.as_str(), base) {
                ("hook-running", _) => Working,
                (_, "idle" | "done") => Idle,
                (_, "working") => Working,
                (_, "blocked") => Blocked,
                _ => panic!("{name}/{state}: no expected state for this file name"),
            };
            let got = state_of(kind, agent, screen, title);
            let listed = KNOWN_MISSES
                .iter()
                .any(|(d, f, _)| *d == name && *f == state);
            total += 1;
            checked += 1;
            if got.as_ref().map(|(s, _)| *s) == Some(expected) {
                right += 1;
                if listed {
                    unexpected.push(format!("{name}/{state}.txt is read right now: unlist it"));
                }
            } else if listed {
                known += 1;
                known_seen.push(format!("{name}/{state}"));
            } else {
                unexpected.push(format!(
                    "{name}/{state}.txt (title {title:?}): expected {expected:?}, got {got:?}"
                ));
            }
        }
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
    assert!(
        checked >= 15,
        "only {checked} real screens found under {}",
        root.display()
    );
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
