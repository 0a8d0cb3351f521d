//! Transport and protocol robustness (docs/protocol.md): socket placement and permissions, single-instance and stale-socket rules,
//! stopping, framing, malformed input, ordering and load.

use crate::support::process::set_mode;
use crate::support::{
    Client, DEADLINE, TestEnv, TestServer, err, expect_code, fd_count, mode_of, ok, poll_until,
    request_line,
};
use nix::sys::signal::Signal;
use nix::unistd::Uid;
use serde_json::{Value, json};
use signaltty_protocol::envelope::ServerLine;
use signaltty_protocol::{ErrorCode, MAX_LINE_BYTES, PROTOCOL};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::os::unix::net::UnixListener;
use std::sync::Barrier;

fn status(client: &mut Client) -> Value {
    client.call_ok("server.status", json!({}))
}

/// Writes `bytes` on a thread (so the server can answer while a huge line is still
/// being written) and returns the thread.
fn write_on_thread(client: &Client, bytes: Vec<u8>) -> std::thread::JoinHandle<()> {
    let mut writer = match client.stream().try_clone() {
        Ok(w) => w,
        Err(e) => panic!("cannot clone the socket: {e}"),
    };
    std::thread::spawn(move || {
        if let Err(e) = writer.write_all(&bytes) {
            panic!("cannot write {} bytes: {e}", bytes.len());
        }
    })
}

/// A `server.status` request line whose length without the newline is exactly `len`,
/// padded with an unknown string param.
fn padded_status_request(id: &str, len: usize) -> Vec<u8> {
    let prefix = format!(
        r#"{{"protocol":"{PROTOCOL}","id":"{id}","method":"server.status","params":{{"pad":""#
    );
    let suffix = r#""}}"#;
    let pad = len - prefix.len() - suffix.len();
    let mut line = Vec::with_capacity(len + 1);
    line.extend_from_slice(prefix.as_bytes());
    line.resize(prefix.len() + pad, b'x');
    line.extend_from_slice(suffix.as_bytes());
    assert_eq!(line.len(), len);
    assert!(
        serde_json::from_slice::<Value>(&line).is_ok(),
        "the padded request is valid JSON"
    );
    line.push(b'\n');
    line
}

// --- Socket placement, permissions and single instance -------------------------------

#[test]
fn the_default_socket_dir_is_created_0700_and_the_socket_is_0600_both_owned_by_us() {
    let server = TestServer::start();
    let env = server.env();
    assert_eq!(server.socket_path(), env.default_socket());
    let dir = env.default_socket_dir();
    assert_eq!(mode_of(&dir), 0o700, "socket dir {} mode", dir.display());
    let socket_mode = mode_of(server.socket_path());
    assert_eq!(socket_mode & 0o777, 0o600, "socket mode {socket_mode:o}");
    let uid = Uid::current().as_raw();
    for path in [dir.as_path(), server.socket_path()] {
        let meta = std::fs::symlink_metadata(path).expect("stat");
        assert_eq!(
            meta.uid(),
            uid,
            "{} is owned by uid {}",
            path.display(),
            meta.uid()
        );
    }
    let meta = std::fs::symlink_metadata(server.socket_path()).expect("stat socket");
    use std::os::unix::fs::FileTypeExt;
    assert!(
        meta.file_type().is_socket(),
        "{} is a socket",
        server.socket_path().display()
    );
}

#[test]
fn a_second_server_on_the_same_socket_exits_3_and_the_first_keeps_answering() {
    let mut server = TestServer::start();
    let mut second = server.env().spawn_server(&["server"], "second.stderr");
    second.expect_exit_code(3);
    let stderr = second.stderr();
    assert!(
        stderr.contains("already listening"),
        "second server's stderr: {stderr}"
    );
    assert!(
        server.socket_path().exists(),
        "the live socket must not be unlinked"
    );
    server.assert_running();
    let mut client = server.client();
    assert_eq!(status(&mut client)["protocol"], PROTOCOL);
}

#[test]
fn a_stale_socket_file_with_nothing_listening_is_replaced() {
    let env = TestEnv::new();
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(env.default_socket_dir())
        .expect("mkdir");
    set_mode(&env.default_socket_dir(), 0o700);
    // Bind and drop a listener: the socket file stays behind with nobody listening.
    drop(UnixListener::bind(env.default_socket()).expect("bind the stale socket"));
    assert!(env.default_socket().exists());
    assert!(std::os::unix::net::UnixStream::connect(env.default_socket()).is_err());
    let server = TestServer::start_in(env);
    let mut client = server.client();
    assert_eq!(status(&mut client)["workspaces"], 0);
}

