//! The error codes: exactly the twenty-one of docs/protocol.md#error-codes,
//! each round-tripping through its wire name.

use super::*;

#[test]
fn there_are_exactly_the_twenty_one_codes_of_the_protocol_page() {
    assert_eq!(ErrorCode::ALL.len(), 21);
}

#[test]
fn every_code_round_trips_through_its_wire_name() {
    for code in ErrorCode::ALL {
        let json = serde_json::to_string(code).unwrap();
        assert_eq!(json, format!("\"{}\"", code.as_str()));
        let back: ErrorCode = serde_json::from_str(&json).unwrap();
        assert_eq!(back, *code);
    }
}
