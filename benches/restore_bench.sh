#!/usr/bin/env bash
# 200 panes in 20 workspaces, each with ~full 64 KiB tails; snapshot timing (the first ones,
# then a steady state of a few new lines per flush); restart timing.
set -euo pipefail
B=${B:-target/release/signaltty}
. "$(dirname "$0")/common/bench.sh"
bench_dirs rb
start_server $R/log1
python3 - "$B" <<'PY'
import os, sys
from client import call
for w in range(20):
    ws = call("workspace.create", {"name": f"bench {w}"})["result"]["workspace"]["id"]
    first = None
    for p in range(10):
        argv = ["sh", "-c", "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -n 5000; exec cat"]
        if first is None:
            r = call("pane.spawn", {"workspace_id": ws, "argv": argv}); first = r["result"]["pane"]["id"]
        else:
            r = call("pane.split", {"pane_id": first, "argv": argv})
        assert r["ok"], r
print("200 panes spawned")
PY
sleep 6; $B pane list bench-0 >/dev/null; sleep 4.5
# Steady state: 20 panes each echo a line and one pane is renamed, per flush.
python3 - <<'PY'
import base64, time
from client import call
panes = [p["id"] for w in call("workspace.list", {})["result"]["workspaces"]
         for p in call("workspace.get", {"workspace_id": w["id"]})["result"]["panes"]]
for i in range(3):
    line = base64.b64encode(f"line {i} of the steady state\n".encode()).decode()
    for p in panes[20 * i:20 * i + 20]:
        call("pane.input", {"pane_id": p, "data_b64": line})
    call("pane.rename", {"pane_id": panes[i], "name": f"steady-{i}"})
    time.sleep(2.5)
PY
grep -h "snapshot at seq" $R/log1
du -sh $R/state/signaltty/history $R/state/signaltty/snapshot.json
kill -TERM "$SERVER_PID"; sleep 1.5
start=$(date +%s%N)
$B server > $R/log2 2>&1 &
SERVER_PID=$!
until $B status >/dev/null 2>&1; do :; done
end=$(date +%s%N)
echo "start to answering with 200 restored panes: $(( (end-start)/1000000 )) ms (includes one CLI status process)"
grep -h "restored" $R/log2 | head -2
$B status | head -8
$B stop --force >/dev/null 2>&1 || true; sleep 0.5; kill "$SERVER_PID" 2>/dev/null || true
if [ -n "${KEEP_LOG:-}" ]; then cp $R/log1 "$KEEP_LOG"; fi   # the first server's log, to look at
rm -rf $R
