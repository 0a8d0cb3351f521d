//! What `pane.ask` answers (docs/ask.md#the-answer): the outcome a pane's
//! state at the end of the asked turn stands for, and what the agent
//! answered — its own turn-end report when it sent one, else the turn's
//! text on the screen, below the prompt it was given. Pure.

use signaltty_protocol::pane::{AskOutcome, Lifecycle};

/// The turn-end message a hook gives when the agent sent no text of its own.
const NO_TEXT: &[&str] = &["turn complete", "session ended"];

/// Lines whose start marks an agent's input box or its frame: the answer
/// ends above the first of them.
const BOX_STARTS: &[char] = &['╭', '╰', '─', '━', '▔', '▁', '┌', '└', '❯', '›'];

/// The outcome `lifecycle` stands for once the turn ended.
pub fn outcome(lifecycle: Lifecycle) -> AskOutcome {
    match lifecycle {
        Lifecycle::Done => AskOutcome::Done,
        Lifecycle::Blocked => AskOutcome::Blocked,
        Lifecycle::Failed | Lifecycle::Exited => AskOutcome::Failed,
        Lifecycle::Idle => AskOutcome::Interrupted,
        _ => AskOutcome::Timeout,
    }
}

/// The agent's own answer: the message of the event that ended the turn
/// (its payload, as the ring keeps it), when a hook sent it with text of
/// the agent's.
pub fn reported(ended_by: &serde_json::Value) -> Option<String> {
    let from_hook = ended_by["source"]
        .as_str()
        .is_some_and(|s| s.starts_with("hook:"));
    let text = ended_by["pane"]["last_message"].as_str()?.trim();
    if !from_hook || text.is_empty() || NO_TEXT.contains(&text) {
        return None;
    }
    Some(text.to_owned())
}

/// Whether `line` shows `needle` as an echoed prompt: after any marker
/// (`>`, `›`, `│`, a bullet), the line starts with it.
fn echoes(line: &str, needle: &str) -> bool {
    line.trim_start_matches(|c: char| !c.is_alphanumeric())
        .starts_with(needle)
}

/// The turn's text on `screen`: the lines below the last line that echoes
/// the start of `prompt`, down to the agent's input box, trimmed. None when
/// the prompt is not on the screen or nothing is below it.
pub fn on_screen(screen: &str, prompt: &str) -> Option<String> {
    let needle: String = prompt
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())?
        .chars()
        .take(40)
        .collect();
    let lines: Vec<&str> = screen.lines().collect();
    let needle = needle.trim_start_matches(|c: char| !c.is_alphanumeric());
    if needle.is_empty() {
        return None;
    }
    let echo = lines.iter().rposition(|l| echoes(l, needle))?;
    let mut answer: Vec<&str> = Vec::new();
    for line in &lines[echo + 1..] {
        let start = line.trim_start();
        let boxed = start.starts_with(BOX_STARTS) || start == ">" || start.starts_with("> ");
        if boxed && answer.iter().any(|l| !l.trim().is_empty()) {
            break;
        }
        if boxed {
            continue;
        }
        answer.push(line.trim_end());
    }
    while answer.first().is_some_and(|l| l.trim().is_empty()) {
        answer.remove(0);
    }
    while answer.last().is_some_and(|l| l.trim().is_empty()) {
        answer.pop();
    }
    (!answer.is_empty()).then(|| answer.join("\n"))
}

#[cfg(test)]
mod tests;
