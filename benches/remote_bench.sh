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
# The delay is netem on the loopback of a network namespace where the kernel
# has it, else an ssh ProxyCommand that holds each chunk
# (benches/common/delay_proxy.py).
#
# RUNS, REQUESTS and ANSWERS set the sample counts (30, 20, 20).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "run as root: it makes a throwaway account" >&2; exit 1; }
cargo build --release -q --bin signaltty -p signaltty
cargo build --release -q -p signaltty-benches --bin signaltty-remote-bench
root=$PWD
tmp=$(mktemp -d /tmp/sttrb.XXXX)
chmod 755 "$tmp"
acct="sttrb$$"
ns=""
sshd_pid=""
cleanup() {
  set +e
  [ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null
  XDG_RUNTIME_DIR=$tmp/local/run XDG_STATE_HOME=$tmp/local/state XDG_CONFIG_HOME=$tmp/local/config \
    HOME=$tmp/local/home "$root/target/release/signaltty" stop --force >/dev/null 2>&1
  pkill -KILL -u "$acct" 2>/dev/null; sleep 0.2; pkill -KILL -u "$acct" 2>/dev/null
  userdel -r -f "$acct" >/dev/null 2>&1
  [ -n "$ns" ] && ip netns del "$ns" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
run() { if [ -n "$ns" ]; then ip netns exec "$ns" "$@"; else "$@"; fi; }
proxy=""
if [ -n "${RTT_MS:-}" ]; then
  ns="sttrb$$"
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  if ! ip netns exec "$ns" tc qdisc add dev lo root netem delay "$((RTT_MS / 2))ms" 2>/dev/null; then
    echo "# no netem in this kernel: the delay is a ProxyCommand" >&2
    ip netns del "$ns"; ns=""
    proxy="python3 $root/benches/common/delay_proxy.py %h %p $((RTT_MS / 2))"
  fi
fi

useradd -m -d "$tmp/home" -s /bin/sh "$acct"
usermod -p '*' "$acct"
mkdir -p "$tmp/bin" "$tmp/keys" /run/sshd
cp "$root/target/release/signaltty" "$tmp/bin/signaltty"
chmod 755 "$tmp/bin" "$tmp/bin/signaltty"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/keys/host"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/keys/client"
mkdir -p "$tmp/auth"
cp "$tmp/keys/client.pub" "$tmp/auth/$acct"
chmod 755 "$tmp/auth"; chmod 644 "$tmp/auth/$acct"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$tmp/sshd_config" <<CFG
ListenAddress 127.0.0.1
Port $port
HostKey $tmp/keys/host
PidFile $tmp/sshd.pid
AuthorizedKeysFile $tmp/auth/%u
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AllowUsers $acct
MaxSessions 100
MaxStartups 100:30:200
CFG
echo "[127.0.0.1]:$port $(cat "$tmp/keys/host.pub")" > "$tmp/known_hosts"
cat > "$tmp/ssh_config" <<CFG
Host bench
  HostName 127.0.0.1
  Port $port
  User $acct
  IdentityFile $tmp/keys/client
  IdentitiesOnly yes
  UserKnownHostsFile $tmp/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  LogLevel ERROR
${proxy:+  ProxyCommand $proxy}
CFG
# Started directly (not through `run`, a function, which would fork a
# subshell): `$!` is then sshd itself, and the cleanup stops it.
if [ -n "$ns" ]; then
  ip netns exec "$ns" /usr/sbin/sshd -D -e -f "$tmp/sshd_config" 2>"$tmp/sshd.log" </dev/null >/dev/null &
else
  /usr/sbin/sshd -D -e -f "$tmp/sshd_config" 2>"$tmp/sshd.log" </dev/null >/dev/null &
fi
sshd_pid=$!
for _ in $(seq 100); do
  run ssh -F "$tmp/ssh_config" -o BatchMode=yes bench true 2>"$tmp/ready.err" && break
  sleep 0.1
done

mkdir -p "$tmp/local"/{run,state,config,home}
chmod 700 "$tmp/local/run"
export XDG_RUNTIME_DIR=$tmp/local/run XDG_STATE_HOME=$tmp/local/state \
  XDG_CONFIG_HOME=$tmp/local/config HOME=$tmp/local/home
bin=$root/target/release/signaltty
"$bin" host add bench bench --ssh-config "$tmp/ssh_config" --remote-bin "$tmp/bin/signaltty" >/dev/null
"$bin" start >/dev/null
[ -s "$tmp/ready.err" ] && { echo "sshd never answered:" >&2; cat "$tmp/ready.err" "$tmp/sshd.log" >&2; }
run "$bin" host check bench >&2
echo "# $(date -u +%FT%TZ) $(uname -r) $(nproc) cores, RTT_MS=${RTT_MS:-0} (loopback)" >&2
run "$root/target/release/signaltty-remote-bench" --host bench --bin "$bin" \
  --runs "${RUNS:-30}" --requests "${REQUESTS:-20}" --answers "${ANSWERS:-20}"
