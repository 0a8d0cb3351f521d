//! Workspaces, events and the live contract over the socket (docs/methods.md#server,
//! docs/methods.md#workspaces, docs/methods.md#streaming-and-waiting; docs/objects.md#ids,
//! docs/objects.md#workspace): handles, addressing, ordering, subscriptions and replay,
//! `server.status` counters and `server.schema`.

use crate::support::{
    Client, TestServer, expect_code, is_workspace_id, ok, request_line, str_field, u64_field,
};
use serde_json::{Value, json};
use signaltty_protocol::workspace::Workspace;
use signaltty_protocol::{ErrorCode, EventFrame, Method, PROTOCOL};
use std::collections::HashSet;
use std::path::Path;

/// Creates a workspace and returns the `workspace` object, checking its shape.
#[track_caller]
fn create(client: &mut Client, params: Value) -> Value {
    let result = client.call_ok("workspace.create", params);
    let workspace = result["workspace"].clone();
    check_workspace(&workspace);
    workspace
}

#[track_caller]
fn create_named(client: &mut Client, name: &str) -> Value {
    create(client, json!({"name": name}))
}

/// Asserts the wire shape of a workspace object (docs/objects.md#workspace).
#[track_caller]
fn check_workspace(workspace: &Value) {
    if let Err(e) = serde_json::from_value::<Workspace>(workspace.clone()) {
        panic!("not a workspace object ({e}): {workspace}");
    }
    assert!(
        is_workspace_id(str_field(workspace, "id")),
        "workspace id: {workspace}"
    );
    let handle = str_field(workspace, "handle");
    assert!(
        !handle.is_empty()
            && handle.len() <= 32 + 1 + 10
            && handle
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !handle.starts_with('-')
            && !handle.ends_with('-'),
        "handle {handle:?} is a slug without `_`"
    );
    assert!(
        workspace["git"].is_object(),
        "git is an object: {workspace}"
    );
    assert!(
        workspace["tabs"].is_array(),
        "tabs is an array: {workspace}"
    );
    for field in ["created_at", "updated_at"] {
        let at = str_field(workspace, field);
        assert!(
            at.len() >= 20 && at.as_bytes()[10] == b'T',
            "{field} is RFC 3339: {at}"
        );
    }
}

fn head(client: &mut Client) -> u64 {
    u64_field(&client.call_ok("server.status", json!({})), "seq")
}

fn same_dir(a: &str, b: &Path) -> bool {
    Path::new(a) == b || std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
}

// --- create / list / get / rename / close -----------------------------------------------

#[test]
fn create_returns_a_fresh_workspace_with_id_handle_cwd_and_no_tabs() {
    let server = TestServer::start();
    let mut client = server.client();
    let cwd = server.env().root().join("project");
    std::fs::create_dir(&cwd).expect("mkdir");
    let ws = create(
        &mut client,
        json!({"name": "Project X", "cwd": cwd.to_str().expect("utf-8")}),
    );
    assert_eq!(ws["name"], "Project X");
    assert_eq!(ws["handle"], "project-x");
    assert!(
        same_dir(str_field(&ws, "cwd"), &cwd),
        "cwd {} vs {}",
        ws["cwd"],
        cwd.display()
    );
    assert_eq!(ws["tabs"], json!([]));
    assert_eq!(ws["auto_resume"], false);
    assert_eq!(
        ws["git"]["detached"], false,
        "a plain dir is not a detached checkout: {ws}"
    );
    assert!(ws.get("active_tab_id").is_none_or(Value::is_null));
    assert!(str_field(&ws, "updated_at") >= str_field(&ws, "created_at"));

    let other = create_named(&mut client, "Project X");
    assert_ne!(other["id"], ws["id"], "ids are unique");
}

#[test]
fn create_without_params_uses_the_default_name_and_home_as_cwd() {
    let server = TestServer::start();
    let mut client = server.client();
    let ws = create(&mut client, json!({}));
    assert_eq!(ws["name"], "workspace");
    assert_eq!(ws["handle"], "workspace");
    assert!(
        same_dir(str_field(&ws, "cwd"), &server.env().home()),
        "cwd {} is HOME",
        ws["cwd"]
    );
}

