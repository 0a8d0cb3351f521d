//! Manifest loading: user files replacing the bundled rules of their kind,
//! broken files listed and skipped, detection by a manifest's binaries, and
//! every bundled file embedded and ending with the idle fallback.

use super::*;

#[test]
fn user_manifests_replace_bundled_rules_and_bad_files_are_listed_and_skipped() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("10-claude.toml"),
        "[agent]\nkind = \"claude\"\n[[screen]]\nid = \"mine\"\nstate = \"working\"\nregex = ['busy']\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("20-broken.toml"),
        "[agent]\nkind = \"martian\"\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("30-aider.toml"),
        "[agent]\nkind = \"generic\"\nbinaries = [\"aider\"]\n[[screen]]\nid = \"aider_busy\"\nstate = \"working\"\nregex = ['Thinking']\n",
    )
    .expect("write");
    std::fs::write(dir.path().join("notes.txt"), "ignored").expect("write");
    let set = AgentSet::load(Some(dir.path())).expect("loads");
    assert_eq!(set.user.len(), 2);
    assert_eq!(set.failures.len(), 1);
    assert_eq!(set.failures[0].file, "20-broken.toml");
    assert!(set.failures[0].error.contains("unknown agent kind"));

    let (source, rules) = set.rules_for(AgentKind::Claude, "claude");
    assert_eq!(source, RuleSource::User);
    assert_eq!(
        rules.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["mine"],
        "never merged"
    );
    let (source, rules) = set.rules_for(AgentKind::Generic, "aider");
    assert_eq!((source, rules.len()), (RuleSource::User, 1));
    assert_eq!(
        set.rules_for(AgentKind::Generic, "bash").0,
        RuleSource::None,
        "scoped by binaries"
    );
    assert_eq!(
        set.rules_for(AgentKind::Codex, "codex").0,
        RuleSource::Bundled
    );

    assert!(
        AgentSet::load(Some(&dir.path().join("missing"))).is_ok(),
        "a missing dir is no manifests"
    );
    let file = dir.path().join("notes.txt");
    assert!(
        AgentSet::load(Some(&file)).is_err(),
        "a dir that cannot be listed fails"
    );
}

#[test]
fn detection_honours_manifest_binaries_before_builtins() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("wrap.toml"),
        "[agent]\nkind = \"codex\"\nbinaries = [\"codex-wrap\", \"cx-*\"]\n",
    )
    .expect("write");
    let set = AgentSet::load(Some(dir.path())).expect("loads");
    assert_eq!(set.detect("codex-wrap"), Some(AgentKind::Codex));
    assert_eq!(set.detect("cx-7"), Some(AgentKind::Codex));
    assert_eq!(set.detect("claude"), Some(AgentKind::Claude));
    assert_eq!(set.detect("bash"), None);
}

/// Every file of `manifests/` is embedded, parses, and ends with the idle
/// fallback every bundled file has (docs/screen-rules.md#bundled-rules).
#[test]
fn every_bundled_file_is_embedded_valid_and_ends_with_the_idle_fallback() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifests");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("manifests dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    on_disk.sort();
    let set = AgentSet::bundled_only();
    assert!(set.failures.is_empty(), "{:?}", set.failures);
    let embedded: Vec<String> = set.bundled.iter().map(|m| m.file.clone()).collect();
    assert_eq!(embedded, on_disk);
    for m in &set.bundled {
        let last = m.screen.last().expect("rules");
        assert_eq!(
            (last.id.as_str(), last.priority),
            ("idle_fallback", -1000),
            "{}",
            m.file
        );
    }
}

/// The versions a manifest's rules were checked on: a bad one rejects the
/// file; the pane's manifest is a user one of its kind before the bundled,
/// scoped by program for generic panes; every bundled agent with real
/// fixtures names its package and the versions of those fixtures.
#[test]
fn checked_versions_are_validated_and_found_for_a_pane() {
    let bad = Manifest::parse(
        "x.toml",
        "[agent]\nkind = \"claude\"\nchecked_versions = [\"2.x\"]\n",
        false,
    );
    assert!(bad.is_err_and(|e| e.contains("checked_versions")));
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("mine.toml"),
        "[agent]\nkind = \"claude\"\npackages = [\"my-claude\"]\nchecked_versions = [\"3.0.0\"]\n",
    )
    .expect("write");
    let set = AgentSet::load(Some(dir.path())).expect("loads");
    let claude = set
        .versions_for(AgentKind::Claude, "claude")
        .expect("claude's");
    assert_eq!(claude.checked_versions, ["3.0.0"]);
    let bundled = AgentSet::bundled_only();
    let claude = bundled
        .versions_for(AgentKind::Claude, "claude")
        .expect("bundled");
    assert_eq!(claude.packages, ["@anthropic-ai/claude-code"]);
    let qwen = bundled
        .versions_for(AgentKind::Generic, "qwen")
        .expect("qwen's");
    assert_eq!(qwen.packages, ["@qwen-code/qwen-code"]);
    assert!(bundled.versions_for(AgentKind::Generic, "bash").is_none());
    // Every fixture directory's version is one its manifest names.
    for fixture in super::real_screens::fixtures() {
        let m = bundled
            .versions_for(fixture.kind, &fixture.agent)
            .unwrap_or_else(|| panic!("{}: no checked versions", fixture.dir));
        let version = fixture.dir.split_once('-').map_or("", |(_, v)| v);
        assert!(
            m.checked_versions.iter().any(|v| v == version),
            "{}: {version} is not in {}'s checked_versions",
            fixture.dir,
            m.file
        );
    }
}
