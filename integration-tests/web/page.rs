//! What a person does with the page in a real headless Chromium: watch a
//! pane's state change without a reload, open its live screen (with its
//! colours), send it a prompt, find the prompt refused while a question
//! waits and answer that question from the pane's own view, and merge a
//! task only after saying yes to the confirm.

use super::{LONG, Setup, paired_browser, pending, setup, verdict};
use crate::support::agents::{type_line, wait_state};
use crate::support::{DEADLINE, ok, str_field, wait_until};
use serde_json::{Value, json};

/// The `data-state` of the pane's row on the page is `state`.
fn row_state(s: &Setup, state: &str) -> String {
    format!(
        "const r = document.querySelector('.pane[data-pane=\"{}\"]'); \
         return !!r && r.dataset.state === '{state}'",
        s.pane
    )
}

#[test]
fn a_page_follows_a_pane_shows_its_screen_and_sends_it_a_prompt_but_never_into_a_question() {
    let s = setup();
    let b = paired_browser(&s);
    b.eval("window.__kept = true; return true");
    let mut c = s.server.client();
    // State changes reach the page as they happen.
    type_line(&mut c, &s.pane, "prompt build it");
    wait_state(&mut c, &s.pane, "working");
    b.wait_for("the row working", &row_state(&s, "working"));
    b.wait_for(
        "the working count",
        "return document.getElementById('n-working').textContent === '1'",
    );
    type_line(&mut c, &s.pane, "stop All done here");
    b.wait_for("the row done", &row_state(&s, "done"));
    b.wait_for(
        "the last message on the row",
        &format!(
            "return document.querySelector('.pane[data-pane=\"{}\"] .p-line2').textContent \
             .includes('All done here')",
            s.pane
        ),
    );

    // A tap opens the pane's live screen.
    b.tap(&format!(".pane[data-pane=\"{}\"]", s.pane));
    b.wait_for(
        "the pane's screen",
        "const t = document.getElementById('screen').textContent; \
         return t.includes('Welcome to Claude Code') && t.includes('All done here')",
    );
    // A prompt typed into the box and sent reaches the agent.
    b.type_into("#prompt", "prompt from the phone");
    b.tap("#send");
    wait_state(&mut c, &s.pane, "working");
    b.wait_for(
        "the prompt sent",
        "const r = document.getElementById('submit-result'); \
         return r.classList.contains('ok') && document.getElementById('prompt').value === ''",
    );
    b.wait_for(
        "the agent's answer on the live screen",
        "return document.getElementById('screen').textContent.includes('Thinking')",
    );

    // A question: the pane's view shows it with its options, and a prompt
    // sent now is refused by the server's gate, never typed into it.
    type_line(&mut c, &s.pane, "ask Bash");
    let d = pending(&s);
    b.wait_for(
        "the question in the pane's view",
        "const n = document.getElementById('v-note'); return !n.hidden \
         && [...n.querySelectorAll('button')].some((b) => b.textContent === 'Allow once')",
    );
    b.type_into("#prompt", "prompt typed into a question");
    b.tap("#send");
    b.wait_for(
        "the prompt refused",
        "return document.getElementById('submit-result').classList.contains('err')",
    );
    let said = b.eval("return document.getElementById('submit-result').textContent");
    assert!(
        said.as_str().is_some_and(|t| !t.is_empty()),
        "the refusal says why: {said}"
    );
    let screen = ok(c.call("pane.read", json!({"pane_id": s.pane, "mode": "screen"})));
    assert!(
        !str_field(&screen, "text").contains("typed into a question"),
        "nothing was typed into the question: {screen}"
    );
    assert_eq!(pending(&s)["id"], d["id"], "the question still waits");
    // Answered from the pane's view: the reporter gets the verdict.
    b.eval(
        "[...document.querySelectorAll('#v-note button')] \
         .find((b) => b.textContent === 'Allow once').click(); return true",
    );
    let verdict = verdict(&s.dir, 1);
    assert!(verdict.contains("\"allow\""), "{verdict}");
    b.wait_for(
        "the question gone from the view",
        "return document.getElementById('v-note').hidden",
    );
    // Back closes the view; the page was never reloaded.
    b.tap("#back");
    b.wait_for(
        "the list again",
        "return document.getElementById('view').hidden",
    );
    assert_eq!(b.eval("return window.__kept === true"), Value::Bool(true));
}

