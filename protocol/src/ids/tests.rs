//! Random ids: their prefix, 32 hex digits and UUID v4 bits.

use super::*;

#[test]
fn random_ids_have_prefix_and_32_hex_digits_with_uuid_v4_bits() {
    let id = WorkspaceId::from_random(u128::MAX);
    assert!(id.as_str().starts_with("ws_"));
    let hex = &id.as_str()[3..];
    assert_eq!(hex.len(), 32);
    assert!(
        hex.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
    assert_eq!(&hex[12..13], "4");
    assert!(matches!(&hex[16..17], "8" | "9" | "a" | "b"));
    assert_eq!(TabId::from_random(0).as_str().len(), 4 + 32);
    assert_eq!(PaneId::from_random(7).as_str().len(), 5 + 32);
}
