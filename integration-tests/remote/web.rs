//! `signaltty web --all-hosts` over real ssh, in a real headless Chromium:
//! every server under its heading in fleet order, a question raised on a
//! host answered from the page, and a host that stops answering marked
//! while this machine's question is still answered from the same page.

use super::*;
use crate::web::browser::Browser;
use crate::web::tap_allow_once;
use crate::web::view::WebView;
use std::time::Instant;

/// The list's headings and rows in page order: a host's name and state, or
/// a pane's id.
const LIST: &str = "return [...document.querySelectorAll('#p-list .group.host, #p-list .pane')] \
    .map((e) => e.classList.contains('pane') ? e.dataset.pane \
      : e.querySelector('.gname').textContent + ' ' + e.querySelector('.hoststate').textContent)";

fn list_is(want: &[&str]) -> String {
    format!(
        "const got = (() => {{ {LIST} }})(); return JSON.stringify(got) === '{}'",
        serde_json::to_string(want).unwrap_or_default()
    )
}

fn answer_on_the_page(b: &Browser, host: &str, pane: &str) {
    let card = format!(".question[data-host=\"{host}\"][data-pane=\"{pane}\"]");
    tap_allow_once(b, &card, REMOTE);
}

#[test]
fn the_web_view_of_every_host_answers_a_remote_question_and_marks_a_silent_host() {
    let mut sshd = Sshd::start(&["hosta"]);
    let local = TestServer::start();
    add_hosts(&local, &sshd);
    let here = named_on(&local, "local", "exec sleep 600", "here-pane");
    let far = named_on(&local, "hosta", "exec sleep 600", "far-pane");
    let view = WebView::start_with(&local, "127.0.0.1:0", &["--all-hosts"]);
    let b = Browser::start();
    b.goto(&format!("http://{}{}", view.addr(), view.pair_path()));
    b.wait_within(
        "both hosts live, each over its panes, this machine first",
        &list_is(&["local live", &here, "hosta live", &far]),
        REMOTE,
    );

    // A question raised on the host, answered here.
    let reporter = remote_reporter(&sshd, "hosta", &far);
    answer_on_the_page(&b, "hosta", &far);
    allowed(reporter);

    // The host stops answering: marked within ten seconds, its rows kept,
    // and this machine's question is answered meanwhile.
    sshd.freeze();
    let frozen = Instant::now();
    b.wait_within(
        "the silent host marked",
        &list_is(&["local live", &here, "hosta reconnecting", &far]),
        Duration::from_secs(10),
    );
    eprintln!(
        "the page marked the host {:?} after it stopped answering",
        frozen.elapsed()
    );
    let reporter = local_reporter(&local, &here);
    answer_on_the_page(&b, "local", &here);
    allowed(reporter);

    sshd.thaw();
    b.wait_within(
        "the host back, no row doubled",
        &list_is(&["local live", &here, "hosta live", &far]),
        REMOTE,
    );
    drop(b);
    drop(view);
    stop_hosts(&local, &sshd);
}
