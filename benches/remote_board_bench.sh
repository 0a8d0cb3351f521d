#!/usr/bin/env bash
# The fleet board over three hosts (docs/performance.md, "Remote hosts"): a
# real sshd on loopback with three throwaway accounts, 50 panes on each
# host's server, `signaltty board --all-hosts` in a 200x60 tmux window.
# Reports the board's CPU share of one core at rest ($REST_SECS, default
# 30), then drives lifecycle changes on the remote panes (EVENTS_PER_S,
# default 10, for $SECS, default 30) from a shell on each host and reports,
# from the board's own trace, the time from each change on its server to the
# end of the frame that drew it. RTT_MS as in remote_bench.sh. Run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q --bin signaltty -p signaltty
. benches/common/sshd.sh
hosts=(ha hb hc)
bench_hosts "${hosts[@]}"
"$bin" start >/dev/null
for h in "${hosts[@]}"; do
  for w in 1 2 3 4 5; do
    first=$(run "$bin" --host "$h" --json new --name "w$w" -- cat | python3 -c 'import json,sys; v=json.load(sys.stdin); print(v["panes"][0]["id"] if "panes" in v else v["pane"]["id"])')
    for _ in $(seq 9); do run "$bin" --host "$h" pane split "$first" -- cat >/dev/null; done
  done
done
TRACE=$tmp/trace.json
tmux -S "$tmp/tmux.sock" -f /dev/null new-session -d -s b -x 200 -y 60 -- \
  env SIGNALTTY_BOARD_TRACE="$TRACE" ${ns:+ip netns exec $ns} "$bin" board --all-hosts --bell=false
# The status line says when every server (this one and the three hosts) is live.
ready=""
for _ in $(seq 300); do
  screen=$(tmux -S "$tmp/tmux.sock" capture-pane -p -t b)
  grep -q "live · 4 hosts" <<<"$screen" && { ready=1; break; }
  sleep 0.1
done
[ -n "$ready" ] || { echo "the board never showed every host live:" >&2; echo "$screen" >&2; exit 1; }
BPID=$(tmux -S "$tmp/tmux.sock" display -p -t b "#{pane_pid}")
[ -n "$ns" ] && BPID=$(pgrep -P "$BPID" -f "board --all-hosts" || echo "$BPID")
ticks() { awk '{print $14 + $15}' "/proc/$BPID/stat"; }
HZ=$(getconf CLK_TCK)
REST=${REST_SECS:-30}
t0=$(ticks); s0=$(date +%s.%N); sleep "$REST"; t1=$(ticks); s1=$(date +%s.%N)
echo "board at rest over 3 hosts x 50 panes: $(echo "($t1 - $t0) / $HZ / ($s1 - $s0) * 100" | bc -l | cut -c1-5) % of one core; RSS $(awk '/VmRSS/ {print $2}' "/proc/$BPID/status") kB"

# One shell per host, fed the hooks of its panes: the reporter runs on the
# host, as an agent's hook does.
SECS=${SECS:-30}; RATE=${EVENTS_PER_S:-10}
pids=()
for h in "${hosts[@]}"; do
  panes=$(run "$bin" --host "$h" --json pane list | python3 -c 'import json,sys; print(" ".join(p["id"] for w in json.load(sys.stdin)["workspaces"] for p in w["panes"]))')
  python3 - "$SECS" "$RATE" "$tmp/bin/signaltty" $panes <<'PY' | run ssh -F "$tmp/ssh_config" "$h" sh -s >/dev/null 2>&1 &
import sys, time
secs, rate, b = float(sys.argv[1]), float(sys.argv[2]) / 3, sys.argv[3]
panes = sys.argv[4:]
start, n = time.time(), 0
while time.time() - start < secs:
    p = panes[n % len(panes)]
    ev = "UserPromptSubmit" if (n // len(panes)) % 2 == 0 else "Stop"
    print(f"{b} hook-event --agent claude --event {ev} --pane {p} </dev/null", flush=True)
    n += 1
    time.sleep(max(0, start + n / rate - time.time()))
PY
  pids+=($!)
done
t0=$(ticks); s0=$(date +%s.%N)
wait "${pids[@]}"
t1=$(ticks); s1=$(date +%s.%N)
echo "board while $RATE changes/s arrive from the hosts: $(echo "($t1 - $t0) / $HZ / ($s1 - $s0) * 100" | bc -l | cut -c1-5) % of one core"
tmux -S "$tmp/tmux.sock" send-keys -t b q
for _ in $(seq 50); do [ -s "$TRACE" ] && break; sleep 0.1; done
echo "trace: $(cat "$TRACE")"
echo "# $(date -u +%FT%TZ) $(uname -r) $(nproc) cores, RTT_MS=${RTT_MS:-0}"
tmux -S "$tmp/tmux.sock" kill-server 2>/dev/null || true
