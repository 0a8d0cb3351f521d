//! signaltty's MCP entry in each agent's config (docs/mcp.md#installing-it):
//! the exact bytes written from an absent file and over a foreign one
//! (golden files), repeats that change nothing, a removal that gives the
//! foreign file back, and files that do not parse left alone.

use super::*;
use std::fs;
use std::sync::atomic::{AtomicU64, Ordering};

static N: AtomicU64 = AtomicU64::new(0);

const BINARY: &str = "/BIN/signaltty";

struct Home {
    dir: PathBuf,
    roots: Roots,
}

impl Home {
    fn new() -> Home {
        let dir = std::env::temp_dir().join(format!(
            "signaltty-mcp-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let roots = Roots::new(Some(&dir), |_| None).unwrap_or_else(|e| panic!("{e}"));
        Home { dir, roots }
    }

    fn path(&self, kind: AgentKind) -> PathBuf {
        file(kind, &self.roots).unwrap_or_else(|e| panic!("{e}"))
    }

    fn put(&self, kind: AgentKind, text: &str) {
        let path = self.path(kind);
        fs::create_dir_all(path.parent().unwrap_or(&self.dir)).unwrap_or_else(|e| panic!("{e}"));
        fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    }

    fn read(&self, kind: AgentKind) -> String {
        fs::read_to_string(self.path(kind)).unwrap_or_default()
    }

    fn install(&self, kind: AgentKind) -> Report {
        install(kind, &self.roots, Path::new(BINARY)).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// What each agent's file might hold before: the user's own settings and
/// another MCP server.
fn foreign(kind: AgentKind) -> &'static str {
    match kind {
        AgentKind::Codex => {
            "# my codex\nmodel = \"gpt-5\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\" # keep me\nargs = [\"--stdio\"]\n\n[features]\nhooks = true\n"
        },
        AgentKind::Claude => {
            "{\n  \"numStartups\": 3,\n  \"mcpServers\": {\n    \"docs\": {\n      \"type\": \"stdio\",\n      \"command\": \"docs-mcp\",\n      \"args\": []\n    }\n  },\n  \"theme\": \"dark\"\n}\n"
        },
        _ => "{\n  \"theme\": \"Default\",\n  \"hooks\": {}\n}\n",
    }
}

fn ext(kind: AgentKind) -> &'static str {
    if kind == AgentKind::Codex {
        "toml"
    } else {
        "json"
    }
}

#[test]
fn written_entries_match_the_golden_files_byte_for_byte() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/integration/golden");
    for kind in AGENTS {
        for over_foreign in [false, true] {
            let home = Home::new();
            if over_foreign {
                home.put(kind, foreign(kind));
            }
            assert!(home.install(kind).changed);
            let written = home.read(kind);
            let suffix = if over_foreign { "-over-foreign" } else { "" };
            let name = format!("mcp-{}{suffix}.{}", kind.name(), ext(kind));
            let path = golden.join(&name);
            if std::env::var_os("SIGNALTTY_BLESS").is_some() {
                fs::write(&path, &written).unwrap_or_else(|e| panic!("{e}"));
                continue;
            }
            let expected = fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!(
                    "{name}: {e}; write it with SIGNALTTY_BLESS=1 cargo test -p signaltty-model mcp"
                )
            });
            assert_eq!(written, expected, "{name} differs from its golden file");
        }
    }
}

#[test]
fn installing_again_changes_nothing_and_removing_gives_the_file_back() {
    for kind in AGENTS {
        let home = Home::new();
        home.put(kind, foreign(kind));
        home.install(kind);
        let once = home.read(kind);
        assert!(installed(kind, &home.roots, Path::new(BINARY)).unwrap_or_default());
        assert!(!home.install(kind).changed, "{kind:?}");
        assert_eq!(home.read(kind), once);
        let removed = uninstall(kind, &home.roots).unwrap_or_else(|e| panic!("{e}"));
        assert!(removed.changed);
        assert_eq!(home.read(kind), foreign(kind), "{kind:?}");
        assert!(!installed(kind, &home.roots, Path::new(BINARY)).unwrap_or(true));
        assert!(
            !uninstall(kind, &home.roots)
                .unwrap_or_else(|e| panic!("{e}"))
                .changed
        );
    }
}

#[test]
fn a_moved_binary_is_refreshed_and_the_users_own_keys_kept() {
    let home = Home::new();
    home.put(
        AgentKind::Gemini,
        "{\"mcpServers\": {\"signaltty\": {\"command\": \"/old/signaltty\", \"args\": [\"mcp\"], \"timeout\": 600000}}}",
    );
    assert!(home.install(AgentKind::Gemini).changed);
    let v: Value = serde_json::from_str(&home.read(AgentKind::Gemini)).unwrap_or_default();
    assert_eq!(
        v["mcpServers"]["signaltty"],
        json!({"command": BINARY, "args": ["mcp"], "timeout": 600000})
    );
}

#[test]
fn a_file_that_does_not_parse_is_left_alone_with_an_error() {
    let bad = [
        (AgentKind::Claude, "{\"numStartups\": 3,"),
        (AgentKind::Gemini, "{\"mcpServers\": []}"),
        (AgentKind::Codex, "model = \n"),
        (AgentKind::Codex, "mcp_servers = 3\n"),
    ];
    for (kind, text) in bad {
        let home = Home::new();
        home.put(kind, text);
        let e = install(kind, &home.roots, Path::new(BINARY))
            .err()
            .unwrap_or_default();
        assert!(e.contains("left unchanged"), "{kind:?}: {e}");
        assert!(uninstall(kind, &home.roots).is_err(), "{kind:?}");
        assert_eq!(home.read(kind), text);
    }
}

#[test]
fn claudes_entry_follows_its_config_dir_and_other_agents_are_refused() {
    let home = Home::new();
    assert_eq!(home.path(AgentKind::Claude), home.dir.join(".claude.json"));
    let dir = home.dir.join("cfg").to_string_lossy().into_owned();
    let roots = Roots::new(None, |k| match k {
        "HOME" => Some(home.dir.to_string_lossy().into_owned()),
        "CLAUDE_CONFIG_DIR" => Some(dir.clone()),
        _ => None,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        file(AgentKind::Claude, &roots).ok(),
        Some(PathBuf::from(&dir).join(".claude.json"))
    );
    assert!(named("opencode").is_err());
    assert_eq!(named("all").ok(), Some(AGENTS.to_vec()));
    assert!(file(AgentKind::Opencode, &home.roots).is_err());
}

#[test]
fn codex_gets_the_variables_signaltty_needs_beside_the_users_own() {
    let home = Home::new();
    home.put(
        AgentKind::Codex,
        "[mcp_servers.signaltty]\ncommand = \"/old\"\nenv_vars = [\"FOO\", \"XDG_RUNTIME_DIR\"]\n",
    );
    home.install(AgentKind::Codex);
    let doc: toml::Table = toml::from_str(&home.read(AgentKind::Codex)).unwrap_or_default();
    let names: Vec<&str> = doc["mcp_servers"]["signaltty"]["env_vars"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_str)
        .collect();
    assert_eq!(names[..2], ["FOO", "XDG_RUNTIME_DIR"]);
    for name in CODEX_PASSED {
        assert_eq!(names.iter().filter(|n| **n == name).count(), 1, "{names:?}");
    }
    assert!(!home.install(AgentKind::Codex).changed);
}
