//! Agent kinds: each name is its serde spelling and parses back.

use super::*;

#[test]
fn every_agent_kind_name_is_its_serde_spelling_and_parses_back() {
    for kind in AgentKind::ALL {
        assert_eq!(
            serde_json::to_value(kind).ok(),
            Some(serde_json::Value::String(kind.name().into()))
        );
        assert_eq!(AgentKind::parse(kind.name()), Some(kind));
    }
}