#[test]
fn a_preexisting_runtime_dir_with_group_or_other_bits_is_refused_as_unsafe() {
    for mode in [0o755, 0o750, 0o701] {
        let env = TestEnv::new();
        std::fs::create_dir(env.default_socket_dir()).expect("mkdir");
        set_mode(&env.default_socket_dir(), mode);
        let mut server = env.spawn_server(&["server"], "server.stderr");
        server.expect_exit_code(1);
        let stderr = server.stderr();
        assert!(
            stderr.contains("unsafe permissions"),
            "mode {mode:o}: stderr was: {stderr}"
        );
        assert_eq!(
            mode_of(&env.default_socket_dir()),
            mode,
            "the refused dir must not be chmod'ed"
        );
        assert!(
            !env.default_socket().exists(),
            "no socket may be created in an unsafe dir"
        );
    }
}

#[test]
fn a_runtime_dir_owned_by_another_user_is_refused_as_unsafe() {
    if !Uid::current().is_root() {
        eprintln!("skipped: only root can give the runtime dir to another user");
        return;
    }
    let env = TestEnv::new();
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(env.default_socket_dir())
        .expect("mkdir");
    set_mode(&env.default_socket_dir(), 0o700);
    // 65534 is `nobody` on Debian-like systems; any uid other than ours will do.
    std::os::unix::fs::chown(env.default_socket_dir(), Some(65534), Some(65534)).expect("chown");
    let mut server = env.spawn_server(&["server"], "server.stderr");
    server.expect_exit_code(1);
    let stderr = server.stderr();
    assert!(
        stderr.contains("unsafe permissions"),
        "stderr was: {stderr}"
    );
    assert!(
        !env.default_socket().exists(),
        "no socket may be created in a foreign dir"
    );
}

#[test]
fn a_runtime_dir_that_is_a_symlink_is_refused_as_unsafe() {
    let env = TestEnv::new();
    let target = env.root().join("elsewhere");
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&target)
        .expect("mkdir");
    set_mode(&target, 0o700);
    std::os::unix::fs::symlink(&target, env.default_socket_dir()).expect("symlink");
    let mut server = env.spawn_server(&["server"], "server.stderr");
    server.expect_exit_code(1);
    let stderr = server.stderr();
    assert!(
        stderr.contains("unsafe permissions"),
        "stderr was: {stderr}"
    );
    assert!(
        !target.join("signaltty.sock").exists(),
        "no socket may be created through the symlink"
    );
}

#[test]
fn a_preexisting_private_runtime_dir_is_used_as_it_is() {
    let env = TestEnv::new();
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(env.default_socket_dir())
        .expect("mkdir");
    set_mode(&env.default_socket_dir(), 0o700);
    let marker = env.default_socket_dir().join("keep-me");
    std::fs::write(&marker, b"x").expect("write marker");
    let server = TestServer::start_in(env);
    let mut client = server.client();
    status(&mut client);
    assert!(
        marker.exists(),
        "other files of the runtime dir are left alone"
    );
    assert_eq!(mode_of(&server.env().default_socket_dir()), 0o700);
}

#[test]
fn a_preexisting_socket_dir_given_by_flag_is_neither_chmodded_nor_refused() {
    let env = TestEnv::new();
    let shared = env.root().join("shared");
    std::fs::create_dir(&shared).expect("mkdir");
    set_mode(&shared, 0o755);
    let socket = shared.join("custom.sock");
    let server = TestServer::start_with_socket_flag(env, &socket);
    let mut client = server.client();
    status(&mut client);
    assert_eq!(
        mode_of(&shared),
        0o755,
        "a pre-existing --socket dir is never chmod'ed"
    );
    assert_eq!(mode_of(&socket) & 0o777, 0o600);
    assert!(
        !server.env().default_socket().exists(),
        "the default path is not used"
    );
}

#[test]
fn a_missing_socket_dir_given_by_flag_is_created_0700() {
    let env = TestEnv::new();
    let socket = env.root().join("made").join("by-flag.sock");
    let server = TestServer::start_with_socket_flag(env, &socket);
    assert_eq!(mode_of(&server.env().root().join("made")), 0o700);
    let mut client = server.client();
    status(&mut client);
}

