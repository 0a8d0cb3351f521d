//! What a paired page may ask: answer a question, send a prompt, merge or
//! discard a task, a task's diff stat. Each is one method call on its
//! host's server, on a blocking thread, after the session, CSRF and Origin
//! checks; the server's own rules hold (the prompt goes through
//! `pane.submit`'s gate, so it is never typed into a question). An answer
//! that lost a race (given in the terminal or another browser first) is a
//! 409 the page reads as "already answered".

use super::http::App;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};
use signaltty_model::client::{CallError, Client, Target};
use signaltty_protocol::state::{DecisionAnswerParams, PaneSubmitParams};
use signaltty_protocol::task::{TaskFinishParams, TaskTarget};
use signaltty_protocol::{ErrorCode, Method, PaneRef, TaskId};

#[derive(serde::Deserialize)]
pub struct Answer {
    host: String,
    pane: String,
    decision: String,
    option: String,
}

#[derive(serde::Deserialize)]
pub struct Submit {
    host: String,
    pane: String,
    text: String,
}

#[derive(serde::Deserialize)]
pub struct Finish {
    host: String,
    task: String,
    mode: String,
}

#[derive(serde::Deserialize)]
pub struct DiffStat {
    host: String,
    task: String,
}

fn refused(status: actix_web::http::StatusCode, code: &str, message: &str) -> HttpResponse {
    HttpResponse::build(status).json(json!({"ok": false, "code": code, "message": message}))
}

/// Runs `method` on `host`'s server, off the async threads.
async fn call(app: &App, host: &str, method: Method) -> HttpResponse {
    let Some(target) = app.target(host).cloned() else {
        return refused(
            actix_web::http::StatusCode::NOT_FOUND,
            "NO_SUCH_SERVER",
            "no such host here",
        );
    };
    let result = web::block(move || one_call(&target, method)).await;
    match result {
        Ok(Ok(value)) => HttpResponse::Ok().json(json!({"ok": true, "result": value})),
        Ok(Err(e)) => {
            let status = match e.code {
                ErrorCode::NoSuchDecision => actix_web::http::StatusCode::CONFLICT,
                ErrorCode::BadParams => actix_web::http::StatusCode::BAD_REQUEST,
                ErrorCode::NoSuchPane | ErrorCode::NoSuchTask => {
                    actix_web::http::StatusCode::NOT_FOUND
                },
                _ => actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
            };
            refused(status, &e.code.to_string(), &e.message)
        },
        Err(_) => refused(
            actix_web::http::StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            "the call did not finish",
        ),
    }
}

fn one_call(target: &Target, method: Method) -> Result<Value, CallError> {
    let mut client = Client::open(target)?;
    client.call(method)
}

/// The request's JSON body. Read only after the request may change
/// anything, so a page of another site learns nothing from how its body
/// was refused.
fn body<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("the request's JSON body: {e}"))
}

fn bad_body(why: &str) -> HttpResponse {
    refused(actix_web::http::StatusCode::BAD_REQUEST, "BAD_PARAMS", why)
}

fn forbidden() -> HttpResponse {
    refused(
        actix_web::http::StatusCode::FORBIDDEN,
        "FORBIDDEN",
        "a change needs a paired session, its CSRF token and this page's origin",
    )
}

pub async fn answer(req: HttpRequest, app: web::Data<App>, bytes: web::Bytes) -> HttpResponse {
    if !app.may_change(&req) {
        return forbidden();
    }
    let a: Answer = match body(&bytes) {
        Ok(v) => v,
        Err(why) => return bad_body(&why),
    };
    let method = Method::DecisionAnswer(DecisionAnswerParams {
        pane_id: PaneRef(a.pane),
        decision_id: a.decision,
        option_id: a.option,
    });
    call(&app, &a.host, method).await
}

pub async fn submit(req: HttpRequest, app: web::Data<App>, bytes: web::Bytes) -> HttpResponse {
    if !app.may_change(&req) {
        return forbidden();
    }
    let s: Submit = match body(&bytes) {
        Ok(v) => v,
        Err(why) => return bad_body(&why),
    };
    let method = Method::PaneSubmit(PaneSubmitParams {
        pane_id: PaneRef(s.pane),
        text: s.text,
        submit_delay_ms: None,
        stall_timeout_s: None,
    });
    call(&app, &s.host, method).await
}

pub async fn task(req: HttpRequest, app: web::Data<App>, bytes: web::Bytes) -> HttpResponse {
    if !app.may_change(&req) {
        return forbidden();
    }
    let f: Finish = match body(&bytes) {
        Ok(v) => v,
        Err(why) => return bad_body(&why),
    };
    if f.mode != "merge" && f.mode != "discard" {
        return refused(
            actix_web::http::StatusCode::BAD_REQUEST,
            "BAD_PARAMS",
            "mode is merge or discard",
        );
    }
    let method = Method::TaskFinish(TaskFinishParams {
        task_id: TaskId(f.task),
        mode: f.mode,
        target_ref: None,
        delete_branch: None,
        ignore_dirty: None,
    });
    call(&app, &f.host, method).await
}

pub async fn diffstat(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
    if app.cookie_of(&req).is_none() {
        return super::http::unpaired();
    }
    let q = match web::Query::<DiffStat>::from_query(req.query_string()) {
        Ok(q) => q.into_inner(),
        Err(e) => {
            return refused(
                actix_web::http::StatusCode::BAD_REQUEST,
                "BAD_PARAMS",
                &format!("host and task: {e}"),
            );
        },
    };
    let method = Method::TaskDiff(TaskTarget {
        task_id: TaskId(q.task),
    });
    call(&app, &q.host, method).await
}
