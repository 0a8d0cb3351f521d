//! Install, status and uninstall over fixture files
//! (docs/integrations.md#how-files-are-edited,
//! docs/integrations.md#status-and-removal): every agent's file from absent,
//! empty, foreign, stale, hand-edited, malformed and disabled states.

use super::*;
use std::fs;
use std::sync::atomic::{AtomicU64, Ordering};

static N: AtomicU64 = AtomicU64::new(0);

struct Home {
    dir: PathBuf,
    roots: Roots,
    reporter: PathBuf,
}

impl Home {
    fn new() -> Home {
        let dir = std::env::temp_dir().join(format!(
            "signaltty-integration-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(dir.join("bin")).unwrap_or_else(|e| panic!("{e}"));
        let reporter = dir.join("bin").join("signaltty");
        fs::write(&reporter, "#!/bin/sh\n").unwrap_or_else(|e| panic!("{e}"));
        let mut perm = fs::metadata(&reporter)
            .unwrap_or_else(|e| panic!("{e}"))
            .permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        fs::set_permissions(&reporter, perm).unwrap_or_else(|e| panic!("{e}"));
        let roots = Roots::new(Some(&dir), |_| None).unwrap_or_else(|e| panic!("{e}"));
        Home {
            dir,
            roots,
            reporter,
        }
    }

    /// The hook file of an installable agent.
    fn file(&self, agent: AgentKind) -> PathBuf {
        self.roots.file(agent).unwrap_or_else(|e| panic!("{e}"))
    }

    fn put(&self, agent: AgentKind, text: &str) -> PathBuf {
        let path = self.file(agent);
        fs::create_dir_all(path.parent().unwrap_or(&self.dir)).unwrap_or_else(|e| panic!("{e}"));
        fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        path
    }

    fn status(&self, agent: AgentKind) -> Status {
        status(agent, &self.roots, &self.reporter)
            .unwrap_or_else(|e| panic!("{e}"))
            .1
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn json_of(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap_or_default()).unwrap_or(Value::Null)
}

const FOREIGN_CLAUDE: &str = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls)"]},
  "hooks": {
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}]
  }
}
"#;

#[test]
fn every_json_agent_round_trips_from_absent_empty_and_foreign_files() {
    for agent in [
        AgentKind::Claude,
        AgentKind::Codex,
        AgentKind::Cursor,
        AgentKind::Gemini,
    ] {
        for start in [None, Some(""), Some("{}"), Some(FOREIGN_CLAUDE)] {
            let home = Home::new();
            let path = home.file(agent);
            if let Some(text) = start {
                home.put(agent, text);
            }
            assert_eq!(
                home.status(agent),
                Status::NotInstalled,
                "{agent:?} {start:?}"
            );
            let report =
                install(agent, &home.roots, &home.reporter).unwrap_or_else(|e| panic!("{e}"));
            assert!(report.changed);
            assert_eq!(report.file, path);
            assert_eq!(home.status(agent), Status::Installed, "{agent:?} {start:?}");
            let bytes = fs::read(&path).unwrap_or_default();
            let again =
                install(agent, &home.roots, &home.reporter).unwrap_or_else(|e| panic!("{e}"));
            assert!(!again.changed, "repeated install is byte-preserving");
            assert_eq!(fs::read(&path).unwrap_or_default(), bytes);
            let removed = uninstall(agent, &home.roots).unwrap_or_else(|e| panic!("{e}"));
            assert!(removed.changed);
            assert_eq!(home.status(agent), Status::NotInstalled);
            if let Some(text) = start.filter(|t| !t.trim().is_empty()) {
                let original: Value = serde_json::from_str(text).unwrap_or(Value::Null);
                let mut now = json_of(&path);
                if agent == AgentKind::Cursor && original.get("version").is_none() {
                    now.as_object_mut().map(|o| o.remove("version"));
                }
                if original.get("hooks").is_none() {
                    // The hooks object install created stays, emptied.
                    assert_eq!(now.get("hooks"), Some(&serde_json::json!({})));
                    now.as_object_mut().map(|o| o.remove("hooks"));
                }
                assert_eq!(now, original, "{agent:?}: foreign content survives");
            }
        }
    }
}