#[test]
fn create_with_a_cwd_that_is_missing_or_not_a_directory_is_bad_params() {
    let server = TestServer::start();
    let mut client = server.client();
    let file = server.env().root().join("a-file");
    std::fs::write(&file, b"x").expect("write");
    let missing = server.env().root().join("missing");
    for cwd in [
        missing.to_str().expect("utf-8"),
        file.to_str().expect("utf-8"),
        "",
    ] {
        let response = client.call("workspace.create", json!({"name": "bad", "cwd": cwd}));
        expect_code(response, ErrorCode::BadParams);
    }
    let listed = client.call_ok("workspace.list", json!({}));
    assert_eq!(
        listed["workspaces"],
        json!([]),
        "a refused create leaves nothing behind"
    );
    assert_eq!(client.call_ok("server.status", json!({}))["workspaces"], 0);
}

#[test]
fn handles_are_derived_from_names_as_in_the_data_model_examples() {
    let server = TestServer::start();
    let mut client = server.client();
    let cases = [
        ("My API!!", "my-api"),
        ("  spaced  out  ", "spaced-out"),
        ("UPPER_snake", "upper-snake"),
        ("!!!", "ws"),
        ("???", "ws-2"),
        ("Café Münch", "caf-m-nch"),
        ("release 2.0 -- final", "release-2-0-final"),
        ("a".repeat(40).as_str(), "a".repeat(32).as_str()),
        // The 32nd byte is the `-` of the run after `4`: the slug stops there and is trimmed.
        (
            "abcdefghijklmnopqrstuvwxyz01234 and more",
            "abcdefghijklmnopqrstuvwxyz01234",
        ),
    ]
    .map(|(name, handle)| (name.to_owned(), handle.to_owned()));
    for (name, handle) in cases {
        let ws = create_named(&mut client, &name);
        assert_eq!(ws["handle"], handle.as_str(), "handle of {name:?}");
        assert_eq!(ws["name"], name.as_str(), "the name is kept verbatim");
    }
}

#[test]
fn colliding_handles_get_the_first_free_numeric_suffix() {
    let server = TestServer::start();
    let mut client = server.client();
    let handles: Vec<Value> = ["My API!!", "my api", "MY-API"]
        .iter()
        .map(|n| create_named(&mut client, n)["handle"].clone())
        .collect();
    assert_eq!(handles, ["my-api", "my-api-2", "my-api-3"]);

    // A name that already looks suffixed takes its own slug; the next collision skips it.
    assert_eq!(create_named(&mut client, "x-2")["handle"], "x-2");
    assert_eq!(create_named(&mut client, "x")["handle"], "x");
    assert_eq!(create_named(&mut client, "x")["handle"], "x-3");

    // A closed workspace's handle is free again: the first free suffix is reused.
    client.call_ok("workspace.close", json!({"workspace_id": "my-api-2"}));
    assert_eq!(create_named(&mut client, "My API")["handle"], "my-api-2");
    assert_eq!(create_named(&mut client, "My API")["handle"], "my-api-4");
}

