//! The bundled usage-limit rules against made-up screens beside the captured
//! ones (docs/screen-rules.md#a-usage-limit-is-rate-limited): the limit as the
//! last message reads `rate_limited`; the same words scrolled into the
//! history, under a working sign, or in prose do not.

use super::*;
use ScreenState::*;

fn claude(above: &str) -> ScreenState {
    let screen = format!("{above}\n\n{RULE}\n❯ \n{RULE}\n  ? for shortcuts");
    says(AgentKind::Claude, &screen, "✳ Claude Code")
}

#[test]
fn claudes_limit_as_its_last_message_is_rate_limited() {
    for said in [
        "● You've hit your session limit · resets 3pm (Europe/London)",
        "● You’ve hit your weekly limit · resets Dec 9, 3pm",
        "  ⎿  You've reached your Opus limit · resets in 2h 13m",
        "● API Error: Request rejected (429) · This request would exceed your account's rate\n  limit. Please try again later.",
    ] {
        assert_eq!(
            claude(&format!("❯ fix it\n\n{said}")),
            RateLimited,
            "{said}"
        );
    }
}

#[test]
fn claudes_limit_in_its_history_or_prose_is_no_sign() {
    let later = "❯ fix it\n\n● You've hit your session limit · resets 3pm\n\n❯ continue\n\n● Done.";
    assert_eq!(claude(later), Idle);
    let prose = "❯ why did it stop?\n\n● It stopped because you've hit your session limit earlier.";
    assert_eq!(claude(prose), Idle);
    let working = format!(
        "● You've hit your session limit · resets 3pm\n\n✻ Cogitating… (2s · esc to interrupt)\n\n{RULE}\n❯ \n{RULE}"
    );
    assert_eq!(says(AgentKind::Claude, &working, "Claude Code"), Working);
}

#[test]
fn codexs_limit_right_above_its_composer_is_rate_limited() {
    let limited = "› fix the bug\n■ You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/\nusage to purchase more credits or try again at 7:45 PM.\n› Ask Codex to do anything";
    assert_eq!(says(AgentKind::Codex, limited, "proj"), RateLimited);
    let later = "› fix the bug\n■ You’ve hit your usage limit. … or try again at 7:45 PM.\n› continue\n• Done.\n› Ask Codex to do anything";
    assert_eq!(says(AgentKind::Codex, later, "proj"), Idle);
    let working = "■ You’ve hit your usage limit. … or try again at 7:45 PM.\n› continue\n• Working (2s • esc to interrupt)\n› ";
    assert_eq!(says(AgentKind::Codex, working, ""), Working);
}

#[test]
fn geminis_limit_dialog_is_rate_limited_and_its_words_alone_are_not() {
    let dialog = "╭──────╮\n│ Usage limit reached for gemini-2.5-pro.\n│ Access resets at 7:45 PM UTC.\n│ /model to switch models.\n│ ● 1. Keep trying\n│   2. Stop\n╰──────╯";
    assert_eq!(
        says(AgentKind::Gemini, dialog, "✦  Working… (work)"),
        RateLimited
    );
    let history = "✕ Usage limit reached for gemini-2.5-pro.\n  Access resets at 7:45 PM UTC.\n\n > continue\n⠙ Thinking... (esc to cancel, 1s)";
    assert_ne!(
        says(AgentKind::Gemini, history, "✦  Working… (work)"),
        RateLimited
    );
}
