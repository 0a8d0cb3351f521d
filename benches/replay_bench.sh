#!/usr/bin/env bash
# Replay in bounded memory (issue 27): a journal of EVENTS state events
# (workspace renames from 64 connections), then
# (a) CLIENTS connections that send `subscribe {from_seq: 0}` and never read:
#     the server's RSS before, at its highest while they wait, and after
#     they close;
# (b) one subscriber that reads the whole replay: its time against `cat` of
#     the journal files, as MB/s of journal bytes and a ratio.
# The journal does not rotate during the run (`journal.rotate_bytes` 4 GiB).
set -euo pipefail
B=${B:-target/release/signaltty}
EVENTS=${EVENTS:-1000000}
CLIENTS=${CLIENTS:-10}
. "$(dirname "$0")/common/bench.sh"
bench_dirs rb
export SIGNALTTY_LOG=info XDG_CONFIG_HOME=$R/config
mkdir -p "$R/config/signaltty"
printf '[journal]\nrotate_bytes = 4294967296\n' > "$R/config/signaltty/config.toml"
start_server "$R/log"
trap 'kill -TERM "$SERVER_PID" 2>/dev/null || true; rm -rf "$R"' EXIT
python3 - "$EVENTS" "$CLIENTS" "$SERVER_PID" "$R" <<'PY'
import json, os, socket, subprocess, sys, threading, time
events, clients, pid, root = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
path = os.environ["XDG_RUNTIME_DIR"] + "/signaltty/signaltty.sock"

def connect():
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    return s

def line(i, method, params):
    return (json.dumps({"protocol": "signaltty/1", "id": str(i), "method": method,
                        "params": params}) + "\n").encode()

def call(s, method, params):
    s.sendall(line(0, method, params))
    buf = b""
    while not buf.endswith(b"\n"):
        buf += s.recv(1 << 16)
    return json.loads(buf)

def rss_kb():
    with open(f"/proc/{pid}/status") as f:
        for l in f:
            if l.startswith("VmRSS:"):
                return int(l.split()[1])

def producer(n, k):
    s = connect()
    ws = call(s, "workspace.create", {"name": f"w{k}"})["result"]["workspace"]["id"]
    done = 0
    while done < n:
        step = min(500, n - done)
        s.sendall(b"".join(line(done + j, "workspace.rename",
                                {"workspace_id": ws, "name": f"n{done + j}"})
                           for j in range(step)))
        got = 0
        while got < step:
            got += s.recv(1 << 20).count(b"\n")
        done += step
    s.close()

t = time.perf_counter()
per = events // 64
threads = [threading.Thread(target=producer, args=(per, k)) for k in range(64)]
for th in threads: th.start()
for th in threads: th.join()
state = os.path.join(root, "state", "signaltty")
files = [os.path.join(state, f) for f in ("audit.jsonl.1", "audit.jsonl") if os.path.exists(os.path.join(state, f))]
size = sum(os.path.getsize(f) for f in files)
s = connect()
head = call(s, "server.status", {})["result"]["seq"]
print(f"journal: {head} events, {size / 1e6:.1f} MB, made in {time.perf_counter() - t:.1f} s")

# (a) replays nobody reads.
time.sleep(1)
before = rss_kb()
stalled = []
for _ in range(clients):
    c = connect()
    c.sendall(line(1, "subscribe", {"from_seq": 0}))
    stalled.append(c)
peak, last, stable_since, t = before, before, time.time(), time.time()
while time.time() - t < 120:
    now = rss_kb()
    peak = max(peak, now)
    if abs(now - last) > 256:
        stable_since = time.time()
    last = now
    if time.time() - stable_since > 5 and time.time() - t > 10:
        break
    time.sleep(0.1)
waiting = rss_kb()
for c in stalled: c.close()
time.sleep(3)
after = rss_kb()
print(f"{clients} replays from seq 0 not read: server RSS {before / 1024:.1f} MB before, "
      f"{peak / 1024:.1f} MB at most, {waiting / 1024:.1f} MB while they wait, "
      f"{after / 1024:.1f} MB 3 s after they close")

# (b) one replay read whole, against cat of the same files.
t = time.perf_counter()
subprocess.run(["cat", *files], stdout=subprocess.DEVNULL, check=True)
cat = time.perf_counter() - t
c = connect()
t = time.perf_counter()
c.sendall(line(1, "subscribe", {"from_seq": 0}))
buf = b""
while b"\n" not in buf:
    buf += c.recv(1 << 20)
reply, _, rest = buf.partition(b"\n")
returned = json.loads(reply)["result"]["replay"]["returned"]
first = time.perf_counter() - t
got, nbytes = rest.count(b"\n"), len(rest)
while got < returned:
    chunk = c.recv(1 << 20)
    if not chunk:
        raise SystemExit(f"closed after {got} of {returned}")
    got += chunk.count(b"\n")
    nbytes += len(chunk)
took = time.perf_counter() - t
print(f"one replay read whole: {returned} events, {nbytes / 1e6:.1f} MB of frames in {took:.2f} s "
      f"(reply after {first:.2f} s: the counting pass), {size / 1e6 / took:.1f} MB/s of journal; "
      f"cat of the files {cat:.3f} s, {size / 1e6 / cat:.0f} MB/s; replay / cat {cat / took:.3f}; "
      f"server RSS {rss_kb() / 1024:.1f} MB")
PY