#[test]
fn a_screen_keeps_its_colours_and_wide_screens_do_not_widen_the_page() {
    let s = setup();
    let mut c = s.server.client();
    let ws = str_field(
        &ok(c.call("pane.get", json!({"pane_id": s.pane})))["pane"],
        "workspace_id",
    )
    .to_owned();
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let colours = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "cols": 200, "rows": 20, "argv": ["bash", "-c",
            "printf '\\033[1;31mred alert\\033[0m plain \\033[44mon blue\\033[0m\\n'; exec cat"]}),
    ));
    let pane = str_field(&colours["pane"], "id").to_owned();
    let b = paired_browser(&s);
    b.wait_for(
        "the coloured pane listed",
        &format!("return !!document.querySelector('.pane[data-pane=\"{pane}\"]')"),
    );
    b.tap(&format!(".pane[data-pane=\"{pane}\"]"));
    b.wait_for(
        "the red bold run",
        "const s = [...document.querySelectorAll('#screen span')] \
           .find((e) => e.textContent === 'red alert'); \
         return !!s && s.classList.contains('b') \
           && getComputedStyle(s).color === 'rgb(224, 96, 90)'",
    );
    b.wait_for(
        "the run on blue",
        "const s = [...document.querySelectorAll('#screen span')] \
           .find((e) => e.textContent === 'on blue'); \
         return !!s && getComputedStyle(s).backgroundColor === 'rgb(92, 143, 230)'",
    );
    // A 200-column screen scrolls inside its own box; the page does not.
    assert_eq!(
        b.eval(
            "return document.documentElement.scrollWidth <= document.documentElement.clientWidth"
        ),
        Value::Bool(true)
    );
}

#[test]
fn a_task_shows_its_diff_stat_and_merges_only_after_the_confirm_says_yes() {
    let s = setup();
    let mut c = s.server.client();
    let repo = crate::task_finish::repo(s.server.env().root());
    let task = crate::task_finish::completed_task(&mut c, &repo, "out.txt");
    let id = str_field(&task, "id").to_owned();
    let b = paired_browser(&s);
    let row = format!(".task[data-task=\"{id}\"]");
    b.wait_for(
        "the completed task",
        &format!(
            "const t = document.querySelector('{row}'); \
             return !!t && t.dataset.state === 'completed' && !!t.querySelector('.merge')"
        ),
    );
    // Opened, it shows what merging would bring.
    b.tap(&format!("{row} .task-head"));
    b.wait_for(
        "the diff stat",
        &format!(
            "const d = document.querySelector('{row} .t-diff'); \
             const m = document.querySelector('{row} .t-merge'); \
             return !!d && /^1 file \\+[1-9]\\d* −0$/.test(d.textContent) \
               && !!m && m.textContent === 'Merges cleanly into main.'"
        ),
    );
    // Merge asks first; Cancel does nothing.
    b.tap(&format!("{row} .merge"));
    let asked = b.dialog_text();
    assert!(asked.starts_with("Merge"), "{asked}");
    b.answer_dialog(false);
    let t = ok(c.call("task.get", json!({"task_id": id})))["task"].clone();
    assert_eq!(t["disposition"]["outcome"], "none", "cancelled: {t}");
    assert!(!repo.join("out.txt").exists());
    // OK merges: the file is on main, and the page says so.
    b.tap(&format!("{row} .merge"));
    b.dialog_text();
    b.answer_dialog(true);
    b.wait_for(
        "merged",
        &format!("return document.querySelector('{row} .result').textContent === 'Merged.'"),
    );
    assert!(
        repo.join("out.txt").is_file(),
        "the worker's file is on main"
    );
    let t = wait_until("the merge recorded", LONG, || {
        let t = ok(c.call("task.get", json!({"task_id": id})))["task"].clone();
        (t["disposition"]["outcome"] != "none").then_some(t)
    });
    assert_eq!(t["disposition"]["outcome"], "merged");
    // Once finished, the page offers no second merge.
    b.wait_for(
        "no merge button any more",
        &format!("return !document.querySelector('{row} .merge')"),
    );
}

