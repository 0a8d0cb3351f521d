//! The web view end to end (docs/web.md): the real server, a fake agent, the
//! real `signaltty web` process, spoken to over real HTTP and WebSocket from
//! the test (`view.rs`). What a browser does on top is `browser.rs`.

pub(crate) mod browser;
mod foreign;
mod page;
mod phone;
mod resume;
mod tls;
pub(crate) mod view;

use crate::support::agents::{spawn_fake_with, type_line, wait_state, workspace};
use crate::support::{TestServer, ok, str_field, wait_until};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;
use view::{WebView, ws_handshake, ws_next_message};

const LONG: Duration = Duration::from_secs(20);

/// A server, a fake Claude that asks for permission through the real waiting
/// reporter, and a web view with a paired session.
struct Setup {
    server: TestServer,
    view: WebView,
    pane: String,
    dir: PathBuf,
}

fn setup() -> Setup {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "web");
    let (pane, dir) = fake_claude(&server, &ws, "agent");
    let view = WebView::start(&server);
    Setup {
        server,
        view,
        pane,
        dir,
    }
}

/// Starts a fake Claude in a new tab of `ws` whose reporters write into
/// `<root>/<name>`, and waits until it is idle: its pane and that folder.
fn fake_claude(server: &TestServer, ws: &str, name: &str) -> (String, PathBuf) {
    let mut c = server.client();
    let dir = server.env().root().join(name);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("agent dir: {e}"));
    let pane = spawn_fake_with(
        &mut c,
        ws,
        "fake-claude",
        json!({"SIGNALTTY_FAKE_DIR": dir.to_string_lossy()}),
    );
    wait_state(&mut c, &pane, "idle");
    (pane, dir)
}

fn pending(s: &Setup) -> Value {
    pending_of(&s.server, &s.pane)
}

/// Waits until `pane` has a pending decision; the decision.
fn pending_of(server: &TestServer, pane: &str) -> Value {
    let mut c = server.client();
    wait_until("a pending decision", LONG, || {
        let p = ok(c.call("pane.get", json!({"pane_id": pane})))["pane"].clone();
        (!p["pending_decision"].is_null()).then(|| p["pending_decision"].clone())
    })
}

/// Waits until the fake agent's `n`th reporter has printed its verdict
/// into `dir`; the verdict.
fn verdict(dir: &Path, n: usize) -> String {
    wait_until("the reporter's verdict", LONG, || {
        std::fs::read_to_string(dir.join(format!("verdict.{n}"))).ok()
    })
}

/// Waits for the question card `card` to offer Allow once, then taps it.
pub(crate) fn tap_allow_once(b: &browser::Browser, card: &str, within: Duration) {
    b.wait_within(
        "the question on the page",
        &format!("return !!document.querySelector('{card} button.option[data-option=\"once\"]')"),
        within,
    );
    b.tap(&format!("{card} button.option[data-option=\"once\"]"));
}

/// A browser paired with the view's printed link, once the page shows the
/// pane over a live channel.
fn paired_browser(s: &Setup) -> browser::Browser {
    let b = browser::Browser::start();
    pair_browser(&b, &s.view.pair_url(), &s.pane);
    b
}

/// Pairs `b` with the link `url` and waits until the page shows `pane`
/// over a live channel.
fn pair_browser(b: &browser::Browser, url: &str, pane: &str) {
    b.goto(url);
    wait_live_with(b, "the pane listed over a live channel", pane);
}

/// Waits until the page is live and lists `pane`.
fn wait_live_with(b: &browser::Browser, what: &str, pane: &str) {
    b.wait_for(
        what,
        &format!(
            "return document.getElementById('status').textContent.includes('live') \
             && !!document.querySelector('.pane[data-pane=\"{pane}\"]')"
        ),
    );
}

#[test]
fn nothing_is_served_before_pairing_and_a_code_pairs_once() {
    let s = setup();
    let v = &s.view;
    let (status, _, body) = v.get("/", None);
    assert_eq!(status, 401);
    assert!(body.contains("signaltty web pair"), "{body}");
    assert!(!body.contains(&s.pane), "no pane id before pairing");
    for path in ["/api/diffstat?host=local&task=t", "/live"] {
        assert_eq!(v.get(path, None).0, 401, "{path}");
    }
    let (status, headers, _) = v.get(&v.pair_path(), None);
    assert_eq!(status, 303);
    let cookie = headers
        .iter()
        .find(|(k, _)| k == "set-cookie")
        .map(|(_, v)| v.clone())
        .expect("a cookie");
    for attr in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(attr), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "no TLS here: {cookie}");
    assert!(
        headers
            .iter()
            .any(|(k, v)| k == "referrer-policy" && v == "no-referrer")
    );
    // The same code a second time, and a made-up one.
    assert_eq!(v.get(&v.pair_path(), None).0, 403);
    assert_eq!(v.get("/pair?code=0000", None).0, 403);
    let session = view::cookie_pair(&cookie);
    let (status, _, page) = v.get("/", Some(&session));
    assert_eq!(status, 200);
    assert!(page.contains("name=\"csrf\""), "{page}");
    assert!(!page.contains("{{CSRF}}"));
    // A Host that is not ours gets nothing, cookie or not.
    assert_eq!(v.get_with_host("/", Some(&session), "evil.example").0, 421);
    // Codes and cookies never reach the state dir, the journal or the log.
    let code = v
        .pair_path()
        .rsplit('=')
        .next()
        .unwrap_or_default()
        .to_owned();
    let secret = session.split('=').nth(1).unwrap_or_default().to_owned();
    let kept = view::all_text_under(&s.server.env().root().join("state"));
    assert!(!kept.contains(&code) && !kept.contains(&secret));
    assert!(
        kept.contains("cookie_sha256"),
        "the sessions file keeps the hash"
    );
}

