#!/usr/bin/env bash
# The board under load (docs/performance.md, "The board"): 200 panes in 20
# workspaces, 50 state events a second (hooks alternating working/done across
# the panes) for $SECS seconds, the board running in a 200x50 tmux window.
# Reports the board's CPU share of one core, its resident memory, the frames
# it drew (the most in any second) and, from its own trace, the time from
# reading each event off the socket to the end of the frame that drew it.
set -euo pipefail
B=${B:-target/release/signaltty}
SECS=${SECS:-30}
. "$(dirname "$0")/common/bench.sh"
bench_dirs bb
start_server $R/log
python3 - <<'PY'
from client import call
for w in range(20):
    ws = call("workspace.create", {"name": f"board {w}"})["result"]["workspace"]["id"]
    first = call("pane.spawn", {"workspace_id": ws, "argv": ["cat"]})["result"]["pane"]["id"]
    for _ in range(9):
        assert call("pane.split", {"pane_id": first, "argv": ["cat"]})["ok"]
PY
TRACE=$R/trace.json
tmux -S $R/tmux.sock -f /dev/null new-session -d -s b -x 200 -y 50 -- \
  env SIGNALTTY_BOARD_TRACE=$TRACE "$B" board --bell=false
until tmux -S $R/tmux.sock capture-pane -p -t b | grep -q "? keys"; do sleep 0.1; done
BPID=$(tmux -S $R/tmux.sock display -p -t b "#{pane_pid}")
ticks() { awk '{print $14 + $15}' /proc/$BPID/stat; }
python3 - "$SECS" "$BPID" <<'PY' &
import sys, time
from client import call
secs = int(sys.argv[1])
panes = [p["id"] for w in call("workspace.list", {})["result"]["workspaces"]
         for p in call("workspace.get", {"workspace_id": w["id"]})["result"]["panes"]]
start, n = time.time(), 0
while time.time() - start < secs:
    p = panes[n % len(panes)]
    ev = "UserPromptSubmit" if (n // len(panes)) % 2 == 0 else "Stop"
    call("hook-event", {"agent": "claude", "event": ev, "pane_id": p,
                        "payload": {"session_id": "s-" + p, "last_assistant_message": f"turn {n}"}})
    n += 1
    time.sleep(max(0, start + n / 50 - time.time()))
print(f"sent {n} hooks in {time.time() - start:.1f} s")
PY
DRIVER=$!
t0=$(ticks); s0=$(date +%s.%N)
wait $DRIVER
t1=$(ticks); s1=$(date +%s.%N)
HZ=$(getconf CLK_TCK)
rss=$(awk '/VmRSS/ {print $2}' /proc/$BPID/status)
echo "board CPU: $(echo "($t1 - $t0) / $HZ / ($s1 - $s0) * 100" | bc -l | cut -c1-5) % of one core; RSS ${rss} kB"
tmux -S $R/tmux.sock send-keys -t b q
for _ in $(seq 50); do [ -s $TRACE ] && break; sleep 0.1; done
echo "trace: $(cat $TRACE)"
tmux -S $R/tmux.sock kill-server 2>/dev/null || true
$B stop --force >/dev/null 2>&1 || true; sleep 0.5
rm -rf $R
