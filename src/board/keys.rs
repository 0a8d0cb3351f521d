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
        Mode::ConfirmClose { .. } => match key.code {
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
        KeyCode::Esc => Action::ClearFilters,
        _ => Action::Nothing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use signaltty_protocol::PaneId;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn the_normal_keys_of_the_help_table() {
        let m = Mode::Normal;
        assert_eq!(action(&m, key(KeyCode::Char('j'))), Action::Move(1));
        assert_eq!(action(&m, key(KeyCode::Up)), Action::Move(-1));
        assert_eq!(action(&m, key(KeyCode::Char('3'))), Action::Answer(3));
        assert_eq!(action(&m, key(KeyCode::Char('0'))), Action::Nothing);
        assert_eq!(action(&m, key(KeyCode::Tab)), Action::NextUnread);
        assert_eq!(
            action(&m, key(KeyCode::Char('@'))),
            Action::ToggleState(StateFilter::Working)
        );
        assert_eq!(action(&m, key(KeyCode::Enter)), Action::Attach);
        assert_eq!(
            action(&m, KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Action::Quit
        );
    }

    #[test]
    fn text_fields_take_every_character_and_confirmations_only_yes() {
        let prompt = Mode::Prompt {
            pane: PaneId("pane_1".into()),
            text: String::new(),
        };
        assert_eq!(action(&prompt, key(KeyCode::Char('q'))), Action::Type('q'));
        assert_eq!(action(&prompt, key(KeyCode::Char('1'))), Action::Type('1'));
        assert_eq!(action(&prompt, key(KeyCode::Enter)), Action::Accept);
        assert_eq!(action(&prompt, key(KeyCode::Esc)), Action::Cancel);
        assert_eq!(
            action(&Mode::Filter, key(KeyCode::Backspace)),
            Action::Backspace
        );
        let confirm = Mode::ConfirmClose {
            pane: PaneId("pane_1".into()),
        };
        assert_eq!(action(&confirm, key(KeyCode::Char('y'))), Action::Accept);
        assert_eq!(action(&confirm, key(KeyCode::Char('x'))), Action::Cancel);
        assert_eq!(action(&Mode::Help, key(KeyCode::Char('j'))), Action::Cancel);
    }
}