#[test]
fn an_answer_from_the_page_reaches_the_reporter_once_and_a_cross_origin_one_is_refused() {
    let s = setup();
    let v = &s.view;
    let session = v.pair();
    let csrf = v.csrf(&session);
    let mut c = s.server.client();
    type_line(&mut c, &s.pane, "ask Bash");
    let d = pending(&s);
    let body =
        json!({"host": "local", "pane": s.pane, "decision": str_field(&d, "id"), "option": "once"});
    let origin = v.origin();
    // No token, a wrong token, another origin, no origin: refused, and the
    // question still waits.
    for (token, from) in [
        (None, Some(origin.as_str())),
        (Some("nope"), Some(origin.as_str())),
        (Some(csrf.as_str()), Some("http://evil.example")),
        (Some(csrf.as_str()), None),
    ] {
        let (status, _, text) = v.post("/api/answer", &session, token, from, &body);
        assert_eq!(status, 403, "{token:?} {from:?}: {text}");
    }
    assert!(!pending(&s)["id"].is_null());
    // A body that is not the answer's shape is a clear 400, and changes
    // nothing.
    let (status, _, text) = v.post(
        "/api/answer",
        &session,
        Some(&csrf),
        Some(&origin),
        &json!({"pane": s.pane}),
    );
    assert_eq!(status, 400, "{text}");
    let refusal: Value = serde_json::from_str(&text).expect("a JSON refusal");
    assert_eq!(refusal["code"], "BAD_PARAMS", "{refusal}");
    assert!(!pending(&s)["id"].is_null());
    let (status, _, text) = v.post("/api/answer", &session, Some(&csrf), Some(&origin), &body);
    assert_eq!(status, 200, "{text}");
    let verdict = verdict(&s.dir, 1);
    assert!(verdict.contains("\"allow\""), "{verdict}");
    // The same answer again lost the race: 409 with the server's code.
    let (status, _, text) = v.post("/api/answer", &session, Some(&csrf), Some(&origin), &body);
    assert_eq!(status, 409, "{text}");
    assert!(text.contains("NO_SUCH_DECISION"), "{text}");
}

#[test]
fn the_live_channel_checks_origin_and_starts_with_the_world() {
    let s = setup();
    let v = &s.view;
    let session = v.pair();
    let (status, _) = ws_handshake(v.addr(), "/live", &session, "http://evil.example");
    assert_eq!(status, 403);
    let (status, mut stream) = ws_handshake(v.addr(), "/live", &session, &v.origin());
    assert_eq!(status, 101);
    let world: Value = serde_json::from_str(&ws_next_message(&mut stream)).expect("json");
    assert_eq!(world["t"], "world");
    // The pane arrives in the world, or in a patch once the view's own
    // subscription has read the server's state; versions one apart.
    let mut v_last = world["v"].as_u64().expect("a version");
    let mut items = world["items"].as_array().cloned().unwrap_or_default();
    let has_pane = |items: &[Value]| items.iter().any(|i| i["pane"]["id"] == s.pane.as_str());
    while !has_pane(&items) {
        let patch: Value = serde_json::from_str(&ws_next_message(&mut stream)).expect("json");
        assert_eq!(patch["t"], "patch");
        assert_eq!(patch["v"].as_u64(), Some(v_last + 1), "{patch}");
        v_last += 1;
        items = patch["set"].as_array().cloned().unwrap_or_default();
    }
    // A question asked now reaches the open channel as a patch.
    let mut c = s.server.client();
    type_line(&mut c, &s.pane, "ask Bash");
    loop {
        let patch: Value = serde_json::from_str(&ws_next_message(&mut stream)).expect("json");
        let set = patch["set"].as_array().cloned().unwrap_or_default();
        if set
            .iter()
            .any(|i| i["pane"]["id"] == s.pane.as_str() && !i["pane"]["pending_decision"].is_null())
        {
            break;
        }
    }
}

