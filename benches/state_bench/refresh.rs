//! Refresh: server CPU with idle `sh -c sleep` panes while the process refresh runs
//! every second, against the same with the refresh every hour; the difference per
//! refresh, scaled to the real 10-second period.

use crate::common::Res;
use crate::common::tempdir::TempDir;
use crate::{Opts, connect, panes, quiet_cpu, start_server, verdict};
use std::path::Path;
use std::time::Duration;

pub fn bench_refresh(
    bin: &Path,
    tmp: &TempDir,
    opts: &Opts,
    verdicts: &mut Vec<String>,
) -> Res<()> {
    println!(
        "refresh: server CPU over {} s with {} idle `sh -c sleep` panes",
        opts.refresh_secs, opts.panes
    );
    let mut cpu = Vec::new();
    for (name, period_ms) in [
        ("refresh every 1 s", "1000"),
        ("refresh every hour", "3600000"),
    ] {
        let (mut server, dir) = start_server(
            bin,
            tmp,
            &format!("refresh-{period_ms}"),
            &["--process-refresh-ms", period_ms],
        )?;
        let mut conn = connect(&server)?;
        let scripts: Vec<String> = (0..opts.panes)
            .map(|i| format!("sleep {}; :", 100_000 + i))
            .collect();
        panes(&mut conn, &dir, &scripts)?;
        // Let the shells start and the spawn work settle.
        std::thread::sleep(Duration::from_secs(3));
        let (used, wall) = quiet_cpu(&server, Duration::from_secs(opts.refresh_secs))?;
        println!(
            "  {name:<20} {used:.3} s CPU in {wall:.1} s = {:.3} % of one core",
            100.0 * used / wall
        );
        cpu.push(used / wall);
        server.stop();
    }
    // Per refresh: the extra CPU of one-second refreshes, one refresh a second.
    let per_refresh = (cpu[0] - cpu[1]).max(0.0);
    let at_ten = 100.0 * per_refresh / 10.0;
    println!(
        "  one refresh of {} panes ≈ {:.2} ms CPU; at the real 10 s period ≈ {at_ten:.3} % of one core",
        opts.panes,
        per_refresh * 1000.0
    );
    verdicts.push(verdict(
        "refresh: < 1 % of one core with 100 panes",
        at_ten < 1.0,
        format!("{at_ten:.3} %"),
    ));
    Ok(())
}
