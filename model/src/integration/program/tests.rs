//! Generic programs: Qwen Code's and Kilo Code's hooks, reporting as generic in
//! their own files, and the programs' names and vocabularies.

use super::*;
use crate::agents::vocabulary::installed;
use serde_json::Value;

fn home() -> (tempfile::TempDir, Roots, PathBuf) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let reporter = dir.path().join("signaltty");
    std::fs::write(&reporter, "#!/bin/sh\n").unwrap_or_else(|e| panic!("{e}"));
    let mut perm = std::fs::metadata(&reporter)
        .unwrap_or_else(|e| panic!("{e}"))
        .permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&reporter, perm).unwrap_or_else(|e| panic!("{e}"));
    let roots = Roots::new(Some(dir.path()), |_| None).unwrap_or_else(|e| panic!("{e}"));
    (dir, roots, reporter)
}

#[test]
fn qwen_gets_claudes_hooks_reporting_as_generic_beside_its_own_settings() {
    let (dir, roots, reporter) = home();
    let settings = dir.path().join(".qwen/settings.json");
    std::fs::create_dir_all(dir.path().join(".qwen")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&settings, r#"{"model": {"name": "qwen3-coder"}}"#)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(QWEN.status(&roots, &reporter).1, Status::NotInstalled);
    let r = QWEN
        .install(&roots, &reporter)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(r.changed);
    assert_eq!(r.file, settings);
    let v: Value =
        serde_json::from_slice(&std::fs::read(&settings).unwrap_or_default()).unwrap_or_default();
    assert_eq!(v["model"]["name"], "qwen3-coder");
    for hook in installed(AgentKind::Claude) {
        let command = v["hooks"][hook.name][0]["hooks"][0]["command"]
            .as_str()
            .unwrap_or_default();
        assert!(
            command.contains(&format!("--agent generic --event {} ", hook.name)),
            "{}: {command}",
            hook.name
        );
    }
    let permission = &v["hooks"]["PermissionRequest"][0]["hooks"][0];
    assert!(
        permission["command"]
            .as_str()
            .is_some_and(|c| c.contains("--wait-for-answer"))
    );
    assert_eq!(permission["timeout"], 125, "seconds, as Claude's");
    assert_eq!(QWEN.status(&roots, &reporter).1, Status::Installed);
    let again = QWEN
        .install(&roots, &reporter)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!again.changed);
    let gone = QWEN.uninstall(&roots).unwrap_or_else(|e| panic!("{e}"));
    assert!(gone.changed);
    let v: Value =
        serde_json::from_slice(&std::fs::read(&settings).unwrap_or_default()).unwrap_or_default();
    assert_eq!(
        v,
        serde_json::json!({"model": {"name": "qwen3-coder"}, "hooks": {}})
    );
}

#[test]
fn kilo_gets_the_opencode_plugin_reporting_as_generic_in_its_own_file() {
    let (dir, roots, reporter) = home();
    let plugin = dir.path().join(".config/kilo/plugins/signaltty.js");
    assert_eq!(KILO.file(&roots), plugin);
    let r = KILO
        .install(&roots, &reporter)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(r.changed);
    let text = std::fs::read_to_string(&plugin).unwrap_or_default();
    assert!(text.starts_with(KILO_HEADER), "{text}");
    assert!(text.contains(r#""--agent", "generic""#), "{text}");
    assert!(text.contains("signaltty integration install kilo"));
    assert!(!text.contains("__SIGNALTTY"), "{text}");
    assert_eq!(KILO.status(&roots, &reporter).1, Status::Installed);
    // Not ours: left alone.
    std::fs::write(&plugin, "export default {}\n").unwrap_or_else(|e| panic!("{e}"));
    assert!(KILO.install(&roots, &reporter).is_err());
    assert!(
        !KILO
            .uninstall(&roots)
            .unwrap_or_else(|e| panic!("{e}"))
            .changed
    );
    assert_eq!(KILO.status(&roots, &reporter).1, Status::NotInstalled);
}

#[test]
fn the_programs_are_named_by_their_binaries_and_speak_a_builtin_vocabulary() {
    assert_eq!(parse("qwen"), Some(QWEN));
    assert_eq!(parse("kilo"), Some(KILO));
    assert_eq!(parse("claude"), None);
    let set = crate::agents::AgentSet::bundled_only();
    for p in PROGRAMS {
        assert!(super::super::parse_installable(p.name).is_none());
        let overlay = set.overlay(AgentKind::Generic, p.name);
        assert_eq!(
            overlay.and_then(|m| m.vocabulary),
            Some(p.vocabulary),
            "{}: its bundled manifest reads its hooks",
            p.name
        );
    }
}
