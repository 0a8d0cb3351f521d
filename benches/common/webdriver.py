"""A headless Chromium for the script benchmarks, driven through chromedriver's
WebDriver HTTP API with plain urllib (what integration-tests/web/browser.rs
does from Rust). chromedriver leads its own process group, so Chromium goes
with it when the group is killed; its pid is written to `pid_file` so a
shell trap can do the same if this process dies first."""
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """A fresh profile (no cookie) with a phone's viewport: 390x844 CSS pixels
    by default, emulated as a touch screen that honours the page's viewport
    tag (a window cannot be made that narrow: headless Chromium keeps it at
    least 500 wide)."""

    def __init__(self, pid_file=None, width=390, height=844, dpr=1):
        port = _free_port()
        self.driver = subprocess.Popen(
            ["chromedriver", f"--port={port}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        if pid_file:
            with open(pid_file, "w") as f:
                f.write(f"{self.driver.pid}\n")
        self.base = f"http://127.0.0.1:{port}"
        deadline = time.time() + 30
        while True:
            try:
                self._http("GET", "/status")
                break
            except (OSError, urllib.error.URLError):
                if time.time() > deadline:
                    self.quit()
                    raise RuntimeError("chromedriver never answered")
                time.sleep(0.05)
        self.profile = tempfile.mkdtemp(prefix="wb-profile.")
        args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", f"--window-size={width},{height}",
                f"--user-data-dir={self.profile}"]
        phone = {"deviceMetrics": {"width": width, "height": height, "pixelRatio": dpr,
                                   "mobile": True, "touch": True}}
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": args,
                                   "mobileEmulation": phone},
        }}}
        made = self._http("POST", "/session", caps)
        self.session = made["value"].get("sessionId")
        if not self.session:
            self.quit()
            raise RuntimeError(f"no WebDriver session: {made}")
        self.cmd("/timeouts", {"script": 60000})

    def _http(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            # WebDriver errors come as JSON with a non-2xx status.
            return json.loads(e.read() or b"{}")

    def cmd(self, path, body):
        v = self._http("POST", f"/session/{self.session}{path}", body)["value"]
        if isinstance(v, dict) and "error" in v:
            raise RuntimeError(f"WebDriver {path}: {v['error']}: {v.get('message', '')[:300]}")
        return v

    def goto(self, url):
        self.cmd("/url", {"url": url})

    def eval(self, script, *args):
        """Runs `script` (a function body: `return ...`) in the page."""
        return self.cmd("/execute/sync", {"script": script, "args": list(args)})

    def eval_async(self, script, *args):
        """Runs `script`, whose last argument is the callback that ends it."""
        return self.cmd("/execute/async", {"script": script, "args": list(args)})

    def wait_for(self, what, script, secs=30):
        deadline = time.time() + secs
        while True:
            v = self.eval(script)
            if v is True:
                return
            if time.time() > deadline:
                text = self.eval("return document.body ? document.body.innerText.slice(0, 500) : ''")
                raise RuntimeError(f"waited {secs} s for {what}; last {v!r}; the page says: {text}")
            time.sleep(0.05)

    def cookies(self):
        return self._http("GET", f"/session/{self.session}/cookie")["value"]

    def quit(self):
        try:
            if getattr(self, "session", None):
                self._http("DELETE", f"/session/{self.session}")
        except (OSError, urllib.error.URLError, ValueError):
            pass
        try:
            os.killpg(self.driver.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.driver.wait()
        if getattr(self, "profile", None):
            subprocess.run(["rm", "-rf", self.profile], check=False)
