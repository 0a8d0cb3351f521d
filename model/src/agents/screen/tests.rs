//! Screen rules: bad rules named by their id, regions that slice and trim the
//! screen, the current prompt, and priority among matches.

use super::*;

fn rule(toml_text: &str) -> Result<Rule, String> {
    let spec: RuleSpec = toml::from_str(toml_text).map_err(|e| e.to_string())?;
    Rule::compile(&spec)
}

#[test]
fn bad_rules_are_rejected_with_their_id() {
    for (text, why) in [
        ("id = 'a'\nstate = 'busy'\nregex = ['x']", "bad state"),
        (
            "id = 'a'\nstate = 'idle'\nregion = 'middle'\nregex = ['x']",
            "bad region",
        ),
        ("id = 'a'\nstate = 'idle'\nregex = ['(']", "bad regex"),
        ("id = 'a'\nstate = 'idle'\nnot = ['x']", "at least one"),
        (
            "id = 'a'\nstate = 'idle'\nregion = 'title'\nlines = 3\nregex = ['x']",
            "title",
        ),
        (
            "id = 'a'\nstate = 'idle'\nlines = 0\nregex = ['x']",
            "bad lines",
        ),
        ("id = 'a'\nstate = 'idle'\nphrase = [' ab ']", "bad phrase"),
    ] {
        let e = rule(text).expect_err(text);
        assert!(e.contains("'a'") && e.contains(why), "{e}");
    }
    assert!(
        rule("state = 'idle'\nregex = ['x']").is_err(),
        "an id is required"
    );
}

#[test]
fn regions_slice_trim_and_limit_the_lines() {
    let screen = "first\n\nsecond  \n─────────\n❯ typing\n─────────\nstatus line\n";
    let v = View::new(screen, "✳ Claude");
    assert_eq!(v.region(Region::Bottom, Some(2)), "─────────\nstatus line");
    assert_eq!(v.region(Region::Top, Some(2)), "first\nsecond");
    assert_eq!(v.region(Region::PromptBox, None), "❯ typing");
    assert_eq!(v.region(Region::AbovePromptBox, None), "first\nsecond");
    assert_eq!(v.region(Region::AfterLastRule, None), "status line");
    assert_eq!(v.region(Region::Title, None), "✳ Claude");
    assert!(
        is_rule_line("───── suffix")
            && is_rule_line("  ──  ")
            && !is_rule_line("──x")
            && !is_rule_line("x───")
    );
}

#[test]
fn the_current_prompt_is_the_last_unanswered_one() {
    let answered = "› fix it\n• Working (3s • esc to interrupt)\n› \n✓ done";
    let v = View::new(answered, "");
    assert_eq!(
        v.region(Region::WithoutCurrentPrompt, None),
        "› fix it\n• Working (3s • esc to interrupt)\n›\n✓ done"
    );
    let open = "output\n• Working (3s • esc to interrupt)\n› next";
    let v = View::new(open, "");
    assert_eq!(v.region(Region::WithoutCurrentPrompt, None), "");
    assert_eq!(
        v.region(Region::BeforeCurrentPrompt, None),
        "output\n• Working (3s • esc to interrupt)"
    );
    assert_eq!(v.region(Region::AfterLastPrompt, None), "");
    assert!(!is_prompt_line(" › fix") && !is_prompt_line("›x") && is_prompt_line("›"));
}

#[test]
fn the_highest_priority_match_wins_and_ties_keep_the_first() {
    let rules = [
        rule("id = 'low'\nstate = 'idle'\npriority = -1000\nregex = ['']").expect("low"),
        rule("id = 'work'\nstate = 'working'\npriority = 10\nregex = ['busy']").expect("work"),
        rule("id = 'work2'\nstate = 'blocked'\npriority = 10\nregex = ['busy']").expect("work2"),
        rule("id = 'vetoed'\nstate = 'blocked'\npriority = 50\nall = ['busy', 'really']\nnot = ['kidding']").expect("vetoed"),
    ];
    let refs: Vec<&Rule> = rules.iter().collect();
    assert_eq!(classify(&refs, &View::new("busy", "")), Some(1));
    assert_eq!(classify(&refs, &View::new("busy really", "")), Some(3));
    assert_eq!(
        classify(&refs, &View::new("busy really kidding", "")),
        Some(1)
    );
    assert_eq!(classify(&refs, &View::new("quiet", "")), Some(0));
    assert_eq!(
        classify(&refs[1..], &View::new("quiet", "")),
        None,
        "no match changes nothing"
    );
    assert_eq!(rules[0].region_label(), "bottom(12)");
}

/// A phrase reads whole anywhere in a line, whatever is drawn before it, and
/// cut at the screen's right edge down to its first half; a line ending short
/// of the edge does not count a cut phrase (docs/screen-rules.md#phrases).
#[test]
fn a_phrase_reads_whole_or_cut_at_the_right_edge() {
    let r = rule("id = 'p'\nstate = 'working'\nphrase = ['(esc to cancel']").expect("valid");
    let at = |screen: &str, width: usize| r.matches(&View::with_width(screen, "", width));
    assert!(at("? for shortcutsing... (ESC TO CANCEL, 3s)", 80));
    // "(esc to cancel" is 14 characters: 7 or more of them at the edge count.
    let edge = |tail: &str| format!("{}{tail}", "x".repeat(30 - tail.chars().count()));
    assert!(at(&edge(" (esc to can"), 30));
    assert!(at(&edge(" (esc to"), 30));
    assert!(at(&edge(" (esc to "), 30), "a blank at the edge");
    assert!(!at(&edge(" (esc t"), 30), "fewer than half");
    assert!(!at(&edge(" (esc to can"), 31), "short of the edge");
    assert!(!at(&format!("{}\nnext", edge(" (esc to can")), 40));
    // A file's screen takes its widest line as the edge.
    let file = format!("{}\nshort", edge(" (esc to can"));
    assert!(r.matches(&View::new(&file, "")));
    let wide = format!("{}\n{}", edge(" (esc to can"), "y".repeat(31));
    assert!(!r.matches(&View::new(&wide, "")));
    // Wide characters count two columns.
    assert!(at(&format!("{} (esc to can", "界".repeat(9)), 30));
    // A phrase and a regex are alternatives; `all` and `not` still apply.
    let both = rule(
        "id = 'b'\nstate = 'working'\nregex = ['busy']\nphrase = ['esc to cancel']\nnot = ['later']",
    )
    .expect("valid");
    let reads = |screen: &str| both.matches(&View::with_width(screen, "", 80));
    assert!(reads("busy"));
    assert!(reads("esc to cancel"));
    assert!(!reads("esc to cancel later"));
    assert!(!reads("idle"));
}