#[test]
fn an_answer_that_lost_the_race_to_the_terminal_says_so() {
    let s = setup();
    let b = paired_browser(&s);
    let mut c = s.server.client();
    type_line(&mut c, &s.pane, "ask Bash");
    let d = pending(&s);
    let card = format!(".question[data-decision=\"{}\"]", str_field(&d, "id"));
    b.wait_for(
        "the question",
        &format!("return !!document.querySelector('{card} button.option[data-option=\"once\"]')"),
    );
    // The view stands still: the tap's request waits in its socket while
    // the question is answered in the terminal.
    s.view.pause();
    b.tap(&format!("{card} button.option[data-option=\"once\"]"));
    ok(c.call(
        "decision.answer",
        json!({"pane_id": s.pane, "decision_id": d["id"], "option_id": "deny"}),
    ));
    let verdict = verdict(&s.dir, 1);
    assert!(verdict.contains("\"deny\""), "{verdict}");
    s.view.go_on();
    b.wait_for(
        "the page saying the tap lost",
        "const t = document.getElementById('toast'); return !t.hidden \
         && t.classList.contains('err') && t.textContent.includes('already answered elsewhere')",
    );
    b.wait_for(
        "the question gone",
        &format!("return !document.querySelector('{card}')"),
    );
}

/// A pane at its usage limit (its `StopFailure` with `error` "rate_limit")
/// shows the limit badge and counts down to its reset
/// (docs/states.md#usage-limits).
#[test]
fn a_rate_limited_pane_counts_down_to_its_reset() {
    let s = setup();
    let b = paired_browser(&s);
    let mut c = s.server.client();
    type_line(&mut c, &s.pane, "prompt build it");
    wait_state(&mut c, &s.pane, "working");
    type_line(
        &mut c,
        &s.pane,
        "limit You've hit your session limit · resets in 2h 13m",
    );
    let limited = wait_state(&mut c, &s.pane, "rate_limited");
    assert_eq!(limited["lifecycle"], "blocked", "{limited}");
    b.wait_for("the row blocked", &row_state(&s, "blocked"));
    b.wait_for(
        "the limit badge and the countdown",
        &format!(
            "const r = document.querySelector('.pane[data-pane=\"{}\"]'); \
             const badge = r && r.querySelector('.badge.a-rate_limited'); \
             const left = r && r.querySelector('.resets'); \
             return !!badge && badge.textContent === 'limit' \
               && !!left && /^resets in 2h 1[23]m$/.test(left.textContent)",
            s.pane
        ),
    );
}

/// The conflict radar in the page (docs/web.md#the-page, docs/tasks.md#conflict-radar):
/// two workers' edits of one line mark both tasks with a line naming the
/// other task and the path; a discard clears the mark.
#[test]
fn tasks_in_a_collision_say_so_until_one_is_discarded() {
    use crate::task_conflicts::{conflicts, editing_task};
    let s = setup();
    let mut c = s.server.client();
    let repo = s.server.env().root().join("repo");
    crate::support::git::init_repo(&repo, "shared.txt", "base\n");
    let a = editing_task(&mut c, &repo, "alpha");
    let b = editing_task(&mut c, &repo, "beta");
    wait_until("the pair reported", DEADLINE, || {
        (!conflicts(&mut c, &repo).is_empty()).then_some(())
    });
    let browser = paired_browser(&s);
    let marked = |id: &str| {
        format!(
            "const t = document.querySelector('.task[data-task=\"{id}\"]'); \
             const p = t && t.querySelector('.t-conflict'); \
             return !!t && t.classList.contains('in-conflict') && !!p \
               && /^Conflicts with task .+ in shared\\.txt$/.test(p.textContent)"
        )
    };
    browser.wait_for("the first task marked", &marked(&a));
    browser.wait_for("the second task marked", &marked(&b));
    ok(c.call("task.finish", json!({"task_id": b, "mode": "discard"})));
    browser.wait_for(
        "the mark gone",
        &format!(
            "const t = document.querySelector('.task[data-task=\"{a}\"]'); \
             return !!t && !t.classList.contains('in-conflict') && !t.querySelector('.t-conflict')"
        ),
    );
}
