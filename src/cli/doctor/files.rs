//! Probes of the files signaltty keeps: the journal (through `journal
//! verify`'s own code), the snapshot (read, never moved), the state and data
//! directories and their free space, and the config file.

use super::verdict::{self, Check, DirSeen, Owned, Verdict};
use signaltty_model::Env;
use signaltty_model::journal::verify::verify;
use signaltty_model::snapshot::{self, LoadProblem, Peeked, SNAPSHOT_VERSION};
use std::fs::OpenOptions;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

/// `signaltty journal verify`'s checks, as one line. A running server may
/// be appending or rotating while the files are read, so a report with
/// problems is taken again a moment later and only the second one counts:
/// a record caught half-written is whole by then.
pub fn journal(state_dir: &Path) -> Check {
    let mut report = verify(state_dir);
    if !report.ok() {
        std::thread::sleep(std::time::Duration::from_millis(250));
        report = verify(state_dir);
    }
    if report.ok() {
        let detail = match report.max_seq {
            Some(seq) => format!("consistent, through seq {seq}"),
            None => "no records yet".to_owned(),
        };
        return Check::new("journal", Verdict::Ok, detail);
    }
    let first = report.problems.first().cloned().unwrap_or_default();
    let more = report.problems.len() - 1;
    let detail = if more == 0 {
        first
    } else {
        format!("{first} (and {more} more)")
    };
    Check::new("journal", Verdict::Fail, detail).fix(format!(
        "see every problem: `signaltty journal verify --state-dir {}`; docs/persistence.md says what each means",
        state_dir.display()
    ))
}

/// The snapshot a restart would load, and any snapshots set aside.
pub fn snapshot(state_dir: &Path) -> Check {
    let name = "snapshot";
    let main = match snapshot::peek(state_dir) {
        Peeked::Missing => Check::new(name, Verdict::Ok, "none yet (a fresh start)"),
        Peeked::Usable { file, snapshot } => Check::new(
            name,
            Verdict::Ok,
            format!(
                "{}: version {}, seq {}, {} workspace(s), {} pane(s), saved {}",
                file.display(),
                snapshot.version,
                snapshot.seq.0,
                snapshot.workspaces.len(),
                snapshot.panes.len(),
                snapshot.saved_at.as_str()
            ),
        ),
        Peeked::Unusable {
            file,
            problem: LoadProblem::Unsupported(v),
        } => Check::new(
            name,
            Verdict::Fail,
            format!(
                "{} is version {v}; this signaltty reads version {SNAPSHOT_VERSION}",
                file.display()
            ),
        )
        .fix(
            "run the signaltty that wrote it; a restart of this one sets it aside and starts empty",
        ),
        Peeked::Unusable {
            file,
            problem: LoadProblem::Corrupt(e),
        } => Check::new(
            name,
            Verdict::Fail,
            format!("{} cannot be loaded: {e}", file.display()),
        )
        .fix("the next server start sets it aside and rebuilds from the journal alone"),
    };
    let aside = match snapshot::set_aside(state_dir) {
        Ok(a) => a,
        Err(_) => return main,
    };
    if aside.is_empty() || main.verdict == Verdict::Fail {
        return main;
    }
    let names: Vec<String> = aside
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    Check::new(
        name,
        Verdict::Warn,
        format!("{}; set aside: {}", main.detail, names.join(", ")),
    )
    .fix(format!(
        "look at the set-aside file(s) in {} and delete them once you do not need them",
        state_dir.display()
    ))
}

/// The state or data directory: exists, ours, writable, and as private as
/// `privacy` says.
pub fn private_dir(
    name: &str,
    dir: &Path,
    missing: (Verdict, &str),
    privacy: verdict::Privacy,
) -> Check {
    let seen = match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => DirSeen::Missing,
        Err(e) => DirSeen::Unusable(e.to_string()),
        Ok(m) if !m.is_dir() => DirSeen::Unusable("not a directory".to_owned()),
        Ok(m) => DirSeen::Present {
            owned: Owned {
                mode: m.mode() & 0o7777,
                ours: m.uid() == nix::unistd::geteuid().as_raw(),
            },
            writable: probe_write(dir),
        },
    };
    verdict::private_dir(name, &dir.display().to_string(), &seen, missing, privacy)
}

/// Creates and removes a probe file in `dir`.
fn probe_write(dir: &Path) -> Result<(), String> {
    let probe = dir.join(format!(".doctor-probe-{}", std::process::id()));
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&probe)
        .map_err(|e| e.to_string())?;
    std::fs::remove_file(&probe).map_err(|e| format!("cannot remove {}: {e}", probe.display()))
}

/// The free space of the filesystem holding `dir` (or its nearest existing
/// parent).
pub fn disk(name: &str, dir: &Path) -> Check {
    let mut at = dir;
    while !at.exists() {
        match at.parent() {
            Some(p) => at = p,
            None => break,
        }
    }
    match nix::sys::statvfs::statvfs(at) {
        Ok(s) => {
            let frag = s.fragment_size();
            let available = s.blocks_available().saturating_mul(frag);
            let total = s.blocks().saturating_mul(frag);
            verdict::disk(name, &at.display().to_string(), available, total)
        },
        Err(e) => Check::new(
            name,
            Verdict::Skip,
            format!("cannot statvfs {}: {e}", at.display()),
        ),
    }
}

/// The config file (`signaltty config`): absent → the defaults apply;
/// present → every problem the settings resolver finds in it (or in the
/// environment variables it reads) fails the check, with where it is.
pub fn config(env: &Env) -> Check {
    let settings = signaltty_model::settings::load(env, &[]);
    let file = &settings.file_path;
    if settings.problems.is_empty() {
        return if settings.file_found {
            Check::new(
                "config",
                Verdict::Ok,
                format!("{} is valid", file.display()),
            )
        } else {
            Check::new(
                "config",
                Verdict::Skip,
                format!("no {} (the defaults apply)", file.display()),
            )
        };
    }
    let first = settings.problems[0].to_string();
    let more = settings.problems.len() - 1;
    let detail = if more == 0 {
        first
    } else {
        format!("{first} (and {more} more)")
    };
    Check::new("config", Verdict::Fail, detail).fix(
        "run `signaltty config show` for every problem, fix those lines (the server ignores them)",
    )
}
