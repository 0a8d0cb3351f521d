//! `signaltty board`: the command's flags and the settings behind them; the
//! board itself (the TUI) is `src/board/`.

use crate::args::Global;
use crate::cli::fail_with;
use signaltty_model::settings::{self, knobs::K, knobs::Value};
use signaltty_protocol::ErrorCode;
use std::io::IsTerminal as _;

/// `signaltty board` options.
#[derive(Debug, Clone, clap::Args)]
pub struct BoardArgs {
    /// Ring the terminal bell when a pane starts waiting for you or finishes
    /// with a result you have not seen (`--bell=false` to keep quiet; default
    /// `[board] bell` in the config file, else on).
    #[arg(long, num_args = 0..=1, default_missing_value = "true",
          action = clap::ArgAction::Set, value_name = "BOOL")]
    pub bell: Option<bool>,
    /// Also send a desktop notification (`notify-send`, in a desktop session;
    /// default `[board] notify` in the config file, else off).
    #[arg(long, num_args = 0..=1, default_missing_value = "true",
          action = clap::ArgAction::Set, value_name = "BOOL")]
    pub notify: Option<bool>,
    /// This machine's server and every configured host's on one board, each
    /// host under a heading with its link's state; the keys work the same on
    /// every host (docs/board.md#several-hosts). Not with --host.
    #[arg(long)]
    pub all_hosts: bool,
}

/// `signaltty board`: the board on this terminal, which it needs.
pub fn run(global: &Global, args: BoardArgs) -> i32 {
    if args.all_hosts
        && let Err(code) = crate::remote::fleet::check(global)
    {
        return code;
    }
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return fail_with(ErrorCode::BadParams, "the board needs a terminal");
    }
    crate::board::run(global, options(&args))
}

/// The bell and the desktop notification: each flag given wins over the
/// config file, which wins over the defaults (on, off). A problem in the
/// file is the server's and `signaltty config show`'s to report.
fn options(args: &BoardArgs) -> crate::board::Options {
    let flags: Vec<(K, Value)> = [(K::BoardBell, args.bell), (K::BoardNotify, args.notify)]
        .into_iter()
        .filter_map(|(k, v)| v.map(|b| (k, Value::Bool(b))))
        .collect();
    let s = settings::load(&signaltty_model::Env::from_process(), &flags);
    crate::board::Options {
        bell: s.bool(K::BoardBell),
        notify: s.bool(K::BoardNotify),
        all_hosts: args.all_hosts,
    }
}
