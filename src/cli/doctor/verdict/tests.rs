//! The verdict rules, one test per check family.

use super::*;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

#[test]
fn disk_thresholds_fail_under_100_mib_and_warn_under_1_gib_or_5_percent() {
    let v = |avail, total| disk("disk", "/s", avail, total).verdict;
    assert_eq!(v(99 * MIB, 500 * GIB), Verdict::Fail);
    assert_eq!(v(100 * MIB, 500 * GIB), Verdict::Warn, "under 1 GiB");
    assert_eq!(v(GIB - 1, 500 * GIB), Verdict::Warn);
    assert_eq!(v(10 * GIB, 500 * GIB), Verdict::Warn, "2 %");
    assert_eq!(v(25 * GIB, 500 * GIB), Verdict::Ok, "5 %");
    assert_eq!(v(2 * GIB, 4 * GIB), Verdict::Ok);
    assert_eq!(
        v(2 * GIB, 0),
        Verdict::Ok,
        "an unknown size is no reason to warn"
    );
    let c = disk("disk", "/s", 50 * MIB, 4 * GIB);
    assert!(
        c.detail.contains("50.0 MiB free of 4.0 GiB (1 %)"),
        "{}",
        c.detail
    );
    assert!(c.fix.is_some());
}

#[test]
fn private_dirs_want_ours_0700_and_writable() {
    let present = |mode, ours, writable: Result<(), String>| DirSeen::Present {
        owned: Owned { mode, ours },
        writable,
    };
    let c = |seen: &DirSeen| {
        private_dir(
            "state dir",
            "/s",
            seen,
            (Verdict::Skip, "absent"),
            Privacy::Private,
        )
    };
    assert_eq!(c(&present(0o700, true, Ok(()))).verdict, Verdict::Ok);
    let loose = c(&present(0o755, true, Ok(())));
    assert_eq!(loose.verdict, Verdict::Warn);
    assert!(loose.detail.contains("0755"), "{}", loose.detail);
    assert_eq!(loose.fix.as_deref(), Some("chmod 700 /s"));
    let ro = c(&present(0o500, true, Err("Permission denied".into())));
    assert_eq!(ro.verdict, Verdict::Fail);
    assert!(ro.detail.contains("not writable: Permission denied"));
    assert_eq!(c(&present(0o700, false, Ok(()))).verdict, Verdict::Fail);
    assert_eq!(c(&DirSeen::Missing).verdict, Verdict::Skip);
    assert_eq!(
        c(&DirSeen::Unusable("not a directory".into())).verdict,
        Verdict::Fail
    );
}

#[test]
fn the_data_dir_may_be_readable_by_others_but_not_writable() {
    let present = |mode| DirSeen::Present {
        owned: Owned { mode, ours: true },
        writable: Ok(()),
    };
    let c = |mode| {
        private_dir(
            "data dir",
            "/d",
            &present(mode),
            (Verdict::Skip, "absent"),
            Privacy::NotWritableByOthers,
        )
    };
    // What the server creates under a 022 umask is fine.
    assert_eq!(c(0o755).verdict, Verdict::Ok);
    assert_eq!(c(0o755).detail, "/d: yours, 0755, writable");
    assert_eq!(c(0o700).verdict, Verdict::Ok);
    let open = c(0o777);
    assert_eq!(open.verdict, Verdict::Warn);
    assert_eq!(open.fix.as_deref(), Some("chmod go-w /d"));
}

#[test]
fn the_socket_is_0600_and_ours_and_its_default_dir_0700() {
    let ours = |mode| Owned { mode, ours: true };
    let ok = socket_permissions("/r/s.sock", Some(ours(0o600)), Some(("/r", ours(0o700))));
    assert_eq!(ok.verdict, Verdict::Ok);
    let loose = socket_permissions("/r/s.sock", Some(ours(0o666)), Some(("/r", ours(0o755))));
    assert_eq!(loose.verdict, Verdict::Warn);
    assert!(
        loose.detail.contains("0666") && loose.detail.contains("0755"),
        "{}",
        loose.detail
    );
    assert_eq!(
        loose.fix.as_deref(),
        Some("chmod 600 /r/s.sock and chmod 700 /r")
    );
    // An explicit socket's directory is the user's: not looked at.
    let explicit = socket_permissions("/tmp/s.sock", Some(ours(0o600)), None);
    assert_eq!(explicit.verdict, Verdict::Ok);
    let theirs = Owned {
        mode: 0o600,
        ours: false,
    };
    assert_eq!(
        socket_permissions("/s", Some(theirs), None).verdict,
        Verdict::Fail
    );
    assert_eq!(socket_permissions("/s", None, None).verdict, Verdict::Skip);
}

