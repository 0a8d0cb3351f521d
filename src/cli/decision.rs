//! The decision commands for people: `signaltty decisions` (what is being asked,
//! across every pane), `signaltty answer PANE OPTION` and its other spelling in
//! docs/cli.md#commands-and-their-methods, `signaltty decision answer`.

use crate::args::Global;
use crate::cli::{
    call, connect, fail_call, fail_with, fetch, print_decision, resolve_socket, typed,
};
use clap::Subcommand;
use serde_json::json;
use signaltty_model::client::Client;
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
pub fn list(global: &Global) -> i32 {
    match list_inner(global) {
        Ok(code) | Err(code) => code,
    }
}

fn list_inner(global: &Global) -> Result<i32, i32> {
    let mut client = connect(global)?;
    let workspaces: WorkspaceListResult =
        fetch(&mut client, Method::WorkspaceList(Default::default()))?;
    let mut found = Vec::new();
    for w in workspaces.workspaces {
        let got: WorkspaceGetResult = fetch(
            &mut client,
            Method::WorkspaceGet(WorkspaceGetParams {
                workspace_id: WorkspaceRef(w.id.0.clone()),
            }),
        )?;
        for pane in got.panes {
            if let Some(d) = pane.pending_decision.clone() {
                found.push((pane, d));
            }
        }
    }
    if global.json {
        let items: Vec<_> = found
            .iter()
            .map(|(p, d)| {
                json!({
                    "pane_id": p.id, "workspace_id": p.workspace_id,
                    "lifecycle": p.lifecycle, "attention": p.attention, "decision": d,
                })
            })
            .collect();
        say!("{}", json!({ "decisions": items }));
        return Ok(0);
    }
    if found.is_empty() {
        say!("no pending decisions");
    }
    let paint = crate::paint::current();
    for (pane, d) in found {
        say!("{}", decision_line(&pane, &d, paint));
        print_decision(&d, "    ");
    }
    Ok(0)
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
            let got = Client::connect(&resolve_socket(global)).and_then(|mut c| {
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