#[test]
fn the_signaltty_socket_variable_places_the_socket_and_the_flag_wins_over_it() {
    let mut env = TestEnv::new();
    let by_env = env.root().join("by-env.sock");
    env.set_var("SIGNALTTY_SOCKET", &by_env);
    let server = TestServer::start_with_args(env, &["server"], by_env.clone());
    let mut client = server.client();
    status(&mut client);
    assert!(!server.env().default_socket().exists());
    drop(client);
    drop(server);

    let mut env = TestEnv::new();
    env.set_var("SIGNALTTY_SOCKET", env.root().join("ignored.sock"));
    let by_flag = env.root().join("by-flag.sock");
    let ignored = env.root().join("ignored.sock");
    let server = TestServer::start_with_socket_flag(env, &by_flag);
    let mut client = server.client();
    status(&mut client);
    assert!(!ignored.exists(), "--socket wins over SIGNALTTY_SOCKET");
}

// --- Stopping --------------------------------------------------------------------------

#[test]
fn sigterm_stops_the_server_with_exit_0_and_removes_the_socket() {
    let mut server = TestServer::start();
    let mut client = server.client();
    status(&mut client);
    server.process().signal(Signal::SIGTERM);
    server.process().expect_exit_code(0);
    assert!(
        !server.socket_path().exists(),
        "the socket file is removed on SIGTERM"
    );
    client.expect_eof();
}

#[test]
fn sigint_stops_the_server_with_exit_0_and_removes_the_socket() {
    let mut server = TestServer::start();
    server.process().signal(Signal::SIGINT);
    server.process().expect_exit_code(0);
    assert!(
        !server.socket_path().exists(),
        "the socket file is removed on SIGINT"
    );
}

#[test]
fn server_shutdown_replies_before_eof_then_exits_0_and_removes_the_socket() {
    let mut server = TestServer::start();
    let mut client = server.client();
    let result = client.call_ok("server.shutdown", json!({}));
    assert_eq!(result, json!({"stopped": true}));
    // Nothing but events may follow the reply on this connection, then EOF.
    for line in client.read_until_eof() {
        assert!(
            matches!(line, ServerLine::Event(_)),
            "unexpected line after shutdown: {line:?}"
        );
    }
    server.process().expect_exit_code(0);
    assert!(
        !server.socket_path().exists(),
        "the socket file is removed on server.shutdown"
    );
}

#[test]
fn a_subscriber_receives_server_will_shutdown_before_its_connection_closes() {
    let mut server = TestServer::start();
    let mut subscriber = server.client();
    let sub = subscriber.call_ok("subscribe", json!({"events": ["server.*"]}));
    assert_eq!(sub["subscribed"], true);
    let mut admin = server.client();
    admin.call_ok("server.shutdown", json!({"force": false}));
    let event = subscriber.next_event();
    assert_eq!(event.event, "server.will_shutdown");
    assert_eq!(event.payload, json!({}));
    assert!(
        event.seq > sub["seq"].as_u64().expect("seq"),
        "{event:?} after fence {sub}"
    );
    subscriber.expect_eof();
    server.process().expect_exit_code(0);
}

// --- Malformed input ---------------------------------------------------------------------

#[test]
fn invalid_json_is_bad_params_with_id_question_mark_and_the_connection_stays_open() {
    let server = TestServer::start();
    let mut client = server.client();
    let lines: [&[u8]; 6] = [
        b"not json at all\n",
        b"{\"protocol\":\"signaltty/1\",\"id\":\"trunc\"\n",
        b"[1,2,3]\n",
        b"\"a string\"\n",
        b"{\"protocol\":\"signaltty/1\",\"method\":\"server.status\",\"params\":{}}\n",
        b"{\"protocol\":\"signaltty/1\",\"id\":42,\"method\":\"server.status\",\"params\":{}}\n",
    ];
    for line in lines {
        client.send_raw(line);
        let response = client.read_response();
        assert_eq!(response.id, "?", "for {:?}", String::from_utf8_lossy(line));
        expect_code(response, ErrorCode::BadParams);
        // The very next request on the same connection is served.
        assert_eq!(status(&mut client)["protocol"], PROTOCOL);
    }
}

#[test]
fn an_empty_line_is_invalid_json_and_gets_its_own_bad_params_reply() {
    // A line that is not valid JSON is answered BAD_PARAMS with id "?"
    // (docs/protocol.md#parameter-validation); every input line gets exactly one reply.
    let server = TestServer::start();
    let mut client = server.client();
    let mut bytes = b"\n".to_vec();
    bytes.extend_from_slice(request_line("after-empty", "server.status", json!({})).as_bytes());
    client.send_raw(&bytes);
    let first = client.read_response();
    assert_eq!(first.id, "?", "the empty line is answered first: {first:?}");
    expect_code(first, ErrorCode::BadParams);
    let second = client.read_response();
    assert_eq!(second.id, "after-empty");
    ok(second);
}

