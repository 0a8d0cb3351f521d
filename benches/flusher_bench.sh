#!/usr/bin/env bash
# What the snapshot flusher writes per minute while 50 panes each report a hook
# every second (docs/performance.md, "Snapshot and restore").
set -euo pipefail
B=${B:-target/release/signaltty}
SECS=${SECS:-60}
. "$(dirname "$0")/common/bench.sh"
bench_dirs fb
start_server $R/log
PID=$SERVER_PID
python3 - "$SECS" "$PID" "$R" <<'PY'
import os, sys, time
secs, pid, root = int(sys.argv[1]), sys.argv[2], sys.argv[3]
from client import call
ws = call("workspace.create", {"name": "flusher"})["result"]["workspace"]["id"]
first = call("pane.spawn", {"workspace_id": ws, "argv": ["cat"]})["result"]["pane"]["id"]
panes = [first] + [call("pane.split", {"pane_id": first, "argv": ["cat"]})["result"]["pane"]["id"] for _ in range(49)]
def io():
    d = dict(l.split(": ") for l in open(f"/proc/{pid}/io").read().split("\n") if ": " in l)
    return int(d["wchar"])
time.sleep(3)
start_io, start = io(), time.time()
tick = 0
while time.time() - start < secs:
    ev = "UserPromptSubmit" if tick % 2 == 0 else "Stop"
    for p in panes:
        call("hook-event", {"agent": "claude", "event": ev, "pane_id": p, "payload": {"session_id": "s-" + p}})
    tick += 1
    time.sleep(max(0, start + tick - time.time()))
used = time.time() - start
total = io() - start_io
snap = os.path.getsize(root + "/state/signaltty/snapshot.json")
print(f"{len(panes)} panes x 1 hook/s for {used:.0f} s: server wrote {total/used*60/1e6:.2f} MB/min in all (journal + snapshots + tails); snapshot.json is {snap/1e3:.0f} kB")
PY
writes=$(grep -c "written in" $R/log || true)
echo "snapshots written: $writes in ${SECS} s"
$B stop --force >/dev/null 2>&1 || true; sleep 0.5
rm -rf $R
