"""The web view's figures (benches/web_bench.sh, docs/performance.md "The web
view"): a headless Chromium at 390x844 paired with a running `signaltty web`
over 200 panes, then

  1. the page's weight: every file of the first load, as served;
  2. the web process at rest: its CPU share of one core and its RSS;
  3. hook -> the page's DOM: `hook-event` calls on the socket (what the
     reporter sends), alternating UserPromptSubmit / Stop across the panes at
     $RATE a second, each timed from just before the call to the moment a
     MutationObserver in the page sees the pane's row take its new
     data-state; the web process's CPU meanwhile;
  4. questions: a real waiting reporter (`hook-event --wait`) asks on a pane;
     its arrival is timed to the moment the question card exists, then the
     bench taps Allow once and times Date.now() just before the click to the
     moment the reporter prints its verdict on stdout.

The browser and the bench read the same wall clock. Knobs come from the
environment (see web_bench.sh); TRACE=1 also splits each hook's time (the
bench's own live channel, the page's parse of the patch, the frame that drew
it) and reports Chromium's CPU. The last line printed is the figures as JSON.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request

from client import call
from webdriver import Browser

B = os.environ["B"]
R = os.environ["R"]
WPID = int(os.environ["WEB_PID"])
SPID = int(os.environ["SERVER_PID"])
PAIR_URL = os.environ["PAIR_URL"]
HOOKS = int(os.environ.get("HOOKS", "600"))
RATE = float(os.environ.get("RATE", "50"))
QUESTIONS = int(os.environ.get("QUESTIONS", "60"))
REST = float(os.environ.get("SECS", "30"))
DPR = float(os.environ.get("DPR", "1"))
TRACE = os.environ.get("TRACE", "") not in ("", "0")
HZ = os.sysconf("SC_CLK_TCK")
BASE = PAIR_URL.split("/pair?")[0]


def ticks(pid):
    """utime + stime of a process, in clock ticks."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def sent_by(trace):
    """Bytes sent on sockets in an strace log of send/write calls."""
    done = re.compile(r"^(?:\d+\s+)?(?:<\.\.\. )?(?:sendto|writev|sendmsg)\b.*\)\s+= (\d+)")
    total = 0
    with open(trace) as f:
        for line in f:
            m = done.match(line)
            if m:
                total += int(m.group(1))
    return total


