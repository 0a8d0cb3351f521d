//! The web view's HTTP side on actix-web: the pairing link, the page and its
//! shell files, the live channel and the actions. Every response carries a
//! strict Content-Security-Policy, `no-referrer` (the pairing link holds a
//! code) and `no-store`; every request names one of our own hosts (a DNS
//! rebinding page gets nothing). Without a paired session nothing but the
//! shell and the "pair this browser" page is served (docs/web.md#pairing).

use super::access::{Access, Refused};
use super::hub::{BACKLOG, Hub};
use super::{actions, live, now_ms, store};
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use parking_lot::Mutex;
use signaltty_model::client::Target;
use std::path::PathBuf;
use std::sync::Arc;

/// The session cookie's name.
pub const COOKIE: &str = "signaltty_session";

/// What every handler shares.
pub struct App {
    pub hub: Arc<Hub>,
    pub access: Mutex<Access>,
    /// Per host, in fleet order, with its name.
    pub targets: Vec<(String, Target)>,
    /// The origins a change or the live channel may come from.
    pub origins: Vec<String>,
    /// Served over TLS: the cookie is `Secure`.
    pub secure: bool,
    /// Where the paired sessions are kept (their hashes).
    pub sessions_file: PathBuf,
    /// Bumped when a session is revoked: live channels check theirs.
    pub revoked: tokio::sync::watch::Sender<u64>,
}

impl App {
    pub fn target(&self, host: &str) -> Option<&Target> {
        self.targets.iter().find(|(n, _)| n == host).map(|(_, t)| t)
    }

    /// The request's session cookie, when it names a live session.
    pub fn cookie_of(&self, req: &HttpRequest) -> Option<String> {
        let cookie = cookie_value(req)?;
        let mut access = self.access.lock();
        access.session(&cookie, now_ms())?;
        Some(cookie)
    }

    /// Whether a state-changing request may go ahead: its session, its
    /// CSRF token and its Origin.
    pub fn may_change(&self, req: &HttpRequest) -> bool {
        let Some(cookie) = cookie_value(req) else {
            return false;
        };
        let csrf = header_str(req, "x-csrf-token").unwrap_or_default();
        let origin = header_str(req, "origin");
        self.access
            .lock()
            .may_change(&cookie, &csrf, origin.as_deref(), &self.origins, now_ms())
    }

    /// Whether the request's Origin is ours (the live channel's check).
    pub fn origin_ok(&self, req: &HttpRequest) -> bool {
        header_str(req, "origin").is_some_and(|o| self.origins.contains(&o))
    }

    pub fn save_sessions(&self) {
        let sessions = self.access.lock().sessions().to_vec();
        if let Err(e) = store::save(&self.sessions_file, &sessions) {
            log::warn!("cannot keep the paired sessions: {e}");
        }
    }
}

/// The session cookie's value in the request's `Cookie` headers.
pub fn cookie_value(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get_all(header::COOKIE)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.to_owned())
}

pub fn header_str(req: &HttpRequest, name: &str) -> Option<String> {
    req.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(index))
        .route("/pair", web::get().to(pair))
        .route("/live", web::get().to(live::open))
        .route("/api/answer", web::post().to(actions::answer))
        .route("/api/submit", web::post().to(actions::submit))
        .route("/api/task", web::post().to(actions::task))
        .route("/api/diffstat", web::get().to(actions::diffstat))
        .route("/{file}", web::get().to(shell));
}

const INDEX: &str = include_str!("page/index.html");

/// A shell file: holds no data, so it needs no session.
async fn shell(path: web::Path<String>) -> HttpResponse {
    let (body, kind): (&'static [u8], &str) = match path.as_str() {
        "app.css" => (
            include_str!("page/app.css").as_bytes(),
            "text/css; charset=utf-8",
        ),
        "app.js" => (
            include_str!("page/app.js").as_bytes(),
            "text/javascript; charset=utf-8",
        ),
        "sw.js" => (
            include_str!("page/sw.js").as_bytes(),
            "text/javascript; charset=utf-8",
        ),
        "icon.svg" => (include_str!("page/icon.svg").as_bytes(), "image/svg+xml"),
        // The SVG drawn by headless Chromium at the sizes phones ask for
        // (docs/web.md#how-it-is-built-and-tested).
        "icon-180.png" => (include_bytes!("page/icon-180.png"), "image/png"),
        "icon-192.png" => (include_bytes!("page/icon-192.png"), "image/png"),
        "icon-512.png" => (include_bytes!("page/icon-512.png"), "image/png"),
        "manifest.webmanifest" => (
            include_str!("page/manifest.webmanifest").as_bytes(),
            "application/manifest+json",
        ),
        _ => return HttpResponse::NotFound().body("not found"),
    };
    HttpResponse::Ok().content_type(kind).body(body)
}

