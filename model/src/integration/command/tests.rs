//! The managed hook command: the reporter path quoted for the shell, the exact
//! arguments it runs with, and what marks a command as ours.

use super::*;

#[test]
fn the_reporter_path_is_quoted_for_the_shell() {
    let cmd = managed(
        Path::new("/opt/it's here/signaltty"),
        "claude",
        "Stop",
        ReporterMode::Report,
    );
    assert_eq!(
        cmd,
        "'/opt/it'\"'\"'s here/signaltty' hook-event --agent claude --event Stop --payload-stdin # signaltty hook-event (managed)"
    );
    let wait = managed(
        Path::new("/bin/signaltty"),
        "codex",
        "PermissionRequest",
        ReporterMode::WaitForAnswer,
    );
    assert!(wait.contains("--payload-stdin --wait-for-answer # signaltty"));
}

/// The quoted command runs through `sh -c` with exactly the intended
/// arguments, whatever the path holds.
#[test]
fn the_managed_command_executes_with_the_exact_arguments() {
    let dir = std::env::temp_dir().join(format!("signaltty-quote-{}", std::process::id()));
    let odd = dir.join("a dir with 'quotes' and $dollar");
    std::fs::create_dir_all(&odd).unwrap_or_else(|e| panic!("{e}"));
    let script = odd.join("signaltty");
    std::fs::write(
        &script,
        "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]' \"$a\"; done\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut perms = std::fs::metadata(&script)
        .unwrap_or_else(|e| panic!("{e}"))
        .permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&script, perms).unwrap_or_else(|e| panic!("{e}"));
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(managed(&script, "claude", "Stop", ReporterMode::Report))
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "[hook-event][--agent][claude][--event][Stop][--payload-stdin]"
    );
}

#[test]
fn ownership_is_the_marker_or_the_exact_legacy_shape() {
    let events = ["Stop", "SessionStart"];
    assert!(is_owned(
        &managed(
            Path::new("/x/signaltty"),
            "claude",
            "Stop",
            ReporterMode::Report
        ),
        "claude",
        &events
    ));
    for legacy in [
        "signaltty hook-event --agent claude --event Stop --payload-stdin",
        "/usr/local/bin/signaltty hook-event --agent claude --event SessionStart --payload-stdin",
    ] {
        assert!(is_owned(legacy, "claude", &events), "{legacy}");
    }
    for foreign in [
        "echo x; signaltty hook-event --agent claude --event Stop --payload-stdin",
        "signaltty hook-event --agent claude --event Stop --payload-stdin;true",
        "signaltty hook-event --agent claude --event Stop --payload-stdin\n",
        "signaltty hook-event --agent codex --event Stop --payload-stdin",
        "signaltty hook-event --agent claude --event Other --payload-stdin",
        "/opt/my tools/signaltty hook-event --agent claude --event Stop --payload-stdin",
        "/usr/bin/notsignaltty hook-event --agent claude --event Stop --payload-stdin",
        "my-logger # mentions signaltty hook-event",
        "",
    ] {
        assert!(!is_owned(foreign, "claude", &events), "{foreign:?}");
    }
}