#[test]
fn the_installed_file_holds_each_event_with_its_timeout_and_keeps_key_order() {
    let home = Home::new();
    let path = home.put(AgentKind::Claude, FOREIGN_CLAUDE);
    install(AgentKind::Claude, &home.roots, &home.reporter).unwrap_or_else(|e| panic!("{e}"));
    let v = json_of(&path);
    let keys: Vec<&String> = v
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        ["model", "permissions", "hooks"],
        "the user's order is kept"
    );
    let group = &v["hooks"]["PermissionRequest"][0]["hooks"][0];
    assert_eq!(group["timeout"], 125);
    let cmd = group["command"].as_str().unwrap_or_default();
    assert!(
        cmd.contains("--event PermissionRequest --payload-stdin --wait-for-answer # signaltty"),
        "{cmd}"
    );
    assert!(cmd.starts_with(&format!("'{}'", home.reporter.display())));
    assert_eq!(v["hooks"]["Stop"][1]["hooks"][0]["timeout"], 10);
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["command"],
        "notify-send done"
    );

    let home = Home::new();
    let path = home.file(AgentKind::Codex);
    install(AgentKind::Codex, &home.roots, &home.reporter).unwrap_or_else(|e| panic!("{e}"));
    let v = json_of(&path);
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["timeout"], 3);
    assert_eq!(
        v["hooks"]["PermissionRequest"][0]["hooks"][0]["timeout"],
        125
    );
    assert!(
        v["hooks"].get("Notification").is_none(),
        "Codex has no Notification hook"
    );
}

#[test]
fn malformed_files_are_refused_and_left_byte_for_byte() {
    for text in [
        "{invalid",
        "null",
        "[]",
        r#"{"hooks": false}"#,
        r#"{"hooks": {"Stop": false}}"#,
    ] {
        let home = Home::new();
        let path = home.put(AgentKind::Claude, text);
        let err = install(AgentKind::Claude, &home.roots, &home.reporter)
            .err()
            .unwrap_or_default();
        assert!(err.contains("left unchanged"), "{text}: {err}");
        assert_eq!(fs::read_to_string(&path).unwrap_or_default(), text);
        assert!(uninstall(AgentKind::Claude, &home.roots).is_err());
        assert_eq!(fs::read_to_string(&path).unwrap_or_default(), text);
        assert!(
            matches!(home.status(AgentKind::Claude), Status::Invalid(_)),
            "{text}"
        );
    }
}

#[test]
fn a_stale_path_needs_repair_and_install_refreshes_it() {
    let home = Home::new();
    let old = home.dir.join("old").join("signaltty");
    fs::create_dir_all(old.parent().unwrap_or(&home.dir)).unwrap_or_else(|e| panic!("{e}"));
    fs::copy(&home.reporter, &old).unwrap_or_else(|e| panic!("{e}"));
    install(AgentKind::Claude, &home.roots, &old).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(home.status(AgentKind::Claude), Status::NeedsRepair);
    let report =
        install(AgentKind::Claude, &home.roots, &home.reporter).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.changed);
    assert_eq!(home.status(AgentKind::Claude), Status::Installed);
    let text = fs::read_to_string(home.file(AgentKind::Claude)).unwrap_or_default();
    assert!(!text.contains("/old/"), "{text}");
    assert_eq!(
        text.matches("--event Stop").count() - text.matches("--event StopFailure").count(),
        1,
        "refreshed, not duplicated"
    );
}

#[test]
fn a_hand_removed_event_needs_repair_and_disabled_hooks_are_reported_and_kept() {
    let home = Home::new();
    let path = home.file(AgentKind::Claude);
    install(AgentKind::Claude, &home.roots, &home.reporter).unwrap_or_else(|e| panic!("{e}"));
    let mut v = json_of(&path);
    v["hooks"].as_object_mut().map(|h| h.remove("Stop"));
    fs::write(&path, serde_json::to_vec(&v).unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(home.status(AgentKind::Claude), Status::NeedsRepair);
    v["disableAllHooks"] = Value::Bool(true);
    fs::write(&path, serde_json::to_vec(&v).unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(home.status(AgentKind::Claude), Status::Disabled);
    install(AgentKind::Claude, &home.roots, &home.reporter).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        json_of(&path)["disableAllHooks"],
        true,
        "never enabled behind the user's back"
    );
}

#[test]
fn the_opencode_plugin_is_ours_to_write_and_remove_and_a_foreign_one_is_left() {
    let home = Home::new();
    let path = home.file(AgentKind::Opencode);
    install(AgentKind::Opencode, &home.roots, &home.reporter).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(home.status(AgentKind::Opencode), Status::Installed);
    assert!(
        uninstall(AgentKind::Opencode, &home.roots)
            .map(|r| r.changed)
            .unwrap_or(false)
    );
    assert!(!path.exists());
    home.put(AgentKind::Opencode, "export default async () => ({})\n");
    assert!(install(AgentKind::Opencode, &home.roots, &home.reporter).is_err());
    assert!(
        !uninstall(AgentKind::Opencode, &home.roots)
            .map(|r| r.changed)
            .unwrap_or(true)
    );
    assert_eq!(
        fs::read_to_string(&path).unwrap_or_default(),
        "export default async () => ({})\n"
    );
    assert_eq!(home.status(AgentKind::Opencode), Status::NotInstalled);
}

#[test]
fn a_codex_install_that_changes_the_file_asks_for_trust() {
    let home = Home::new();
    let first =
        install(AgentKind::Codex, &home.roots, &home.reporter).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        first
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("/hooks"))
    );
    let again =
        install(AgentKind::Codex, &home.roots, &home.reporter).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again.notice, None);
}

