#!/usr/bin/env bash
# Where the heap of an idle bash pane goes (docs/performance.md#memory-per-idle-pane):
# runs the server under heaptrack with 1 and with 1+N idle bash panes (one tab
# each, as the memory scenario of signaltty-pty-bench), kills it with SIGKILL
# while they are idle, so that every block still allocated counts as
# "leaked", and prints the difference per pane by the part of the server that
# allocated it.
#
#   benches/pane-heap.sh [BIN] [N]     # defaults: target/release/signaltty, 50
#
# Needs heaptrack (apt-get install heaptrack) and python3.
set -euo pipefail
BIN=$(realpath "${1:-target/release/signaltty}")
N=${2:-50}
WORK=$(mktemp -d /tmp/pane-heap.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT

run() { # run PANES NAME
    local dir="$WORK/$2"
    mkdir -p "$dir/run" "$dir/state" "$dir/home" "$dir/config"
    chmod 700 "$dir/run"
    (
        export XDG_RUNTIME_DIR="$dir/run" XDG_STATE_HOME="$dir/state" HOME="$dir/home" \
            XDG_CONFIG_HOME="$dir/config"
        heaptrack -o "$WORK/$2-heap" "$BIN" server >"$dir/heaptrack.log" 2>&1 &
        for _ in $(seq 1200); do
            [ -S "$XDG_RUNTIME_DIR/signaltty/signaltty.sock" ] && break
            sleep 0.05
        done
        "$BIN" workspace create --name bench --cwd /tmp >/dev/null
        for i in $(seq "$1"); do
            "$BIN" new --workspace bench --tab "t$i" -- bash --norc --noprofile >/dev/null
        done
        sleep 2
        pid=$("$BIN" status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
        echo "$2: $1 panes, VmRSS $(awk '/VmRSS/ {print $2}' "/proc/$pid/status") kB" >&2
        kill -KILL "$pid"
        wait
    )
    heaptrack_print -f "$WORK/$2-heap.zst" --print-leaks 0 --print-peaks 0 --print-allocators 0 \
        --print-temporary 0 --flamegraph-cost-type leaked \
        --print-flamegraph "$WORK/$2.folded" >/dev/null
}

run 1 one
run $((N + 1)) many

python3 - "$WORK/one.folded" "$WORK/many.folded" "$N" <<'PY'
import collections, re, sys

# The first rule whose pattern occurs anywhere in a block's stack names its owner.
RULES = [
    ("grid cells (term/grid.rs)", r"\(grid\.rs\)"),
    ("rendered ring (term/ring.rs)", r"\(ring\.rs\)"),
    ("terminal buffers (batch scratch, replay, scanner)", r"\((export|scanner)\.rs\)|end_segment|feed_slice"),
    ("reader ack channel (sync_channel)", r"sync_channel"),
    ("PTY reader thread (TLS, handle, start)", r"__pthread_create|_dl_allocate_tls|dl-init|cxa_thread_atexit|spawn_unchecked|\((seams|reader|sink)\.rs\)"),
    ("Pane actor: its task (Pane, Terminal inline, context)", r"spawn_local|\(list\.rs\)"),
    ("actor mailboxes and futures", r"\((channel|then|context_items)\.rs\)|start_in_arbiter"),
    ("journal and projection", r"\((journal|sequencer|projection|events|hold)\.rs\)"),
    ("workspace, tab and pane registry", r"\((workspace|registry|directory|panes)\.rs\)"),
    ("snapshot (tails)", r"\((persist|write|file|tail_source|launch)\.rs\)"),
]

def load(path):
    stacks = collections.Counter()
    for line in open(path):
        stack, _, cost = line.rstrip("\n").rpartition(" ")
        stacks[stack] += int(cost)
    return stacks

one, many, n = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
owners = collections.Counter()
for stack in set(one) | set(many):
    delta = many[stack] - one[stack]
    owner = next((name for name, pat in RULES if re.search(pat, stack)), "other")
    owners[owner] += delta
print(f"heap per idle pane ({n} panes): {sum(owners.values()) / n:.0f} B")
for owner, total in owners.most_common():
    print(f"  {total / n:>8.0f} B  {owner}")
PY
