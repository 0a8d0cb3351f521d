# Shell helpers of the script benchmarks (sourced): a private server directory
# and a server started on it. The Python side's client is client.py beside it.

# Makes private XDG dirs under a fresh $R (prefix $1, in $BENCH_TMPDIR,
# default /tmp) and exports them.
bench_dirs() {
  R=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/$1.XXXX"); mkdir -p "$R/run" "$R/state" "$R/home"; chmod 700 "$R/run"
  export XDG_RUNTIME_DIR=$R/run XDG_STATE_HOME=$R/state HOME=$R/home SIGNALTTY_LOG=debug
  export PYTHONPATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
}

# Starts "$B server" logging to $1 and waits until it answers; its pid is
# left in $SERVER_PID (stop it by that, never by a name pattern: another
# checkout's server may match).
start_server() {
  "$B" server > "$1" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 200); do "$B" status >/dev/null 2>&1 && return 0; sleep 0.05; done
  echo "the server did not answer; its log:" >&2; cat "$1" >&2; return 1
}

# Makes a git repository at $1 on `main` with one commit of $2 tracked
# files (in 100 directories, 10 lines each).
bench_repo() {
  mkdir -p "$1"
  git -C "$1" init -q -b main
  git -C "$1" config user.name b
  git -C "$1" config user.email b@example.com
  python3 - "$1" "$2" <<'PY'
import os, sys
repo, files = sys.argv[1], int(sys.argv[2])
for i in range(files):
    d = os.path.join(repo, f"dir{i % 100}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"file{i}.txt"), "w") as f:
        f.write("".join(f"line {n} of file {i}\n" for n in range(10)))
PY
  git -C "$1" add -A
  git -C "$1" commit -q -m base
}