#[test]
fn a_17_mib_line_is_rate_limited_with_id_question_mark_and_the_next_request_is_answered() {
    let server = TestServer::start();
    let mut client = server.client();
    let mut bytes = vec![b'x'; 17 * 1024 * 1024];
    bytes.push(b'\n');
    bytes.extend_from_slice(request_line("after-big", "server.status", json!({})).as_bytes());
    let writer = write_on_thread(&client, bytes);
    let first = client.read_response();
    assert_eq!(first.id, "?");
    let e = expect_code(first, ErrorCode::RateLimited);
    assert!(!e.message.is_empty());
    let second = client.read_response();
    assert_eq!(second.id, "after-big");
    assert_eq!(ok(second)["protocol"], PROTOCOL);
    writer.join().expect("writer thread");
}

#[test]
fn a_valid_request_one_byte_over_16_mib_is_rate_limited_not_served() {
    let server = TestServer::start();
    let mut client = server.client();
    let mut bytes = padded_status_request("over", MAX_LINE_BYTES + 1);
    bytes.extend_from_slice(request_line("next", "server.status", json!({})).as_bytes());
    let writer = write_on_thread(&client, bytes);
    let first = client.read_response();
    assert_eq!(
        first.id, "?",
        "an oversize line is answered before it is parsed: {first:?}"
    );
    expect_code(first, ErrorCode::RateLimited);
    let second = client.read_response();
    assert_eq!(second.id, "next");
    ok(second);
    writer.join().expect("writer thread");
}

#[test]
fn a_valid_request_of_exactly_16_mib_is_read_and_answered_normally() {
    let server = TestServer::start();
    let mut client = server.client();
    let mut bytes = padded_status_request("exact", MAX_LINE_BYTES);
    bytes.extend_from_slice(request_line("next", "server.status", json!({})).as_bytes());
    let writer = write_on_thread(&client, bytes);
    let first = client.read_response();
    assert_eq!(
        first.id, "exact",
        "a 16 MiB line is within the limit: {first:?}"
    );
    assert_eq!(ok(first)["protocol"], PROTOCOL);
    let second = client.read_response();
    assert_eq!(second.id, "next");
    ok(second);
    writer.join().expect("writer thread");
}

#[test]
fn invalid_utf8_is_bad_params_with_id_question_mark_and_the_connection_stays_open() {
    let server = TestServer::start();
    let mut client = server.client();
    let cases: [&[u8]; 3] = [
        b"{\"protocol\":\"signaltty/1\",\"id\":\"u\",\"method\":\"server.status\",\"params\":{\"x\":\"\xff\xfe\"}}\n",
        // An overlong encoding of '/'.
        b"{\"protocol\":\"signaltty/1\",\"id\":\"u\",\"method\":\"server.status\",\"params\":{\"x\":\"\xc0\xaf\"}}\n",
        b"\xff\xff\xff\n",
    ];
    for line in cases {
        client.send_raw(line);
        let response = client.read_response();
        assert_eq!(response.id, "?", "for {:?}", String::from_utf8_lossy(line));
        expect_code(response, ErrorCode::BadParams);
        status(&mut client);
    }
}

#[test]
fn a_lone_surrogate_escape_gets_a_defined_answer_and_the_connection_stays_open() {
    let server = TestServer::start();
    let mut client = server.client();
    client.send_raw(
        br#"{"protocol":"signaltty/1","id":"sur","method":"workspace.create","params":{"name":"\ud800"}}"#,
    );
    client.send_raw(b"\n");
    let response = client.read_response();
    if !response.ok {
        assert_eq!(err(response).code, ErrorCode::BadParams);
    }
    status(&mut client);
}

#[test]
fn a_wrong_protocol_is_bad_protocol_echoing_the_id_and_naming_both_versions() {
    let server = TestServer::start();
    let mut client = server.client();
    client.send_raw(b"{\"protocol\":\"signaltty/2\",\"id\":\"p-1\",\"method\":\"server.status\",\"params\":{}}\n");
    let response = client.read_response();
    assert_eq!(response.id, "p-1");
    let e = expect_code(response, ErrorCode::BadProtocol);
    assert!(
        e.message.contains("signaltty/1") && e.message.contains("signaltty/2"),
        "the message names the wanted and received protocols: {}",
        e.message
    );
    status(&mut client);
    client
        .send_raw(b"{\"protocol\":1,\"id\":\"p-2\",\"method\":\"server.status\",\"params\":{}}\n");
    let response = client.read_response();
    assert_eq!(response.id, "p-2");
    expect_code(response, ErrorCode::BadProtocol);
    status(&mut client);
}

