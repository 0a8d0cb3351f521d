use super::*;

const ORIGIN: &str = "http://127.0.0.1:7681";

fn allowed() -> Vec<String> {
    vec![ORIGIN.to_owned()]
}

#[test]
fn a_code_pairs_once_and_the_second_use_is_refused() {
    let mut a = Access::default();
    let code = a.new_code(0).expect("code");
    let paired = a.pair(&code, "phone", 1000).expect("paired");
    assert_eq!(a.pair(&code, "other", 2000), Err(Refused::BadCode));
    assert!(a.session(&paired.cookie, 3000).is_some());
    assert_eq!(a.sessions().len(), 1);
    assert_eq!(a.sessions()[0].seen_at_ms, 3000);
}

#[test]
fn a_code_expires_after_ten_minutes() {
    let mut a = Access::default();
    let code = a.new_code(0).expect("code");
    assert_eq!(
        a.pair(&code, "late", CODE_LIFETIME_MS),
        Err(Refused::BadCode)
    );
    let code = a.new_code(0).expect("code");
    assert!(a.pair(&code, "in time", CODE_LIFETIME_MS - 1).is_ok());
}

#[test]
fn wrong_codes_are_rate_limited_and_the_limit_lifts() {
    let mut a = Access::default();
    let code = a.new_code(0).expect("code");
    for i in 0..MAX_FAILURES as u64 {
        assert_eq!(a.pair("guess", "x", i), Err(Refused::BadCode));
    }
    // Even the right code waits now.
    match a.pair(&code, "x", 10) {
        Err(Refused::RateLimited { retry_after_ms }) => {
            assert_eq!(retry_after_ms, FAILURE_WINDOW_MS - 10)
        },
        other => panic!("{other:?}"),
    }
    assert!(a.pair(&code, "x", FAILURE_WINDOW_MS + 5).is_ok());
}

#[test]
fn a_change_needs_the_cookie_its_csrf_token_and_the_origin() {
    let mut a = Access::default();
    let code = a.new_code(0).expect("code");
    let p = a.pair(&code, "phone", 0).expect("paired");
    let code = a.new_code(0).expect("code");
    let q = a.pair(&code, "laptop", 0).expect("paired");
    assert!(a.may_change(&p.cookie, &p.csrf, Some(ORIGIN), &allowed(), 1));
    assert!(
        !a.may_change(&p.cookie, &q.csrf, Some(ORIGIN), &allowed(), 1),
        "another session's token"
    );
    assert!(!a.may_change(
        &p.cookie,
        &p.csrf,
        Some("http://evil.example"),
        &allowed(),
        1
    ));
    assert!(
        !a.may_change(&p.cookie, &p.csrf, None, &allowed(), 1),
        "no Origin"
    );
    assert!(!a.may_change("nope", &p.csrf, Some(ORIGIN), &allowed(), 1));
}

#[test]
fn revoked_sessions_see_nothing() {
    let mut a = Access::default();
    let pair = |a: &mut Access| {
        let code = a.new_code(0).expect("code");
        a.pair(&code, "b", 0).expect("paired")
    };
    let p = pair(&mut a);
    let q = pair(&mut a);
    assert!(a.revoke(&p.session_id));
    assert!(!a.revoke(&p.session_id));
    assert!(a.session(&p.cookie, 1).is_none());
    assert!(a.session(&q.cookie, 1).is_some());
    assert_eq!(a.revoke_all(), 1);
    assert!(a.session(&q.cookie, 1).is_none());
}

#[test]
fn secrets_are_kept_only_as_hashes() {
    let mut a = Access::default();
    let code = a.new_code(0).expect("code");
    let p = a.pair(&code, "phone", 0).expect("paired");
    let kept = format!("{a:?}");
    for secret in [&code, &p.cookie, &p.csrf] {
        assert!(!kept.contains(secret.as_str()), "{kept}");
    }
    assert_eq!(code.len(), 32);
    assert_eq!(p.cookie.len(), 64);
    assert!(Hashed::of("x").matches("x") && !Hashed::of("x").matches("y"));
}

#[test]
fn the_csrf_token_is_the_cookies_and_survives_a_restart() {
    let mut a = Access::default();
    let code = a.new_code(0).expect("code");
    let p = a.pair(&code, "phone", 0).expect("paired");
    assert_eq!(p.csrf, csrf_of(&p.cookie));
    assert_ne!(p.csrf, csrf_of("another cookie"));
    // What the sessions file keeps brings the same session back.
    let kept: Vec<Session> = a.sessions().to_vec();
    let hex = kept[0].cookie.to_hex();
    assert_eq!(Hashed::from_hex(&hex), Some(kept[0].cookie.clone()));
    assert_eq!(Hashed::from_hex("zz"), None);
    let mut b = Access::with_sessions(kept);
    assert!(b.may_change(&p.cookie, &p.csrf, Some(ORIGIN), &allowed(), 5));
}

#[test]
fn an_unused_session_ends_after_thirty_days() {
    let mut a = Access::default();
    let code = a.new_code(0).expect("code");
    let p = a.pair(&code, "phone", 0).expect("paired");
    assert!(a.session(&p.cookie, IDLE_LIFETIME_MS - 1).is_some());
    assert!(a.session(&p.cookie, 2 * IDLE_LIFETIME_MS).is_none());
    assert!(a.sessions().is_empty());
}
