//! The OpenCode plugin file: its header line and the reporter path embedded as
//! a string.

use super::*;

#[test]
fn the_file_starts_with_the_header_and_embeds_the_path_as_a_string() {
    let text = plugin("/opt/my \"tools\"/signaltty");
    assert!(is_owned(text.as_bytes()));
    assert!(
        text.contains(r#"const CLI = "/opt/my \"tools\"/signaltty";"#),
        "{text}"
    );
    assert!(!is_owned(b"export default {}"));
}
