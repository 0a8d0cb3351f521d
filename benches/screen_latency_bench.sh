#!/usr/bin/env bash
# Screen to state latency (docs/performance.md, "Screen to state latency (issue
# 16)"): real agents' captured screens replayed into a pane that sends no hook,
# and the time from the pane program's write of a screen to the `agent.*` event
# it causes at a subscriber. Per agent, $RUNS times: the idle screen (no event:
# the pane is done or idle already), then the working screen → `agent.working`,
# where the agent has one its blocked screen → `agent.blocked` and the working
# screen again, then the done screen → `agent.done`; where the agent has an
# interrupted screen, working again and then it → `agent.idle`. The player runs under the
# agent's program name, so a generic agent's scoped rules (Qwen, Kilo, Grok)
# apply. Each screen is one write: clear, title
# (OSC 0), the captured lines. Beside the total, its two parts (from the
# event's `lifecycle_since`, ms resolution): write → the state set by the
# screen tick, and the state set → the event at the subscriber.
set -euo pipefail
B=${B:-target/release/signaltty}
RUNS=${RUNS:-50}
FIX=${FIX:-$(cd "$(dirname "$0")/.." && pwd)/integration-tests/fixtures/real-screens}
AGENTS=${AGENTS:-claude-2.1.332 codex-0.171.0 gemini-0.61.0 opencode-1.18.33 pi-0.73.1 qwen-0.24.4 kilo-7.7.7 grok-0.0.34}
. "$(dirname "$0")/common/bench.sh"
bench_dirs sl
trap '"$B" stop --force >/dev/null 2>&1 || true; rm -rf "$R"' EXIT
start_server $R/log
# The pane's program draws each screen named to it in one write and logs
# "<name> <ns after the write>".
PLAYER=$(cd "$(dirname "$0")/.." && pwd)/integration-tests/fixtures/agents/screen-player
python3 - "$R" "$FIX" "$RUNS" "$PLAYER" $AGENTS <<'PY'
import base64, datetime, json, os, socket, statistics, sys, threading, time
from client import call
root, fix, runs, player, agents = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
events, lock = [], threading.Lock()

def subscriber():
    s = socket.socket(socket.AF_UNIX)
    s.connect(os.environ["XDG_RUNTIME_DIR"] + "/signaltty/signaltty.sock")
    f = s.makefile("rw")
    f.write(json.dumps({"protocol": "signaltty/1", "id": "sub", "method": "subscribe",
                        "params": {"events": ["agent.*"]}}) + "\n")
    f.flush()
    for line in f:
        at = time.time_ns()
        msg = json.loads(line)
        if "event" in msg:
            with lock:
                events.append((at, msg["event"], msg["payload"].get("pane_id"), msg["payload"].get("pane")))

threading.Thread(target=subscriber, daemon=True).start()
time.sleep(0.3)
ws = call("workspace.create", {"name": "screens"})["result"]["workspace"]["id"]

def ns(stamp):
    return int(datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1e9)

def wait_event(pane, name, after, timeout=10):
    """The first `name` of `pane` after `after`: (arrival, state set)."""
    end = time.time() + timeout
    while time.time() < end:
        with lock:
            for at, ev, p, snap in events:
                if p == pane and ev == name and at > after:
                    return at, ns(snap["lifecycle_since"])
        time.sleep(0.002)
    raise SystemExit(f"no {name} for {pane} within {timeout} s")

def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]

print(f"{'agent':<18} {'screen → event':<22} {'n':>3} {'p50 ms':>7} {'p90 ms':>7} {'p99 ms':>7} {'max ms':>7}"
      f"  p99: {'to state':>8} {'to event':>8}")
KINDS = {"claude", "codex", "gemini", "opencode", "pi", "cursor"}
for agent in agents:
    name = agent.split("-")[0]
    log = f"{root}/{agent}.log"
    open(log, "w").close()
    # Named after the agent's program: generic rules are scoped by it.
    program = f"{root}/bin/{name}"
    os.makedirs(f"{root}/bin", exist_ok=True)
    with open(player) as src, open(program, "w") as dst:
        dst.write(src.read())
    spawn = {"workspace_id": ws, "cols": 120, "rows": 40,
             "argv": ["python3", program, f"{fix}/{agent}", log]}
    if name in KINDS:
        spawn["agent_hint"] = name
    pane = call("pane.spawn", spawn)
    pane = pane["result"]["pane"]["id"]

    def show(name):
        n = len(open(log).read().splitlines())
        call("pane.input", {"pane_id": pane, "data_b64": base64.b64encode(f"{name}\n".encode()).decode()})
        while True:
            lines = open(log).read().splitlines()
            if len(lines) > n:
                return int(lines[n].split()[1])
            time.sleep(0.001)

    time.sleep(1.0)  # the player has set its terminal up
    show("idle")
    # A known agent's pane reads idle from its first tick (blank or not).
    wait_event(pane, "agent.idle", 0)
    blocked = os.path.exists(f"{fix}/{agent}/blocked.txt")
    # (screen shown, the event it causes)
    steps = [("working", "working"), ("blocked", "blocked"), ("working", "working"), ("done", "done")]
    if not blocked:
        steps = [s for s in steps[2:]]
    # A second turn interrupted: the agent's own word ends it idle.
    if os.path.exists(f"{fix}/{agent}/interrupted.txt"):
        steps += [("working", "working"), ("interrupted", "idle")]
    lat = {}
    for _ in range(runs):
        show("idle")
        time.sleep(0.7)  # the idle screen's tick (500 ms) is past
        for screen, state in steps:
            at = show(screen)
            arrived, state_set = wait_event(pane, f"agent.{state}", at)
            lat.setdefault((screen, state), []).append(
                [(arrived - at) / 1e6, (state_set - at) / 1e6, (arrived - state_set) / 1e6])
    for (screen, state), rows in lat.items():
        xs = [r[0] for r in rows]
        parts = [pct([r[i] for r in rows], .99) for i in (1, 2)]
        print(f"{agent:<18} {screen + ' → agent.' + state:<22} {len(xs):>3} {statistics.median(xs):>7.1f} "
              f"{pct(xs, .9):>7.1f} {pct(xs, .99):>7.1f} {max(xs):>7.1f}"
              f"       {parts[0]:>8.0f} {parts[1]:>8.0f}")
    call("pane.close", {"pane_id": pane})
PY
