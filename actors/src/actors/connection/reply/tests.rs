//! Tests of a reply's wire form: a hand-built success line is the protocol's
//! response.

use super::*;
use signaltty_protocol::ServerLine;

#[test]
fn a_hand_built_success_line_is_the_protocol_response_with_the_id_escaped() {
    let id = "weird \"id\" \\ ü";
    let line = response_line(id, Ok(Bytes::from_static(b"{\"x\":[1,2]}")));
    let text = String::from_utf8(line).unwrap();
    assert!(text.ends_with('\n'));
    let ServerLine::Response(r) = ServerLine::parse(text.trim_end()).unwrap() else {
        panic!("not a response")
    };
    assert_eq!(r, Response::ok(id, serde_json::json!({"x": [1, 2]})));
}
