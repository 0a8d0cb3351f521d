//! Keys to actions, per mode: pure, so the key table is tested without a
//! terminal. The table `?` shows is `HELP`, kept beside the mapping.

use super::model::{Mode, StateFilter};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What a key asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Nothing,
    Quit,
    Move(isize),
    First,
    Last,
    Attach,
    /// Answer the selected pane's question with its n-th option (1-based).
    Answer(usize),
    /// `y`: the question's allowing option; `n`: its denying one.
    Yes,
    No,
    NextUnread,
    MarkSeen,
    StartPrompt,
    Resume,
    StartClose,
    StartFilter,
    ToggleState(StateFilter),
    Help,
    /// `t`: the tasks view, or back to the panes.
    ToggleTasks,
    /// In the tasks view: `d` the diff stat, `m` merge, `D` discard.
    TaskDiff,
    Merge,
    Discard,
    /// Esc in normal mode: clear the filters.
    ClearFilters,
    /// In a text field.
    Type(char),
    Backspace,
    /// Enter in a text field or a confirmation.
    Accept,
    /// Esc in a text field, a confirmation or the help.
    Cancel,
}

/// The key table shown by `?`.
pub const HELP: &[(&str, &str)] = &[
    ("j k ↑ ↓", "move (PgUp PgDn Home End)"),
    ("Enter", "attach full-screen; Ctrl-\\ comes back here"),
    ("1 … 9", "answer the selected question with that option"),
    ("y  n", "allow / deny the selected permission"),
    ("Tab", "jump to the next pane that needs you"),
    ("m", "mark the selected pane seen"),
    ("s", "type a prompt and submit it"),
    ("r", "resume a RESUMABLE pane"),
    ("x", "close the selected pane (asks first)"),
    ("/", "filter by text; Esc clears"),
    ("! @ #", "only blocked / working / done (again: all)"),
    (
        "t",
        "the tasks (again: the panes); Enter attaches its worker",
    ),
    ("d  m  D", "tasks: diff stat / merge / discard (asks first)"),
    ("?", "this help"),
    ("q", "quit the board (the agents keep running)"),
];

/// The action of `key` in `mode`.
pub fn action(mode: &Mode, key: KeyEvent) -> Action {
    if key.kind == KeyEventKind::Release {
        return Action::Nothing;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && key.code == KeyCode::Char('c') {
        return match mode {
            Mode::Normal => Action::Quit,
            _ => Action::Cancel,
        };
    }
    match mode {
        Mode::Normal => normal(key),
        Mode::Help => match key.code {
            KeyCode::Char('q') => Action::Quit,
            _ => Action::Cancel,
        },
        Mode::Filter | Mode::Prompt { .. } => match key.code {
            KeyCode::Enter => Action::Accept,
            KeyCode::Esc => Action::Cancel,
            KeyCode::Backspace => Action::Backspace,
            KeyCode::Char(c) if !ctrl => Action::Type(c),
            _ => Action::Nothing,
        },
        Mode::ConfirmClose { .. } | Mode::ConfirmFinish { .. } => match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') | KeyCode::Enter => Action::Accept,
            _ => Action::Cancel,
        },
    }
}

fn normal(key: KeyEvent) -> Action {
    match key.code {
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Char('j') | KeyCode::Down => Action::Move(1),
        KeyCode::Char('k') | KeyCode::Up => Action::Move(-1),
        KeyCode::PageDown => Action::Move(10),
        KeyCode::PageUp => Action::Move(-10),
        KeyCode::Home | KeyCode::Char('g') => Action::First,
        KeyCode::End | KeyCode::Char('G') => Action::Last,
        KeyCode::Enter => Action::Attach,
        KeyCode::Char(c @ '1'..='9') => Action::Answer(c as usize - '0' as usize),
        KeyCode::Char('y') => Action::Yes,
        KeyCode::Char('n') => Action::No,
        KeyCode::Tab => Action::NextUnread,
        KeyCode::Char('m') => Action::MarkSeen,
        KeyCode::Char('s') => Action::StartPrompt,
        KeyCode::Char('r') => Action::Resume,
        KeyCode::Char('x') => Action::StartClose,
        KeyCode::Char('/') => Action::StartFilter,
        KeyCode::Char('!') => Action::ToggleState(StateFilter::Blocked),
        KeyCode::Char('@') => Action::ToggleState(StateFilter::Working),
        KeyCode::Char('#') => Action::ToggleState(StateFilter::Done),
        KeyCode::Char('?') => Action::Help,
        KeyCode::Char('t') => Action::ToggleTasks,
        KeyCode::Esc => Action::ClearFilters,
        _ => Action::Nothing,
    }
}

/// The action of `key` in the tasks view (normal mode): moving, attaching
/// the worker, the diff, merge and discard; the rest of the panes' keys
/// mean nothing here.
pub fn tasks_action(key: KeyEvent) -> Action {
    if key.kind == KeyEventKind::Release {
        return Action::Nothing;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return match key.code {
            KeyCode::Char('c') => Action::Quit,
            _ => Action::Nothing,
        };
    }
    match key.code {
        KeyCode::Char('d') => Action::TaskDiff,
        KeyCode::Char('m') => Action::Merge,
        KeyCode::Char('D') => Action::Discard,
        KeyCode::Esc => Action::ToggleTasks,
        KeyCode::Char('q' | 'j' | 'k' | 'g' | 'G' | 't' | '?')
        | KeyCode::Down
        | KeyCode::Up
        | KeyCode::PageDown
        | KeyCode::PageUp
        | KeyCode::Home
        | KeyCode::End
        | KeyCode::Enter
        | KeyCode::Tab => normal(key),
        _ => Action::Nothing,
    }
}

#[cfg(test)]
mod tests;