#[test]
fn concurrent_creates_of_one_name_get_distinct_handles() {
    let server = TestServer::start();
    let socket = server.socket_path().to_owned();
    let barrier = std::sync::Barrier::new(20);
    let handles: Vec<String> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..20)
            .map(|_| {
                let socket = &socket;
                let barrier = &barrier;
                scope.spawn(move || {
                    let mut client = Client::connect(socket);
                    barrier.wait();
                    str_field(&create_named(&mut client, "Dup"), "handle").to_owned()
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().expect("creator thread"))
            .collect()
    });
    let got: HashSet<String> = handles.into_iter().collect();
    let want: HashSet<String> = std::iter::once("dup".to_owned())
        .chain((2..=20).map(|n| format!("dup-{n}")))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn list_returns_every_workspace_ordered_by_creation() {
    let server = TestServer::start();
    let mut client = server.client();
    assert_eq!(
        client.call_ok("workspace.list", json!({})),
        json!({"workspaces": []})
    );
    let created: Vec<Value> = ["zeta", "alpha", "mid"]
        .iter()
        .map(|n| create_named(&mut client, n))
        .collect();
    let listed = client.call_ok("workspace.list", json!({}));
    let listed = listed["workspaces"].as_array().expect("workspaces").clone();
    assert_eq!(
        listed, created,
        "list returns the created objects in creation order"
    );
    let stamps: Vec<&str> = listed.iter().map(|w| str_field(w, "created_at")).collect();
    assert!(
        stamps.windows(2).all(|w| w[0] <= w[1]),
        "created_at ascending: {stamps:?}"
    );
    // A rename does not reorder.
    client.call_ok(
        "workspace.rename",
        json!({"workspace_id": "zeta", "name": "last?"}),
    );
    let listed = client.call_ok("workspace.list", json!({}));
    let names: Vec<&str> = listed["workspaces"]
        .as_array()
        .expect("list")
        .iter()
        .map(|w| str_field(w, "name"))
        .collect();
    assert_eq!(names, ["last?", "alpha", "mid"]);
}

#[test]
fn get_accepts_the_id_or_the_handle_and_returns_the_workspace_with_no_tabs_or_panes() {
    let server = TestServer::start();
    let mut client = server.client();
    let ws = create_named(&mut client, "Fetch Me");
    for reference in [ws["id"].clone(), json!("fetch-me")] {
        let got = client.call_ok("workspace.get", json!({"workspace_id": reference}));
        assert_eq!(got["workspace"], ws, "get by {reference}");
        assert_eq!(got["tabs"], json!([]));
        assert_eq!(got["panes"], json!([]));
    }
}

#[test]
fn unknown_ids_and_handles_are_no_such_workspace_for_get_rename_and_close() {
    let server = TestServer::start();
    let mut client = server.client();
    create_named(&mut client, "real");
    let unknown = [
        "nope",
        "ws_00000000000000000000000000000000",
        "REAL",
        "real-2",
        "ws",
    ];
    for reference in unknown {
        for (method, params) in [
            ("workspace.get", json!({"workspace_id": reference})),
            (
                "workspace.rename",
                json!({"workspace_id": reference, "name": "n"}),
            ),
            ("workspace.close", json!({"workspace_id": reference})),
        ] {
            expect_code(client.call(method, params), ErrorCode::NoSuchWorkspace);
        }
    }
    assert_eq!(
        client.call_ok("workspace.list", json!({}))["workspaces"]
            .as_array()
            .expect("list")
            .len(),
        1
    );
}

#[test]
fn rename_changes_only_the_name_and_keeps_the_handle() {
    let server = TestServer::start();
    let mut client = server.client();
    let ws = create_named(&mut client, "Before");
    for (reference, name) in [
        (ws["id"].clone(), "After One"),
        (json!("before"), "After Two"),
    ] {
        let renamed = client.call_ok(
            "workspace.rename",
            json!({"workspace_id": reference, "name": name}),
        );
        let renamed = &renamed["workspace"];
        check_workspace(renamed);
        assert_eq!(renamed["name"], name);
        for same in [
            "id",
            "handle",
            "cwd",
            "git",
            "tabs",
            "created_at",
            "auto_resume",
        ] {
            assert_eq!(renamed[same], ws[same], "rename keeps `{same}`");
        }
        assert!(str_field(renamed, "updated_at") >= str_field(&ws, "updated_at"));
        let got = client.call_ok("workspace.get", json!({"workspace_id": "before"}));
        assert_eq!(&got["workspace"], renamed);
    }
    // The new name's slug is not a handle.
    expect_code(
        client.call("workspace.get", json!({"workspace_id": "after-two"})),
        ErrorCode::NoSuchWorkspace,
    );
}

#[test]
fn close_by_id_or_handle_removes_the_workspace() {
    let server = TestServer::start();
    let mut client = server.client();
    let a = create_named(&mut client, "a");
    let b = create_named(&mut client, "b");
    let c = create_named(&mut client, "c");
    assert_eq!(
        client.call_ok("workspace.close", json!({"workspace_id": a["id"]})),
        json!({"closed": true})
    );
    assert_eq!(
        client.call_ok(
            "workspace.close",
            json!({"workspace_id": "b", "signal": "KILL"})
        ),
        json!({"closed": true})
    );
    for gone in [&a, &b] {
        expect_code(
            client.call("workspace.get", json!({"workspace_id": gone["id"]})),
            ErrorCode::NoSuchWorkspace,
        );
        expect_code(
            client.call("workspace.close", json!({"workspace_id": gone["id"]})),
            ErrorCode::NoSuchWorkspace,
        );
    }
    let listed = client.call_ok("workspace.list", json!({}));
    assert_eq!(listed["workspaces"], json!([c]));
}

#[test]
fn close_with_an_unknown_signal_is_bad_params_and_closes_nothing() {
    let server = TestServer::start();
    let mut client = server.client();
    create_named(&mut client, "keep");
    for signal in ["STOP", "SIGSEGV", "9", ""] {
        let response = client.call(
            "workspace.close",
            json!({"workspace_id": "keep", "signal": signal}),
        );
        expect_code(response, ErrorCode::BadParams);
    }
    for signal in ["term", "SIGHUP", "Int"] {
        let ws = create_named(&mut client, "tmp");
        let closed = client.call_ok(
            "workspace.close",
            json!({"workspace_id": ws["id"], "signal": signal}),
        );
        assert_eq!(closed, json!({"closed": true}), "signal {signal}");
    }
    client.call_ok("workspace.get", json!({"workspace_id": "keep"}));
}

// --- status -----------------------------------------------------------------------------

#[test]
fn status_reports_version_protocol_counts_and_a_growing_seq() {
    let server = TestServer::start();
    let mut client = server.client();
    let before = client.call_ok("server.status", json!({}));
    assert_eq!(before["protocol"], PROTOCOL);
    assert_eq!(before["version"], env!("CARGO_PKG_VERSION"));
    for field in [
        "uptime_s",
        "workspaces",
        "tabs",
        "panes",
        "live_panes",
        "seq",
    ] {
        u64_field(&before, field);
    }
    assert_eq!(
        (before["workspaces"].clone(), before["tabs"].clone()),
        (json!(0), json!(0))
    );
    assert_eq!(
        (before["panes"].clone(), before["live_panes"].clone()),
        (json!(0), json!(0))
    );

    let ws = create_named(&mut client, "counted");
    create_named(&mut client, "counted too");
    let after_create = client.call_ok("server.status", json!({}));
    assert_eq!(after_create["workspaces"], 2);
    assert!(
        u64_field(&after_create, "seq") >= u64_field(&before, "seq") + 2,
        "an event per create"
    );

    client.call_ok(
        "workspace.rename",
        json!({"workspace_id": ws["id"], "name": "renamed"}),
    );
    client.call_ok("workspace.close", json!({"workspace_id": ws["id"]}));
    let after_close = client.call_ok("server.status", json!({}));
    assert_eq!(after_close["workspaces"], 1);
    assert!(u64_field(&after_close, "seq") >= u64_field(&after_create, "seq") + 2);
    assert!(u64_field(&after_close, "uptime_s") >= u64_field(&before, "uptime_s"));

    // Reads and errors do not consume sequence numbers.
    client.call_ok("workspace.list", json!({}));
    let _ = client.call("workspace.get", json!({"workspace_id": "nope"}));
    assert_eq!(head(&mut client), u64_field(&after_close, "seq"));
}

// --- subscribe: live events ---------------------------------------------------------------

#[test]
fn a_workspace_subscriber_sees_created_updated_and_closed_with_rising_seq_and_full_payloads() {
    let server = TestServer::start();
    let mut subscriber = server.client();
    let mut actor = server.client();
    let head_before = head(&mut actor);
    let sub = subscriber.call_ok("subscribe", json!({"events": ["workspace.*"]}));
    assert_eq!(
        (&sub["subscribed"], &sub["seq"]),
        (&json!(true), &json!(head_before)),
        "{sub}"
    );
    assert!(
        sub.get("replay").is_none_or(Value::is_null),
        "no replay without from_seq: {sub}"
    );

    let ws = create_named(&mut actor, "Watched");
    let renamed = actor.call_ok(
        "workspace.rename",
        json!({"workspace_id": "watched", "name": "Seen"}),
    );
    actor.call_ok("workspace.close", json!({"workspace_id": "watched"}));
    let after = head(&mut actor);

    let created = subscriber.next_event();
    let updated = subscriber.next_event();
    let closed = subscriber.next_event();
    assert_eq!(created.event, "workspace.created");
    assert_eq!(created.payload, json!({"workspace": ws}));
    assert_eq!(updated.event, "workspace.updated");
    assert_eq!(updated.payload, json!({"workspace": renamed["workspace"]}));
    assert_eq!(closed.event, "workspace.closed");
    assert_eq!(closed.payload, json!({"workspace_id": ws["id"]}));
    let seqs = [created.seq, updated.seq, closed.seq];
    assert!(
        head_before < seqs[0] && seqs[0] < seqs[1] && seqs[1] < seqs[2],
        "seqs {seqs:?} after {head_before}"
    );
    assert_eq!(seqs[2], after, "the head is the last event's seq");
}

#[test]
fn a_subscription_delivers_only_events_matching_its_globs() {
    let server = TestServer::start();
    let mut closed_only = server.client();
    closed_only.call_ok("subscribe", json!({"events": ["workspace.closed"]}));
    let mut other = server.client();
    other.call_ok(
        "subscribe",
        json!({"events": ["tab.*", "workspace.updated"]}),
    );
    let mut everything = server.client();
    everything.call_ok("subscribe", json!({}));

    let mut actor = server.client();
    let ws = create_named(&mut actor, "glob");
    actor.call_ok(
        "workspace.rename",
        json!({"workspace_id": "glob", "name": "globbed"}),
    );
    actor.call_ok("workspace.close", json!({"workspace_id": "glob"}));

    let first = closed_only.next_event();
    assert_eq!(
        (first.event.as_str(), &first.payload),
        ("workspace.closed", &json!({"workspace_id": ws["id"]}))
    );
    assert_eq!(other.next_event().event, "workspace.updated");
    let names: Vec<String> = (0..3).map(|_| everything.next_event().event).collect();
    assert_eq!(
        names,
        ["workspace.created", "workspace.updated", "workspace.closed"]
    );

    // Re-subscribing replaces the globs: after switching to `workspace.created`, a close
    // is not delivered but the next create is.
    closed_only.call_ok("subscribe", json!({"events": ["workspace.created"]}));
    let second = create_named(&mut actor, "second");
    actor.call_ok("workspace.close", json!({"workspace_id": second["id"]}));
    let third = create_named(&mut actor, "third");
    let a = closed_only.next_event();
    let b = closed_only.next_event();
    assert_eq!(
        (a.event.as_str(), &a.payload["workspace"]["id"]),
        ("workspace.created", &second["id"])
    );
    assert_eq!(
        (b.event.as_str(), &b.payload["workspace"]["id"]),
        ("workspace.created", &third["id"])
    );
}

#[test]
fn a_subscriber_on_the_acting_connection_gets_each_event_and_its_response() {
    let server = TestServer::start();
    let mut client = server.client();
    client.call_ok("subscribe", json!({"events": ["workspace.*"]}));
    let ws = create_named(&mut client, "self");
    let event = client.next_event();
    assert_eq!(event.event, "workspace.created");
    assert_eq!(event.payload["workspace"], ws);
}

// --- subscribe: replay -----------------------------------------------------------------

/// Reads the `n` replay frames following a subscribe reply.
fn replay_frames(client: &mut Client, n: usize) -> Vec<EventFrame> {
    (0..n).map(|_| client.next_event()).collect()
}

#[test]
fn subscribe_from_a_past_seq_replays_the_matching_events_then_goes_live() {
    let server = TestServer::start();
    let mut actor = server.client();
    let start = head(&mut actor);
    let a = create_named(&mut actor, "A");
    actor.call_ok(
        "workspace.rename",
        json!({"workspace_id": "a", "name": "A2"}),
    );
    let b = create_named(&mut actor, "B");
    let through = head(&mut actor);

    let mut sub = server.client();
    let reply = sub.call_ok(
        "subscribe",
        json!({"events": ["workspace.*"], "from_seq": start}),
    );
    assert_eq!(reply["subscribed"], true);
    assert_eq!(reply["seq"], through);
    let replay = &reply["replay"];
    assert_eq!(replay["status"], "complete", "{reply}");
    assert_eq!(replay["requested_after"], start);
    assert_eq!(replay["through"], through);
    assert_eq!(replay["returned"], 3);
    assert!(u64_field(replay, "retained_after") <= start);
    assert!(
        replay.get("recovery").is_none_or(Value::is_null),
        "no recovery when complete: {reply}"
    );
    let frames = replay_frames(&mut sub, 3);
    let names: Vec<&str> = frames.iter().map(|f| f.event.as_str()).collect();
    assert_eq!(
        names,
        [
            "workspace.created",
            "workspace.updated",
            "workspace.created"
        ]
    );
    assert_eq!(frames[0].payload["workspace"], a);
    assert_eq!(frames[2].payload["workspace"], b);
    assert!(
        frames.windows(2).all(|w| w[0].seq < w[1].seq),
        "ascending seqs"
    );
    assert!(frames[0].seq > start && frames[2].seq == through);

    // Live delivery resumes after `through`, with no duplicate.
    let c = create_named(&mut actor, "C");
    let live = sub.next_event();
    assert_eq!(live.payload["workspace"], c);
    assert!(live.seq > through);

    // A replay filtered by globs counts only the matching events.
    let mut created_only = server.client();
    let reply = created_only.call_ok(
        "subscribe",
        json!({"events": ["workspace.created"], "from_seq": start}),
    );
    assert_eq!(reply["replay"]["returned"], 3);
    let frames = replay_frames(&mut created_only, 3);
    let ids: Vec<&Value> = frames
        .iter()
        .map(|f| &f.payload["workspace"]["id"])
        .collect();
    assert_eq!(ids, [&a["id"], &b["id"], &c["id"]]);
}

#[test]
fn subscribe_from_the_head_is_complete_with_nothing_to_replay() {
    let server = TestServer::start();
    let mut actor = server.client();
    create_named(&mut actor, "one");
    let now = head(&mut actor);
    let mut sub = server.client();
    let reply = sub.call_ok("subscribe", json!({"from_seq": now}));
    assert_eq!(reply["subscribed"], true);
    assert_eq!(reply["replay"]["status"], "complete");
    assert_eq!(reply["replay"]["returned"], 0);
    let next = create_named(&mut actor, "two");
    let event = sub.next_event();
    assert_eq!(
        event.payload["workspace"], next,
        "the first frame is the live event, not a replay"
    );
}

#[test]
fn subscribe_from_a_seq_beyond_the_head_is_cursor_ahead_and_closes_the_connection() {
    let server = TestServer::start();
    let mut actor = server.client();
    create_named(&mut actor, "one");
    let now = head(&mut actor);
    let mut sub = server.client();
    let reply = sub.call_ok("subscribe", json!({"from_seq": now + 1}));
    assert_eq!(reply["subscribed"], false, "{reply}");
    assert_eq!(reply["replay"]["status"], "cursor_ahead");
    assert_eq!(reply["replay"]["requested_after"], now + 1);
    assert_eq!(reply["replay"]["returned"], 0);
    assert_eq!(reply["replay"]["recovery"], "snapshot_then_resubscribe");
    sub.expect_eof();
    // The server and other connections are unaffected.
    create_named(&mut actor, "two");
}

#[test]
fn replay_from_before_the_in_memory_ring_is_served_complete_from_the_journal() {
    let server = TestServer::start();
    let mut actor = server.client();
    let start = head(&mut actor);
    // 1030 events: more than the 1024-event ring, pipelined to keep it fast.
    let mut bytes = String::new();
    for i in 0..1030 {
        bytes.push_str(&request_line(
            &format!("w{i}"),
            "workspace.create",
            json!({"name": "ring"}),
        ));
    }
    actor.send_raw(bytes.as_bytes());
    for i in 0..1030 {
        let response = actor.read_response();
        assert_eq!(response.id, format!("w{i}"));
        ok(response);
    }
    let now = head(&mut actor);
    assert!(now >= start + 1030);

    let mut late = server.client();
    let reply = late.call_ok(
        "subscribe",
        json!({"events": ["workspace.*"], "from_seq": start}),
    );
    assert_eq!(reply["subscribed"], true, "{reply}");
    assert_eq!(reply["replay"]["status"], "complete", "{reply}");
    assert!(reply["replay"].get("recovery").is_none(), "{reply}");
    assert_eq!(
        u64_field(&reply["replay"], "retained_after"),
        0,
        "a fresh journal keeps everything"
    );
    assert_eq!(u64_field(&reply["replay"], "through"), now);
    let returned = u64_field(&reply["replay"], "returned");
    assert_eq!(returned, now - start, "every event after from_seq: {reply}");
    let frames = replay_frames(&mut late, returned as usize);
    let seqs: Vec<u64> = frames.iter().map(|f| f.seq).collect();
    assert_eq!(
        seqs,
        ((start + 1)..=now).collect::<Vec<_>>(),
        "ascending, no gap, no duplicate"
    );

    // Live delivery continues right after the replay.
    ok(actor.call("workspace.create", json!({"name": "after"})));
    let live = late.next_event();
    assert_eq!(live.seq, now + 1);
    assert_eq!(live.event, "workspace.created");
}

// --- schema -----------------------------------------------------------------------------

#[test]
fn schema_lists_exactly_the_dispatched_methods_the_events_and_the_21_codes() {
    let server = TestServer::start();
    let mut client = server.client();
    let schema = client.call_ok("server.schema", json!({}));
    assert_eq!(schema["protocol"], PROTOCOL);
    assert_eq!(schema["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(schema["methods"], json!(Method::NAMES));
    let codes: Vec<&str> = schema["codes"]
        .as_array()
        .expect("codes")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(codes.len(), 21);
    let wanted: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(codes, wanted);
    assert!(codes.contains(&"NO_SUCH_SERVER"));
    let events: Vec<&str> = schema["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for event in [
        "workspace.created",
        "workspace.updated",
        "workspace.closed",
        "server.will_shutdown",
    ] {
        assert!(
            events.contains(&event),
            "schema events include {event}: {events:?}"
        );
    }
    assert_eq!(schema["capabilities"]["subscribe_replay_coverage"], true);
    assert!(
        schema["capabilities"]
            .as_object()
            .expect("capabilities")
            .values()
            .all(Value::is_boolean)
    );
}

#[test]
fn every_method_in_the_schema_is_dispatched_and_every_other_designed_method_is_unknown() {
    let server = TestServer::start();
    let schema = server.client().call_ok("server.schema", json!({}));
    let methods: Vec<String> = schema["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    // `server.shutdown` last, since it stops the server; each call on its own
    // connection, since `subscribe` changes the connection's state.
    let mut ordered: Vec<&String> = methods.iter().filter(|m| *m != "server.shutdown").collect();
    ordered.extend(methods.iter().filter(|m| *m == "server.shutdown"));
    for method in ordered {
        let response = server.client().call(method, json!({}));
        if let Some(e) = &response.error {
            assert_ne!(
                e.code,
                ErrorCode::UnknownMethod,
                "{method} is in the schema but not dispatched"
            );
            assert_eq!(e.code, ErrorCode::BadParams, "{method} with {{}}: {e:?}");
        }
        if method == "server.shutdown" {
            assert!(response.ok, "shutdown without panes succeeds: {response:?}");
        }
    }
}

#[test]
fn designed_methods_this_server_does_not_list_answer_unknown_method() {
    let server = TestServer::start();
    let mut client = server.client();
    let schema = client.call_ok("server.schema", json!({}));
    let listed: HashSet<&str> = schema["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for method in DESIGNED_METHODS {
        if listed.contains(method) {
            continue;
        }
        let response = client.call(method, json!({}));
        expect_code(response, ErrorCode::UnknownMethod);
    }
    // Names the CLI maps but that are never socket methods.
    for method in ["integration.install", "new", "daemon"] {
        expect_code(client.call(method, json!({})), ErrorCode::UnknownMethod);
    }
}

/// The 63 methods of the reference design's method table, in its order: the ones this
/// server serves are those of docs/methods.md#method-groups, less its additions.
const DESIGNED_METHODS: &[&str] = &[
    "server.status",
    "server.shutdown",
    "server.schema",
    "workspace.create",
    "workspace.list",
    "workspace.get",
    "workspace.rename",
    "workspace.close",
    "workspace.refresh_git",
    "workspace.diff",
    "workspace.file_diff",
    "worktree.list",
    "worktree.create",
    "worktree.open",
    "worktree.remove",
    "tab.create",
    "tab.close",
    "tab.set_layout",
    "tab.set_ratio",
    "layout.export",
    "layout.apply",
    "pane.spawn",
    "pane.split",
    "pane.swap",
    "pane.rename",
    "pane.move",
    "pane.get",
    "pane.input",
    "pane.resize",
    "pane.signal",
    "pane.read",
    "pane.wait_for_output",
    "pane.clear",
    "pane.attach",
    "pane.detach",
    "pane.close",
    "pane.resume",
    "pane.mark_seen",
    "pane.explain",
    "pane.submit",
    "decision.answer",
    "notify",
    "hook-event",
    "report-session",
    "subscribe",
    "wait",
    "focus.next_unread",
    "attention.pending",
    "plugin.list",
    "plugin.reload",
    "agents.list",
    "agents.reload",
    "task.start",
    "task.get",
    "task.list",
    "task.wait",
    "task.report",
    "task.diff",
    "task.file_diff",
    "task.finish",
    "task.pr_open",
    "task.pr_refresh",
    "task.cancel",
];

/// Methods beyond the reference design's table, each one an issue asked for and
/// docs/protocol.md describes.
const EXTENSIONS: &[&str] = &[
    // Issue 14: the per-workspace auto-resume opt-in (docs/restore.md#auto-resume).
    "workspace.set_auto_resume",
    // The hibernation of idle agents (docs/restore.md#hibernation).
    "workspace.set_hibernate",
    // Issue 32: auto-continue at a usage limit's reset (docs/states.md#auto-continue).
    "workspace.set_auto_continue",
    // Issue 18: the kept notifications listed and marked read.
    "notification.list",
    "notification.mark_read",
    // Issue 19: the in-place upgrade (docs/upgrade.md).
    "server.upgrade",
    // Issue 32: ask an agent and wait for its answer (docs/ask.md).
    "pane.ask",
    // Issue 32: the conflict radar's collisions (docs/tasks.md#conflict-radar).
    "task.conflicts",
];

#[test]
fn the_dispatched_methods_keep_the_order_of_the_designed_table() {
    assert_eq!(DESIGNED_METHODS.len(), 63);
    let mut designed = DESIGNED_METHODS.iter();
    let protocol_doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/protocol.md"),
    )
    .unwrap_or_default();
    for name in Method::NAMES {
        if EXTENSIONS.contains(name) {
            assert!(
                protocol_doc.contains(name),
                "the extension {name} is not described in docs/protocol.md"
            );
            continue;
        }
        assert!(
            designed.any(|m| m == name),
            "{name} is out of the reference table's order or not in it"
        );
    }
}
