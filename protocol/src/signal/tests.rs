//! Signal names: parsed case-insensitively, with or without `SIG`.

use super::*;

#[test]
fn signal_names_parse_case_insensitively_with_optional_sig_prefix() {
    assert_eq!(SignalName::parse("term"), Some(SignalName::Term));
    assert_eq!(SignalName::parse("SIGKILL"), Some(SignalName::Kill));
    assert_eq!(SignalName::parse("sigUsr2"), Some(SignalName::Usr2));
    assert_eq!(SignalName::parse("STOP"), None);
    assert_eq!(SignalName::parse("SIG"), None);
}
