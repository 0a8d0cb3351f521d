//! The decision commands for people: `signaltty decisions` (what is being asked,
//! across every pane), `signaltty answer PANE OPTION` and its other spelling in
//! docs/cli.md#commands-and-their-methods, `signaltty decision answer`.

use crate::args::Global;
use crate::cli::{call, fail_call, fail_with, print_decision, typed};
use clap::Subcommand;
use serde_json::json;
use signaltty_model::client::{CallError, Client};
use signaltty_protocol::pane::{Pane, PaneGetResult, PaneTarget};
use signaltty_protocol::state::{Decision, DecisionAnswerParams, DecisionAnswerResult};
use signaltty_protocol::workspace::{WorkspaceGetParams, WorkspaceGetResult, WorkspaceListResult};
use signaltty_protocol::{ErrorCode, Method, PaneRef, WorkspaceRef};

#[derive(Debug, Subcommand)]
pub enum DecisionCommand {
    /// Answer a pane's pending decision (decision.answer); the same as `answer`.
    Answer {
        /// Pane id or name.
        pane: String,
        /// The option: its id (once, deny, …) or its 1-based number.
        option: String,
        /// Answer only if this is still the pending decision (default: whichever is).
        #[arg(long, value_name = "ID")]
        decision: Option<String>,
    },
}

/// `signaltty decision …`.
pub fn run(global: &Global, cmd: DecisionCommand) -> i32 {
    match cmd {
        DecisionCommand::Answer {
            pane,
            option,
            decision,
        } => answer(global, &pane, &option, decision),
    }
}

/// `signaltty decisions`: every pane's pending decision, in workspace order.
pub fn list(global: &Global, all_hosts: bool) -> i32 {
    if all_hosts {
        return crate::remote::fleet::run(global, "decisions", pending, show_pending);
    }
    match pending(global) {
        Ok(value) if global.json => {
            say!("{value}");
            0
        },
        Ok(value) => show_pending(value).map_or_else(|code| code, |()| 0),
        Err(e) => fail_call(e),
    }
}

/// One server's pending decisions: `{"decisions": [{pane_id, workspace_id,
/// lifecycle, attention, decision, name, agent}, …]}`.
fn pending(global: &Global) -> Result<serde_json::Value, CallError> {
    let mut client = Client::open(&crate::remote::resolve(global)?)?;
    let shape = |e: serde_json::Error| CallError {
        code: ErrorCode::Internal,
        message: format!("unexpected result shape: {e}"),
    };
    let workspaces: WorkspaceListResult =
        serde_json::from_value(client.call(Method::WorkspaceList(Default::default()))?)
            .map_err(shape)?;
    let mut items = Vec::new();
    for w in workspaces.workspaces {
        let got = client.call(Method::WorkspaceGet(WorkspaceGetParams {
            workspace_id: WorkspaceRef(w.id.0.clone()),
        }));
        let got: WorkspaceGetResult = match got {
            Ok(v) => serde_json::from_value(v).map_err(shape)?,
            // Closed between the two calls.
            Err(e) if e.code == ErrorCode::NoSuchWorkspace => continue,
            Err(e) => return Err(e),
        };
        for p in got.panes {
            if let Some(d) = &p.pending_decision {
                items.push(json!({
                    "pane_id": p.id, "workspace_id": p.workspace_id,
                    "lifecycle": p.lifecycle, "attention": p.attention, "decision": d,
                    "pane": p,
                }));
            }
        }
    }
    Ok(json!({ "decisions": items }))
}

/// One server's pending decisions as text.
fn show_pending(value: serde_json::Value) -> Result<(), i32> {
    let items = match value.get("decisions") {
        Some(serde_json::Value::Array(items)) => items.clone(),
        _ => Vec::new(),
    };
    if items.is_empty() {
        say!("no pending decisions");
    }
    let paint = crate::paint::current();
    for item in items {
        let pane: Pane = typed(item.get("pane").cloned().unwrap_or_default())?;
        let d: Decision = typed(item.get("decision").cloned().unwrap_or_default())?;
        say!("{}", decision_line(&pane, &d, paint));
        print_decision(&d, "    ");
    }
    Ok(())
}

/// The heading line of a pane's decision: the pane, its name, lifecycle and
/// agent, and the decision's id; the lifecycle coloured as on the board. On a
/// terminal the decision id (for `--decision`) goes last and is cut first.
fn decision_line(pane: &Pane, d: &Decision, paint: crate::paint::Paint) -> String {
    use crate::paint::{columns, cut};
    let (_, colour) = crate::paint::lifecycle(pane.lifecycle);
    let agent = serde_json::to_value(pane.agent.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let name = pane.name.as_deref().unwrap_or("");
    let head = |lifecycle: &str| format!("{} {name}  {lifecycle}  {agent}  decision ", pane.id);
    let id = match paint.width() {
        Some(w) => cut(
            &d.id,
            w.saturating_sub(columns(&head(pane.lifecycle.as_str()))),
        ),
        None => d.id.clone(),
    };
    let lifecycle = paint.paint(pane.lifecycle.as_str(), colour, false);
    format!("{}{id}", head(&lifecycle))
}

/// `signaltty answer PANE OPTION [--decision ID]`: the option by id, else by
/// its number; the decision is the pane's pending one unless one is named.
pub fn answer(global: &Global, pane: &str, option: &str, decision: Option<String>) -> i32 {
    let pane_id = PaneRef(pane.to_owned());
    let (decision_id, option_id) = match decision {
        // A named decision is answered exactly as asked: no lookup can race it.
        Some(id) => (id, option.to_owned()),
        None => {
            let target = match crate::remote::target(global) {
                Ok(t) => t,
                Err(code) => return code,
            };
            let got = Client::open(&target).and_then(|mut c| {
                c.call(Method::PaneGet(PaneTarget {
                    pane_id: pane_id.clone(),
                }))
            });
            let got: PaneGetResult = match got {
                Ok(v) => match typed(v) {
                    Ok(g) => g,
                    Err(code) => return code,
                },
                Err(e) => return fail_call(e),
            };
            let Some(d) = got.pane.pending_decision else {
                return fail_with(
                    ErrorCode::NoSuchDecision,
                    format!("pane {pane} has no pending decision"),
                );
            };
            let option_id = match option.parse::<usize>() {
                Ok(n) if d.position(option).is_none() && n >= 1 && n <= d.options.len() => {
                    d.options[n - 1].id.clone()
                },
                _ => option.to_owned(),
            };
            (d.id, option_id)
        },
    };
    let params = DecisionAnswerParams {
        pane_id,
        decision_id,
        option_id,
    };
    call(
        global,
        Method::DecisionAnswer(params),
        |r: DecisionAnswerResult| {
            say!(
                "answered: lifecycle {} attention {}",
                r.lifecycle.as_str(),
                r.attention.as_str()
            );
        },
    )
}
