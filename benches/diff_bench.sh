#!/usr/bin/env bash
# workspace.diff on a checkout with 1 000 changed files (20 lines each, one
# line changed per file) and 50 untracked files, against plain
# `git diff --numstat` on the same checkout: median and p90 of RUNS calls each,
# and their ratio. Also one workspace.file_diff. Target: workspace.diff < 300 ms.
set -euo pipefail
B=${B:-target/release/signaltty}
RUNS=${RUNS:-30}
. "$(dirname "$0")/common/bench.sh"
bench_dirs db
REPO=$R/repo
mkdir -p "$REPO"
git -C "$REPO" init -q -b main
python3 - "$REPO" <<'PY'
import os, sys
repo = sys.argv[1]
for i in range(1000):
    d = os.path.join(repo, f"dir{i % 40}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"file{i}.txt"), "w") as f:
        f.write("".join(f"line {n} of file {i}\n" for n in range(20)))
PY
git -C "$REPO" add -A
git -C "$REPO" -c user.name=b -c user.email=b@example.com commit -q -m base
python3 - "$REPO" <<'PY'
import os, sys
repo = sys.argv[1]
for i in range(1000):
    p = os.path.join(repo, f"dir{i % 40}", f"file{i}.txt")
    text = open(p).read().replace("line 10 of", "LINE TEN of")
    open(p, "w").write(text)
for i in range(50):
    open(os.path.join(repo, f"untracked{i}.txt"), "w").write("new\n")
PY
start_server $R/log
trap 'kill -TERM "$SERVER_PID" 2>/dev/null || true; rm -rf "$R"' EXIT
python3 - "$REPO" "$RUNS" <<'PY'
import statistics, subprocess, sys, time
from client import call
repo, runs = sys.argv[1], int(sys.argv[2])
ws = call("workspace.create", {"name": "bench", "cwd": repo})["result"]["workspace"]["id"]

def timed(fn):
    out = []
    for _ in range(runs):
        t = time.perf_counter(); fn(); out.append((time.perf_counter() - t) * 1000)
    out.sort()
    return statistics.median(out), out[int(len(out) * 0.9) - 1]

def diff():
    r = call("workspace.diff", {"workspace_id": ws})
    assert r["ok"] and len(r["result"]["files"]) == 1050, r.get("error")

def numstat():
    subprocess.run(["git", "-C", repo, "diff", "--numstat", "-z", "--no-renames", "HEAD"],
                   check=True, stdout=subprocess.DEVNULL)

def file_diff():
    r = call("workspace.file_diff", {"workspace_id": ws, "path": "dir7/file7.txt"})
    assert r["ok"] and r["result"]["content"]["kind"] == "text", r

diff(); numstat()  # warm the caches
d = timed(diff); g = timed(numstat); f = timed(file_diff)
print(f"workspace.diff       median {d[0]:7.1f} ms  p90 {d[1]:7.1f} ms  (1000 changed + 50 untracked)")
print(f"git diff --numstat   median {g[0]:7.1f} ms  p90 {g[1]:7.1f} ms")
print(f"ratio (medians)      {d[0] / g[0]:.2f}x")
print(f"workspace.file_diff  median {f[0]:7.1f} ms  p90 {f[1]:7.1f} ms")
PY
