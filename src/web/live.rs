//! The live channel: one WebSocket per open page, fed by the hub (the world
//! or the patches since the page's version, then every patch) and, while the
//! page shows a pane, by that pane's screen. It checks Origin (a page of
//! another site gets a 403 even with the cookie) and ends when its session
//! is revoked (docs/web.md#the-live-channel).

use super::http::{App, sink};
use super::screen::{self, Watch};
use actix_web::{HttpRequest, HttpResponse, web};
use actix_ws::Message;
use futures_util::StreamExt as _;
use signaltty_protocol::PaneId;

#[derive(serde::Deserialize)]
pub struct LiveQuery {
    epoch: Option<String>,
    v: Option<u64>,
}

#[derive(serde::Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Op {
    Watch { host: String, pane: String },
    Unwatch,
}

pub async fn open(
    req: HttpRequest,
    body: web::Payload,
    app: web::Data<App>,
    q: web::Query<LiveQuery>,
) -> actix_web::Result<HttpResponse> {
    let Some(cookie) = app.cookie_of(&req) else {
        return Ok(HttpResponse::Unauthorized().body("not paired"));
    };
    if !app.origin_ok(&req) {
        return Ok(HttpResponse::Forbidden().body("not from this page's origin"));
    }
    let (response, mut ws, mut incoming) = actix_ws::handle(&req, body)?;
    let (tx, mut patches) = sink();
    let first = app.hub.join(q.epoch.as_deref(), q.v, tx);
    let (screen_tx, mut screens) = sink();
    let mut revoked = app.revoked.subscribe();
    let app = app.into_inner();
    actix_rt::spawn(async move {
        for m in first {
            if ws.text(&*m).await.is_err() {
                return;
            }
        }
        let mut watch: Option<Watch> = None;
        loop {
            tokio::select! {
                m = patches.recv() => match m {
                    Some(m) => if ws.text(&*m).await.is_err() { break },
                    // Dropped for falling behind: the page resumes.
                    None => break,
                },
                Some(m) = screens.recv() => if ws.text(&*m).await.is_err() { break },
                msg = incoming.next() => match msg {
                    Some(Ok(Message::Text(text))) => match serde_json::from_str::<Op>(&text) {
                        Ok(Op::Watch { host, pane }) => {
                            watch = None;
                            if let Some(target) = app.target(&host) {
                                watch = Some(screen::watch(
                                    host, target.clone(), PaneId(pane), screen_tx.clone(),
                                ));
                            }
                        },
                        Ok(Op::Unwatch) => watch = None,
                        Err(_) => {},
                    },
                    Some(Ok(Message::Ping(p))) => if ws.pong(&p).await.is_err() { break },
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(_)) => {},
                },
                changed = revoked.changed() => {
                    let gone = changed.is_err()
                        || app.access.lock().session(&cookie, super::now_ms()).is_none();
                    if gone { break }
                },
            }
        }
        drop(watch);
        let _ = ws.close(None).await;
    });
    Ok(response)
}
