//! Task states: the transition table of docs/objects.md#task-states.

use super::*;

#[test]
fn the_transition_table_is_data_model_8_3() {
    use TaskState::*;
    let allowed = |from: TaskState| -> Vec<TaskState> {
        TaskState::ALL
            .into_iter()
            .filter(|to| from.may_become(*to))
            .collect()
    };
    assert_eq!(
        allowed(Pending),
        [
            Working,
            InputRequired,
            Completed,
            Failed,
            Canceled,
            Rejected
        ]
    );
    assert_eq!(
        allowed(Working),
        [InputRequired, Completed, Failed, Canceled, Rejected]
    );
    assert_eq!(
        allowed(InputRequired),
        [Working, Completed, Failed, Canceled, Rejected]
    );
    for terminal in [Completed, Failed, Canceled, Rejected] {
        assert!(terminal.is_terminal());
        assert!(allowed(terminal).is_empty(), "{terminal:?}");
    }
    for s in TaskState::ALL {
        assert_eq!(TaskState::parse(s.as_str()), Some(s));
        assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
    }
}
