//! The rest of the spec's CLI mapping (spec/ipc.md §11): `focus next-unread`,
//! `decision answer`, and the `--env KEY=VALUE` parser of `pane spawn`,
//! `pane split` and `new`.

use crate::Global;
use crate::cli::call;
use clap::Subcommand;
use signaltty_protocol::Method;
use signaltty_protocol::state::{FocusNextUnreadParams, FocusNextUnreadResult};
use std::collections::BTreeMap;

#[derive(Debug, Subcommand)]
pub enum FocusCommand {
    /// The pane that needs a person most (focus.next_unread): prints its id,
    /// or says that none does.
    NextUnread,
}

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

/// `signaltty focus …`.
pub fn focus(global: &Global, cmd: FocusCommand) -> i32 {
    match cmd {
        FocusCommand::NextUnread => call(
            global,
            Method::FocusNextUnread(FocusNextUnreadParams {}),
            |r: FocusNextUnreadResult| match r.pane_id {
                Some(p) => say!("{p}"),
                None => say!("no pane needs attention"),
            },
        ),
    }
}

/// `signaltty decision …`.
pub fn decision(global: &Global, cmd: DecisionCommand) -> i32 {
    match cmd {
        DecisionCommand::Answer {
            pane,
            option,
            decision,
        } => crate::decisions_cli::answer(global, &pane, &option, decision),
    }
}

/// One `--env KEY=VALUE`: a usage error (clap's, exit 2) unless it has a
/// non-empty key before its first `=`. The server checks the rest.
pub fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("{text:?} is not KEY=VALUE")),
    }
}

/// The `env` param of repeated `--env` flags; absent when none was given.
pub fn env_param(pairs: Vec<(String, String)>) -> Option<BTreeMap<String, String>> {
    (!pairs.is_empty()).then(|| pairs.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_flags_need_a_key_and_an_equals_sign() {
        assert_eq!(parse_env("A=b=c"), Ok(("A".into(), "b=c".into())));
        assert_eq!(parse_env("EMPTY="), Ok(("EMPTY".into(), String::new())));
        assert!(parse_env("NOEQUALS").is_err());
        assert!(parse_env("=value").is_err());
        assert_eq!(env_param(Vec::new()), None);
        assert_eq!(
            env_param(vec![("K".into(), "1".into()), ("K".into(), "2".into())]),
            Some([("K".to_owned(), "2".to_owned())].into_iter().collect()),
            "the last of a repeated key wins"
        );
    }
}
