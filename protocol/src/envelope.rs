//! The envelopes of docs/protocol.md#envelopes and the request-line parser that applies
//! the rules of docs/protocol.md#parameter-validation (invalid JSON, protocol check, unknown
//! methods, mistyped params).

use crate::error::ErrorCode;
use crate::method::{Method, ParamsError};
use crate::{PROTOCOL, UNKNOWN_REQUEST_ID};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A parsed, validated request: its correlation id and its typed method call.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The client's correlation id, echoed verbatim in the response.
    pub id: String,
    /// The method and its typed params.
    pub method: Method,
}

/// A request line that cannot be served, with the id its error response must carry.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestError {
    /// The request's id, or `"?"` when the line has none.
    pub id: String,
    /// The error to answer with.
    pub error: ErrorBody,
}

impl Request {
    /// Builds a request for a client to send.
    pub fn new(id: impl Into<String>, method: Method) -> Request {
        Request {
            id: id.into(),
            method,
        }
    }

    /// Parses one request line (without its newline). Shape errors come out in the
    /// order of docs/protocol.md#parameter-validation: not JSON, not an object or
    /// no string `id` → `BAD_PARAMS` with id `"?"`; a missing or wrong `protocol` →
    /// `BAD_PROTOCOL`; no string `method` → `BAD_PARAMS`; an unknown method →
    /// `UNKNOWN_METHOD`; params that do not fit the method → `BAD_PARAMS` naming the
    /// field.
    // The error is as large as an error body; it is built only for a bad line,
    // and boxing it would cost every caller an allocation on that path anyway.
    #[allow(clippy::result_large_err)]
    pub fn parse(line: &[u8]) -> Result<Request, RequestError> {
        let unknown = |message: String| RequestError {
            id: UNKNOWN_REQUEST_ID.to_owned(),
            error: ErrorBody::new(ErrorCode::BadParams, message),
        };
        let value: Value =
            serde_json::from_slice(line).map_err(|e| unknown(format!("invalid JSON: {e}")))?;
        let Value::Object(mut fields) = value else {
            return Err(unknown(
                "invalid JSON: a request must be a JSON object".into(),
            ));
        };
        let id = match fields.remove("id") {
            Some(Value::String(id)) => id,
            Some(_) => {
                return Err(unknown(
                    "invalid JSON: request `id` must be a string".into(),
                ));
            },
            None => return Err(unknown("invalid JSON: request has no `id`".into())),
        };
        let fail = |code, message: String| RequestError {
            id: id.clone(),
            error: ErrorBody::new(code, message),
        };
        match fields.get("protocol") {
            Some(Value::String(p)) if p == PROTOCOL => {},
            Some(other) => {
                return Err(fail(
                    ErrorCode::BadProtocol,
                    format!("unsupported protocol {other}, this server speaks \"{PROTOCOL}\""),
                ));
            },
            None => {
                return Err(fail(
                    ErrorCode::BadProtocol,
                    format!("request has no `protocol`, this server speaks \"{PROTOCOL}\""),
                ));
            },
        }
        let name = match fields.remove("method") {
            Some(Value::String(name)) => name,
            Some(_) => {
                return Err(fail(
                    ErrorCode::BadParams,
                    "request `method` must be a string".into(),
                ));
            },
            None => return Err(fail(ErrorCode::BadParams, "request has no `method`".into())),
        };
        let params = match fields.remove("params") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(p @ Value::Object(_)) => p,
            Some(_) => {
                return Err(fail(
                    ErrorCode::BadParams,
                    "`params` must be an object".into(),
                ));
            },
        };
        match Method::parse(&name, params) {
            Ok(method) => Ok(Request { id, method }),
            Err(ParamsError::UnknownMethod) => Err(fail(
                ErrorCode::UnknownMethod,
                format!("unknown method {name:?}"),
            )),
            Err(ParamsError::Invalid(message)) => Err(fail(
                ErrorCode::BadParams,
                format!("invalid params for {name}: {message}"),
            )),
        }
    }

    /// Serializes the request as one line (without the newline).
    pub fn to_line(&self) -> String {
        let mut envelope = Map::new();
        envelope.insert("protocol".into(), PROTOCOL.into());
        envelope.insert("id".into(), self.id.clone().into());
        envelope.insert("method".into(), self.method.name().into());
        envelope.insert("params".into(), self.method.params_json());
        Value::Object(envelope).to_string()
    }
}

/// The body of an error response (docs/protocol.md#error-response).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// One of the codes of docs/protocol.md#error-codes.
    pub code: ErrorCode,
    /// Human-readable; not stable, not for matching.
    pub message: String,
    /// Structured data, omitted (never `null`) when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

impl ErrorBody {
    /// An error without details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ErrorBody {
        ErrorBody {
            code,
            message: message.into(),
            details: None,
        }
    }
}

/// A response line, success or error (docs/protocol.md#success-response and
/// docs/protocol.md#error-response).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// Always `"signaltty/1"`.
    pub protocol: String,
    /// The request's id, or `"?"`.
    pub id: String,
    /// `true` for success.
    pub ok: bool,
    /// The method's result, on success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The error, on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

impl Response {
    /// A success response.
    pub fn ok(id: impl Into<String>, result: Value) -> Response {
        Response {
            protocol: PROTOCOL.to_owned(),
            id: id.into(),
            ok: true,
            result: Some(result),
            error: None,
        }
    }

    /// An error response.
    pub fn err(id: impl Into<String>, error: ErrorBody) -> Response {
        Response {
            protocol: PROTOCOL.to_owned(),
            id: id.into(),
            ok: false,
            result: None,
            error: Some(error),
        }
    }

    /// The line a server writes, with its trailing newline.
    pub fn to_line(&self) -> Vec<u8> {
        line_of(self)
    }
}

/// An event line (docs/protocol.md#event).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventFrame {
    /// Always `"signaltty/1"`.
    pub protocol: String,
    /// Always `"event"`; this is what tells an event from a response.
    #[serde(rename = "type")]
    pub kind: String,
    /// The event name (docs/events.md#event-list).
    pub event: String,
    /// The server-wide sequence number.
    pub seq: u64,
    /// The event-specific payload.
    pub payload: Value,
}

impl EventFrame {
    /// An event frame for `event` at `seq`.
    pub fn new(event: impl Into<String>, seq: u64, payload: Value) -> EventFrame {
        EventFrame {
            protocol: PROTOCOL.to_owned(),
            kind: "event".to_owned(),
            event: event.into(),
            seq,
            payload,
        }
    }

    /// The line a server writes, with its trailing newline.
    pub fn to_line(&self) -> Vec<u8> {
        line_of(self)
    }
}

/// A line as a client reads it: a response or an event.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerLine {
    /// A response to a request.
    Response(Response),
    /// An event.
    Event(EventFrame),
}

impl ServerLine {
    /// Parses a server line: `type == "event"` is an event, anything else a response.
    pub fn parse(line: &str) -> Result<ServerLine, serde_json::Error> {
        let value: Value = serde_json::from_str(line)?;
        if value.get("type").and_then(Value::as_str) == Some("event") {
            Ok(ServerLine::Event(serde_json::from_value(value)?))
        } else {
            Ok(ServerLine::Response(serde_json::from_value(value)?))
        }
    }
}

fn line_of<T: Serialize>(value: &T) -> Vec<u8> {
    // Serializing these envelopes cannot fail: every map key is a string and every
    // value is already a `serde_json::Value` or a plain field.
    let mut out = serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec());
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests;