#[test]
fn a_missing_protocol_is_bad_protocol_echoing_the_id() {
    let server = TestServer::start();
    let mut client = server.client();
    client.send_raw(b"{\"id\":\"np\",\"method\":\"server.status\",\"params\":{}}\n");
    let response = client.read_response();
    assert_eq!(response.id, "np");
    expect_code(response, ErrorCode::BadProtocol);
    status(&mut client);
}

#[test]
fn a_missing_or_mistyped_method_or_params_envelope_is_bad_params() {
    let server = TestServer::start();
    let mut client = server.client();
    let lines = [
        r#"{"protocol":"signaltty/1","id":"m1","params":{}}"#,
        r#"{"protocol":"signaltty/1","id":"m2","method":7,"params":{}}"#,
        r#"{"protocol":"signaltty/1","id":"m3","method":"server.status","params":[]}"#,
        r#"{"protocol":"signaltty/1","id":"m4","method":"server.status","params":"x"}"#,
    ];
    for line in lines {
        client.send_raw(format!("{line}\n").as_bytes());
        let response = client.read_response();
        let id = serde_json::from_str::<Value>(line).expect("json")["id"].clone();
        assert!(
            response.id == "?" || json!(response.id) == id,
            "id for {line}: {response:?}"
        );
        expect_code(response, ErrorCode::BadParams);
        status(&mut client);
    }
}

#[test]
fn an_unknown_method_is_unknown_method_echoing_the_id() {
    let server = TestServer::start();
    let mut client = server.client();
    for method in ["no.such.method", "", "SERVER.STATUS", "server.status "] {
        let response = client.call(method, json!({}));
        let e = expect_code(response, ErrorCode::UnknownMethod);
        assert!(!e.message.is_empty());
    }
    status(&mut client);
}

#[test]
fn a_mistyped_param_is_bad_params_and_the_message_names_the_field() {
    let server = TestServer::start();
    let mut client = server.client();
    let cases = [
        ("workspace.create", json!({"name": 42}), "name"),
        ("workspace.create", json!({"cwd": ["/tmp"]}), "cwd"),
        ("workspace.get", json!({"workspace_id": 7}), "workspace_id"),
        (
            "workspace.rename",
            json!({"workspace_id": "x", "name": false}),
            "name",
        ),
        (
            "workspace.close",
            json!({"workspace_id": "x", "signal": 9}),
            "signal",
        ),
        ("server.shutdown", json!({"force": "yes"}), "force"),
        ("subscribe", json!({"from_seq": -1}), "from_seq"),
        ("subscribe", json!({"from_seq": 1.5}), "from_seq"),
        ("subscribe", json!({"from_seq": "3"}), "from_seq"),
        ("subscribe", json!({"events": "workspace.*"}), "events"),
        ("subscribe", json!({"events": [1]}), "events"),
        ("subscribe", json!({"task_ids": [null]}), "task_ids"),
    ];
    for (method, params, field) in cases {
        let response = client.call(method, params.clone());
        let e = expect_code(response, ErrorCode::BadParams);
        assert!(
            e.message.contains(field),
            "{method} {params}: message {:?} does not name `{field}`",
            e.message
        );
    }
    // None of these changed anything.
    assert_eq!(status(&mut client)["workspaces"], 0);
}

#[test]
fn a_missing_required_param_is_bad_params() {
    let server = TestServer::start();
    let mut client = server.client();
    for (method, params) in [
        ("workspace.get", json!({})),
        ("workspace.rename", json!({"workspace_id": "x"})),
        ("workspace.rename", json!({"name": "x"})),
        ("workspace.close", json!({})),
        ("workspace.get", json!({"workspace_id": null})),
    ] {
        expect_code(client.call(method, params), ErrorCode::BadParams);
    }
}

#[test]
fn shape_errors_are_reported_before_unknown_workspaces() {
    let server = TestServer::start();
    let mut client = server.client();
    let response = client.call(
        "workspace.close",
        json!({"workspace_id": "no-such", "signal": "STOP"}),
    );
    expect_code(response, ErrorCode::BadParams);
    let response = client.call(
        "workspace.rename",
        json!({"workspace_id": "no-such", "name": 3}),
    );
    expect_code(response, ErrorCode::BadParams);
}

