//! Screen: one evaluation of every bundled rule set of an agent against a 50 × 200
//! screen (in this process, as the pane's tick does it), and server CPU with idle
//! Claude look-alike panes after their screens were classified once.

use crate::common::server::Server;
use crate::common::stats::{percentile, sample};
use crate::common::tempdir::TempDir;
use crate::common::{Context, Res};
use crate::{Opts, connect, quiet_cpu, verdict};
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

/// A 50-row, 200-column screen of `kind` in a busy state, with output above.
fn busy_screen(kind: &str) -> String {
    let filler: Vec<String> = (0..40)
        .map(|i| format!("  {i:>3}  src/module_{i}.rs: compiled {} items in the worker pool, nothing to report here", i * 7))
        .collect();
    let rule = "─".repeat(200);
    let tail = match kind {
        "claude" => format!(
            "✻ Cogitating… (12s · ↑ 1.2k tokens · esc to interrupt)\n\n{rule}\n❯ \n{rule}\n  ? for shortcuts"
        ),
        "codex" => "› fix the failing test\n\n• Working (12s • esc to interrupt)\n\n› ".to_owned(),
        _ => "── ⠋ Working ──────────".to_owned(),
    };
    format!("{}\n{tail}", filler.join("\n"))
}

pub fn bench_screen(bin: &Path, tmp: &TempDir, opts: &Opts, verdicts: &mut Vec<String>) -> Res<()> {
    use signaltty_model::agents::AgentSet;
    use signaltty_model::agents::screen::{View, classify};
    use signaltty_protocol::pane::AgentKind;
    println!("screen: one evaluation of an agent's bundled rules against a 50×200 screen");
    let set = AgentSet::bundled_only();
    let mut worst = Duration::ZERO;
    for (name, kind) in [
        ("claude", AgentKind::Claude),
        ("codex", AgentKind::Codex),
        ("pi", AgentKind::Pi),
    ] {
        let (_, rules) = set.rules_for(kind, name);
        // A busy screen (a high rule wins early) and plain output (every rule
        // is tried before the fallback).
        let plain = busy_screen("plain").replace("── ⠋ Working ──────────", "$ ");
        for (what, screen) in [("busy", busy_screen(name)), ("plain", plain)] {
            let mut samples = sample(200, 2000, |_| {
                let started = Instant::now();
                let view = View::new(&screen, "some title");
                let winner = classify(&rules, &view);
                std::hint::black_box(winner);
                Ok(started.elapsed())
            })?;
            samples.sort();
            let p50 = percentile(&samples, 0.50);
            let p99 = percentile(&samples, 0.99);
            println!(
                "  {name:<7} {what:<6} {:>2} rules  p50 {:>6.1} µs  p99 {:>6.1} µs",
                rules.len(),
                p50.as_secs_f64() * 1e6,
                p99.as_secs_f64() * 1e6
            );
            worst = worst.max(p50);
        }
    }
    verdicts.push(verdict(
        "screen: an evaluation < 50 µs (50×200, p50)",
        worst < Duration::from_micros(50),
        format!("{:.1} µs (slowest agent)", worst.as_secs_f64() * 1e6),
    ));

    println!(
        "screen: server CPU with {} idle claude panes, screens checked every 500 ms",
        opts.panes
    );
    let dir = tmp.fresh("screen")?;
    let claude = dir.join("claude");
    let rule = "─".repeat(78);
    fs::write(
        &claude,
        format!("#!/bin/sh\nprintf '\\033]0;✳ Claude Code\\007Done.\\r\\n\\r\\n{rule}\\r\\n❯ \\r\\n{rule}\\r\\n'\nexec sleep 100000\n"),
    )
    .ctx(|| "write the look-alike".into())?;
    let mut perms = fs::metadata(&claude).ctx(|| "stat".into())?.permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&claude, perms).ctx(|| "chmod".into())?;
    let mut server = Server::start(bin, &dir, &[])?;
    let mut conn = connect(&server)?;
    let ws = conn.create_workspace("screens", Some(&dir))?;
    let claude = claude.to_string_lossy();
    for _ in 0..opts.panes {
        let tab = conn.create_tab(&ws)?;
        conn.spawn(&ws, &tab, &[&claude])?;
    }
    std::thread::sleep(Duration::from_secs(3));
    let (used, wall) = quiet_cpu(&server, Duration::from_secs(opts.refresh_secs))?;
    let share = 100.0 * used / wall;
    println!("  {used:.3} s CPU in {wall:.1} s = {share:.3} % of one core");
    verdicts.push(verdict(
        "screen: 100 idle agent panes < 2 % of one core",
        share < 2.0,
        format!("{share:.3} %"),
    ));
    server.stop();
    Ok(())
}
