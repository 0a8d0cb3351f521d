//! A page of another origin in the same real browser, which holds a paired
//! session: whatever it tries — a JSON POST (stopped at its preflight), a
//! plain POST its cookie rides along with, a form posted to the view, a
//! WebSocket, reading the page — answers nothing and reads nothing. The
//! same browser then answers from the view's own page, so the refusals
//! were the origin's, not a missing session's.

use super::{LONG, paired_browser, pending, setup, tap_allow_once, verdict};
use crate::support::agents::type_line;
use crate::support::{str_field, wait_until};
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;

/// A site of its own on another loopback port (another origin, the same
/// site to the browser, so a `SameSite=Strict` cookie still rides along):
/// every request gets a small blank page. Its thread lives as long as the
/// test process.
fn elsewhere() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind: {e}"));
    let addr = listener
        .local_addr()
        .unwrap_or_else(|e| panic!("addr: {e}"));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let page = "<!doctype html><title>elsewhere</title><body>elsewhere</body>";
            let mut w = &stream;
            let _ = write!(
                w,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{page}",
                page.len()
            );
        }
    });
    format!("127.0.0.1:{}", addr.port())
}

#[test]
fn a_page_of_another_origin_can_neither_answer_nor_listen_nor_read() {
    let s = setup();
    let b = paired_browser(&s);
    let mut c = s.server.client();
    type_line(&mut c, &s.pane, "ask Bash");
    let d = pending(&s);
    let view = json!(format!("http://{}", s.view.addr()));
    let body = json!(
        json!({"host": "local", "pane": s.pane, "decision": str_field(&d, "id"), "option": "once"})
            .to_string()
    );
    b.goto(&format!("http://{}/", elsewhere()));
    let tried = b.eval_async(&format!(
        "const done = arguments[arguments.length - 1]; \
         const view = {view}; const body = {body}; \
         (async () => {{ \
           const out = {{}}; \
           try {{ const r = await fetch(view + '/api/answer', {{method: 'POST', \
               credentials: 'include', headers: {{'Content-Type': 'application/json'}}, body}}); \
             out.json_post = r.status; }} catch (e) {{ out.json_post = 'blocked'; }} \
           try {{ await fetch(view + '/api/answer', {{method: 'POST', mode: 'no-cors', \
               credentials: 'include', headers: {{'Content-Type': 'text/plain'}}, body}}); \
             out.plain_post = 'sent'; }} catch (e) {{ out.plain_post = 'failed: ' + e; }} \
           try {{ const r = await fetch(view + '/', {{credentials: 'include'}}); \
             out.read = await r.text(); }} catch (e) {{ out.read = 'blocked'; }} \
           out.live = await new Promise((res) => {{ \
             const w = new WebSocket(view.replace('http:', 'ws:') + '/live'); \
             let opened = false; \
             w.onopen = () => {{ opened = true; }}; \
             w.onmessage = () => res('a message'); \
             w.onclose = () => res(opened ? 'opened' : 'refused'); }}); \
           return out; \
         }})().then(done, (e) => done({{error: String(e)}}));"
    ));
    assert_eq!(
        tried,
        json!({"json_post": "blocked", "plain_post": "sent", "read": "blocked", "live": "refused"}),
        "what the other origin got"
    );
    // A form posted to the view, made to look like the answer's JSON: the
    // browser goes to the view's reply, which refuses it.
    b.eval(&format!(
        "const body = {body}; const f = document.createElement('form'); \
         f.method = 'POST'; f.action = {view} + '/api/answer'; f.enctype = 'text/plain'; \
         const i = document.createElement('input'); \
         i.name = body.slice(0, -1) + ',\"pad\":\"'; i.value = '\"}}'; \
         f.append(i); document.body.append(f); f.submit(); return true"
    ));
    b.wait_for(
        "the view's refusal of the form",
        "return location.pathname === '/api/answer' \
         && document.body.innerText.includes('FORBIDDEN')",
    );
    assert_eq!(pending(&s)["id"], d["id"], "the question still waits");
    assert!(!s.dir.join("verdict.1").exists(), "no verdict was given");

    // The same browser, on the view's own page, answers it.
    b.goto(&format!("http://{}/", s.view.addr()));
    let card = format!(".question[data-decision=\"{}\"]", str_field(&d, "id"));
    tap_allow_once(&b, &card, LONG);
    let verdict = verdict(&s.dir, 1);
    assert!(verdict.contains("\"allow\""), "{verdict}");
    let _: Value = pending_gone(&s);
}

/// Waits until the setup's pane has no question left.
fn pending_gone(s: &super::Setup) -> Value {
    let mut c = s.server.client();
    wait_until("the question ended", LONG, || {
        let p = crate::support::ok(c.call("pane.get", json!({"pane_id": s.pane})))["pane"].clone();
        p["pending_decision"].is_null().then_some(p)
    })
}
