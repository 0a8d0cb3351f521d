//! A phone's habits, in a real headless Chromium: the page installs as an
//! app (Chromium finds nothing against it; its icons load; its service
//! worker opens the shell while the view is down), and a question that
//! arrives while the page is in the background becomes a notification,
//! which goes away once the question is answered — while a page in front
//! notifies of nothing.

use super::browser::Browser;
use super::{LONG, Setup, paired_browser, setup, tap_allow_once, verdict, wait_live_with};
use crate::support::agents::type_line;
use crate::support::{ok, str_field, wait_until};
use serde_json::{Value, json};

/// The notifications the page's service worker shows, as `[title, body, tag]`.
fn notifications(b: &Browser) -> Value {
    b.eval_async(
        "const done = arguments[arguments.length - 1]; \
         navigator.serviceWorker.ready.then((r) => r.getNotifications()) \
           .then((l) => done(l.map((n) => [n.title, n.body, n.tag])), (e) => done(String(e)))",
    )
}

/// Asks a question in the setup's pane; its decision id.
fn ask(s: &Setup) -> String {
    let mut c = s.server.client();
    let before =
        ok(c.call("pane.get", json!({"pane_id": s.pane})))["pane"]["pending_decision"]["id"]
            .clone();
    type_line(&mut c, &s.pane, "ask Bash");
    wait_until("a new pending decision", LONG, || {
        let p = ok(c.call("pane.get", json!({"pane_id": s.pane})))["pane"].clone();
        let id = &p["pending_decision"]["id"];
        (!id.is_null() && *id != before).then(|| str_field(&p["pending_decision"], "id").to_owned())
    })
}

fn answer_once(s: &Setup, b: &Browser, decision: &str, n: usize) {
    tap_allow_once(b, &format!(".question[data-decision=\"{decision}\"]"), LONG);
    let verdict = verdict(&s.dir, n);
    assert!(verdict.contains("\"allow\""), "{verdict}");
}

#[test]
fn the_page_installs_as_an_app_and_opens_its_shell_while_the_view_is_down() {
    let mut s = setup();
    let b = paired_browser(&s);
    let errors = b.cdp("Page.getInstallabilityErrors", json!({}));
    assert_eq!(errors["installabilityErrors"], json!([]), "{errors}");
    b.wait_for(
        "the service worker running the page",
        "const w = navigator.serviceWorker.controller; return !!w && w.state === 'activated'",
    );
    // Every icon the manifest and the page name loads as what it says.
    let icons = b.eval_async(
        "const done = arguments[arguments.length - 1]; \
         fetch('/manifest.webmanifest').then((r) => r.json()).then((m) => { \
           const srcs = m.icons.map((i) => [i.src, i.type]); \
           const touch = document.querySelector('link[rel=apple-touch-icon]'); \
           srcs.push([new URL(touch.href).pathname, 'image/png']); \
           return Promise.all(srcs.map(([src, type]) => fetch(src).then((r) => \
             r.ok && r.headers.get('content-type') === type ? null : src + ' ' + r.status))); \
         }).then((bad) => done(bad.filter((x) => x)), (e) => done(String(e)))",
    );
    assert_eq!(icons, json!([]), "icons that did not load");
    let sizes = b.eval_async(
        "const done = arguments[arguments.length - 1]; \
         fetch('/manifest.webmanifest').then((r) => r.json()) \
           .then((m) => done(m.icons.map((i) => i.sizes)), (e) => done(String(e)))",
    );
    assert_eq!(sizes, json!(["any", "192x192", "512x512"]));

    // The view goes away: the page, opened again, comes from the service
    // worker's copy and says it is reconnecting; the view back, it is live.
    let addr = s.view.addr().to_owned();
    s.view.kill();
    b.goto(&format!("http://{addr}/"));
    b.wait_for(
        "the shell from the service worker, reconnecting",
        "return !!document.getElementById('status') \
         && document.getElementById('status').textContent.includes('reconnecting')",
    );
    s.view.start_again(&s.server);
    wait_live_with(&b, "the page live again, with its pane", &s.pane);
}

#[test]
fn a_question_notifies_only_a_page_in_the_background_and_its_answer_takes_it_down() {
    let s = setup();
    let b = paired_browser(&s);
    let origin = s.view.origin();
    b.cdp(
        "Browser.grantPermissions",
        json!({"permissions": ["notifications"], "origin": origin}),
    );
    assert_eq!(b.eval("return Notification.permission"), "granted");
    b.eval_async(
        "const done = arguments[arguments.length - 1]; \
         navigator.serviceWorker.ready.then(() => done(true), () => done(false))",
    );
    // In front: the question is on the page, and nothing pops up.
    let first = ask(&s);
    answer_once(&s, &b, &first, 1);
    assert_eq!(notifications(&b), json!([]), "a page in front notifies");

    // In the background: a second tab in front, the first behind it.
    let behind = b.tab();
    b.open_tab();
    b.goto(&format!("{origin}/"));
    b.wait_for(
        "the second tab live",
        "return document.getElementById('status').textContent.includes('live')",
    );
    let second = ask(&s);
    let shown = wait_until("the notification", LONG, || {
        let list = notifications(&b);
        list.as_array()
            .and_then(|l| l.first().cloned())
            .filter(|n| n[2].as_str().is_some_and(|tag| tag.ends_with(&second)))
    });
    assert!(
        shown[0].as_str().is_some_and(|t| t.ends_with(" asks")),
        "{shown}"
    );
    assert!(
        shown[1].as_str().is_some_and(|t| t.contains("Bash")),
        "the question's own text: {shown}"
    );
    assert_eq!(
        notifications(&b).as_array().map(Vec::len),
        Some(1),
        "one notification"
    );
    // Answered from the tab in front: the one behind takes its
    // notification down.
    answer_once(&s, &b, &second, 2);
    assert!(
        crate::support::poll_until(LONG, || notifications(&b) == json!([])),
        "the notification stayed: {}",
        notifications(&b)
    );
    b.switch_to(&behind);
    b.wait_for(
        "the answered question gone from the page behind",
        &format!("return !document.querySelector('.question[data-decision=\"{second}\"]')"),
    );
}
