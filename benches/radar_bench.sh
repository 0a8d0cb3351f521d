#!/usr/bin/env bash
# The conflict radar (docs/tasks.md#conflict-radar) on a repository of
# 10 000 files with 20 tasks (worker `cat`, agent hint claude, so Claude's
# hooks move their panes):
# (a) the first look: `task.conflicts` (fresh) right after the 20 starts and
#     a warm-up turn each, so it waits for the passes those triggered: every
#     checkout's first snapshot, then 190 pairs and 20 tasks against main.
# (b) RUNS turn ends: task i changes line 1 of one shared file in its
#     checkout, commits it, and its pane goes working → done through
#     `hook-event` (UserPromptSubmit, then Stop). Timed from the Stop's reply
#     to the first `task.conflict` naming task i at a subscriber (each run
#     after the first collides with every earlier one, so an event comes).
# CPU: the server's utime+stime and its reaped children's (the git
# processes) from /proc/PID/stat, over each phase.
set -euo pipefail
B=${B:-target/release/signaltty}
TASKS=${TASKS:-20}
. "$(dirname "$0")/common/bench.sh"
bench_dirs rb
export SIGNALTTY_MAX_PARALLEL_TASKS=1000 SIGNALTTY_LOG=info
REPO=$R/repo
bench_repo "$REPO" 10000
start_server $R/log
trap 'kill -TERM "$SERVER_PID" 2>/dev/null || true; rm -rf "$R"' EXIT
python3 - "$REPO" "$TASKS" "$SERVER_PID" <<'PY'
import json, os, socket, statistics, subprocess, sys, threading, time
from client import call
repo, tasks, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
TICK = os.sysconf("SC_CLK_TCK")

def cpu():
    """The server's CPU seconds, its reaped children's included."""
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in f[11:15]) / TICK

def ok(method, params):
    r = call(method, params)
    assert r["ok"], (method, r.get("error"))
    return r["result"]

# The subscriber: every task.conflict with the time it arrived.
seen, lock = [], threading.Condition()
sub = socket.socket(socket.AF_UNIX)
sub.connect(os.environ["XDG_RUNTIME_DIR"] + "/signaltty/signaltty.sock")
sub.sendall((json.dumps({"protocol": "signaltty/1", "id": "s", "method": "subscribe",
                         "params": {"events": ["task.conflict"]}}) + "\n").encode())
def read():
    for line in sub.makefile("r"):
        m = json.loads(line)
        if m.get("type") == "event":
            with lock:
                seen.append((time.perf_counter(), m["payload"]))
                lock.notify_all()
threading.Thread(target=read, daemon=True).start()

started = []
for i in range(tasks):
    r = ok("task.start", {"repo": repo, "argv": ["cat"], "agent": "claude",
                          "label": f"r{i}", "contract": {"objective": "bench"},
                          "stall_timeout_s": 1, "submit_delay_ms": 50})
    started.append((r["task"]["id"], r["task"]["worktree_path"], r["pane"]["id"]))

def hook(pane, event, extra):
    payload = {"session_id": f"s-{pane}", "cwd": "/", "hook_event_name": event, **extra}
    ok("hook-event", {"agent": "claude", "event": event, "pane_id": pane, "payload": payload})

# Warm-up, untimed: one turn each makes the workers ready; the server types
# the first prompt into `cat`, which never confirms it, so each task waits
# for input (`submit_unconfirmed`) — still watched.
for _, _, pane in started:
    hook(pane, "UserPromptSubmit", {"prompt": "warm"})
    hook(pane, "Stop", {"last_assistant_message": "warm"})
deadline = time.time() + 60
while True:
    states = {t["id"]: t["state"] for t in ok("task.list", {"limit": 1000})["tasks"]}
    if all(states[tid] == "input_required" for tid, _, _ in started):
        break
    assert time.time() < deadline, states
    time.sleep(0.2)

c0, t = cpu(), time.perf_counter()
first = ok("task.conflicts", {"repo": repo})
print(f"(a) first look over {tasks} tasks: {(time.perf_counter() - t) * 1000:.0f} ms, "
      f"CPU {cpu() - c0:.2f} s, {len(first['conflicts'])} conflicts, errors {first.get('errors', [])}")

lat, cpus = [], []
for i, (tid, path, pane) in enumerate(started):
    hook(pane, "UserPromptSubmit", {"prompt": "go"})
    f = os.path.join(path, "dir0", "file0.txt")
    lines = open(f).read().splitlines(True)
    lines[1] = f"changed by task {i}\n"
    open(f, "w").write("".join(lines))
    subprocess.run(["git", "-C", path, "-c", "user.name=w", "-c", "user.email=w@x",
                    "commit", "-qam", f"task {i}"], check=True)
    n = len(seen)
    c0 = cpu()
    hook(pane, "Stop", {"last_assistant_message": "done"})
    t = time.perf_counter()
    if i == 0:
        continue  # nothing to collide with yet
    with lock:
        got = lock.wait_for(lambda: any(tid in (p["a"], p.get("b"))
                                        for _, p in seen[n:]), timeout=30)
        assert got, f"no task.conflict for {tid}"
        at = next(s for s, p in seen[n:] if tid in (p["a"], p.get("b")))
    lat.append((at - t) * 1000)
    # Let the pass finish (its events all arrive) before reading the CPU.
    ok("task.conflicts", {"repo": repo})
    cpus.append(cpu() - c0)
print(f"(b) turn end -> task.conflict, {len(lat)} runs: median {statistics.median(lat):.0f} ms, "
      f"min {min(lat):.0f}, max {max(lat):.0f}; CPU per turn end (incl. one fresh "
      f"task.conflicts) median {statistics.median(cpus) * 1000:.0f} ms, max {max(cpus) * 1000:.0f}")
final = ok("task.conflicts", {"repo": repo})
print(f"    {len(final['conflicts'])} conflicts at the end (expected {tasks * (tasks - 1) // 2})")
PY