#[test]
fn web_pair_sessions_and_revoke_reach_the_running_view() {
    let s = setup();
    let v = &s.view;
    let session = v.pair();
    let env = s.server.env();
    // A client of the control socket that says nothing holds up the next
    // one for a few seconds at most.
    let _silent =
        std::os::unix::net::UnixStream::connect(env.default_socket().with_file_name("web.sock"))
            .expect("the control socket");
    let out = env.cli(&["web", "pair", "--no-qr"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let url = text
        .lines()
        .find_map(|l| l.strip_prefix("pair: "))
        .expect("a link")
        .to_owned();
    assert!(url.contains("/pair?code="), "{text}");
    let out = env.cli(&["--json", "web", "sessions"]);
    let list: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(list["sessions"].as_array().map(Vec::len), Some(1), "{list}");
    assert_eq!(v.get("/", Some(&session)).0, 200);
    let out = env.cli(&["web", "revoke", "--all"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        v.get("/", Some(&session)).0,
        401,
        "a revoked session sees nothing"
    );
    // A second web view on the same server is refused while the first runs.
    let second = env.cli(&["web", "--listen", "127.0.0.1:0", "--no-qr"]);
    assert!(!second.status.success());
    assert!(String::from_utf8_lossy(&second.stderr).contains("already runs"));
}

#[test]
fn without_a_pairing_link_at_start_no_code_is_printed_and_web_pair_gives_one() {
    // What the systemd unit runs: its output goes to the journal.
    let server = TestServer::start();
    let (mut view, lines) = WebView::start_without_link(&server);
    let second = lines.recv_timeout(LONG).expect("a second line");
    assert!(second.contains("`signaltty web pair`"), "{second}");
    assert_eq!(view.get("/", None).0, 401);
    let out = server.env().cli(&["web", "pair", "--no-qr"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let url = text
        .lines()
        .find_map(|l| l.strip_prefix("pair: "))
        .expect("a link");
    view.use_link(url);
    let session = view.pair();
    assert_eq!(view.get("/", Some(&session)).0, 200);
    // The view itself printed no code, at start or since.
    drop(view);
    let printed: Vec<String> = lines.iter().collect();
    assert!(printed.iter().all(|l| !l.contains("code=")), "{printed:?}");
}

#[test]
fn a_non_loopback_address_needs_tls_or_saying_so() {
    let server = TestServer::start();
    let out = server
        .env()
        .cli(&["web", "--listen", "0.0.0.0:0", "--no-qr"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--tls-cert") && err.contains("--insecure-http"),
        "{err}"
    );
}

#[test]
fn a_browser_pairs_answers_a_question_and_a_fresh_browser_sees_nothing() {
    let s = setup();
    let url = s.view.pair_url();
    let b = browser::Browser::start();
    pair_browser(&b, &url, &s.pane);
    // A question raised now appears without a reload, with its real options.
    let mut c = s.server.client();
    type_line(&mut c, &s.pane, "ask Bash");
    let d = pending(&s);
    let card = format!(".question[data-decision=\"{}\"]", str_field(&d, "id"));
    b.wait_for(
        "the question with Allow once and Deny",
        &format!(
            "const c = document.querySelector('{card}'); return !!c \
             && c.querySelector('button.option[data-option=\"once\"]').textContent === 'Allow once' \
             && !!c.querySelector('button.option[data-option=\"deny\"]')"
        ),
    );
    // At a phone's width nothing scrolls sideways, and every button shown
    // is a finger's height.
    assert_eq!(
        b.eval("return [window.innerWidth, window.innerHeight]"),
        json!([390, 844]),
        "a phone's viewport"
    );
    assert_eq!(
        b.eval(
            "return document.documentElement.scrollWidth <= document.documentElement.clientWidth"
        ),
        Value::Bool(true)
    );
    assert_eq!(
        b.eval(
            "return [...document.querySelectorAll('button')].filter((e) => e.offsetParent) \
               .filter((e) => e.getBoundingClientRect().height < 44).map((e) => e.outerHTML)"
        ),
        json!([]),
        "buttons shorter than 44 px"
    );
    // A tap on Allow once reaches the waiting reporter; the question goes.
    b.eval(&format!(
        "document.querySelector('{card} button.option[data-option=\"once\"]').click(); return true"
    ));
    let verdict = verdict(&s.dir, 1);
    assert!(verdict.contains("\"allow\""), "{verdict}");
    b.wait_for(
        "the question gone, and what was sent said",
        &format!(
            "const t = document.getElementById('toast'); \
             return !document.querySelector('{card}') && !t.hidden \
               && t.textContent.endsWith(': Allow once.')"
        ),
    );
    // The code is used: a fresh browser (no cookie) gets the refusal and
    // no pane.
    let fresh = browser::Browser::start();
    fresh.goto(&url);
    fresh.wait_for(
        "the refusal",
        "return document.body.innerText.includes('does not work')",
    );
    assert_eq!(
        fresh.eval(&format!(
            "return document.documentElement.outerHTML.includes('{}')",
            s.pane
        )),
        Value::Bool(false)
    );
}
