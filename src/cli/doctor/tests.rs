//! The doctor's report: only the verdict words are coloured, and only when
//! asked.

use super::*;
use crate::paint::Paint;

#[test]
fn only_the_verdict_words_are_coloured_and_only_when_asked() {
    let text = "ok   server           fine\nFAIL journal          bad\n     fix: ok then\n1 problem(s), 0 warning(s)\n";
    assert_eq!(coloured(text, Paint::new(false, Some(80))), text);
    let c = coloured(text, Paint::new(true, Some(80)));
    assert!(c.starts_with("\x1b[32mok\x1b[0m   server"), "{c:?}");
    assert!(c.contains("\n\x1b[1;31mFAIL\x1b[0m journal"), "{c:?}");
    assert!(c.contains("\n     fix: ok then\n1 problem(s)"), "{c:?}");
}
