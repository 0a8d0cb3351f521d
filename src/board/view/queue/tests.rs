//! The decision queue's layout: cut at a third of the height, long options
//! on a line of their own.

use crate::board::model::tests::*;
use crate::board::view::tests::*;
use crate::board::view::*;
use signaltty_protocol::state::DecisionOption;

#[test]
fn many_questions_are_cut_at_a_third_of_the_height_with_a_count() {
    let world = vec![got(
        workspace(1, "web", &[1]),
        vec![tab(1, 1, "agents")],
        (1..=12)
            .map(|n| {
                asking(
                    pane(n, 1, 1, &format!("p{n}")),
                    decision(
                        &format!("d{n}"),
                        &format!("question {n}"),
                        T0 + i64::from(n),
                    ),
                )
            })
            .collect(),
    )];
    let board = loaded(world);
    let (buf, drawn) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_shows(&buf, &["12 questions", "question 1 ", "more"]);
    let more = row_with(&buf, "more").unwrap();
    assert!(more <= 8, "the queue stays in the top third");
    assert!(!text(&buf).contains("question 12 "));
    assert!(drawn.list.y > more);
}

#[test]
fn long_options_go_on_a_second_line_when_narrow() {
    let mut world = two_workspaces();
    let mut d = decision("d1", "How should I split the migration into steps?", T0);
    d.options = [
        "Keep the schema, move the data first",
        "Both at once",
        "Ask me later",
    ]
    .iter()
    .enumerate()
    .map(|(i, l)| DecisionOption {
        id: format!("{}", i + 1),
        label: (*l).into(),
    })
    .collect();
    world[0].panes[0] = asking(world[0].panes[0].clone(), d);
    let board = loaded(world);
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    let q = row_with(&buf, "How should I split").unwrap();
    assert!(
        lines(&buf)[usize::from(q) + 1].starts_with(
            "    1 Keep the schema, move the data first  2 Both at once  3 Ask me later"
        )
    );
    let (buf, _) = render(&board, &Preview::empty(), 200, 50, &opts(true));
    let q = row_with(&buf, "How should I split").unwrap();
    assert!(lines(&buf)[usize::from(q)].contains("3 Ask me later"));
}