#[test]
fn the_server_check_names_the_fix_and_warns_on_another_version() {
    let none = server(
        &ServerSeen::NoSocket,
        "/r/s.sock",
        "$XDG_RUNTIME_DIR",
        "0.1.0",
    );
    assert_eq!(none.verdict, Verdict::Fail);
    assert!(
        none.fix
            .as_deref()
            .is_some_and(|f| f.contains("signaltty start"))
    );
    let stale = server(&ServerSeen::Stale, "/r/s.sock", "default", "0.1.0");
    assert!(stale.detail.contains("stale socket"), "{}", stale.detail);
    let silent = server(
        &ServerSeen::Silent { waited_ms: 2000 },
        "/s",
        "--socket",
        "0.1.0",
    );
    assert!(silent.detail.contains("did not answer within 2000 ms"));
    let answered = |version: &str| ServerSeen::Answered {
        version: version.into(),
        uptime_s: 200,
        panes: 3,
        live_panes: 2,
    };
    let same = server(&answered("0.1.0"), "/s", "--socket", "0.1.0");
    assert_eq!(same.verdict, Verdict::Ok);
    assert!(
        same.detail.contains("up 3 min, 3 panes (2 live)"),
        "{}",
        same.detail
    );
    let other = server(&answered("0.2.0"), "/s", "--socket", "0.1.0");
    assert_eq!(other.verdict, Verdict::Warn);
    assert!(other.fix.as_deref().is_some_and(|f| f.contains("restart")));
}

#[test]
fn live_panes_say_which_are_read_from_their_screens_only() {
    assert_eq!(live_panes(0, &[]).verdict, Verdict::Skip);
    assert!(
        live_panes(2, &[])
            .detail
            .contains("2 live agent pane(s), all heard")
    );
    let mixed = live_panes(1, &["pane_a (codex)".to_owned()]);
    assert_eq!(mixed.verdict, Verdict::Ok);
    assert!(
        mixed
            .detail
            .contains("2 live agent pane(s); 1 read from the screen only")
    );
    assert!(mixed.detail.ends_with("pane_a (codex)"), "{}", mixed.detail);
}

fn integration(status: &'static str) -> IntegrationSeen {
    IntegrationSeen {
        status,
        file: "/h/.claude/settings.json".into(),
        error: (status == "invalid")
            .then(|| "/h/.claude/settings.json is not valid JSON (x)".into()),
    }
}

#[test]
fn an_agent_is_judged_by_its_integration_and_skipped_when_absent() {
    let v = VersionSeen::Line("2.0.1 (Claude Code)".into());
    let c = |status| {
        agent(
            "claude",
            "claude",
            Some("/bin/claude"),
            Some(&v),
            Ok(&integration(status)),
        )
    };
    assert_eq!(c("installed").verdict, Verdict::Ok);
    assert!(
        c("installed")
            .detail
            .starts_with("2.0.1 (Claude Code) (/bin/claude)")
    );
    let repair = c("needs repair");
    assert_eq!(repair.verdict, Verdict::Fail);
    assert_eq!(
        repair.fix.as_deref(),
        Some("signaltty integration install claude")
    );
    assert_eq!(c("not installed").verdict, Verdict::Warn);
    assert_eq!(c("disabled").verdict, Verdict::Warn);
    let invalid = c("invalid");
    assert_eq!(invalid.verdict, Verdict::Fail);
    assert!(
        invalid.detail.contains("settings.json is not valid JSON"),
        "{}",
        invalid.detail
    );
    let absent = agent("claude", "claude", None, None, Ok(&integration("invalid")));
    assert_eq!(absent.verdict, Verdict::Skip);
    assert!(
        absent.detail.ends_with("settings.json: invalid)"),
        "{}",
        absent.detail
    );
    let slow = agent(
        "claude",
        "claude",
        Some("/bin/claude"),
        Some(&VersionSeen::TimedOut(3000)),
        Ok(&integration("installed")),
    );
    assert_eq!(slow.verdict, Verdict::Warn);
    assert!(slow.detail.contains("no answer within 3000 ms"));
}

#[test]
fn hooks_that_never_fired_warn_and_a_recent_one_is_shown() {
    let last = LastHook {
        source: "hook:claude:Stop".into(),
        age_s: 180,
    };
    let fired = hooks("claude", true, true, Some(&last));
    assert_eq!(fired.verdict, Verdict::Ok);
    assert_eq!(fired.detail, "last hook 3 min ago (hook:claude:Stop)");
    let never = hooks("codex", true, true, None);
    assert_eq!(never.verdict, Verdict::Warn);
    assert!(never.detail.contains("never fired"));
    assert!(never.fix.as_deref().is_some_and(|f| f.contains("/hooks")));
    assert_eq!(hooks("claude", false, true, None).verdict, Verdict::Skip);
    // Installed for an agent that is not there: information only.
    let absent = hooks("gemini", true, false, None);
    assert_eq!(absent.verdict, Verdict::Skip);
    assert!(absent.fix.is_none());
}

