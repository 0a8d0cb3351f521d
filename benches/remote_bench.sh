#!/usr/bin/env bash
# The remote-host figures of docs/performance.md ("Remote hosts"): a real
# sshd on loopback with a throwaway account standing for another machine, a
# local server, and signaltty-remote-bench between them. Run as root (it
# makes and removes the account).
#
#   benches/remote_bench.sh                 # loopback
#   RTT_MS=100 benches/remote_bench.sh      # every byte of the ssh connection
#                                           # held RTT_MS/2 each way
#
# RUNS, REQUESTS and ANSWERS set the sample counts (30, 20, 20). The sshd,
# the accounts and the delay are benches/common/sshd.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q --bin signaltty -p signaltty
cargo build --release -q -p signaltty-benches --bin signaltty-remote-bench
. benches/common/sshd.sh
bench_hosts bench
"$bin" start >/dev/null
run "$bin" host check bench >&2
echo "# $(date -u +%FT%TZ) $(uname -r) $(nproc) cores, RTT_MS=${RTT_MS:-0}" >&2
run "$root/target/release/signaltty-remote-bench" --host bench --bin "$bin" \
  --runs "${RUNS:-30}" --requests "${REQUESTS:-20}" --answers "${ANSWERS:-20}"
