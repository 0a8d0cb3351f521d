//! `task.conflicts` (docs/methods.md#taskconflicts): which repositories the
//! request names, a fresh pass of each asked of the `ConflictRadar` (waited
//! for at most [`PASS_WAIT`]), then its current collisions; and what a
//! merge left colliding with its target, for `task.finish`.

use super::{Cx, Routed, answer, fail};
use crate::actors::radar::{Check, ConflictRadar, Current};
use crate::actors::supervisor::radar::watched_in;
use crate::domain::task::radar::watched;
use crate::error::Error;
use actix::Addr;
use signaltty_protocol::task::Task;
use signaltty_protocol::task::conflict::{TaskConflict, TaskConflictsParams, TaskConflictsResult};
use std::path::Path;
use std::time::Duration;

/// The longest `task.conflicts` waits for its passes; past it, the last
/// results are answered with an error line saying so.
pub const PASS_WAIT: Duration = Duration::from_secs(30);

/// `task.conflicts`.
pub fn conflicts(cx: &mut Cx<'_>, p: &TaskConflictsParams) -> Routed {
    let only = match named_repos(cx, p) {
        Ok(only) => only,
        Err(e) => return fail(Err(e)),
    };
    let Some(radar) = cx.radar.clone() else {
        return fail(Err(Error::Internal(
            "the conflict radar is not running".into(),
        )));
    };
    let projection = cx.events.projection();
    let mut repos: Vec<String> = projection
        .tasks()
        .into_iter()
        .filter(|t| watched(t))
        .map(|t| t.source_repo.clone())
        .chain(projection.conflicts().map(|c| c.repo.clone()))
        .filter(|r| only.as_ref().is_none_or(|o| o.contains(r)))
        .collect();
    repos.sort();
    repos.dedup();
    let mut passes = Vec::new();
    for repo in repos {
        let (done, ended) = tokio::sync::oneshot::channel();
        radar.do_send(Check {
            tasks: Some(watched_in(projection, &repo)),
            repo,
            moved: Vec::new(),
            done: Some(done),
        });
        passes.push(ended);
    }
    answer(async move {
        let waited = tokio::time::timeout(PASS_WAIT, futures_util::future::join_all(passes)).await;
        let mut result: TaskConflictsResult = radar.send(Current { repos: only }).await?;
        if waited.is_err() {
            result.errors.push(format!(
                "a check took longer than {} s; these are the last results",
                PASS_WAIT.as_secs()
            ));
        }
        Ok(result)
    })
}

/// After `merged` was merged (docs/tasks.md#conflict-radar): a fresh pass of
/// its repository over the tasks the radar last heard of (the finish's own
/// `task.updated` took `merged` out of them), then the other tasks that now
/// conflict with their target branch. Never a refusal: a pass that takes
/// too long answers the last results.
pub async fn after_merge(radar: &Addr<ConflictRadar>, merged: &Task) -> Vec<TaskConflict> {
    let (done, ended) = tokio::sync::oneshot::channel();
    radar.do_send(Check {
        repo: merged.source_repo.clone(),
        tasks: None,
        moved: Vec::new(),
        done: Some(done),
    });
    let _ = tokio::time::timeout(PASS_WAIT, ended).await;
    let current = radar
        .send(Current {
            repos: Some(vec![merged.source_repo.clone()]),
        })
        .await
        .unwrap_or_default();
    current
        .conflicts
        .into_iter()
        .filter(|c| c.b.is_none() && c.a != merged.id)
        .collect()
}

/// The repositories `p` names, or `None` for every one.
fn named_repos(cx: &Cx<'_>, p: &TaskConflictsParams) -> Result<Option<Vec<String>>, Error> {
    match (&p.workspace_id, &p.repo) {
        (Some(_), Some(_)) => Err(Error::BadParams(
            "give workspace_id or repo, not both".into(),
        )),
        (None, None) => Ok(None),
        (None, Some(repo)) => {
            if !Path::new(repo).is_absolute() {
                return Err(Error::BadParams(format!("repo must be absolute: {repo}")));
            }
            let repo = repo.trim_end_matches('/');
            Ok(Some(vec![
                if repo.is_empty() { "/" } else { repo }.to_owned(),
            ]))
        },
        (Some(w), None) => {
            let (id, _) = cx.registry.workspace(w)?;
            let projection = cx.events.projection();
            let cwd = projection
                .workspace(&id)
                .map(|w| w.cwd.clone())
                .ok_or_else(|| Error::NoSuchWorkspace(w.clone()))?;
            let mut repos: Vec<String> = projection
                .tasks()
                .into_iter()
                .filter(|t| t.worktree_path == cwd)
                .map(|t| t.source_repo.clone())
                .collect();
            if repos.is_empty() {
                repos.push(cwd);
            }
            Ok(Some(repos))
        },
    }
}