/// Twelve simultaneous installs of one file
/// (docs/integrations.md#how-files-are-edited): exactly one changes it, and the
/// file ends valid with one managed group per event.
#[test]
fn concurrent_installs_merge_once() {
    let home = Home::new();
    let roots = home.roots.clone();
    let reporter = home.reporter.clone();
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(12));
    let threads: Vec<_> = (0..12)
        .map(|_| {
            let (roots, reporter, barrier) = (roots.clone(), reporter.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                // A writer that found the lock busy tries again, as a user would.
                loop {
                    match install(AgentKind::Claude, &roots, &reporter) {
                        Ok(r) => return r.changed,
                        Err(e) if e.contains("lock unavailable") => continue,
                        Err(e) => panic!("{e}"),
                    }
                }
            })
        })
        .collect();
    let changed = threads
        .into_iter()
        .map(|t| t.join().unwrap_or(false))
        .filter(|c| *c)
        .count();
    assert_eq!(changed, 1);
    let v = json_of(&home.file(AgentKind::Claude));
    assert_eq!(v["hooks"]["Stop"].as_array().map(Vec::len), Some(1));
}

#[test]
fn provider_variables_move_roots_unless_a_home_is_explicit() {
    let env = |k: &str| match k {
        "HOME" => Some("/home/me".to_owned()),
        "CLAUDE_CONFIG_DIR" => Some("/cfg/claude".to_owned()),
        "CODEX_HOME" => Some("/cfg/codex".to_owned()),
        "XDG_CONFIG_HOME" => Some("/xdg".to_owned()),
        _ => None,
    };
    let roots = Roots::new(None, env).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        roots.file(AgentKind::Claude).as_deref(),
        Ok(Path::new("/cfg/claude/settings.json"))
    );
    assert_eq!(
        roots.file(AgentKind::Codex).as_deref(),
        Ok(Path::new("/cfg/codex/hooks.json"))
    );
    assert_eq!(
        roots.file(AgentKind::Opencode).as_deref(),
        Ok(Path::new("/xdg/opencode/plugins/signaltty.js"))
    );
    assert_eq!(
        roots.file(AgentKind::Cursor).as_deref(),
        Ok(Path::new("/home/me/.cursor/hooks.json"))
    );
    let isolated = Roots::new(Some(Path::new("/t")), env).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        isolated.file(AgentKind::Claude).as_deref(),
        Ok(Path::new("/t/.claude/settings.json"))
    );
    let mut launch = BTreeMap::new();
    launch.insert("CODEX_HOME".to_owned(), "rel/codex".to_owned());
    let moved = isolated.for_launch(&launch, Path::new("/work"));
    assert_eq!(
        moved.file(AgentKind::Codex).as_deref(),
        Ok(Path::new("/work/rel/codex/hooks.json"))
    );
    assert!(Roots::new(None, |_| None).is_err(), "no HOME, no roots");
}

