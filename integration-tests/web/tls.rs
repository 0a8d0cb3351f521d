//! The view served over TLS (docs/web.md#reaching-it-from-a-phone): with a
//! certificate and key it listens on every address, prints an https link,
//! and a real Chromium pairs over it and gets a `Secure` cookie; a key
//! that is not a key is a clear error before anything listens.

use super::browser::Browser;
use super::view::WebView;
use super::{pair_browser, setup};
use crate::support::TestServer;
use std::path::{Path, PathBuf};

/// The suite's self-signed certificate for 127.0.0.1 and localhost, and
/// its key (integration-tests/fixtures/web-tls).
fn self_signed() -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("integration-tests/fixtures/web-tls");
    (dir.join("cert.pem"), dir.join("key.pem"))
}

#[test]
fn over_tls_the_view_listens_beyond_loopback_and_its_cookie_is_secure() {
    let mut s = setup();
    let (cert, key) = self_signed();
    let (cert, key) = (cert.to_string_lossy(), key.to_string_lossy());
    let tls = ["--tls-cert", cert.as_ref(), "--tls-key", key.as_ref()];
    // One view per server: the plain one goes first.
    s.view.kill();
    s.view = WebView::start_with(&s.server, "0.0.0.0:0", &tls);
    let url = s.view.pair_url();
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
    let b = Browser::start_with(&["--ignore-certificate-errors"]);
    pair_browser(&b, &url, &s.pane);
    let cookies = b.cdp(
        "Network.getCookies",
        serde_json::json!({"urls": [s.view.origin()]}),
    );
    let session = cookies["cookies"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "signaltty_session"))
        .unwrap_or_else(|| panic!("no session cookie: {cookies}"));
    assert_eq!(session["secure"], true, "{session}");
    assert_eq!(session["httpOnly"], true, "{session}");
    assert_eq!(session["sameSite"], "Strict", "{session}");
}

#[test]
fn a_certificate_or_key_that_cannot_be_read_is_named() {
    let server = TestServer::start();
    let dir = server.env().root();
    let (cert, key) = self_signed();
    let junk = dir.join("junk.pem");
    std::fs::write(&junk, "not a key\n").unwrap_or_else(|e| panic!("write: {e}"));
    for (cert, key, named) in [
        (cert.clone(), junk.clone(), "--tls-key"),
        (dir.join("missing.pem"), key.clone(), "--tls-cert"),
    ] {
        let out = server.env().cli(&[
            "web",
            "--listen",
            "127.0.0.1:0",
            "--no-qr",
            "--tls-cert",
            &cert.to_string_lossy(),
            "--tls-key",
            &key.to_string_lossy(),
        ]);
        assert!(!out.status.success(), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(named), "{named}: {err}");
    }
}
