//! An open page across what happens under it, in a real headless Chromium:
//! the server upgraded in place, the server killed and started again, and
//! the web view itself killed and started again. The page is never
//! reloaded; it ends showing exactly what the server holds, and a question
//! asked afterwards is answered from it.

use super::browser::Browser;
use super::{LONG, Setup, fake_claude, paired_browser, pending_of, setup, tap_allow_once, verdict};
use crate::support::agents::type_line;
use crate::support::{Client, ok, str_field};
use serde_json::{Value, json};
use std::path::Path;

/// Every pane of the server: id → (lifecycle, name).
fn server_panes(c: &mut Client) -> serde_json::Map<String, Value> {
    let list = ok(c.call("workspace.list", json!({})));
    let mut out = serde_json::Map::new();
    for w in list["workspaces"].as_array().into_iter().flatten() {
        let got = c.call("workspace.get", json!({"workspace_id": w["id"]}));
        let Some(got) = got.result else { continue };
        for p in got["panes"].as_array().into_iter().flatten() {
            out.insert(
                str_field(p, "id").to_owned(),
                json!([p["lifecycle"], p["name"]]),
            );
        }
    }
    out
}

/// Waits until the page lists exactly the server's panes, each with the
/// server's lifecycle and (when it has one) name.
fn page_matches_server(b: &Browser, c: &mut Client, when: &str) {
    let mut last = (Value::Null, Value::Null);
    let matched = crate::support::poll_until(LONG, || {
        let want = Value::Object(server_panes(c));
        let seen = b.eval(
            "const out = {}; for (const r of document.querySelectorAll('.pane')) \
               out[r.dataset.pane] = [r.dataset.state, r.querySelector('.name').textContent]; \
             return out",
        );
        let same = want.as_object().is_some_and(|w| {
            seen.as_object().is_some_and(|s| {
                w.len() == s.len()
                    && w.iter().all(|(id, v)| {
                        s.get(id).is_some_and(|shown| {
                            shown[0] == v[0] && (v[1].is_null() || shown[1] == v[1])
                        })
                    })
            })
        });
        last = (want, seen);
        same
    });
    assert!(
        matched,
        "{when}: the page never showed the server's panes\nserver {}\npage   {}",
        last.0, last.1
    );
}

/// A question asked in `pane` (its reporter writing to `dir`) appears on the
/// page and is answered there with Allow once; the reporter gets it.
fn ask_and_answer_on_the_page(s: &Setup, b: &Browser, pane: &str, dir: &Path, n: usize) {
    let mut c = s.server.client();
    type_line(&mut c, pane, "ask Bash");
    let d = pending_of(&s.server, pane);
    let card = format!(".question[data-decision=\"{}\"]", str_field(&d, "id"));
    tap_allow_once(b, &card, LONG);
    let verdict = verdict(dir, n);
    assert!(verdict.contains("\"allow\""), "{verdict}");
    b.wait_for(
        "the question gone",
        &format!("return !document.querySelector('{card}')"),
    );
}

fn workspace_of(c: &mut Client, pane: &str) -> String {
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    str_field(&p["pane"], "workspace_id").to_owned()
}

#[test]
fn an_open_page_rides_an_upgrade_and_a_crash_of_the_server_and_misses_nothing() {
    let mut s = setup();
    let b = paired_browser(&s);
    b.eval("window.__kept = document.body.dataset.epoch; return true");
    let ws = workspace_of(&mut s.server.client(), &s.pane);

    // An upgrade in place, and changes made right behind it: the page's
    // feed resubscribes from its last seq and replays what it missed.
    s.server.client().call_ok("server.upgrade", json!({}));
    let mut c = s.server.client();
    ok(c.call(
        "pane.rename",
        json!({"pane_id": s.pane, "name": "after-upgrade"}),
    ));
    for n in 0..3 {
        let p = ok(c.call("pane.split", json!({"pane_id": s.pane, "argv": ["cat"]})));
        let id = str_field(&p["pane"], "id").to_owned();
        ok(c.call(
            "pane.rename",
            json!({"pane_id": id, "name": format!("cat-{n}")}),
        ));
    }
    page_matches_server(&b, &mut c, "after the upgrade");
    ask_and_answer_on_the_page(&s, &b, &s.pane, &s.dir, 1);

    // A SIGKILL and a fresh start: the panes come back as tombstones, and
    // a new agent's question still reaches the page.
    s.server.crash_and_restart();
    let mut c = s.server.client();
    page_matches_server(&b, &mut c, "after the restart");
    let (pane, dir) = fake_claude(&s.server, &ws, "agent-2");
    ask_and_answer_on_the_page(&s, &b, &pane, &dir, 1);
    page_matches_server(&b, &mut c, "after the new agent's question");

    // All of it without a reload, and from the same run of the view.
    assert_eq!(
        b.eval("return window.__kept === document.body.dataset.epoch"),
        Value::Bool(true),
        "the page was reloaded or the view's run changed"
    );
}

#[test]
fn a_restarted_web_view_keeps_the_page_paired_and_current() {
    let mut s = setup();
    let b = paired_browser(&s);
    let epoch = b.eval("window.__kept = true; return document.body.dataset.epoch");
    // The view is killed and comes back on the same address: the page
    // reconnects by itself, its session survived (as a hash in the state
    // dir), and it takes the new run's world.
    s.view.restart(&s.server);
    b.wait_for(
        "the page live on the view's new run",
        &format!(
            "return document.body.dataset.epoch !== {epoch} \
             && document.getElementById('status').textContent.includes('live')"
        ),
    );
    assert_eq!(
        b.eval("return document.getElementById('unpaired').hidden && window.__kept === true"),
        Value::Bool(true),
        "still paired, never reloaded"
    );
    page_matches_server(&b, &mut s.server.client(), "after the view's restart");
    ask_and_answer_on_the_page(&s, &b, &s.pane, &s.dir, 1);
}