#[test]
fn gemini_timeouts_are_milliseconds_and_pi_gets_its_extension() {
    let home = Home::new();
    install(AgentKind::Gemini, &home.roots, &home.reporter).unwrap_or_else(|e| panic!("{e}"));
    let v = json_of(&home.file(AgentKind::Gemini));
    assert_eq!(v["hooks"]["AfterAgent"][0]["hooks"][0]["timeout"], 10_000);
    assert!(
        v["hooks"]["Notification"][0]["hooks"][0]["command"]
            .as_str()
            .is_some_and(|c| c.contains("--agent gemini --event Notification"))
    );
    let path = home.file(AgentKind::Pi);
    assert_eq!(path, home.dir.join(".pi/agent/extensions/signaltty.ts"));
    install(AgentKind::Pi, &home.roots, &home.reporter).unwrap_or_else(|e| panic!("{e}"));
    let text = fs::read_to_string(&path).unwrap_or_default();
    assert!(text.starts_with(pi::HEADER));
    assert!(text.contains(&format!("const CLI = \"{}\";", home.reporter.display())));
    assert_eq!(home.status(AgentKind::Pi), Status::Installed);
    assert!(
        uninstall(AgentKind::Pi, &home.roots)
            .map(|r| r.changed)
            .unwrap_or(false)
    );
    assert!(!path.exists());
}

#[test]
fn codex_with_hooks_turned_off_in_its_config_is_disabled() {
    let home = Home::new();
    install(AgentKind::Codex, &home.roots, &home.reporter).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(home.status(AgentKind::Codex), Status::Installed);
    fs::write(
        home.roots.codex.join("config.toml"),
        "model = \"x\"\n[features]\nhooks = false\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(home.status(AgentKind::Codex), Status::Disabled);
    let config = fs::read(home.roots.codex.join("config.toml")).unwrap_or_default();
    install(AgentKind::Codex, &home.roots, &home.reporter).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        fs::read(home.roots.codex.join("config.toml")).unwrap_or_default(),
        config,
        "config.toml is never edited"
    );
}

/// The exact bytes `install` writes for every agent, from an absent file and
/// (for the JSON agents) over a foreign one, with the reporter path replaced by
/// `/REPORTER/signaltty`. Kept as golden files under `integration/golden/` so a
/// refactor of the hook tables can prove the files did not change;
/// `SIGNALTTY_BLESS=1 cargo test -p signaltty-model integration` rewrites them
/// after a deliberate change.
#[test]
fn installed_files_match_the_golden_files_byte_for_byte() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/integration/golden");
    let mut cases: Vec<(AgentKind, Option<&str>, String)> = Vec::new();
    for agent in INSTALLABLE {
        let ext = match agent {
            AgentKind::Opencode => "js",
            AgentKind::Pi => "ts",
            _ => "json",
        };
        cases.push((agent, None, format!("{}.{ext}", agent.name())));
        if ext == "json" {
            cases.push((
                agent,
                Some(FOREIGN_CLAUDE),
                format!("{}-over-foreign.json", agent.name()),
            ));
        }
    }
    for (agent, start, name) in cases {
        let home = Home::new();
        if let Some(text) = start {
            home.put(agent, text);
        }
        install(agent, &home.roots, &home.reporter).unwrap_or_else(|e| panic!("{e}"));
        let written = fs::read_to_string(home.file(agent)).unwrap_or_default();
        let written = written.replace(
            &home.reporter.to_string_lossy().into_owned(),
            "/REPORTER/signaltty",
        );
        let path = golden.join(&name);
        if std::env::var_os("SIGNALTTY_BLESS").is_some() {
            fs::create_dir_all(&golden).unwrap_or_else(|e| panic!("{e}"));
            fs::write(&path, &written).unwrap_or_else(|e| panic!("{e}"));
            continue;
        }
        let expected = fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; write it with SIGNALTTY_BLESS=1 cargo test -p signaltty-model integration",
                path.display()
            )
        });
        assert_eq!(
            written, expected,
            "{name} differs from its golden file (SIGNALTTY_BLESS=1 rewrites it after a deliberate change)"
        );
    }
}

#[test]
fn kinds_without_an_integration_are_refused_with_a_clear_error() {
    let home = Home::new();
    for kind in [AgentKind::Generic, AgentKind::None] {
        let e = install(kind, &home.roots, &home.reporter)
            .err()
            .unwrap_or_default();
        assert!(e.contains("no hook integration for"), "{e}");
        assert!(uninstall(kind, &home.roots).is_err());
        assert!(status(kind, &home.roots, &home.reporter).is_err());
        assert!(home.roots.file(kind).is_err());
        assert_eq!(parse_installable(kind.name()), None);
    }
    for kind in INSTALLABLE {
        assert_eq!(parse_installable(kind.name()), Some(kind));
    }
}
