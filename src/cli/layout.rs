//! `signaltty layout export TAB` (layout.export) and `signaltty layout apply
//! WORKSPACE FILE|-` (layout.apply), which takes what export printed (with or
//! without `--json`) or a bare launch tree.

use crate::args::Global;
use crate::cli::{call, fail_with};
use clap::Subcommand;
use serde_json::Value;
use signaltty_protocol::layout::{
    LaunchNode, LayoutApplyParams, LayoutApplyResult, LayoutExportParams, LayoutExportResult,
};
use signaltty_protocol::{ErrorCode, Method, TabId, WorkspaceRef};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum LayoutCommand {
    /// Print a tab's layout as a launch tree: each pane's command, directory
    /// and name (layout.export).
    Export {
        /// Tab id.
        tab: String,
    },
    /// Start a launch tree in a new tab of a workspace, all panes or none
    /// (layout.apply). Takes what `layout export` printed.
    Apply {
        /// Workspace id or handle.
        workspace: String,
        /// The file, or `-` for standard input.
        file: PathBuf,
        /// Title of the new tab (default "tab").
        #[arg(long)]
        title: Option<String>,
        /// Start the panes without their names, instead of refusing names
        /// other panes hold.
        #[arg(long)]
        drop_names: bool,
    },
}

/// `signaltty layout …`.
pub fn run(global: &Global, cmd: LayoutCommand) -> i32 {
    match cmd {
        LayoutCommand::Export { tab } => call(
            global,
            Method::LayoutExport(LayoutExportParams { tab_id: TabId(tab) }),
            |r: LayoutExportResult| match serde_json::to_string_pretty(&r) {
                Ok(text) => say!("{text}"),
                Err(e) => eprintln!("signaltty: cannot print the layout: {e}"),
            },
        ),
        LayoutCommand::Apply {
            workspace,
            file,
            title,
            drop_names,
        } => {
            let root = match read_tree(&file) {
                Ok(root) => root,
                Err(why) => return fail_with(ErrorCode::BadParams, why),
            };
            let params = LayoutApplyParams {
                workspace_id: WorkspaceRef(workspace),
                title,
                root,
                drop_names: drop_names.then_some(true),
            };
            call(
                global,
                Method::LayoutApply(params),
                |r: LayoutApplyResult| {
                    say!("{}  {}", r.tab.id, r.tab.title);
                    for p in &r.panes {
                        say!(
                            "  {}  {}  {}",
                            p.pane.id,
                            p.pane.name.as_deref().unwrap_or(&p.pane.title),
                            p.pane.cwd
                        );
                    }
                },
            )
        },
    }
}

/// The launch tree in `file` (`-`: stdin): an export's result, or a tree.
fn read_tree(file: &std::path::Path) -> Result<LaunchNode, String> {
    let text = if file.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).map_err(|e| format!("stdin: {e}"))?
    } else {
        std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?
    };
    tree_of(&text)
}

fn tree_of(text: &str) -> Result<LaunchNode, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let tree = match value.get("root") {
        Some(Value::Null) => return Err("the exported tab has no panes".into()),
        Some(root) => root.clone(),
        None => value,
    };
    serde_json::from_value(tree).map_err(|e| format!("not a launch tree: {e}"))
}

#[cfg(test)]
mod tests;
