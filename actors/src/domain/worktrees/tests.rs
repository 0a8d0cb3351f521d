//! The checkout handle: guards released on drop, per-path locks exclusive
//! and forgotten when free, canonical targets.

use super::*;
use std::time::Duration;

#[test]
fn reservations_are_released_when_their_guards_drop() {
    let c = Checkouts::new();
    {
        let _launch = c.enter(Path::new("/w/wt/src")).unwrap();
        match c.reserve_removal(Path::new("/w/wt")) {
            Err(Error::BadParams(m)) => assert!(m.contains("under way"), "{m}"),
            other => panic!("expected BAD_PARAMS, got {other:?}"),
        }
    }
    let removal = c.reserve_removal(Path::new("/w/wt")).unwrap();
    match c.enter(Path::new("/w/wt")) {
        Err(Error::BadParams(m)) => assert!(m.contains("checkout is being removed"), "{m}"),
        other => panic!("expected BAD_PARAMS, got {other:?}"),
    }
    drop(removal);
    assert!(c.enter(Path::new("/w/wt")).is_ok());
    assert!(c.reservations.lock().is_empty());
}

#[actix_rt::test]
async fn a_path_lock_is_exclusive_per_path_and_forgotten_when_free() {
    let c = Checkouts::new();
    let a = c.lock_path(PathBuf::from("/w/a")).await;
    // Another path is independent.
    let b = c.lock_path(PathBuf::from("/w/b")).await;
    drop(b);
    let waiter = {
        let c = c.clone();
        tokio::spawn(async move { c.lock_path(PathBuf::from("/w/a")).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!waiter.is_finished(), "the second lock waits for the first");
    assert_eq!(a.path(), Path::new("/w/a"));
    drop(a);
    let second = tokio::time::timeout(Duration::from_secs(10), waiter)
        .await
        .expect("the waiter gets the lock")
        .unwrap();
    assert_eq!(c.paths.len(), 1);
    drop(second);
    assert!(c.paths.is_empty());
}

#[actix_rt::test]
async fn the_mutation_lock_serialises_its_holders() {
    let c = Checkouts::new();
    let held = c.mutation().await;
    let next = {
        let c = c.clone();
        tokio::spawn(async move {
            let _m = c.mutation().await;
        })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!next.is_finished());
    drop(held);
    tokio::time::timeout(Duration::from_secs(10), next)
        .await
        .expect("released")
        .unwrap();
}

#[test]
fn a_canonical_target_resolves_the_existing_part_and_keeps_the_rest() {
    let t = tempfile::tempdir().unwrap();
    let real = std::fs::canonicalize(t.path()).unwrap();
    std::fs::create_dir(real.join("dir")).unwrap();
    std::os::unix::fs::symlink(real.join("dir"), real.join("link")).unwrap();
    assert_eq!(
        canonical_target(&real.join("link/new/deeper")).unwrap(),
        real.join("dir/new/deeper")
    );
    assert_eq!(
        canonical_target(&real.join("dir")).unwrap(),
        real.join("dir")
    );
    assert!(matches!(
        canonical_target(Path::new("relative/x")),
        Err(Error::BadParams(_))
    ));
}
