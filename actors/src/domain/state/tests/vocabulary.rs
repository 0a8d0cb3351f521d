//! The hook tables (signaltty-model's `agents::vocabulary`) against the
//! classifier and the installer's own files: no name twice, every row
//! recognized, the H4 names matching the `Tool` rows, the shim files
//! reporting exactly their agents' rows, and every hook `install` writes
//! recognized in every lifecycle.

use crate::domain::state::apply::{HookInput, drop_reason};
use serde_json::{Value, json};
use signaltty_model::agents::vocabulary::*;
use signaltty_model::integration::{self, INSTALLABLE, Roots, opencode, pi};
use signaltty_protocol::pane::AgentKind;
use signaltty_protocol::pane::Lifecycle;
use signaltty_protocol::state::Severity;
use std::collections::BTreeSet;

const LIFECYCLES: [Lifecycle; 7] = [
    Lifecycle::Unknown,
    Lifecycle::Working,
    Lifecycle::Blocked,
    Lifecycle::Done,
    Lifecycle::Idle,
    Lifecycle::Failed,
    Lifecycle::Exited,
];

/// The payloads an agent sends with `name`, as far as they change its
/// classification: OpenCode's plugin reports `session.status` only for busy
/// and idle; every other hook is tried with an empty payload, so that no
/// session id makes it count.
fn payloads(kind: AgentKind, name: &str) -> Vec<Value> {
    match find(kind, name).map(|h| h.role) {
        Some(Role::Status) => vec![json!({"status": "busy"}), json!({"status": "idle"})],
        _ => vec![json!({})],
    }
}

/// Why `kind`'s pane would drop hook `name` in any lifecycle (`None`: it is
/// recognized in every one).
pub(crate) fn dropped(kind: AgentKind, name: &str) -> Option<String> {
    for payload in payloads(kind, name) {
        for lifecycle in LIFECYCLES {
            let mut pane = crate::domain::state::tests::pane(kind);
            pane.lifecycle = lifecycle;
            let input = HookInput {
                kind,
                agent: kind.name(),
                event: name,
                payload: &payload,
                message: None,
                title: None,
                severity: Severity::Info,
                decision: None,
                notification_id: "n_1".into(),
                overlay: None,
            };
            if let Some(reason) = drop_reason(&pane, &input) {
                return Some(format!("{reason} when {lifecycle:?} with {payload}"));
            }
        }
    }
    None
}

#[test]
fn no_agent_names_a_hook_twice() {
    for kind in AgentKind::ALL {
        let mut seen = BTreeSet::new();
        for hook in hooks(kind) {
            assert!(seen.insert(hook.name), "{kind:?} lists {} twice", hook.name);
        }
    }
}

#[test]
fn every_hook_in_the_tables_is_recognized_by_its_adapter() {
    for kind in AgentKind::ALL {
        for hook in hooks(kind) {
            if let Some(why) = dropped(kind, hook.name) {
                panic!("{kind:?} {}: {why}", hook.name);
            }
        }
    }
}

#[test]
fn a_name_missing_from_the_table_is_unrecognized() {
    for kind in AgentKind::ALL {
        assert!(dropped(kind, "NoSuchHook").is_some(), "{kind:?}");
    }
    // Case matters: Cursor's camelCase names are not Claude's.
    assert!(dropped(AgentKind::Claude, "sessionStart").is_some());
}

#[test]
fn only_generic_and_none_have_no_table_and_every_installable_agent_installs_some() {
    for kind in AgentKind::ALL {
        assert_eq!(hooks(kind).is_empty(), !kind.is_agent(), "{kind:?}");
    }
    for kind in INSTALLABLE {
        assert!(installed(kind).next().is_some(), "{kind:?}");
        // One agent is configured one way: a JSON hook file, or a shim file.
        let shim = installed(kind)
            .filter(|h| h.install == Install::Shim)
            .count();
        assert!(
            shim == 0 || shim == installed(kind).count(),
            "{kind:?} mixes commands and shim hooks"
        );
    }
}

#[test]
fn the_tool_traffic_names_are_exactly_the_tool_rows() {
    let rows: BTreeSet<&str> = AgentKind::ALL
        .into_iter()
        .flat_map(hooks)
        .filter(|h| h.role == Role::Tool)
        .map(|h| h.name)
        .collect();
    let names: BTreeSet<&str> = TOOL_TRAFFIC.iter().copied().collect();
    assert_eq!(rows, names);
    for name in LIVENESS {
        let role = find(AgentKind::Claude, name).map(|h| h.role);
        assert!(
            matches!(role, Some(Role::Tool | Role::Subagent)),
            "{name}: liveness names are Claude's tool and subagent hooks"
        );
    }
}

/// The quoted strings of `text` that follow `prefix`, up to the closing quote.
fn quoted_after<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.split(prefix)
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect()
}

#[test]
fn the_shim_files_report_exactly_their_agents_rows() {
    let opencode = opencode::plugin("/bin/signaltty");
    let pi = pi::extension("/bin/signaltty");
    for (kind, text) in [(AgentKind::Opencode, &opencode), (AgentKind::Pi, &pi)] {
        let rows: BTreeSet<&str> = installed(kind).map(|h| h.name).collect();
        let mut reported: BTreeSet<&str> = quoted_after(text, "report(\"").into_iter().collect();
        // OpenCode forwards a set of events under their own names.
        if let Some(set) = text
            .split("new Set([")
            .nth(1)
            .and_then(|s| s.split("])").next())
        {
            reported.extend(set.split('"').skip(1).step_by(2));
        }
        assert_eq!(reported, rows, "{kind:?}");
    }
}

/// Issue 13: every hook `install` writes is one its adapter recognizes, in
/// every lifecycle, even without a session id.
#[test]
fn every_installed_hook_of_every_agent_is_recognized() {
    for agent in INSTALLABLE {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::new(Some(home.path()), |_| None).unwrap();
        let reporter = home.path().join("signaltty");
        std::fs::write(&reporter, "#!/bin/sh\n").unwrap();
        let executable = std::os::unix::fs::PermissionsExt::from_mode(0o755);
        std::fs::set_permissions(&reporter, executable).unwrap();
        integration::install(agent, &roots, &reporter).unwrap_or_else(|e| panic!("{e}"));
        let file = roots.file(agent).unwrap();
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let events = integration::installed_hooks(agent, &text);
        assert!(!events.is_empty(), "{agent:?} installs no hook");
        for event in events {
            if let Some(why) = dropped(agent, &event) {
                panic!("{agent:?} installs {event}, which is dropped: {why}");
            }
        }
    }
}
