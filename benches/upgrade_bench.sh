#!/usr/bin/env bash
# In-place upgrade with 50 live panes (issue 19): 5 workspaces of 10 panes, each
# printing a counter line every 20 ms over a few thousand lines of history;
# ten `server.upgrade` calls to the same binary. Per call: from the request to
# the answer of the new binary (which answers the same connection), from the
# request to a fresh connection's `server.status` answer, the handover time the
# new binary reports and the longest any terminal went unread.
set -euo pipefail
B=${B:-target/release/signaltty}
B=$(readlink -f "$B")
ROUNDS=${ROUNDS:-10}
. "$(dirname "$0")/common/bench.sh"
bench_dirs ub
export SIGNALTTY_LOG=${SIGNALTTY_LOG_LEVEL:-info}
start_server $R/log
python3 - "$B" "$ROUNDS" <<'PY'
import json, os, socket, statistics, sys, time
from client import call

binary, rounds = sys.argv[1], int(sys.argv[2])
# One process per pane, no fork per line (a shell loop forking `sleep` 50 × 50
# times a second would measure the fork load, not the upgrade).
script = ("import sys, time\nfor i in range(3000): print(i)\n"
          "i = 0\nwhile True:\n    print('tick', i, flush=True); i += 1; time.sleep(0.02)\n")
for w in range(5):
    ws = call("workspace.create", {"name": f"up {w}"})["result"]["workspace"]["id"]
    for p in range(10):
        tab = call("tab.create", {"workspace_id": ws})["result"]["tab"]["id"]
        r = call("pane.spawn", {"workspace_id": ws, "tab_id": tab, "argv": ["python3", "-c", script]})
        assert r["ok"], r
time.sleep(2)
path = os.environ["XDG_RUNTIME_DIR"] + "/signaltty/signaltty.sock"

def one(method, params, timeout=60):
    s = socket.socket(socket.AF_UNIX); s.settimeout(timeout); s.connect(path)
    f = s.makefile("rw")
    f.write(json.dumps({"protocol": "signaltty/1", "id": "b", "method": method, "params": params}) + "\n"); f.flush()
    while True:
        line = json.loads(f.readline())
        if line.get("id") == "b":
            s.close(); return line

answer, status, took, unread = [], [], [], []
for _ in range(rounds):
    t0 = time.perf_counter()
    r = one("server.upgrade", {"binary": binary})
    t1 = time.perf_counter()
    assert r["ok"], r
    st = one("server.status", {})
    t2 = time.perf_counter()
    assert st["ok"] and st["result"]["live_panes"] == 50, st
    rep = r["result"]
    assert len([p for p in rep["panes"] if p.get("pid")]) == 50, rep
    answer.append((t1 - t0) * 1000); status.append((t2 - t0) * 1000)
    took.append(rep["took_ms"]); unread.append(rep["longest_unread_ms"])
    time.sleep(0.5)

def show(name, xs):
    xs = sorted(xs)
    print(f"{name:58s} median {statistics.median(xs):6.1f}  min {xs[0]:6.1f}  max {xs[-1]:6.1f} ms")
print(f"{rounds} upgrades, 50 live panes printing every 20 ms")
show("request -> the new binary answers server.upgrade", answer)
show("request -> a new connection's server.status answered", status)
show("handover as the new binary reports it (took_ms)", took)
show("longest any PTY went unread (longest_unread_ms)", unread)
PY
grep -h "upgrade from" $R/log | tail -3
"$B" stop --force >/dev/null 2>&1 || true; sleep 0.5; kill "$SERVER_PID" 2>/dev/null || true
if [ -n "${KEEP_LOG:-}" ]; then cp $R/log "$KEEP_LOG"; fi
rm -rf $R
