//! `signaltty agents list|reload` (agents.list, agents.reload: the active
//! manifests) and `signaltty agents check FILE`, which validates a manifest
//! without a server, and `signaltty agents record AGENT` (record.rs).

mod record;

use crate::args::{AgentsCommand, Global};
use crate::cli::{call, fail_with};
use signaltty_protocol::{ErrorCode, Method};
use std::io::{IsTerminal as _, Read as _};

/// `signaltty agents …`.
pub fn run(global: &Global, cmd: AgentsCommand) -> i32 {
    match cmd {
        AgentsCommand::List => agents(global, false),
        AgentsCommand::Reload => agents(global, true),
        AgentsCommand::Check { file, title } => check(&file, title),
        AgentsCommand::Record(args) => record::record(global, args),
    }
}

/// `signaltty agents list` and `agents reload`.
fn agents(global: &Global, reload: bool) -> i32 {
    use signaltty_protocol::state::{AgentsParams, AgentsResult};
    let method = if reload {
        Method::AgentsReload(AgentsParams {})
    } else {
        Method::AgentsList(AgentsParams {})
    };
    call(global, method, |r: AgentsResult| {
        say!("agents dir {}", r.dir.as_deref().unwrap_or("(none)"));
        for m in &r.manifests {
            say!(
                "  {:<20} {:<9} {:>3} screen rules{}{}",
                m.file,
                serde_json::to_value(m.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                m.screen_rules,
                if m.bundled { "  (bundled)" } else { "" },
                if m.binaries.is_empty() {
                    String::new()
                } else {
                    format!("  binaries {}", m.binaries.join(" "))
                }
            );
        }
        for f in &r.failures {
            say!("  skipped {}: {}", f.file, f.error);
        }
    })
}

/// `signaltty agents check FILE`: validates a manifest without a server and,
/// with a screen on stdin, shows what its rules say about it.
fn check(file: &std::path::Path, title: Option<String>) -> i32 {
    use signaltty_model::agents::manifest::Manifest;
    use signaltty_model::agents::screen::{View, classify};
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            return fail_with(
                ErrorCode::IoError,
                format!("cannot read {}: {e}", file.display()),
            );
        },
    };
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let manifest = match Manifest::parse(&name, &text, false) {
        Ok(m) => m,
        Err(e) => return fail_with(ErrorCode::BadParams, format!("{name}: {e}")),
    };
    say!(
        "{name}: valid, kind {:?}, {} screen rules",
        manifest.kind,
        manifest.screen.len()
    );
    if std::io::stdin().is_terminal() {
        return 0;
    }
    let mut screen = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut screen) {
        return fail_with(
            ErrorCode::IoError,
            format!("cannot read the screen from stdin: {e}"),
        );
    }
    let title = title.unwrap_or_default();
    let view = View::new(&screen, &title);
    let rules: Vec<_> = manifest.screen.iter().collect();
    for rule in &rules {
        say!(
            "  {:<32} {:<8} {:>6}  {:<24} {}",
            rule.id,
            rule.state.as_str(),
            rule.priority,
            rule.region_label(),
            if rule.matches(&view) { "matches" } else { "-" }
        );
    }
    match classify(&rules, &view) {
        Some(i) => say!("winner: {} ({})", rules[i].id, rules[i].state.as_str()),
        None => say!("winner: none (the screen changes nothing)"),
    }
    0
}
