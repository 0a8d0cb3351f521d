#!/usr/bin/env bash
# Tasks (issue 17) on a repository of 10 000 files, median of RUNS each:
# (a) `task.start` (worker `cat`) until its reply, which carries the spawned
#     worker pane, beside plain `git worktree add --lock -b` on the same
#     repository; target: overhead < 50 ms. Each task is discarded
#     (`task.finish --discard --delete-branch`) between runs, untimed.
# (b) `task.finish --merge` of a 100-file change (one commit on the task's
#     branch, the task reported completed) beside plain
#     `git merge --no-ff --no-edit` of the same change, and plain merge plus
#     `git worktree remove` and `git branch -D` (what the finish also does).
#     `main` is reset to the base between runs, untimed.
set -euo pipefail
B=${B:-target/release/signaltty}
RUNS=${RUNS:-20}
. "$(dirname "$0")/common/bench.sh"
bench_dirs tb
export SIGNALTTY_MAX_PARALLEL_TASKS=1000
REPO=$R/repo
bench_repo "$REPO" 10000
start_server $R/log
trap 'kill -TERM "$SERVER_PID" 2>/dev/null || true; rm -rf "$R"' EXIT
python3 - "$REPO" "$RUNS" "$R" <<'PY'
import os, statistics, subprocess, sys, time
from client import call
repo, runs, root = sys.argv[1], int(sys.argv[2]), sys.argv[3]
base = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], check=True,
                      capture_output=True, text=True).stdout.strip()

def git(*args, cwd=repo):
    subprocess.run(["git", "-C", cwd, *args], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def ok(method, params):
    r = call(method, params)
    assert r["ok"], (method, r.get("error"))
    return r["result"]

def ms(t):
    return (time.perf_counter() - t) * 1000

def change(path, run):
    """The 100-file change: one line of 100 tracked files, committed."""
    for i in range(100):
        p = os.path.join(path, f"dir{i % 100}", f"file{i}.txt")
        with open(p, "a") as f:
            f.write(f"changed in run {run}\n")
    git("add", "-A", cwd=path)
    git("commit", "-q", "-m", f"change {run}", cwd=path)

def start(label):
    return ok("task.start", {"repo": repo, "argv": ["cat"], "label": label,
                             "contract": {"objective": "bench"}})

def report(name, xs, ys, yname):
    mx, my = statistics.median(xs), statistics.median(ys)
    print(f"{name:26} median {mx:7.1f} ms  min {min(xs):7.1f}  max {max(xs):7.1f}")
    print(f"{yname:26} median {my:7.1f} ms  min {min(ys):7.1f}  max {max(ys):7.1f}")
    print(f"{'':26} ratio {mx / my:.2f}x  difference {mx - my:+.1f} ms")

# (a) start
starts, adds, seqs = [], [], []
for run in range(runs + 1):  # the first of each is a warm-up
    t = time.perf_counter()
    r = start(f"a{run}")
    took = ms(t)
    assert r["pane"] and r["task"]["worker_pid"], r
    ok("task.finish", {"task_id": r["task"]["id"], "mode": "discard", "delete_branch": True})
    path = os.path.join(root, "plain", f"a{run}")
    t = time.perf_counter()
    git("worktree", "add", "-q", "--lock", "-b", f"plain/a{run}", path, base)
    plain = ms(t)
    git("worktree", "remove", "--force", "--force", path)
    git("branch", "-D", f"plain/a{run}")
    # Every git of the start pipeline (task/start.rs), by hand.
    path = os.path.join(root, "plain", f"s{run}")
    t = time.perf_counter()
    for args in (["rev-parse", "--show-toplevel"], ["check-ref-format", "--allow-onelevel", "HEAD"],
                 ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], ["branch", "--show-current"],
                 ["check-ref-format", "--branch", f"plain/s{run}"]):
        git(*args)
    subprocess.run(["git", "-C", repo, "rev-parse", "--verify", "--quiet",
                    f"refs/heads/plain/s{run}"], stdout=subprocess.DEVNULL)
    git("worktree", "add", "-q", "--lock", "-b", f"plain/s{run}", "--", path, base)
    seq = ms(t)
    git("worktree", "remove", "--force", "--force", path)
    git("branch", "-D", f"plain/s{run}")
    if run:
        starts.append(took); adds.append(plain); seqs.append(seq)
print(f"(a) task.start on {repo} (10 000 files), {runs} runs")
report("task.start (reply, pane)", starts, adds, "git worktree add --lock -b")
report("task.start (reply, pane)", starts, seqs, "the pipeline's git by hand")

# (b) finish --merge
finishes, merges, fulls = [], [], []
for run in range(runs + 1):
    git("reset", "-q", "--hard", base)
    r = start(f"b{run}")
    tid, path = r["task"]["id"], r["task"]["worktree_path"]
    change(path, run)
    ok("task.report", {"task_id": tid, "status": "completed", "summary": "bench"})
    t = time.perf_counter()
    done = ok("task.finish", {"task_id": tid, "mode": "merge"})
    took = ms(t)
    assert done["task"]["disposition"]["outcome"] == "merged", done
    assert not os.path.exists(path)
    git("reset", "-q", "--hard", base)
    path = os.path.join(root, "plain", f"b{run}")
    git("worktree", "add", "-q", "--lock", "-b", f"plain/b{run}", path, base)
    change(path, run)
    t = time.perf_counter()
    git("merge", "-q", "--no-ff", "--no-edit", f"plain/b{run}")
    plain = ms(t)
    git("worktree", "remove", "--force", "--force", path)
    git("branch", "-D", f"plain/b{run}")
    full = ms(t)
    if run:
        finishes.append(took); merges.append(plain); fulls.append(full)
print(f"(b) task.finish --merge of a 100-file change, {runs} runs")
report("task.finish --merge", finishes, merges, "git merge --no-ff")
report("task.finish --merge", finishes, fulls, "merge + wt remove + br -D")
PY
