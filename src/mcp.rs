//! `signaltty mcp`: signaltty as a Model Context Protocol server on stdin and
//! stdout (docs/mcp.md), for orchestrators that are agents themselves. It is
//! one more client of the running server: each tool is a few protocol calls
//! through the model crate's blocking client. Newline-delimited JSON-RPC
//! comes in on stdin; only protocol goes out on stdout, anything else to
//! stderr. Each `tools/call` runs on a thread of its own with its own
//! connection, so a long wait never holds up a `ping` or another call.

mod rpc;
mod tools;
mod views;

use crate::args::Global;
use serde_json::Value;
use signaltty_model::client::{CallError, Client, Target};
use signaltty_model::settings::knobs::K;
use signaltty_protocol::method::ParamsError;
use signaltty_protocol::{ErrorCode, Method};
use std::collections::HashMap;
use std::io::BufRead as _;
use std::sync::{Arc, Mutex};

/// `signaltty mcp`: serves until stdin ends.
pub fn run(global: &Global) -> i32 {
    let target = match crate::remote::target(global) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let env = signaltty_model::Env::from_process();
    let allow_answers = signaltty_model::settings::load(&env, &crate::cli::socket_flag(global))
        .bool(K::McpAllowAnswers);
    let mut session = rpc::Session::new(tools::list(allow_answers), env!("CARGO_PKG_VERSION"));
    // The tool calls under way (their ids as JSON text), each with whether
    // the client gave up on it.
    let running: Arc<Mutex<HashMap<String, bool>>> = Arc::default();
    for line in std::io::stdin().lock().lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                crate::cli::say_err(&format!("signaltty mcp: cannot read stdin: {e}"));
                return crate::cli::EXIT_FAILED;
            },
        };
        if line.trim().is_empty() {
            continue;
        }
        match session.step(&line) {
            rpc::Step::Reply(message) => send(&message),
            rpc::Step::Nothing => {},
            rpc::Step::Cancel(id) => {
                if let Some(cancelled) = lock(&running).get_mut(&id.to_string()) {
                    *cancelled = true;
                }
            },
            rpc::Step::Call {
                id,
                name,
                arguments,
            } => {
                let mut server = Server::new(target.clone());
                let running = Arc::clone(&running);
                lock(&running).insert(id.to_string(), false);
                std::thread::spawn(move || {
                    let outcome = tools::call(&mut server, &name, &arguments);
                    // A cancelled request gets no answer (docs/mcp.md#the-protocol);
                    // its work has run to its end.
                    if lock(&running).remove(&id.to_string()) != Some(true) {
                        send(&rpc::tool_result(id, outcome));
                    }
                });
            },
        }
    }
    0
}

/// The map of calls under way; a thread that panicked holding it left it
/// whole.
fn lock(map: &Mutex<HashMap<String, bool>>) -> std::sync::MutexGuard<'_, HashMap<String, bool>> {
    map.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Writes one message as one line on stdout (the lock is held for the
/// whole line, so the calls' threads never interleave).
fn send(message: &Value) {
    say!("{message}");
}

/// The running server, as the tools see it: a connection opened at the
/// first call and kept for the tool's later calls.
struct Server {
    target: Target,
    client: Option<Client>,
}

impl Server {
    fn new(target: Target) -> Server {
        Server {
            target,
            client: None,
        }
    }
}

impl tools::Backend for Server {
    fn call(&mut self, method: &str, params: Value) -> Result<Value, CallError> {
        let method = Method::parse(method, params).map_err(|e| match e {
            // `pane.ask` on a build without it (docs/mcp.md#ask).
            ParamsError::UnknownMethod => CallError {
                code: ErrorCode::UnknownMethod,
                message: format!("this signaltty has no method {method} yet"),
            },
            ParamsError::Invalid(message) => CallError {
                code: ErrorCode::BadParams,
                message: format!("invalid params for {method}: {message}"),
            },
        })?;
        let client = match &mut self.client {
            Some(c) => c,
            None => self.client.insert(Client::open(&self.target)?),
        };
        client.call(method)
    }
}
