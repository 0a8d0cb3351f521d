//! The ConflictRadar on fake git (docs/tasks.md#conflict-radar): a pass
//! publishes what appeared, an unchanged world checks nothing again, a moved
//! tip checks only its pairs, a finished task clears its collisions, triggers
//! during a pass are coalesced, and a fresh `Check` waits for a pass of its
//! own.

use super::*;
use crate::testkit::tasks::FakeRadarGit;
use crate::testkit::{PublishProbe, Published};
use signaltty_protocol::Event;
use signaltty_protocol::task::conflict::ConflictState;
use signaltty_protocol::task::{Outcome, TaskState};

fn task(n: &str) -> Task {
    crate::domain::task::sample::task(n, TaskState::Working)
}

struct Rig {
    radar: Addr<ConflictRadar>,
    git: Arc<FakeRadarGit>,
    published: Published,
}

fn rig() -> Rig {
    let git = Arc::new(FakeRadarGit::default());
    {
        let mut s = git.state.lock();
        for (b, tip) in [("main", "m1"), ("a", "a1"), ("b", "b1"), ("c", "c1")] {
            s.heads.insert(b.into(), tip.into());
        }
        s.conflicts
            .push(("a1".into(), "b1".into(), vec!["f.txt".into()]));
    }
    let (probe, published) = PublishProbe::start();
    let radar = ConflictRadar::new(git.clone(), probe.recipient()).start();
    Rig {
        radar,
        git,
        published,
    }
}

impl Rig {
    /// A fresh check of `tasks`, `moved` read again; waits for its pass.
    async fn check(&self, tasks: Vec<Task>, moved: &[&str]) {
        let (done, ended) = oneshot::channel();
        self.radar
            .send(Check {
                repo: "/repo".into(),
                tasks: Some(tasks),
                moved: moved.iter().map(|n| TaskId(format!("task_{n}"))).collect(),
                done: Some(done),
            })
            .await
            .unwrap();
        tokio::time::timeout(std::time::Duration::from_secs(10), ended)
            .await
            .expect("the pass ended")
            .unwrap();
    }

    async fn current(&self) -> Vec<TaskConflict> {
        self.radar
            .send(Current { repos: None })
            .await
            .unwrap()
            .conflicts
    }

    fn conflict_events(&self) -> Vec<(ConflictState, String, Option<String>)> {
        self.published.with(|log| {
            log.batches
                .iter()
                .flatten()
                .filter_map(|e: &Event| match e {
                    Event::TaskConflict { state, a, b, .. } => {
                        Some((*state, a.0.clone(), b.as_ref().map(|b| b.0.clone())))
                    },
                    _ => None,
                })
                .collect()
        })
    }
}

#[actix::test]
async fn a_pass_publishes_what_appeared_and_an_unchanged_world_checks_nothing() {
    let rig = rig();
    rig.check(vec![task("a"), task("b"), task("c")], &[]).await;
    let current = rig.current().await;
    assert_eq!(current.len(), 1);
    assert_eq!(current[0].a, TaskId("task_a".into()));
    assert_eq!(current[0].b, Some(TaskId("task_b".into())));
    assert_eq!(current[0].paths, vec!["f.txt"]);
    assert_eq!(
        rig.conflict_events(),
        vec![(
            ConflictState::Appeared,
            "task_a".into(),
            Some("task_b".into())
        )]
    );
    // 3 pairs and 3 tasks against main, each checkout read once.
    let (merges, snapshots) = {
        let s = rig.git.state.lock();
        (s.merges.len(), s.snapshots.len())
    };
    assert_eq!((merges, snapshots), (6, 3));

    // Nothing moved: no merge, no new checkout read, no event.
    rig.check(vec![task("a"), task("b"), task("c")], &[]).await;
    assert_eq!(rig.git.state.lock().merges.len(), 6);
    assert_eq!(rig.git.state.lock().snapshots.len(), 3);
    assert_eq!(rig.conflict_events().len(), 1);
}

#[actix::test]
async fn a_moved_checkout_checks_only_its_pairs_and_a_clean_merge_clears() {
    let rig = rig();
    rig.check(vec![task("a"), task("b"), task("c")], &[]).await;
    // b's worker changed its files: its uncommitted work merges cleanly now.
    rig.git
        .state
        .lock()
        .work
        .insert("/wt/b".into(), "b2".into());
    rig.check(vec![task("a"), task("b"), task("c")], &["b"])
        .await;
    let (snapshots, again) = {
        let s = rig.git.state.lock();
        (s.snapshots.len(), s.merges[6..].to_vec())
    };
    assert_eq!(snapshots, 4, "only b's checkout is read again");
    assert_eq!(again.len(), 3, "a·b, b·c and b against main: {again:?}");
    assert!(again.iter().all(|(l, r)| l == "b2" || r == "b2"));
    assert!(rig.current().await.is_empty());
    assert_eq!(
        rig.conflict_events().last().map(|e| e.0),
        Some(ConflictState::Cleared)
    );
}

#[actix::test]
async fn a_finished_task_clears_its_collisions_and_the_target_is_watched() {
    let rig = rig();
    rig.check(vec![task("a"), task("b")], &[]).await;
    assert_eq!(rig.current().await.len(), 1);
    // b is merged: it leaves the watched tasks, and main moves to a commit
    // that conflicts with a.
    {
        let mut s = rig.git.state.lock();
        s.heads.insert("main".into(), "m2".into());
        s.conflicts
            .push(("a1".into(), "m2".into(), vec!["f.txt".into()]));
    }
    let mut b = task("b");
    b.state = TaskState::Completed;
    b.disposition.outcome = Outcome::Merged;
    assert!(!crate::domain::task::radar::watched(&b));
    rig.check(vec![task("a")], &[]).await;
    let current = rig.current().await;
    assert_eq!(current.len(), 1);
    assert_eq!(current[0].b, None);
    assert_eq!(current[0].target_branch.as_deref(), Some("main"));
    assert_eq!(
        rig.conflict_events(),
        vec![
            (
                ConflictState::Appeared,
                "task_a".into(),
                Some("task_b".into())
            ),
            (
                ConflictState::Cleared,
                "task_a".into(),
                Some("task_b".into())
            ),
            (ConflictState::Appeared, "task_a".into(), None),
        ]
    );
}

#[actix::test]
async fn triggers_during_a_pass_are_coalesced_into_one_more_pass() {
    let rig = rig();
    let tasks = vec![task("a"), task("b"), task("c")];
    for _ in 0..10 {
        rig.radar.do_send(Check {
            repo: "/repo".into(),
            tasks: Some(tasks.clone()),
            moved: vec![TaskId("task_a".into())],
            done: None,
        });
    }
    rig.check(tasks, &[]).await;
    let reads = rig.git.state.lock().head_reads;
    assert!(
        reads <= 3,
        "ten triggers and a fresh check made {reads} passes"
    );
    assert_eq!(rig.conflict_events().len(), 1);
}
