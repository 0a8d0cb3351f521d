//! Generated request lines: any bytes and any JSON envelope parse to a request
//! or to an error reply with a code of docs/protocol.md#parameter-validation,
//! and a parsed request survives its own serialisation.

use super::*;
use crate::generated::{config, json};
use proptest::prelude::*;

/// Keys and values the parser looks for, so generated envelopes reach past
/// the first checks.
const KEYS: &[&str] = &[
    "protocol",
    "id",
    "method",
    "params",
    "signaltty/1",
    "server.status",
    "workspace.rename",
    "workspace_id",
    "name",
    "pane_id",
    "ws_1",
];

/// An envelope: each field present or not, right or wrong.
fn envelope() -> impl Strategy<Value = Value> {
    let method = prop_oneof![
        proptest::sample::select(Method::NAMES).prop_map(Value::from),
        json(KEYS),
    ];
    let protocol = prop_oneof![Just(Value::from(PROTOCOL)), json(KEYS)];
    let id = prop_oneof![".{0,8}".prop_map(Value::from), json(KEYS)];
    let params = prop_oneof![Just(Value::Object(Map::new())), json(KEYS)];
    (
        proptest::option::weighted(0.9, protocol),
        proptest::option::weighted(0.9, id),
        proptest::option::weighted(0.9, method),
        proptest::option::of(params),
        json(KEYS),
    )
        .prop_map(|(protocol, id, method, params, extra)| {
            let mut fields = Map::new();
            for (key, value) in [
                ("protocol", protocol),
                ("id", id),
                ("method", method),
                ("params", params),
                ("extra", Some(extra)),
            ] {
                if let Some(value) = value {
                    fields.insert(key.to_owned(), value);
                }
            }
            Value::Object(fields)
        })
}

/// The checks every parse result passes: a request that reads back the same
/// from its own line, or an error reply that names the line's id (or `"?"`)
/// and one of the shape codes.
fn check(line: &[u8]) -> Result<(), TestCaseError> {
    match Request::parse(line) {
        Ok(request) => {
            let again = Request::parse(request.to_line().as_bytes());
            prop_assert_eq!(again.as_ref(), Ok(&request));
        },
        Err(RequestError { id, error }) => {
            prop_assert!(matches!(
                error.code,
                ErrorCode::BadParams | ErrorCode::BadProtocol | ErrorCode::UnknownMethod
            ));
            if id != UNKNOWN_REQUEST_ID {
                let value: Value = serde_json::from_slice(line).expect("an id came from JSON");
                prop_assert_eq!(value.get("id").and_then(Value::as_str), Some(id.as_str()));
            }
            let reply = Response::err(id, error).to_line();
            prop_assert!(ServerLine::parse(std::str::from_utf8(&reply).expect("UTF-8")).is_ok());
        },
    }
    Ok(())
}

/// Found by the mutated lines: an absent `name` was written as `null`, which
/// reads back as "clear the name" (docs/methods.md#panerename).
#[test]
fn a_rename_without_a_name_reads_back_without_one() {
    let line =
        r#"{"protocol":"signaltty/1","id":"1","method":"pane.rename","params":{"pane_id":"p"}}"#;
    let request = Request::parse(line.as_bytes()).expect("parses");
    assert!(
        !request.to_line().contains("\"name\""),
        "{}",
        request.to_line()
    );
    assert_eq!(Request::parse(request.to_line().as_bytes()), Ok(request));
    let cleared = line.replace(r#""p"}"#, r#""p","name":null}"#);
    let request = Request::parse(cleared.as_bytes()).expect("parses");
    assert_eq!(Request::parse(request.to_line().as_bytes()), Ok(request));
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn any_bytes_parse_to_a_request_or_an_error_reply(
        bytes in proptest::collection::vec(any::<u8>(), 0..256),
    ) {
        check(&bytes)?;
    }

    #[test]
    fn any_envelope_parses_to_a_request_or_an_error_reply(value in envelope()) {
        check(value.to_string().as_bytes())?;
    }

    #[test]
    fn a_mutated_request_line_parses_to_a_request_or_an_error_reply(
        value in envelope(),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let mut line = value.to_string().into_bytes();
        let i = at.index(line.len());
        line[i] = byte;
        check(&line)?;
        line.truncate(i);
        check(&line)?;
    }
}
