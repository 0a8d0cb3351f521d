#!/usr/bin/env bash
# Orchestration round 2 (issue 32), median of RUNS each, release build:
# (a) the task queue (a 100-file repository): with a cap of 1, a queued task's start after the
#     running task is cancelled (cancel sent → the queued task `pending`
#     with its worker pane), beside a direct `task.start` of the same worker
#     on a free slot; and the reply time of a start that is queued.
# (b) `pane.ask` against an agent look-alike that reports as Claude Code and
#     answers at once: the whole ask (submit, gate, turn, answer), beside the
#     same steps by hand (`pane.get` for the baseline, `pane.submit`, `wait`
#     for done after it, `pane.get`).
set -euo pipefail
B=${B:-target/release/signaltty}
RUNS=${RUNS:-20}
. "$(dirname "$0")/common/bench.sh"
bench_dirs ob
export SIGNALTTY_MAX_PARALLEL_TASKS=1
REPO=$R/repo
bench_repo "$REPO" 100
cat > "$R/asked" <<'SH'
bin=$SIGNALTTY_BIN
stty -echo
base="\"session_id\":\"bench\",\"cwd\":\"$PWD\""
hook() { printf '%s' "$2" | "$bin" hook-event --agent claude --event "$1" >/dev/null; }
hook SessionStart "{$base,\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}"
printf 'ready\r\n> '
while IFS= read -r line; do
    hook UserPromptSubmit "{$base,\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"p\"}"
    printf 'answer\r\n> '
    hook Stop "{$base,\"hook_event_name\":\"Stop\",\"last_assistant_message\":\"It is 42.\"}"
done
SH
start_server $R/log
trap 'kill -TERM "$SERVER_PID" 2>/dev/null || true; rm -rf "$R"' EXIT
python3 - "$REPO" "$RUNS" "$R" "$(realpath "$B")" <<'PY'
import statistics, sys, time
from client import call
repo, runs, root, binary = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]

def ok(method, params):
    r = call(method, params)
    assert r["ok"], (method, r.get("error"))
    return r["result"]

def ms(t):
    return (time.perf_counter() - t) * 1000

def start(label):
    return ok("task.start", {"repo": repo, "argv": ["cat"], "label": label,
                             "contract": {"objective": "bench"}})

def discard(task):
    ok("task.finish", {"task_id": task["id"], "mode": "discard", "delete_branch": True})

def report(name, xs, ys, yname):
    mx, my = statistics.median(xs), statistics.median(ys)
    print(f"{name:34} median {mx:7.1f} ms  min {min(xs):7.1f}  max {max(xs):7.1f}")
    print(f"{yname:34} median {my:7.1f} ms  min {min(ys):7.1f}  max {max(ys):7.1f}")
    print(f"{'':34} ratio {mx / my:.2f}x  difference {mx - my:+.1f} ms")

# (a) the queue
handovers, directs, queued_replies = [], [], []
for run in range(runs + 1):  # the first is a warm-up
    t = time.perf_counter()
    a = start(f"direct{run}")["task"]
    direct = ms(t)
    t = time.perf_counter()
    b = start(f"queued{run}")["task"]
    queued_reply = ms(t)
    assert b["state"] == "queued", b
    t = time.perf_counter()
    ok("task.cancel", {"task_id": a["id"]})
    while True:
        got = ok("task.get", {"task_id": b["id"]})["task"]
        if got["state"] != "queued" and got.get("pane_id"):
            break
        time.sleep(0.001)
    handover = ms(t)
    discard(a)
    ok("task.cancel", {"task_id": b["id"]})
    discard(got)
    if run:
        handovers.append(handover); directs.append(direct); queued_replies.append(queued_reply)
print(f"(a) the task queue, cap 1, {runs} runs")
report("cancel → queued task pending+pane", handovers, directs, "task.start on a free slot")
print(f"{'task.start that is queued (reply)':34} median {statistics.median(queued_replies):7.1f} ms")

# (b) pane.ask
ws = ok("workspace.create", {"name": "ask", "cwd": root})["workspace"]["id"]
pane = ok("pane.spawn", {"workspace_id": ws, "argv": ["bash", root + "/asked"],
                         "env": {"SIGNALTTY_BIN": binary}})["pane"]["id"]
ok("wait", {"pane_id": pane, "until": "idle", "timeout_s": 20})
asks, hands = [], []
for run in range(runs + 1):
    t = time.perf_counter()
    r = ok("pane.ask", {"pane_id": pane, "text": f"question {run}"})
    took = ms(t)
    assert r["outcome"] == "done" and r["answer"] == "It is 42.", r
    t = time.perf_counter()
    before = ok("pane.get", {"pane_id": pane})["wait_baseline"]
    ok("pane.submit", {"pane_id": pane, "text": f"by hand {run}"})
    ok("wait", {"pane_id": pane, "until": "done", "after": before, "timeout_s": 20})
    after = ok("pane.get", {"pane_id": pane})["pane"]
    hand = ms(t)
    assert after["last_message"] == "It is 42.", after
    if run:
        asks.append(took); hands.append(hand)
print(f"(b) pane.ask, an agent that answers at once, {runs} runs")
report("pane.ask", asks, hands, "get + submit + wait + get by hand")
PY