#[test]
fn unknown_fields_in_the_envelope_and_in_params_are_ignored() {
    let server = TestServer::start();
    let mut client = server.client();
    client.send_raw(
        b"{\"protocol\":\"signaltty/1\",\"id\":\"x1\",\"method\":\"server.status\",\"params\":{\"bogus\":1},\"extra\":{\"a\":[1]}}\n",
    );
    let response = client.read_response();
    assert_eq!(response.id, "x1");
    ok(response);
    let created = client.call_ok(
        "workspace.create",
        json!({"name": "fwd", "future_param": {"nested": true}, "x": null}),
    );
    assert_eq!(created["workspace"]["name"], "fwd");
}

#[test]
fn a_null_optional_param_means_absent_and_null_or_missing_params_mean_empty() {
    let server = TestServer::start();
    let mut client = server.client();
    let created = client.call_ok("workspace.create", json!({"name": null, "cwd": null}));
    assert_eq!(created["workspace"]["name"], "workspace");
    assert_eq!(created["workspace"]["handle"], "workspace");
    let home = server.env().home();
    assert_eq!(
        created["workspace"]["cwd"],
        home.to_str().expect("utf-8 home")
    );
    let sub = server.client().call_ok(
        "subscribe",
        json!({"events": null, "from_seq": null, "task_ids": null}),
    );
    assert_eq!(sub["subscribed"], true);
    assert!(
        sub.get("replay").is_none_or(Value::is_null),
        "no replay without from_seq: {sub}"
    );
    client.send_raw(b"{\"protocol\":\"signaltty/1\",\"id\":\"pn\",\"method\":\"server.status\",\"params\":null}\n");
    let response = client.read_response();
    assert_eq!(response.id, "pn");
    ok(response);
    client.send_raw(b"{\"protocol\":\"signaltty/1\",\"id\":\"pm\",\"method\":\"server.status\"}\n");
    let response = client.read_response();
    assert_eq!(response.id, "pm");
    ok(response);
}

// --- Framing -----------------------------------------------------------------------------

#[test]
fn crlf_line_ends_are_accepted() {
    let server = TestServer::start();
    let mut client = server.client();
    let mut bytes = Vec::new();
    for id in ["crlf-1", "crlf-2"] {
        let line = request_line(id, "server.status", json!({}));
        bytes.extend_from_slice(line.trim_end().as_bytes());
        bytes.extend_from_slice(b"\r\n");
    }
    client.send_raw(&bytes);
    for id in ["crlf-1", "crlf-2"] {
        let response = client.read_response();
        assert_eq!(response.id, id);
        ok(response);
    }
}

#[test]
fn a_request_split_across_many_writes_is_answered_once() {
    let server = TestServer::start();
    let mut client = server.client();
    let line = request_line("split", "server.status", json!({}));
    for chunk in line.as_bytes().chunks(3) {
        client.send_raw(chunk);
        client.stream().flush().expect("flush");
    }
    let response = client.read_response();
    assert_eq!(response.id, "split");
    ok(response);
}

#[test]
fn a_partial_last_line_followed_by_eof_gets_no_reply_and_the_server_carries_on() {
    let mut server = TestServer::start();
    let mut partial = server.client();
    let line = request_line("partial", "server.status", json!({}));
    partial.send_raw(line.trim_end().as_bytes());
    partial.half_close();
    partial.expect_eof();
    server.assert_running();
    let mut other = server.client();
    status(&mut other);
}

#[test]
fn a_client_that_half_closes_after_its_requests_gets_every_reply_then_eof() {
    let server = TestServer::start();
    let mut client = server.client();
    let mut bytes = String::new();
    for i in 0..5 {
        bytes.push_str(&request_line(
            &format!("hc-{i}"),
            "server.status",
            json!({}),
        ));
    }
    bytes.push_str(&request_line(
        "hc-ws",
        "workspace.create",
        json!({"name": "half"}),
    ));
    client.send_raw(bytes.as_bytes());
    client.half_close();
    let lines = client.read_until_eof();
    let ids: Vec<String> = lines
        .into_iter()
        .map(|line| match line {
            ServerLine::Response(r) => {
                assert!(r.ok, "{r:?}");
                r.id
            },
            ServerLine::Event(e) => panic!("an unsubscribed connection got an event: {e:?}"),
        })
        .collect();
    assert_eq!(ids, ["hc-0", "hc-1", "hc-2", "hc-3", "hc-4", "hc-ws"]);
    // The mutation sent just before the half-close took effect.
    let listed = server.client().call_ok("workspace.list", json!({}));
    assert_eq!(listed["workspaces"][0]["name"], "half");
}