/// The page, with the session's CSRF token; the pairing page without one.
async fn index(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
    match app.cookie_of(&req) {
        Some(cookie) => {
            let csrf = super::access::csrf_of(&cookie);
            HttpResponse::Ok()
                .content_type("text/html; charset=utf-8")
                .body(INDEX.replace("{{CSRF}}", &csrf))
        },
        None => unpaired(),
    }
}

/// What a browser without a session sees (and nothing else).
pub fn unpaired() -> HttpResponse {
    HttpResponse::Unauthorized()
        .content_type("text/html; charset=utf-8")
        .body(notice(
            "Pair this browser",
            "This browser is not paired with signaltty. On the machine that runs it, \
             run `signaltty web pair` and open the link it prints (or scan its QR code).",
        ))
}

fn notice(title: &str, text: &str) -> String {
    format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8>\
         <meta name=viewport content=\"width=device-width,initial-scale=1\">\
         <title>signaltty: {title}</title><link rel=stylesheet href=/app.css></head>\
         <body class=notice><main><h1>{title}</h1><p id=notice>{text}</p></main></body></html>"
    )
}

#[derive(serde::Deserialize)]
struct PairQuery {
    code: Option<String>,
}

/// `/pair?code=…`: a good code sets the session cookie and goes to the
/// page; a used, expired or wrong one says so, and too many wrong ones in a
/// minute make everyone wait.
async fn pair(req: HttpRequest, app: web::Data<App>, q: web::Query<PairQuery>) -> HttpResponse {
    let code = q.code.clone().unwrap_or_default();
    let label = header_str(&req, "user-agent").unwrap_or_else(|| "a browser".into());
    let result = app.access.lock().pair(&code, &label, now_ms());
    match result {
        Ok(paired) => {
            // The sessions file is written and synced off the async threads.
            let kept = app.clone();
            let _ = web::block(move || kept.save_sessions()).await;
            let mut cookie = format!(
                "{COOKIE}={}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}",
                paired.cookie,
                super::access::IDLE_LIFETIME_MS / 1000
            );
            if app.secure {
                cookie.push_str("; Secure");
            }
            HttpResponse::SeeOther()
                .insert_header((header::LOCATION, "/"))
                .insert_header((header::SET_COOKIE, cookie))
                .finish()
        },
        Err(Refused::BadCode) => HttpResponse::Forbidden()
            .content_type("text/html; charset=utf-8")
            .body(notice(
                "This pairing code does not work",
                "It was used already, has expired (codes last 10 minutes) or is wrong. \
                 Run `signaltty web pair` for a fresh one.",
            )),
        Err(Refused::RateLimited { retry_after_ms }) => HttpResponse::TooManyRequests()
            .insert_header((
                header::RETRY_AFTER,
                retry_after_ms.div_ceil(1000).to_string(),
            ))
            .content_type("text/html; charset=utf-8")
            .body(notice(
                "Too many wrong codes",
                "Pairing is paused for a minute after five wrong codes.",
            )),
    }
}

/// The headers every response carries, and the Host check.
pub fn guard(hosts: &[String], req: &actix_web::dev::ServiceRequest) -> bool {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
}

pub fn harden(headers: &mut actix_web::http::header::HeaderMap) {
    let set = |h: &mut header::HeaderMap, k: &'static str, v: &'static str| {
        h.insert(
            header::HeaderName::from_static(k),
            HeaderValue::from_static(v),
        );
    };
    set(
        headers,
        "content-security-policy",
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; \
         script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
    set(headers, "referrer-policy", "no-referrer");
    set(headers, "x-content-type-options", "nosniff");
    set(headers, "x-frame-options", "DENY");
    set(headers, "cache-control", "no-store");
}

/// Room for a page's channel.
pub fn sink() -> (super::hub::Sink, tokio::sync::mpsc::Receiver<Arc<str>>) {
    tokio::sync::mpsc::channel(BACKLOG)
}
