use super::*;

fn item(key: &str, n: u64) -> (String, Arc<Value>) {
    (
        key.to_owned(),
        Arc::new(json!({"key": key, "kind": "pane", "n": n})),
    )
}

fn text(m: &Arc<str>) -> Value {
    serde_json::from_str(m).expect("json")
}

#[test]
fn a_page_resumes_from_its_version_or_gets_the_world() {
    let hub = Hub::new("e1".into());
    hub.publish(Items::from([item("pane/a", 1)]));
    hub.publish(Items::from([item("pane/a", 2), item("pane/b", 1)]));
    hub.publish(Items::from([item("pane/b", 1)]));
    let (tx, _rx) = tokio::sync::mpsc::channel(8);
    // Version 1 of this run: the two patches after it, in order.
    let first = hub.join(Some("e1"), Some(1), tx.clone());
    let vs: Vec<u64> = first
        .iter()
        .map(|m| text(m)["v"].as_u64().unwrap_or(0))
        .collect();
    assert_eq!(vs, [2, 3]);
    assert_eq!(text(&first[1])["del"], json!(["pane/a"]));
    // Another run's version, or none: the world as of now.
    for (e, v) in [
        (Some("other"), Some(1)),
        (None, None),
        (Some("e1"), Some(9)),
    ] {
        let first = hub.join(e, v, tx.clone());
        let w = text(&first[0]);
        assert_eq!((w["t"].as_str(), w["v"].as_u64()), (Some("world"), Some(3)));
        assert_eq!(w["items"].as_array().map(Vec::len), Some(1));
    }
}

#[test]
fn patches_reach_every_page_and_a_page_that_falls_behind_is_let_go() {
    let hub = Hub::new("e".into());
    let (fast, mut fast_rx) = tokio::sync::mpsc::channel(8);
    let (slow, _slow_rx) = tokio::sync::mpsc::channel(1);
    hub.join(None, None, fast);
    hub.join(None, None, slow);
    for n in 0..3 {
        hub.publish(Items::from([item("pane/a", n)]));
    }
    let got: Vec<u64> = std::iter::from_fn(|| fast_rx.try_recv().ok())
        .map(|m| text(&m)["v"].as_u64().unwrap_or(0))
        .collect();
    assert_eq!(got, [1, 2, 3]);
    assert_eq!(hub.state.lock().sinks.len(), 1, "the slow page was dropped");
    // Nothing changed: no patch, no version.
    hub.publish(Items::from([item("pane/a", 2)]));
    assert_eq!(hub.state.lock().version, 3);
}
