//! Gemini CLI read by its screen alone (issue 16): its hooks are the ones
//! `signaltty integration install gemini` writes, and they run on every turn,
//! but the reporter they run cannot reach the server. The pane's program sets
//! `SIGNALTTY_SOCKET` to a path where nothing listens, as for hooks installed
//! for another server (another user, a container, a server on another
//! socket); the reporter then exits 0 and says nothing. No hook reaches the
//! pane, so its screen rules carry the whole turn.
//!
//! The turn's tool prints a line and then runs silent for 8 s, long enough
//! for Gemini's status line to become "! Shell awaiting input" (its spinner
//! gone) 5 s into the silence.
//!
//! `gemini_screens_of_a_turn_are_recorded` (ignored, run by hand) keeps every
//! distinct screen of such a turn, to find the forms a new release draws.

use super::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// The tool call of the turn: output, then silence, then the file.
const SILENT_TOOL: &str = "echo start; sleep 8; touch out.txt";

/// Merges `extra` (`{"section": {"key": value}}`) into Gemini's settings.
fn merge_settings(home: &Path, extra: &Value) {
    let path = home.join(".gemini").join("settings.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut settings: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    for (section, keys) in extra.as_object().into_iter().flatten() {
        for (key, value) in keys.as_object().into_iter().flatten() {
            settings[section][key] = value.clone();
        }
    }
    std::fs::write(&path, settings.to_string()).unwrap_or_else(|e| panic!("{e}"));
}

/// Starts Gemini (with `args`, and `settings` merged into its own) in a pane
/// of `rig`, its hooks installed and pointed at a socket where no server
/// listens.
fn spawn_unreported(rig: &Rig, c: &mut Client, args: &[&str], settings: Option<&Value>) -> String {
    rig.install_hooks("gemini");
    if let Some(extra) = settings {
        merge_settings(&rig.home, extra);
    }
    let nowhere = rig.home.join("nowhere.sock");
    let mut argv = vec![
        "env".to_owned(),
        format!("SIGNALTTY_SOCKET={}", nowhere.display()),
        agent_bin("gemini").to_string_lossy().into_owned(),
    ];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    let ws = ok(c.call(
        "workspace.create",
        json!({"name": "real", "cwd": rig.work.to_string_lossy()}),
    ));
    let r = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws["workspace"]["id"], "argv": argv, "cols": 120, "rows": 40,
               "agent_hint": "gemini"}),
    ));
    str_field(&r["pane"], "id").to_owned()
}

/// A turn whose only evidence is the screen: idle, working, blocked on the
/// tool's confirmation (answered with Enter), working through the tool's
/// silence, done + unread, every state from a screen rule.
fn turn_read_from_the_screen(settings: Option<Value>) {
    let rig = gemini_rig();
    rig.model
        .set(json!({"delay": 2.0, "final_delay": 0.3, "command": SILENT_TOOL}));
    let mut c = rig.server.client();
    let pane = spawn_unreported(&rig, &mut c, &[], settings.as_ref());
    wait_ready(&mut c, &pane, "Type your message");
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    let blocked = wait_state(&mut c, &pane, "blocked");
    assert_eq!(blocked["attention"], "input_required");
    wait_screen(&mut c, &pane, "Allow once");
    press(&mut c, &pane, "\r");
    // Five seconds into the tool's silence, its status line has no spinner.
    wait_screen(&mut c, &pane, "Shell awaiting input");
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert_eq!(p["pane"]["lifecycle"], "working", "{}", p["pane"]);
    let out = rig.work.join("out.txt");
    wait_until("the tool to touch out.txt", LONG, || {
        out.exists().then_some(())
    });
    let done = wait_state(&mut c, &pane, "done");
    assert_eq!(done["attention"], "unread");
    // The lifecycle from the first idle on, repeats folded: the turn read
    // idle or done nowhere in its middle.
    let folded = || {
        let mut seen: Vec<String> = Vec::new();
        for (_, name, _) in rig.watch.lifecycle(&pane) {
            if (seen.is_empty() && name != "idle") || seen.last() == Some(&name) {
                continue;
            }
            seen.push(name);
        }
        seen
    };
    let expected = ["idle", "working", "blocked", "working", "done"];
    crate::support::poll_until(LONG, || folded().len() >= expected.len());
    assert_eq!(folded(), expected, "{:?}", rig.watch.lifecycle(&pane));
    let life = rig.watch.lifecycle(&pane);
    assert!(
        life.iter()
            .all(|(_, _, source)| source.starts_with("screen:")),
        "every state came from the screen: {life:?}"
    );
    // The hooks did run, for this pane, and reported nothing.
    let hooks = std::fs::read_to_string(&rig.hook_log).unwrap_or_default();
    for event in ["BeforeAgent", "AfterAgent"] {
        assert!(
            hooks
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .any(|h| h["event"] == event && h["pane"] == pane.as_str()),
            "{event} ran: {hooks}"
        );
    }
}