#[test]
fn fifty_requests_pipelined_in_one_write_are_answered_in_order() {
    let server = TestServer::start();
    let mut client = server.client();
    let mut bytes = String::new();
    let mut expected = Vec::new();
    for i in 0..50 {
        let id = format!("p-{i:02}");
        let (method, params) = match i % 5 {
            0 => ("server.status", json!({})),
            1 => ("workspace.create", json!({"name": format!("pipe {i}")})),
            2 => ("workspace.list", json!({})),
            3 => ("no.such.method", json!({})),
            // The workspace created three requests earlier, by its handle.
            _ => (
                "workspace.get",
                json!({"workspace_id": format!("pipe-{}", i - 3)}),
            ),
        };
        bytes.push_str(&request_line(&id, method, params.clone()));
        expected.push((id, method, params));
    }
    client.send_raw(bytes.as_bytes());
    let mut created = 0;
    for (id, method, params) in expected {
        let response = client.read_response();
        assert_eq!(response.id, id, "responses come in request order");
        match method {
            "no.such.method" => {
                expect_code(response, ErrorCode::UnknownMethod);
            },
            "workspace.create" => {
                created += 1;
                ok(response);
            },
            "workspace.list" => {
                assert_eq!(
                    ok(response)["workspaces"].as_array().expect("list").len(),
                    created
                );
            },
            "workspace.get" => {
                assert_eq!(ok(response)["workspace"]["handle"], params["workspace_id"]);
            },
            _ => {
                ok(response);
            },
        }
    }
}

#[test]
fn a_thousand_pipelined_requests_get_a_thousand_ordered_replies() {
    let server = TestServer::start();
    let mut client = server.client();
    let mut bytes = String::new();
    for i in 0..1000 {
        bytes.push_str(&request_line(&format!("k{i}"), "server.status", json!({})));
    }
    let writer = write_on_thread(&client, bytes.into_bytes());
    for i in 0..1000 {
        let response = client.read_response();
        assert_eq!(response.id, format!("k{i}"));
        ok(response);
    }
    writer.join().expect("writer thread");
}

// --- Load and hostile clients ---------------------------------------------------------

#[test]
fn a_hundred_concurrent_clients_doing_twenty_requests_each_all_get_matching_replies() {
    let server = TestServer::start();
    let socket = server.socket_path().to_owned();
    let barrier = Barrier::new(100);
    std::thread::scope(|scope| {
        for t in 0..100 {
            let socket = &socket;
            let barrier = &barrier;
            scope.spawn(move || {
                let mut client = Client::connect(socket);
                barrier.wait();
                for r in 0..20 {
                    let id = format!("t{t}-r{r}");
                    let (method, params) = match r {
                        0 => ("workspace.create", json!({"name": format!("thread {t}")})),
                        5 => ("no.such.method", json!({})),
                        _ => ("server.status", json!({})),
                    };
                    client.send_raw(request_line(&id, method, params).as_bytes());
                    let response = client.read_response();
                    assert_eq!(response.id, id);
                    match method {
                        "no.such.method" => {
                            assert_eq!(err(response).code, ErrorCode::UnknownMethod)
                        },
                        "workspace.create" => {
                            assert_eq!(ok(response)["workspace"]["handle"], format!("thread-{t}"))
                        },
                        _ => assert_eq!(ok(response)["protocol"], PROTOCOL),
                    }
                }
            });
        }
    });
    let mut client = server.client();
    assert_eq!(status(&mut client)["workspaces"], 100);
}