def status_kb(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


class CpuWindow:
    """The CPU share of one core of some processes between start and stop."""

    def __init__(self, pids):
        self.pids = pids
        self.t0 = {p: ticks(p) for p in pids}
        self.s0 = time.monotonic()

    def stop(self):
        secs = time.monotonic() - self.s0
        return {p: (ticks(p) - self.t0[p]) / HZ / secs * 100 for p in self.pids}, secs


def pct(sorted_ms, p):
    """Nearest-rank percentile of sorted samples."""
    if not sorted_ms:
        return float("nan")
    rank = min(len(sorted_ms), max(1, int(-(-p * len(sorted_ms) // 1))))
    return sorted_ms[rank - 1]


def summary(name, ms):
    s = sorted(ms)
    out = {"n": len(s), "p50": pct(s, 0.5), "p90": pct(s, 0.9), "p99": pct(s, 0.99),
           "max": s[-1] if s else float("nan"), "min": s[0] if s else float("nan")}
    print(f"{name}: n={out['n']} p50 {out['p50']:.1f} ms, p90 {out['p90']:.1f}, "
          f"p99 {out['p99']:.1f}, max {out['max']:.1f} (min {out['min']:.1f})", flush=True)
    return out


# Installed in the page: records when a pane row shows a new data-state and
# when a question card first exists, with the page's Date.now(). The page
# redraws its lists as new nodes, so the observer watches the subtree and
# compares each row's state with the last one it saw.
OBSERVER = r"""
const w = window.__wb = {changes: [], questions: [], last: new Map(), seen: new Set()};
const scan = () => {
  const t = Date.now();
  for (const r of document.querySelectorAll('#p-list .pane[data-pane]')) {
    const p = r.dataset.pane, s = r.dataset.state;
    if (w.last.get(p) !== s) {
      if (w.last.has(p)) w.changes.push([p, s, t]);
      w.last.set(p, s);
    }
  }
  for (const c of document.querySelectorAll('#q-list .question[data-decision]')) {
    if (!w.seen.has(c.dataset.decision)) {
      w.seen.add(c.dataset.decision);
      w.questions.push([c.dataset.pane, c.dataset.decision, t]);
    }
  }
};
scan();
new MutationObserver(scan).observe(document.getElementById('main'),
  {childList: true, subtree: true, attributes: true, attributeFilter: ['data-state']});
return true;
"""

# With TRACE=1, also in the page: when each patch is parsed (the page's
# JSON.parse, wrapped) and when each animation frame the page asked for
# starts and ends (requestAnimationFrame, wrapped): where the time goes.
TRACER = r"""
const w = window.__wb;
w.parsed = []; w.frames = [];
const parse = JSON.parse;
JSON.parse = function (text, ...rest) {
  const v = parse.call(this, text, ...rest);
  if (v && v.t === 'patch') w.parsed.push([v.v, Date.now(), (v.set || []).map((i) => i.key), text.length]);
  return v;
};
const raf = window.requestAnimationFrame.bind(window);
window.requestAnimationFrame = (cb) => {
  const asked = Date.now();
  return raf((ts) => { const start = Date.now(); cb(ts); w.frames.push([asked, start, Date.now()]); });
};
return true;
"""

WAIT_CARD = r"""
const [pane, done] = arguments;
const sel = '.question[data-pane="' + pane + '"] button.option[data-option="once"]';
const t0 = Date.now();
const look = () => {
  if (document.querySelector(sel)) return done(true);
  if (Date.now() - t0 > 20000) return done(false);
  setTimeout(look, 5);
};
look();
"""

TAP = r"""
const b = document.querySelector('.question[data-pane="' + arguments[0] + '"] button.option[data-option="once"]');
if (!b) return null;
const t = Date.now();
b.click();
return t;
"""

WAIT_GONE = r"""
const [pane, done] = arguments;
const t0 = Date.now();
const look = () => {
  const row = document.querySelector('#p-list .pane[data-pane="' + pane + '"]');
  const card = document.querySelector('.question[data-pane="' + pane + '"]');
  if (!card && row && row.dataset.state !== 'blocked') return done(true);
  if (Date.now() - t0 > 20000) return done(false);
  setTimeout(look, 5);
};
look();
"""

WORLD_SIZE = r"""
const done = arguments[0];
const s = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/live');
s.onmessage = (e) => { const n = new Blob([e.data]).size; s.close(); done(n); };
s.onerror = () => done(-1);
"""


def all_panes():
    return [p["id"] for w in call("workspace.list", {})["result"]["workspaces"]
            for p in call("workspace.get", {"workspace_id": w["id"]})["result"]["panes"]]


def page_weight(b):
    """Every file of the first load, fetched again as served (uncompressed:
    the view does not compress), and what the browser reports loading."""
    seen = b.eval("""
      return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
        .map(e => [new URL(e.name).pathname, e.initiatorType || 'navigation', e.decodedBodySize]);""")
    paths = []
    for path, _kind, _size in seen:
        if path.startswith("/pair"):
            path = "/"
        if path not in paths:
            paths.append(path)
    # The browser fetches these outside the page's resource timing.
    for extra in ["/sw.js", "/manifest.webmanifest"]:
        if extra not in paths:
            paths.append(extra)
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in b.cookies())
    files = {}
    for path in paths:
        req = urllib.request.Request(BASE + path, headers={"Cookie": cookie})
        with urllib.request.urlopen(req, timeout=10) as r:
            files[path] = len(r.read())
    total = sum(files.values())
    print("page files: " + ", ".join(f"{p} {n} B" for p, n in files.items())
          + f"; total {total} B ({total / 1000:.1f} kB)", flush=True)
    print("the browser's own count: " + ", ".join(f"{p} ({k}) {n} B" for p, k, n in seen), flush=True)
    return {"files": files, "total": total, "browser": seen}


def hook_load(b, panes):
    b.eval(OBSERVER)
    if TRACE:
        b.eval(TRACER)
        listener = Listener("; ".join(f"{c['name']}={c['value']}" for c in b.cookies()))
        chromium0 = browser_ticks(b)
    sent = []
    cpu = CpuWindow([WPID, SPID])
    start = time.time()
    for n in range(HOOKS):
        p = panes[n % len(panes)]
        first_half = (n // len(panes)) % 2 == 0
        ev, want = ("UserPromptSubmit", "working") if first_half else ("Stop", "done")
        payload = {"session_id": "s-" + p, "hook_event_name": ev}
        if ev == "Stop":
            payload["last_assistant_message"] = f"turn {n}"
        else:
            payload["prompt"] = f"turn {n}"
        t0 = time.time() * 1000
        r = call("hook-event", {"agent": "claude", "event": ev, "pane_id": p, "payload": payload})
        if not r.get("ok"):
            raise RuntimeError(f"hook-event refused: {r}")
        sent.append((p, want, t0))
        time.sleep(max(0, start + (n + 1) / RATE - time.time()))
    shares, secs = cpu.stop()
    time.sleep(1.0)
    changes = b.eval("return window.__wb.changes.splice(0)")
    print(f"sent {HOOKS} hooks in {secs:.1f} s ({HOOKS / secs:.1f}/s); "
          f"the page saw {len(changes)} row changes", flush=True)
    by_pane = {}
    for p, s, t in changes:
        by_pane.setdefault(p, []).append((t, s))
    lat, missing = [], 0
    for p, want, t0 in sent:
        hit = next((t for t, s in by_pane.get(p, []) if s == want and t >= int(t0)), None)
        if hit is None:
            missing += 1
        else:
            lat.append(hit - t0)
    if missing:
        print(f"WARNING: {missing} hooks never showed on the page", flush=True)
    out = summary("hook -> page DOM", lat)
    out["missing"] = missing
    out["web_cpu"] = shares[WPID]
    out["server_cpu"] = shares[SPID]
    out["rate"] = HOOKS / secs
    if TRACE:
        chromium1 = browser_ticks(b)
        print("Chromium's CPU during the load: " + ", ".join(
            f"{k} {(chromium1[k] - chromium0.get(k, 0)) / HZ / secs * 100:.1f} %"
            for k in sorted(chromium1)), flush=True)
        out["trace"] = breakdown(b, sent, listener)
        listener.close()
    print(f"web CPU during the load: {shares[WPID]:.2f} % of one core "
          f"(server {shares[SPID]:.2f} %)", flush=True)
    return out


class Listener:
    """A second live channel read by the bench itself (TRACE=1): when each
    patch leaves the web process, without a browser in between."""

    def __init__(self, cookie):
        import base64
        import socket
        host = BASE.split("://", 1)[1]
        addr, port = host.rsplit(":", 1)
        self.sock = socket.create_connection((addr, int(port)))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /live HTTP/1.1\r\nHost: {host}\r\nOrigin: {BASE}\r\n"
                           f"Cookie: {cookie}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            self.buf += self.sock.recv(65536)
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(f"the live channel refused the bench: {head[:200]!r}")
        self.got = []
        threading.Thread(target=self.run, daemon=True).start()

    def close(self):
        try:
            self.sock.shutdown(2)
        except OSError:
            pass
        self.sock.close()

    def _need(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk

    def run(self):
        try:
            while True:
                self._need(2)
                n = self.buf[1] & 0x7F
                at = 2
                if n == 126:
                    self._need(4)
                    n, at = int.from_bytes(self.buf[2:4], "big"), 4
                elif n == 127:
                    self._need(10)
                    n, at = int.from_bytes(self.buf[2:10], "big"), 10
                self._need(at + n)
                t = time.time() * 1000
                data, self.buf = self.buf[at:at + n], self.buf[at + n:]
                msg = json.loads(data)
                if msg.get("t") == "patch":
                    self.got.append((msg["v"], t, [i["key"] for i in msg.get("set", [])]))
        except (EOFError, OSError, ValueError):
            return


def browser_ticks(b):
    """Clock ticks of each Chromium process (by its --type), TRACE=1."""
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[2]) != b.driver.pid:
                continue
            with open(f"/proc/{pid}/cmdline") as f:
                argv = f.read().replace("\0", " ").split()
        except OSError:
            continue
        kind = next((a[7:] for a in argv if a.startswith("--type=")), os.path.basename(argv[0]))
        out[kind] = out.get(kind, 0) + int(fields[11]) + int(fields[12])
    return out


def breakdown(b, sent, listener):
    """Each hook's time split at the page's parse of its patch and at the
    start of the frame that drew it."""
    parsed = b.eval("return window.__wb.parsed.splice(0)")
    frames = b.eval("return window.__wb.frames.splice(0)")
    to_parse, to_frame, in_frame, to_bench = [], [], [], []
    for p, want, t0 in sent:
        out = next((t for v, t, keys in listener.got if t >= t0
                    and any(k.endswith("/" + p) for k in keys)), None)
        if out is not None:
            to_bench.append(out - t0)
        at = next((t for v, t, keys, _n in parsed if t >= int(t0)
                   and any(k.endswith("/" + p) for k in keys)), None)
        if at is None:
            continue
        frame = next((f for f in frames if f[1] >= at), None)
        if frame is None:
            continue
        to_parse.append(at - t0)
        to_frame.append(frame[1] - at)
        in_frame.append(frame[2] - frame[1])
    sizes = [n for _v, _t, _k, n in parsed]
    print(f"patches: {len(parsed)}, {sum(sizes) / max(1, len(sizes)):.0f} B on average; "
          f"frames drawn: {len(frames)}", flush=True)
    return {"to_bench": summary("  hook -> its patch read by the bench's own channel", to_bench),
            "to_parse": summary("  hook -> the page parses its patch", to_parse),
            "to_frame": summary("  parsed -> the frame that draws it starts", to_frame),
            "in_frame": summary("  the frame's draw", in_frame)}


def reporter_verdicts(b, panes):
    """Questions one after another: arrival on the page, then the tap."""
    b.eval("window.__wb.questions.splice(0); return true")
    hook_log = os.path.join(R, "reporters.log")
    env = dict(os.environ, SIGNALTTY_HOOK_LOG=hook_log)
    pids_file = os.path.join(R, "reporters.pids")
    arrivals, tap_ms, spawned = [], [], []
    cpu = CpuWindow([WPID, SPID])
    for i in range(QUESTIONS):
        p = panes[(i * 7) % len(panes)]
        payload = json.dumps({"session_id": "s-" + p, "hook_event_name": "PermissionRequest",
                              "tool_name": "Bash", "tool_input": {"command": f"rm -rf build{i}"}})
        t_spawn = time.time() * 1000
        proc = subprocess.Popen(
            [B, "hook-event", "--agent", "claude", "--event", "PermissionRequest",
             "--wait", "--pane", p],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        with open(pids_file, "a") as f:
            f.write(f"{proc.pid}\n")
        got = {}

        def read(proc=proc, got=got):
            line = proc.stdout.readline()
            got["t"] = time.time() * 1000
            got["line"] = line.decode(errors="replace").strip()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        proc.stdin.write(payload.encode())
        proc.stdin.close()
        if b.eval_async(WAIT_CARD, p) is not True:
            proc.kill()
            raise RuntimeError(f"question {i}: no card for {p}")
        t_tap = b.eval(TAP, p)
        if t_tap is None:
            proc.kill()
            raise RuntimeError(f"question {i}: no Allow once button on {p}")
        reader.join(10)
        if "t" not in got or '"allow"' not in got["line"]:
            proc.kill()
            raise RuntimeError(f"question {i}: the reporter printed {got.get('line')!r}")
        proc.wait(10)
        tap_ms.append(got["t"] - t_tap)
        spawned.append((proc.pid, p, t_spawn))
        if b.eval_async(WAIT_GONE, p) is not True:
            raise RuntimeError(f"question {i}: the card stayed on {p}")
        time.sleep(0.1)
    shares, secs = cpu.stop()
    seen = b.eval("return window.__wb.questions.splice(0)")
    card_at = {}
    for p, _d, t in seen:
        card_at.setdefault(p, []).append(t)
    started = {}
    if os.path.exists(hook_log):
        with open(hook_log) as f:
            for line in f:
                e = json.loads(line)
                started[e["pid"]] = e["at_us"] / 1000
    from_start = []
    for pid, p, t_spawn in spawned:
        t = next((t for t in card_at.get(p, []) if t >= int(t_spawn)), None)
        if t is None:
            raise RuntimeError(f"the observer never saw the card on {p}")
        card_at[p].remove(t)
        arrivals.append(t - t_spawn)
        if pid in started:
            from_start.append(t - started[pid])
    out = {"arrival": summary("question -> card (from spawning the reporter)", arrivals),
           "arrival_from_reporter_start": summary(
               "question -> card (from the reporter's own start)", from_start),
           "tap": summary("tap -> the reporter's verdict", tap_ms),
           "web_cpu": shares[WPID]}
    print(f"web CPU during the questions: {shares[WPID]:.2f} % over {secs:.1f} s", flush=True)
    return out


def at_rest(label):
    cpu = CpuWindow([WPID, SPID])
    time.sleep(REST)
    shares, secs = cpu.stop()
    rss = status_kb(WPID, "VmRSS")
    print(f"{label}: web CPU {shares[WPID]:.3f} % of one core over {secs:.1f} s "
          f"(server {shares[SPID]:.3f} %); web RSS {rss} kB", flush=True)
    return {"web_cpu": shares[WPID], "server_cpu": shares[SPID], "secs": secs, "rss_kb": rss}


def main():
    panes = all_panes()
    print(f"{len(panes)} panes", flush=True)
    b = Browser(pid_file=os.path.join(R, "chromedriver.pid"), dpr=DPR)
    results = {}
    try:
        # What the web process sends for the first load, counted by strace
        # (which slows it down a little meanwhile), when it is installed.
        trace = os.path.join(R, "first-load.strace")
        tracer = None
        if shutil.which("strace"):
            tracer = subprocess.Popen(["strace", "-f", "-qq", "-e", "trace=sendto,writev,sendmsg",
                                       "-e", "signal=none", "-o", trace, "-p", str(WPID)],
                                      stderr=subprocess.DEVNULL)
            time.sleep(0.5)
        t0 = time.time()
        b.goto(PAIR_URL)
        b.wait_for("the page live with every pane",
                   "return document.getElementById('status').textContent.includes('live') "
                   f"&& document.querySelectorAll('#p-list .pane[data-pane]').length === {len(panes)}")
        print(f"paired and showing {len(panes)} panes {time.time() - t0:.2f} s after opening the link",
              flush=True)
        size = b.eval("return [innerWidth, innerHeight, devicePixelRatio]")
        print(f"viewport {size[0]}x{size[1]} CSS pixels at {size[2]} device pixels each", flush=True)
        worker = b.eval_async("""
          const done = arguments[0];
          if (!('serviceWorker' in navigator)) return done('none');
          setTimeout(() => done('not ready'), 10000);
          navigator.serviceWorker.ready.then((r) => done(r.active ? r.active.state : 'no worker'));""")
        time.sleep(3)
        first = None
        if tracer:
            tracer.terminate()
            tracer.wait()
            tracer = None
            first = sent_by(trace)
        print(f"the service worker: {worker}; the web process sent {first} B for the first load "
              "(every response with its headers, the service worker's copies, the live "
              "channel's world)", flush=True)
        results["weight"] = page_weight(b)
        results["weight"]["sent"] = first
        results["world_bytes_first"] = b.eval_async(WORLD_SIZE)
        print(f"the live channel's world for {len(panes)} panes as first sent: "
              f"{results['world_bytes_first']} B", flush=True)
        time.sleep(2)
        results["rest"] = at_rest("at rest, the page open")
        results["hooks"] = hook_load(b, panes)
        results["questions"] = reporter_verdicts(b, panes)
        time.sleep(2)
        results["rest_after"] = at_rest("at rest again, after the load")
        results["world_bytes"] = b.eval_async(WORLD_SIZE)
        print(f"the live channel's world for {len(panes)} panes after the load: "
              f"{results['world_bytes']} B",
              flush=True)
        results["rss_peak_kb"] = status_kb(WPID, "VmHWM")
        print(f"web RSS peak {results['rss_peak_kb']} kB", flush=True)
    finally:
        if tracer:
            tracer.kill()
        b.quit()
    print("result: " + json.dumps(results), flush=True)


if __name__ == "__main__":
    sys.exit(main())
