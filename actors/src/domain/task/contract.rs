//! A task's contract and result (docs/tasks.md#the-contract,
//! docs/tasks.md#results): their bounds, and the worker prompt composed from
//! the contract. Pure.

use signaltty_protocol::TaskId;
use signaltty_protocol::task::{
    Contract, MAX_ARTIFACTS, MAX_OBJECTIVE_BYTES, MAX_SUMMARY_BYTES, TaskReportParams,
};

/// Checks a contract's bounds: a non-blank objective of at most 32 KiB.
pub fn check_contract(contract: &Contract) -> Result<(), String> {
    if contract.objective.trim().is_empty() {
        return Err("contract.objective must not be blank".into());
    }
    if contract.objective.len() > MAX_OBJECTIVE_BYTES {
        return Err(format!(
            "contract.objective is {} bytes; at most {MAX_OBJECTIVE_BYTES}",
            contract.objective.len()
        ));
    }
    Ok(())
}

/// Checks a report's result: a summary of 1 byte to 8 KiB, at most 32
/// artifacts.
pub fn check_report(report: &TaskReportParams) -> Result<(), String> {
    if report.summary.is_empty() {
        return Err("summary must not be empty".into());
    }
    if report.summary.len() > MAX_SUMMARY_BYTES {
        return Err(format!(
            "summary is {} bytes; at most {MAX_SUMMARY_BYTES}",
            report.summary.len()
        ));
    }
    let artifacts = report.artifacts.as_ref().map_or(0, Vec::len);
    if artifacts > MAX_ARTIFACTS {
        return Err(format!("{artifacts} artifacts; at most {MAX_ARTIFACTS}"));
    }
    Ok(())
}

/// What the prompt's preamble names.
#[derive(Debug, Clone, Copy)]
pub struct PromptFacts<'a> {
    /// The task.
    pub task: &'a TaskId,
    /// Its branch.
    pub branch: &'a str,
    /// Its base commit.
    pub base_sha: &'a str,
}

/// The worker prompt (docs/tasks.md#the-worker-prompt): the preamble naming the
/// task, its branch and base and how to report, then the objective and each
/// optional section that is present and not blank.
pub fn compose_prompt(facts: PromptFacts<'_>, contract: &Contract) -> String {
    let mut prompt = preamble(facts);
    prompt.push_str(contract.objective.trim());
    prompt.push('\n');
    if let Some(c) = contract
        .constraints
        .as_deref()
        .filter(|c| !c.trim().is_empty())
    {
        prompt.push_str("\n## Constraints\n");
        prompt.push_str(c.trim());
        prompt.push('\n');
    }
    let criteria: Vec<&str> = contract
        .acceptance_criteria
        .iter()
        .flatten()
        .map(|c| c.trim())
        .filter(|c| !c.is_empty())
        .collect();
    if !criteria.is_empty() {
        prompt.push_str("\n## Acceptance Criteria\n");
        for c in criteria {
            prompt.push_str("- ");
            prompt.push_str(c);
            prompt.push('\n');
        }
    }
    if let Some(f) = contract
        .output_format
        .as_deref()
        .filter(|f| !f.trim().is_empty())
    {
        prompt.push_str("\n## Expected Output Format\n");
        prompt.push_str(f.trim());
        prompt.push('\n');
    }
    prompt
}

/// The fixed part before the objective: a prompt composed with an empty
/// objective and no optional section.
pub fn preamble(facts: PromptFacts<'_>) -> String {
    format!(
        "You are a worker for task {} in an isolated git worktree on branch {} \
         from base {}. Stay inside this worktree and commit your work there. When \
         you are done or blocked, run `signaltty report --status \
         completed|failed|rejected --summary \"…\"` with your evidence; it reads \
         $SIGNALTTY_TASK.\n\n## Objective\n",
        facts.task, facts.branch, facts.base_sha
    )
}

/// The most bytes a worker prompt may have
/// (docs/tasks.md#the-start-steps-in-order): 32 KiB plus this task's fixed
/// part, the prompt composed with an empty objective and no optional section. A
/// maximum objective alone always fits.
pub fn prompt_budget(facts: PromptFacts<'_>) -> usize {
    MAX_OBJECTIVE_BYTES
        + compose_prompt(
            facts,
            &Contract {
                objective: String::new(),
                constraints: None,
                acceptance_criteria: None,
                output_format: None,
            },
        )
        .len()
}

#[cfg(test)]
mod tests;