#[test]
fn the_service_is_skipped_unless_installed_and_wants_enabled_and_active() {
    let units = |enabled: &str, active: &str, service: &str| ServiceSeen::Units {
        unit: "signaltty.socket",
        enabled: enabled.into(),
        active: active.into(),
        service_active: service.into(),
        web: None,
    };
    assert_eq!(
        service(&ServiceSeen::NotInstalled { dir: "/c".into() }).verdict,
        Verdict::Skip
    );
    assert_eq!(
        service(&ServiceSeen::NoSystemctl("absent".into())).verdict,
        Verdict::Skip
    );
    assert_eq!(
        service(&units("enabled", "active", "inactive")).verdict,
        Verdict::Ok
    );
    assert_eq!(
        service(&units("disabled", "inactive", "inactive")).verdict,
        Verdict::Warn
    );
    assert_eq!(
        service(&units("enabled", "active", "failed")).verdict,
        Verdict::Fail
    );
}

#[test]
fn the_web_unit_is_named_and_a_failed_or_stopped_one_is_reported() {
    let with_web = |enabled: &str, active: &str| ServiceSeen::Units {
        unit: "signaltty.socket",
        enabled: "enabled".into(),
        active: "active".into(),
        service_active: "active".into(),
        web: Some(WebSeen {
            enabled: enabled.into(),
            active: active.into(),
            listen: "127.0.0.1:7681".into(),
        }),
    };
    let ok = service(&with_web("enabled", "active"));
    assert_eq!(ok.verdict, Verdict::Ok);
    assert_eq!(
        ok.detail,
        "signaltty.socket enabled, active; signaltty.service active; \
         signaltty-web.service enabled, active on 127.0.0.1:7681"
    );
    let stopped = service(&with_web("enabled", "inactive"));
    assert_eq!(stopped.verdict, Verdict::Warn);
    assert_eq!(
        stopped.fix.as_deref(),
        Some("systemctl --user enable --now signaltty-web.service")
    );
    let failed = service(&with_web("enabled", "failed"));
    assert_eq!(failed.verdict, Verdict::Fail);
    assert!(
        failed
            .fix
            .as_deref()
            .is_some_and(|f| f.contains("journalctl --user -u signaltty-web")),
        "{failed:?}"
    );
}

#[test]
fn the_summary_fails_only_on_a_failure_and_the_text_fits_80_columns() {
    let long = "a detail long enough to need wrapping onto a second line because it names /a/very/long/path/that/keeps/going/and/going/past/the/end/of/any/terminal/line.json";
    let checks = vec![
        Check::new("server", Verdict::Ok, "fine"),
        Check::new("agent claude", Verdict::Warn, long).fix("signaltty integration install claude and then some more words to wrap the fix line too"),
    ];
    assert!(healthy(&checks));
    let text = render(&checks, 80);
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "{line:?}");
    }
    assert!(text.starts_with("ok   server           fine\n"), "{text}");
    assert!(text.contains("\nWARN agent claude     a detail"), "{text}");
    assert!(
        text.contains("\n     fix: signaltty integration install claude"),
        "{text}"
    );
    assert!(text.ends_with("no problems, 1 warning(s)\n"), "{text}");
    let mut failing = checks.clone();
    failing.push(Check::new("journal", Verdict::Fail, "bad"));
    assert!(!healthy(&failing));
    assert!(render(&failing, 80).ends_with("1 problem(s), 1 warning(s)\n"));
}

#[test]
fn ages_and_sizes_read_naturally() {
    assert_eq!(human_age(5), "5 s");
    assert_eq!(human_age(180), "3 min");
    assert_eq!(human_age(7200), "2 h");
    assert_eq!(human_age(3 * 86_400), "3 days");
    assert_eq!(human_bytes(512), "512 B");
    assert_eq!(human_bytes(3 * MIB + MIB / 5), "3.2 MiB");
}

#[test]
fn pane_capacity_warns_from_three_quarters_and_says_when_spawns_are_refused() {
    let c = signaltty_protocol::server::PaneCapacity {
        max_live_panes: 100,
        open_file_limit: 712,
        fds_per_pane: 2,
        reserved_fds: 512,
    };
    let ok = pane_capacity(&c, 74);
    assert_eq!(ok.verdict, Verdict::Ok);
    assert_eq!(
        ok.detail,
        "74 live of at most 100 (open-file limit 712, 2 descriptors a pane, 512 kept for the rest)"
    );
    assert!(ok.fix.is_none());
    let near = pane_capacity(&c, 75);
    assert_eq!(near.verdict, Verdict::Warn);
    assert!(!near.detail.contains("refused"), "{}", near.detail);
    assert!(near.fix.as_deref().unwrap().contains("LimitNOFILE"));
    let full = pane_capacity(&c, 100);
    assert_eq!(full.verdict, Verdict::Warn);
    assert!(
        full.detail.ends_with("new panes are refused"),
        "{}",
        full.detail
    );
}
