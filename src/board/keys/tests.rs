//! The board's keys: the help table's in the normal mode, text fields and
//! confirmations, and the tasks view's.

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
    let finish = Mode::ConfirmFinish {
        task: signaltty_protocol::TaskId("task_1".into()),
        merge: true,
    };
    assert_eq!(action(&finish, key(KeyCode::Char('y'))), Action::Accept);
    assert_eq!(action(&finish, key(KeyCode::Char('n'))), Action::Cancel);
}

#[test]
fn the_tasks_view_keys() {
    assert_eq!(
        action(&Mode::Normal, key(KeyCode::Char('t'))),
        Action::ToggleTasks
    );
    assert_eq!(tasks_action(key(KeyCode::Char('t'))), Action::ToggleTasks);
    assert_eq!(tasks_action(key(KeyCode::Esc)), Action::ToggleTasks);
    assert_eq!(tasks_action(key(KeyCode::Char('j'))), Action::Move(1));
    assert_eq!(tasks_action(key(KeyCode::End)), Action::Last);
    assert_eq!(tasks_action(key(KeyCode::Enter)), Action::Attach);
    assert_eq!(tasks_action(key(KeyCode::Char('d'))), Action::TaskDiff);
    assert_eq!(tasks_action(key(KeyCode::Char('m'))), Action::Merge);
    assert_eq!(tasks_action(key(KeyCode::Char('D'))), Action::Discard);
    assert_eq!(tasks_action(key(KeyCode::Char('q'))), Action::Quit);
    // The panes' actions do nothing here.
    assert_eq!(tasks_action(key(KeyCode::Char('x'))), Action::Nothing);
    assert_eq!(tasks_action(key(KeyCode::Char('1'))), Action::Nothing);
    assert_eq!(tasks_action(key(KeyCode::Char('y'))), Action::Nothing);
    assert_eq!(
        tasks_action(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        Action::Quit
    );
}
