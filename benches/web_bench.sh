#!/usr/bin/env bash
# The web view (docs/performance.md, "The web view"): 200 `cat` panes in 20
# workspaces, `signaltty web` on a loopback port, and a headless Chromium
# with a 390x844 phone viewport (chromedriver's WebDriver API) paired with
# the printed link and showing the page. benches/common/web_bench.py then
# measures the page's weight, the web process at rest ($SECS s), hook -> the
# page's DOM ($HOOKS hooks at $RATE a second) and $QUESTIONS questions asked
# by real waiting reporters: each one's arrival on the page and the tap on
# Allow once -> the reporter's verdict. DPR sets the emulated screen's device
# pixels per CSS pixel (1); TRACE=1 splits the hooks' time and reports
# Chromium's CPU. Everything started here is stopped on the way out.
#
#   benches/web_bench.sh                       # root is fine: Chromium runs with --no-sandbox
#   SECS=60 HOOKS=1000 TRACE=1 benches/web_bench.sh
set -euo pipefail
B=${B:-$(cd "$(dirname "$0")/.." && pwd)/target/release/signaltty}
B=$(cd "$(dirname "$B")" && pwd)/$(basename "$B")
export B SECS=${SECS:-30} HOOKS=${HOOKS:-600} RATE=${RATE:-50} QUESTIONS=${QUESTIONS:-60}
. "$(dirname "$0")/common/bench.sh"
bench_dirs wb
export R PYTHONDONTWRITEBYTECODE=1
SERVER_PID= WEB_PID= DRIVER_PID=

# Stops what this run started, by pid, whatever happened.
cleanup() {
  set +e
  [ -n "$DRIVER_PID" ] && kill "$DRIVER_PID" 2>/dev/null
  if [ -s "$R/chromedriver.pid" ]; then
    # chromedriver leads its process group; Chromium is in it.
    kill -KILL -- "-$(cat "$R/chromedriver.pid")" 2>/dev/null
  fi
  if [ -s "$R/reporters.pids" ]; then
    while read -r pid; do
      grep -qs hook-event "/proc/$pid/cmdline" && kill "$pid" 2>/dev/null
    done < "$R/reporters.pids"
  fi
  [ -n "$WEB_PID" ] && kill "$WEB_PID" 2>/dev/null
  "$B" stop --force >/dev/null 2>&1
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
  for _ in $(seq 50); do
    alive=
    for pid in $WEB_PID $SERVER_PID; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ -z "$alive" ] && break
    sleep 0.1
  done
  for pid in $WEB_PID $SERVER_PID; do kill -KILL "$pid" 2>/dev/null; done
  rm -rf "$R"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_server "$R/log"
python3 - <<'PY'
from client import call
for w in range(20):
    ws = call("workspace.create", {"name": f"web {w}"})["result"]["workspace"]["id"]
    first = call("pane.spawn", {"workspace_id": ws, "argv": ["cat"]})["result"]["pane"]["id"]
    for _ in range(9):
        assert call("pane.split", {"pane_id": first, "argv": ["cat"]})["ok"]
PY
"$B" web --listen 127.0.0.1:0 --no-qr > "$R/web.out" 2> "$R/web.err" &
WEB_PID=$!
PAIR_URL=
for _ in $(seq 300); do
  PAIR_URL=$(sed -n 's/^pair: //p' "$R/web.out")
  [ -n "$PAIR_URL" ] && break
  kill -0 "$WEB_PID" 2>/dev/null || break
  sleep 0.05
done
if [ -z "$PAIR_URL" ]; then
  echo "signaltty web printed no pairing link:" >&2; cat "$R/web.out" "$R/web.err" >&2; exit 1
fi
export PAIR_URL WEB_PID SERVER_PID
# The browser's profile and Chromium's own temporary files go under $R too.
mkdir -p "$R/tmp"
export TMPDIR=$R/tmp
echo "$(nproc) CPUs; $(uname -r); web view pid $WEB_PID at ${PAIR_URL%%/pair*}"
python3 "$(dirname "$0")/common/web_bench.py" &
DRIVER_PID=$!
wait "$DRIVER_PID"
DRIVER_PID=