/// With its dynamic window title ("◇ Ready", "✦ Working…", "✋ Action
/// Required") and its status line.
#[test]
fn gemini_whose_hooks_do_not_reach_signaltty_is_read_from_its_screen() {
    turn_read_from_the_screen(None);
}

/// With `ui.dynamicWindowTitle` off the title stays "Gemini CLI (dir)": the
/// screen text alone carries the turn.
#[test]
fn gemini_with_its_title_off_is_read_from_its_screen_text_alone() {
    turn_read_from_the_screen(Some(json!({"ui": {"dynamicWindowTitle": false}})));
}

/// Polls a pane's screen and title every 100 ms on a thread of its own and
/// keeps each distinct one (spinner frames and digits folded).
struct Recorder {
    stop: Arc<AtomicBool>,
    frames: std::thread::JoinHandle<Vec<(u128, String, String, String)>>,
}

impl Recorder {
    fn start(server: &TestServer, pane: &str) -> Recorder {
        let mut c = server.client();
        let pane = pane.to_owned();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let t0 = now_us();
        let frames = std::thread::spawn(move || {
            let mut frames = Vec::new();
            let mut last = String::new();
            while !flag.load(Ordering::Relaxed) {
                let screen = ok(c.call("pane.read", json!({"pane_id": pane, "mode": "screen"})));
                let text = str_field(&screen, "text").to_owned();
                let p = ok(c.call("pane.get", json!({"pane_id": pane})));
                let title = str_field(&p["pane"], "title").to_owned();
                let life = str_field(&p["pane"], "lifecycle").to_owned();
                let key: String = format!("{title}\n{text}\n{life}")
                    .chars()
                    .map(|ch| match ch {
                        '\u{2800}'..='\u{28ff}' => '⠿',
                        '0'..='9' => '0',
                        _ => ch,
                    })
                    .collect();
                if key != last {
                    frames.push(((now_us() - t0) / 1000, title, text, life));
                    last = key;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            frames
        });
        Recorder { stop, frames }
    }

    /// Writes `<dir>/<n>-<ms>-<lifecycle>.txt` per frame, as fixtures are.
    fn finish(self, dir: &Path) {
        self.stop.store(true, Ordering::Relaxed);
        let frames = self.frames.join().unwrap_or_default();
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
        for (i, (ms, title, text, life)) in frames.iter().enumerate() {
            std::fs::write(
                dir.join(format!("{i:03}-{ms:06}-{life}.txt")),
                format!("# title: {title}\n{text}\n"),
            )
            .unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

/// Records every distinct screen of one Gemini turn into
/// `$GEMINI_SCREENS/<$GEMINI_SCENARIO>/`, hooks unreported. Knobs:
/// `GEMINI_COMMAND` (the tool call), `GEMINI_SETTINGS` (JSON merged into the
/// settings), `GEMINI_YOLO=1` (no confirmation), `GEMINI_RETRY_S=N` (the
/// model fails with 503 for the first N seconds). Then check each frame
/// with `signaltty agents check manifests/gemini.toml --title …`.
#[test]
#[ignore = "run by hand to find the screens of a new release"]
fn gemini_screens_of_a_turn_are_recorded() {
    let Some(root) = std::env::var_os("GEMINI_SCREENS") else {
        return;
    };
    let opt = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let out = PathBuf::from(root).join(opt("GEMINI_SCENARIO").unwrap_or_else(|| "turn".into()));
    let command = opt("GEMINI_COMMAND").unwrap_or_else(|| SILENT_TOOL.into());
    let rig = gemini_rig();
    let script = json!({"delay": 3.0, "final_delay": 2.0, "command": command});
    rig.model.set(script.clone());
    let mut c = rig.server.client();
    let yolo = opt("GEMINI_YOLO").is_some();
    let settings = opt("GEMINI_SETTINGS")
        .map(|extra| serde_json::from_str(&extra).unwrap_or_else(|e| panic!("{e}")));
    let args: &[&str] = if yolo { &["--yolo"] } else { &[] };
    let pane = spawn_unreported(&rig, &mut c, args, settings.as_ref());
    let recorder = Recorder::start(&rig.server, &pane);
    wait_ready(&mut c, &pane, "Type your message");
    let retry = opt("GEMINI_RETRY_S").and_then(|s| s.parse().ok());
    if retry.is_some() {
        rig.model.set(json!({"mode": "error", "error_status": 503}));
    }
    submit(&mut c, &pane, "Create out.txt containing hello");
    if let Some(secs) = retry {
        std::thread::sleep(Duration::from_secs(secs));
        rig.model.set(script);
    }
    if !yolo {
        wait_screen(&mut c, &pane, "Allow once");
        press(&mut c, &pane, "\r");
    }
    wait_screen(&mut c, &pane, "done: wrote out.txt");
    wait_state(&mut c, &pane, "done");
    recorder.finish(&out);
}
