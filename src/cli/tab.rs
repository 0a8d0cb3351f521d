//! `signaltty tab create|close|set-layout|set-ratio`: one `tab.*` call each,
//! text by default, the raw result with `--json`.

use crate::args::{Global, TabCommand};
use crate::cli::{call, fail_with, parse_signal};
use signaltty_protocol::tab::{
    TabCloseParams, TabCreateParams, TabResult, TabSetLayoutParams, TabSetRatioParams,
};
use signaltty_protocol::workspace::{ClosedResult, Layout};
use signaltty_protocol::{ErrorCode, Method, TabId, WorkspaceRef};

/// `signaltty tab …`.
pub fn run(global: &Global, cmd: TabCommand) -> i32 {
    match cmd {
        TabCommand::Create { workspace, title } => {
            let params = TabCreateParams {
                workspace_id: WorkspaceRef(workspace),
                title,
            };
            call(global, Method::TabCreate(params), |r: TabResult| {
                say!("{}  {}", r.tab.id, r.tab.title)
            })
        },
        TabCommand::Close { tab, signal: name } => match parse_signal(&name) {
            Ok(sig) => {
                let params = TabCloseParams {
                    tab_id: TabId(tab),
                    signal: Some(sig),
                };
                call(global, Method::TabClose(params), |_: ClosedResult| {
                    say!("closed")
                })
            },
            Err(code) => code,
        },
        TabCommand::SetLayout { tab, layout } => match layout_arg(&layout) {
            Ok(layout) => {
                let params = TabSetLayoutParams {
                    tab_id: TabId(tab),
                    layout,
                };
                call(global, Method::TabSetLayout(params), |r: TabResult| {
                    say!("{}  {}", r.tab.id, r.tab.title)
                })
            },
            Err(code) => code,
        },
        TabCommand::SetRatio { tab, path, ratio } => {
            let params = TabSetRatioParams {
                tab_id: TabId(tab),
                path,
                ratio,
            };
            call(global, Method::TabSetRatio(params), |r: TabResult| {
                say!("{}  {}", r.tab.id, r.tab.title)
            })
        },
    }
}

/// A layout given as JSON on the command line, or read from stdin for `-`.
fn layout_arg(given: &str) -> Result<Layout, i32> {
    let text = if given == "-" {
        std::io::read_to_string(std::io::stdin()).map_err(|e| {
            fail_with(
                ErrorCode::BadParams,
                format!("cannot read the layout from stdin: {e}"),
            )
        })?
    } else {
        given.to_owned()
    };
    serde_json::from_str(&text).map_err(|e| {
        fail_with(
            ErrorCode::BadParams,
            format!("the layout is not a layout (docs/objects.md#layout): {e}"),
        )
    })
}
