# A real sshd on loopback with throwaway accounts standing for hosts, for the
# remote-host benchmarks (sourced; run as root). Sets $tmp (the folder),
# $root, $bin (the release signaltty), and exports the local server's XDG
# dirs under $tmp/local. `bench_hosts a b c` makes one account per label and
# adds each as a host of that label; `cleanup` (installed as the EXIT trap)
# stops everything and removes the accounts. With RTT_MS set, every byte of
# the ssh connections is held RTT_MS/2 each way: netem on the loopback of a
# network namespace where the kernel has it, else an ssh ProxyCommand
# (delay_proxy.py beside this file); `run CMD` runs CMD where ssh must.

[ "$(id -u)" = 0 ] || { echo "run as root: it makes throwaway accounts" >&2; exit 1; }
root=$PWD
bin=$root/target/release/signaltty
tmp=$(mktemp -d /tmp/sttrb.XXXX)
chmod 755 "$tmp"
accounts=()
ns=""
sshd_pid=""
proxy=""

cleanup() {
  set +e
  "$bin" stop --force >/dev/null 2>&1
  [ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null
  for a in "${accounts[@]}"; do
    pkill -KILL -u "$a" 2>/dev/null; sleep 0.2; pkill -KILL -u "$a" 2>/dev/null
    userdel -r -f "$a" >/dev/null 2>&1
  done
  [ -n "$ns" ] && ip netns del "$ns" 2>/dev/null
  rm -rf "$tmp" 2>/dev/null || { sleep 1; rm -rf "$tmp"; }
}
trap cleanup EXIT

run() { if [ -n "$ns" ]; then ip netns exec "$ns" "$@"; else "$@"; fi; }

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

mkdir -p "$tmp/local"/{run,state,config,home}
chmod 700 "$tmp/local/run"
export XDG_RUNTIME_DIR=$tmp/local/run XDG_STATE_HOME=$tmp/local/state \
  XDG_CONFIG_HOME=$tmp/local/config HOME=$tmp/local/home

# bench_hosts LABEL...: the accounts, sshd, and a host per label.
bench_hosts() {
  mkdir -p "$tmp/bin" "$tmp/keys" "$tmp/auth" /run/sshd
  cp "$bin" "$tmp/bin/signaltty"
  chmod 755 "$tmp/bin" "$tmp/bin/signaltty" "$tmp/auth"
  ssh-keygen -q -t ed25519 -N '' -f "$tmp/keys/host"
  ssh-keygen -q -t ed25519 -N '' -f "$tmp/keys/client"
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  echo "[127.0.0.1]:$port $(cat "$tmp/keys/host.pub")" > "$tmp/known_hosts"
  : > "$tmp/ssh_config"
  local label acct
  for label in "$@"; do
    acct="sttrb${label}$$"
    useradd -m -d "$tmp/home-$label" -s /bin/sh -p '*' "$acct"
    accounts+=("$acct")
    cp "$tmp/keys/client.pub" "$tmp/auth/$acct"; chmod 644 "$tmp/auth/$acct"
    cat >> "$tmp/ssh_config" <<CFG
Host $label
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
  done
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
AllowUsers ${accounts[*]}
MaxSessions 200
MaxStartups 200:30:400
CFG
  # Started directly (not through `run`, a function, which would fork a
  # subshell): `$!` is then sshd itself, and the cleanup stops it.
  if [ -n "$ns" ]; then
    ip netns exec "$ns" /usr/sbin/sshd -D -e -f "$tmp/sshd_config" 2>"$tmp/sshd.log" </dev/null >/dev/null &
  else
    /usr/sbin/sshd -D -e -f "$tmp/sshd_config" 2>"$tmp/sshd.log" </dev/null >/dev/null &
  fi
  sshd_pid=$!
  local ok=""
  for _ in $(seq 100); do
    if run ssh -F "$tmp/ssh_config" -o BatchMode=yes "$1" true 2>"$tmp/ready.err"; then ok=1; break; fi
    sleep 0.1
  done
  [ -n "$ok" ] || { echo "sshd never answered:" >&2; cat "$tmp/ready.err" "$tmp/sshd.log" >&2; exit 1; }
  for label in "$@"; do
    "$bin" host add "$label" "$label" --ssh-config "$tmp/ssh_config" --remote-bin "$tmp/bin/signaltty" >/dev/null
  done
}
