//! The idle bash panes of the memory and spawn scenarios: the shell they run and how
//! to wait until every one shows its prompt.

use crate::common::client::Conn;
use crate::common::{Res, wait_all};
use std::time::Duration;

pub const BASH: &[&str] = &["bash", "--norc", "--noprofile"];
pub const BASH_SHELL: &str = "bash --norc --noprofile";
/// Time given to the shells to go idle after their prompt showed, before RSS is read.
pub const SETTLE: Duration = Duration::from_millis(500);
pub const PROMPT_LIMIT: Duration = Duration::from_secs(30);

/// Polls `pane.read mode=screen` (1 ms between rounds) until every pane's screen
/// shows something (bash's prompt: it prints nothing else).
pub fn wait_prompts(conn: &mut Conn, panes: &[String]) -> Res<()> {
    wait_all(panes, PROMPT_LIMIT, "panes without a prompt", |pending| {
        pending
            .iter()
            .map(|p| Ok(!conn.read_text(p, "screen", None)?.trim().is_empty()))
            .collect()
    })
}
