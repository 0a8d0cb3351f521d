//! The web view in a real browser: Debian's headless Chromium driven over
//! WebDriver (chromedriver's HTTP API, spoken with the same plain HTTP the
//! other web tests use). Each `Browser` is a fresh profile, so it starts with
//! no cookie; it is stopped, with its Chromium, when dropped.

use super::view::post_json;
use serde_json::{Value, json};
use std::net::TcpListener;
use std::os::unix::process::CommandExt as _;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The key WebDriver names an element by.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

pub struct Browser {
    driver: Child,
    addr: String,
    session: String,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = super::view::request(
            &self.addr,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        );
        // chromedriver leads its own process group: Chromium goes with it.
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(self.driver.id() as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = self.driver.wait();
    }
}

impl Browser {
    /// A headless Chromium showing pages as a phone does: 390×844 CSS
    /// pixels.
    pub fn start() -> Browser {
        Browser::start_with(&[])
    }

    /// The same, with `more` Chromium flags.
    pub fn start_with(more: &[&str]) -> Browser {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap_or_else(|e| panic!("a free port: {e}"));
        // The profile, and every scratch folder chromedriver and Chromium
        // make (they are killed, so they never clean up), go with the test.
        let profile = tempfile::tempdir().unwrap_or_else(|e| panic!("profile dir: {e}"));
        let scratch = profile.path().join("tmp");
        std::fs::create_dir_all(&scratch).unwrap_or_else(|e| panic!("scratch dir: {e}"));
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .env("TMPDIR", &scratch)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| {
                panic!("chromedriver did not start ({e}): install Debian's chromium and chromium-driver")
            });
        let addr = format!("127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(30);
        while super::view::request(&addr, "GET", "/status", None).is_err() {
            assert!(Instant::now() < deadline, "chromedriver never answered");
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut args = vec![
            "--headless=new".to_owned(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-quic".into(),
            "--no-first-run".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--disable-dev-shm-usage".into(),
            "--window-size=390,844".into(),
            format!("--user-data-dir={}", profile.path().display()),
        ];
        args.extend(more.iter().map(|m| (*m).to_owned()));
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            // Headless Chromium makes no window narrower than 500 pixels:
            // the phone's screen is emulated (its viewport tag honoured,
            // touch, three device pixels to a CSS pixel).
            "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": args,
                "mobileEmulation": {"deviceMetrics": {"width": 390, "height": 844,
                    "pixelRatio": 3, "mobile": true, "touch": true}}},
        }}});
        let made = post_json(&addr, "/session", &caps);
        let session = made["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no WebDriver session: {made}"))
            .to_owned();
        Browser {
            driver,
            addr,
            session,
            _profile: profile,
        }
    }

    fn cmd(&self, path: &str, body: &Value) -> Value {
        let v = post_json(
            &self.addr,
            &format!("/session/{}{path}", self.session),
            body,
        );
        v["value"].clone()
    }

    pub fn goto(&self, url: &str) {
        self.cmd("/url", &json!({"url": url}));
    }

    /// Runs `script` (a function body: `return …`) in the page.
    pub fn eval(&self, script: &str) -> Value {
        self.cmd("/execute/sync", &json!({"script": script, "args": []}))
    }

    /// Runs `script` (a function body whose last argument is the callback
    /// to call with the result) and waits for its answer.
    pub fn eval_async(&self, script: &str) -> Value {
        self.cmd("/execute/async", &json!({"script": script, "args": []}))
    }

    /// The WebDriver id of the first element matching `css`.
    fn element(&self, css: &str) -> String {
        let found = self.cmd("/element", &json!({"using": "css selector", "value": css}));
        found[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {found}"))
            .to_owned()
    }

    /// Taps the first element matching `css` as a person would: WebDriver
    /// scrolls it into view and clicks its middle, failing when something
    /// covers it or it cannot be clicked.
    pub fn tap(&self, css: &str) {
        let id = self.element(css);
        let r = self.cmd(&format!("/element/{id}/click"), &json!({}));
        assert!(r.is_null(), "tapping {css}: {r}");
    }

    /// Types `text` into the element matching `css`, key by key.
    pub fn type_into(&self, css: &str, text: &str) {
        let id = self.element(css);
        let r = self.cmd(&format!("/element/{id}/value"), &json!({"text": text}));
        assert!(r.is_null(), "typing into {css}: {r}");
    }

    /// The text of the open alert or confirm dialog, waiting up to 20 s
    /// for one to open.
    pub fn dialog_text(&self) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let text = super::view::request(
                &self.addr,
                "GET",
                &format!("/session/{}/alert/text", self.session),
                None,
            )
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|v| v["value"].as_str().map(str::to_owned));
            if let Some(text) = text {
                return text;
            }
            assert!(Instant::now() < deadline, "no dialog opened within 20 s");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Answers the open confirm dialog: OK when `accept`, else Cancel.
    pub fn answer_dialog(&self, accept: bool) {
        let verb = if accept { "accept" } else { "dismiss" };
        let r = self.cmd(&format!("/alert/{verb}"), &json!({}));
        assert!(r.is_null(), "{verb} the dialog: {r}");
    }

    /// A Chrome DevTools command, through chromedriver.
    pub fn cdp(&self, cmd: &str, params: Value) -> Value {
        self.cmd("/goog/cdp/execute", &json!({"cmd": cmd, "params": params}))
    }

    /// The handle of the tab WebDriver talks to now.
    pub fn tab(&self) -> String {
        let v = super::view::request(
            &self.addr,
            "GET",
            &format!("/session/{}/window", self.session),
            None,
        )
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .unwrap_or_default();
        v["value"]
            .as_str()
            .unwrap_or_else(|| panic!("no current tab: {v}"))
            .to_owned()
    }

    /// Opens a new tab in front and talks to it from now on: the tab
    /// before it goes to the background.
    pub fn open_tab(&self) -> String {
        let made = self.cmd("/window/new", &json!({"type": "tab"}));
        let handle = made["handle"]
            .as_str()
            .unwrap_or_else(|| panic!("no new tab: {made}"))
            .to_owned();
        self.switch_to(&handle);
        handle
    }

    pub fn switch_to(&self, tab: &str) {
        let r = self.cmd("/window", &json!({"handle": tab}));
        assert!(r.is_null(), "switching to {tab}: {r}");
    }

    /// Waits until `script` returns true, polling every 50 ms for up to 20 s.
    pub fn wait_for(&self, what: &str, script: &str) {
        self.wait_within(what, script, Duration::from_secs(20));
    }

    /// Waits until `script` returns true, polling every 50 ms for up to
    /// `limit`.
    pub fn wait_within(&self, what: &str, script: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        loop {
            let v = self.eval(script);
            if v == Value::Bool(true) {
                return;
            }
            if Instant::now() > deadline {
                let dom = self.eval("return document.body ? document.body.innerText : ''");
                panic!("waited {limit:?} for {what}; last {v}; the page says: {dom}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}
