//! Tests of a task's contract and result: their bounds and the worker prompt.

use super::*;
use signaltty_protocol::task::ResultStatus;

fn contract(objective: &str) -> Contract {
    Contract {
        objective: objective.into(),
        constraints: None,
        acceptance_criteria: None,
        output_format: None,
    }
}

fn report(summary: &str, artifacts: usize) -> TaskReportParams {
    TaskReportParams {
        task_id: None,
        pane_id: None,
        status: ResultStatus::Completed,
        summary: summary.into(),
        artifacts: Some(
            (0..artifacts)
                .map(|i| signaltty_protocol::task::Artifact {
                    name: format!("a{i}"),
                    path: format!("/p/{i}"),
                    version: None,
                })
                .collect(),
        ),
        evidence: None,
    }
}

/// docs/tasks.md#the-contract and docs/tasks.md#results.
#[test]
fn contract_and_result_bounds() {
    assert!(check_contract(&contract("")).is_err());
    assert!(check_contract(&contract(" \n\t")).is_err());
    assert!(check_contract(&contract(&"x".repeat(MAX_OBJECTIVE_BYTES))).is_ok());
    assert!(check_contract(&contract(&"x".repeat(MAX_OBJECTIVE_BYTES + 1))).is_err());
    assert!(check_report(&report(&"s".repeat(MAX_SUMMARY_BYTES), 0)).is_ok());
    assert!(check_report(&report(&"s".repeat(MAX_SUMMARY_BYTES + 1), 0)).is_err());
    assert!(check_report(&report("", 0)).is_err());
    assert!(check_report(&report("ok", MAX_ARTIFACTS)).is_ok());
    assert!(check_report(&report("ok", MAX_ARTIFACTS + 1)).is_err());
}

fn facts(task: &TaskId) -> PromptFacts<'_> {
    PromptFacts {
        task,
        branch: "signaltty/fix-1",
        base_sha: "0123456789012345678901234567890123456789",
    }
}

/// docs/tasks.md#the-worker-prompt.
#[test]
fn the_prompt_has_the_preamble_the_objective_and_each_section_given() {
    let id = TaskId("task_1".into());
    let only = compose_prompt(facts(&id), &contract("  Fix the parser  "));
    assert!(
        only.starts_with("You are a worker for task task_1 "),
        "{only}"
    );
    for fact in [
        "signaltty/fix-1",
        "0123456789012345678901234567890123456789",
        "signaltty report",
        "$SIGNALTTY_TASK",
    ] {
        assert!(only.contains(fact), "{fact}: {only}");
    }
    assert!(only.ends_with("## Objective\nFix the parser\n"), "{only:?}");
    assert!(!only.contains("## Constraints"));

    let all = Contract {
        objective: "Fix the parser".into(),
        constraints: Some(" no new deps ".into()),
        acceptance_criteria: Some(vec![" tests pass ".into(), "  ".into(), "docs".into()]),
        output_format: Some("a summary".into()),
    };
    let full = compose_prompt(facts(&id), &all);
    assert!(
        full.ends_with(
            "## Objective\nFix the parser\n\n## Constraints\nno new deps\n\n\
                 ## Acceptance Criteria\n- tests pass\n- docs\n\n\
                 ## Expected Output Format\na summary\n"
        ),
        "{full:?}"
    );
    // Blank optional sections and an empty list are left out.
    let blank = Contract {
        objective: "x".into(),
        constraints: Some(" ".into()),
        acceptance_criteria: Some(vec![]),
        output_format: Some("".into()),
    };
    assert_eq!(
        compose_prompt(facts(&id), &blank),
        format!("{}x\n", preamble(facts(&id)))
    );
    // A maximum objective alone always fits the budget.
    let max = compose_prompt(facts(&id), &contract(&"x".repeat(MAX_OBJECTIVE_BYTES)));
    assert_eq!(max.len(), prompt_budget(facts(&id)));
    let over = Contract {
        constraints: Some("c".into()),
        ..contract(&"x".repeat(MAX_OBJECTIVE_BYTES))
    };
    assert!(compose_prompt(facts(&id), &over).len() > prompt_budget(facts(&id)));
}