#[test]
fn json_nested_too_deep_is_bad_params_and_never_crashes_the_server() {
    let mut server = TestServer::start();
    let mut client = server.client();
    for depth in [200, 100_000] {
        let line = format!(
            r#"{{"protocol":"signaltty/1","id":"deep","method":"server.status","params":{{"x":{}{}}}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        client.send_raw(format!("{line}\n").as_bytes());
        let response = client.read_response();
        assert!(response.id == "?" || response.id == "deep", "{response:?}");
        expect_code(response, ErrorCode::BadParams);
        status(&mut client);
    }
    server.assert_running();
}

#[test]
fn clients_that_vanish_mid_stream_do_not_hurt_the_server_or_other_clients() {
    let mut server = TestServer::start();
    let mut watcher = server.client();
    let fence = watcher.call_ok("subscribe", json!({"events": ["workspace.*"]}));
    let fence = fence["seq"].as_u64().expect("seq");

    // A subscriber that never reads and then disappears while events flow.
    let mut lazy = server.client();
    lazy.call_ok("subscribe", json!({}));
    // A client that pipelines many requests and leaves without reading a reply.
    let mut rude = server.client();
    let mut bytes = String::new();
    for i in 0..200 {
        bytes.push_str(&request_line(&format!("r{i}"), "workspace.list", json!({})));
    }
    rude.send_raw(bytes.as_bytes());
    // A client that leaves in the middle of a line.
    let mut torn = server.client();
    torn.send_raw(br#"{"protocol":"signaltty/1","id":"torn","meth"#);

    let mut actor = server.client();
    for i in 0..20 {
        actor.call_ok("workspace.create", json!({"name": format!("v{i}")}));
        if i == 5 {
            drop(std::mem::replace(&mut lazy, server.client()));
            drop(std::mem::replace(&mut rude, server.client()));
            drop(std::mem::replace(&mut torn, server.client()));
        }
    }
    server.assert_running();
    let mut last = fence;
    for i in 0..20 {
        let event = watcher.next_event();
        assert_eq!(event.event, "workspace.created");
        assert_eq!(event.payload["workspace"]["name"], format!("v{i}"));
        assert!(
            event.seq > last,
            "seq strictly increases: {} after {last}",
            event.seq
        );
        last = event.seq;
    }
    assert_eq!(status(&mut actor)["workspaces"], 20);
}

#[test]
fn a_thousand_connect_disconnect_cycles_leave_the_fd_count_at_baseline() {
    let server = TestServer::start();
    let pid = server.pid();
    // Warm up so lazily opened descriptors (journal, logs, runtime internals) exist.
    for _ in 0..3 {
        status(&mut server.client());
    }
    let baseline = fd_count(pid);
    for i in 0..1000 {
        let mut client = server.client();
        if i % 2 == 0 {
            status(&mut client);
        }
    }
    let mut last = 0;
    let settled = poll_until(DEADLINE, || {
        last = fd_count(pid);
        last <= baseline + 4
    });
    assert!(
        settled,
        "after 1000 closed connections the server holds {last} fds, baseline {baseline} (+4 allowed)"
    );
    let mut client = server.client();
    status(&mut client);
}

#[test]
fn an_idle_connection_that_half_closes_after_its_reply_is_closed_by_the_server() {
    let server = TestServer::start();
    let mut client = server.client();
    status(&mut client);
    // The server is now idle, waiting for the next line; EOF must end the connection.
    client.half_close();
    client.expect_eof();
}

#[test]
fn every_server_line_is_one_json_object_per_line_in_the_envelope_shape() {
    let server = TestServer::start();
    let mut client = server.client();
    client.send_raw(
        request_line(
            "shape",
            "workspace.create",
            json!({"name": "quote \" back\\slash ünï ✓"}),
        )
        .as_bytes(),
    );
    let raw = client.read_line().expect("a line");
    let value: Value = serde_json::from_str(&raw).expect("a JSON line");
    let object = value.as_object().expect("an object");
    assert_eq!(object["protocol"], PROTOCOL);
    assert_eq!(object["id"], "shape");
    assert_eq!(object["ok"], true);
    assert!(object["result"].is_object());
    assert!(!object.contains_key("error"));
    assert_eq!(
        object["result"]["workspace"]["name"],
        "quote \" back\\slash ünï ✓"
    );
    let e = client.call("workspace.get", json!({"workspace_id": "nope"}));
    let e = err(e);
    assert!(e.details.is_none() || e.details.as_ref().is_some_and(Value::is_object));
}

#[test]
fn the_socket_dir_and_socket_stay_private_when_the_server_runs_under_umask_000() {
    let env = TestEnv::new();
    let cmd = env.shell_command("umask 000; exec \"$0\" server");
    let socket = env.default_socket();
    let server = TestServer::start_with_command(env, cmd, socket);
    assert_eq!(mode_of(&server.env().default_socket_dir()), 0o700);
    let socket_mode = mode_of(server.socket_path());
    assert_eq!(
        socket_mode & 0o077,
        0,
        "socket mode {socket_mode:o} under umask 000"
    );
    assert_eq!(
        mode_of(&server.env().runtime_dir()),
        0o700,
        "XDG_RUNTIME_DIR itself is not widened"
    );
}
