#!/usr/bin/env bash
# The soak (docs/reliability.md#the-soak) for half an hour in a release
# build: integration-tests/soak.rs with SIGNALTTY_SOAK_SECS=1800, then its
# figures (RSS, threads, descriptors and zombies at warm-up, at the
# baseline and at the end; events journaled; requests acknowledged;
# restarts, upgrades, subscribers cut). The test itself asserts; this
# script only sets the length and prints the report.
#   SECS=600 benches/soak.sh          # another length (at least 120)
#   SEED=5 benches/soak.sh            # another seed (default 27)
#   BENCH_TMPDIR=/dev/shm benches/soak.sh   # the state directory on tmpfs
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${SECS:-1800}
REPORT=$(mktemp "${TMPDIR:-/tmp}/soak-report.XXXX")
LOG=${KEEP_LOG:-$(mktemp "${TMPDIR:-/tmp}/soak-log.XXXX")}
cargo build --release --test soak --bin signaltty -q
echo "the soak: ${SECS} s, seed ${SEED:-27}, log in $LOG" >&2
status=0
env SIGNALTTY_SOAK_SECS="$SECS" SIGNALTTY_SOAK_SEED="${SEED:-27}" \
    SIGNALTTY_SOAK_REPORT="$REPORT" ${BENCH_TMPDIR:+TMPDIR="$BENCH_TMPDIR"} \
    cargo test --release -q --test soak -- --nocapture >"$LOG" 2>&1 || status=$?
if [ -s "$REPORT" ]; then
    cat "$REPORT"
else
    echo "no report: the soak stopped before it; the end of its log:" >&2
    tail -50 "$LOG" >&2
fi
rm -f "$REPORT"
exit "$status"
