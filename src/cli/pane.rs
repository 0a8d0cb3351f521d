//! `signaltty new`, `signaltty pane …`, and `mark-seen` and `attach`, which
//! are `pane mark-seen` and `pane attach` too: one method call each (`new` is
//! workspace.create or tab.create, then pane.spawn), text by default, the raw
//! result with `--json`. Attaching is the terminal client's (`attach.rs`).

use crate::args::{Global, PaneCommand};
use crate::cli::{
    absolute_cwd, call, connect, env_pane, env_param, fail, fail_call, fail_with, pane_or_env,
    parse_signal, typed,
};
use base64::Engine as _;
use signaltty_protocol::pane::{
    Attention, LiveState, Pane, PaneCloseParams, PaneGetResult, PaneInputParams, PaneInputResult,
    PaneLaunchResult, PaneReadParams, PaneReadResult, PaneResizeParams, PaneResult,
    PaneSignalParams, PaneSpawnParams, PaneTarget, ReadMode, RestoreState, SentResult,
};
use signaltty_protocol::pane::{
    MAX_INPUT_B64, PaneClearResult, PaneMoveParams, PaneRenameParams, PaneSplitParams,
    PaneSwapParams, PaneWaitForOutputParams, PaneWaitForOutputResult, TabsResult,
};
use signaltty_protocol::workspace::{
    ClosedResult, SplitDir, WorkspaceGetParams, WorkspaceGetResult,
};
use signaltty_protocol::{ErrorCode, Method, PaneRef, TabId, WorkspaceRef};
use std::path::PathBuf;

mod list;
mod new;
use list::list_all;
pub use new::new;
use new::print_launched;

fn print_pane(p: &Pane) {
    say!("{}", pane_text(p));
}

/// A pane's line ([`pane_line`]) with its live and restore state.
fn pane_text(p: &Pane) -> String {
    let live = match p.live {
        LiveState::Live => "live".to_owned(),
        LiveState::Exited { code: Some(c) } => format!("exited {c}"),
        LiveState::Exited { code: None } => "exited".to_owned(),
    };
    // A pane that came back from a restart says so, and whether it resumes.
    let live = match p.restore_state {
        RestoreState::Restored => format!("{live}, restored"),
        RestoreState::Resumable => format!("{live}, resumable"),
        RestoreState::Hibernated => "hibernated".to_owned(),
        RestoreState::Live | RestoreState::Exited => live,
    };
    pane_line(p, &live, crate::paint::current())
}

/// What a person calls a pane: its name, else its label, else its title.
pub fn display_name(p: &Pane) -> &str {
    [p.name.as_deref(), p.label.as_deref()]
        .into_iter()
        .flatten()
        .find(|n| !n.trim().is_empty())
        .unwrap_or(&p.title)
}

/// One pane as a line, its name first and its agent kind second (as the
/// board shows it, docs/board.md). Into a pipe: every field whole, as
/// scripts read it. On a terminal: the state glyphs first, coloured, and
/// the name and cwd cut so the line fits the terminal's width.
fn pane_line(p: &Pane, live: &str, paint: crate::paint::Paint) -> String {
    use crate::paint::{columns, cut, cut_left};
    let (glyph, lc_colour) = crate::paint::pane_glyph(p);
    let (mark, at_colour) = crate::paint::attention(p.attention);
    let lifecycle = paint.paint(p.lifecycle.as_str(), lc_colour, false);
    let attention = paint.paint(p.attention.as_str(), at_colour, false);
    let name = display_name(p);
    let kind = p.agent.kind.name();
    let Some(width) = paint.width() else {
        return format!(
            "{}  {name}  {kind}  [{live}]  {lifecycle}/{attention}  {}x{}  {}",
            p.id, p.pty_size.cols, p.pty_size.rows, p.cwd
        );
    };
    // On a terminal the size is left to `pane get`, and `live` is said only
    // when the pane is not: the glyph already shows the rest.
    let live = if p.live == LiveState::Live && p.restore_state == RestoreState::Live {
        String::new()
    } else {
        format!("  [{live}]")
    };
    // The state: the lifecycle, and the attention when there is one.
    let (state, state_cols) = if p.attention == Attention::None {
        (lifecycle, columns(p.lifecycle.as_str()))
    } else {
        let cols = columns(p.lifecycle.as_str()) + 1 + columns(p.attention.as_str());
        (format!("{lifecycle}/{attention}"), cols)
    };
    let pad = " ".repeat(7usize.saturating_sub(state_cols));
    // "GM id  state  name  kind  cwd[  [live]]".
    let fixed = 3
        + columns(p.id.as_str())
        + 2
        + state_cols.max(7)
        + 2
        + 2
        + columns(kind)
        + 2
        + columns(&live);
    let room = width.saturating_sub(fixed);
    let name = cut(name, columns(name).min((room / 3).max(8)).min(room));
    // A cwd cut to a few columns says nothing: then it is left out.
    let cwd_room = room.saturating_sub(columns(&name));
    let cwd = if cwd_room >= 12 || cwd_room >= columns(&p.cwd) {
        cut_left(&p.cwd, cwd_room)
    } else {
        String::new()
    };
    format!(
        "{}{} {}  {state}{pad}  {name}  {kind}  {cwd}{live}",
        paint.paint(glyph, lc_colour, false),
        paint.paint(mark, at_colour, true),
        p.id,
    )
}

/// `signaltty pane …`.
pub fn run(global: &Global, cmd: PaneCommand) -> i32 {
    match run_pane(global, cmd) {
        Ok(code) | Err(code) => code,
    }
}

fn run_pane(global: &Global, cmd: PaneCommand) -> Result<i32, i32> {
    Ok(match cmd {
        PaneCommand::Spawn {
            workspace,
            tab,
            cwd,
            env,
            parent_pane,
            label,
            relationship,
            agent_hint,
            argv,
        } => {
            let argv = if argv.is_empty() {
                vec![crate::cli::user_shell()]
            } else {
                argv
            };
            let relationship = relationship.map(|r| match r.as_str() {
                "fork" => signaltty_protocol::pane::Relationship::Fork,
                _ => signaltty_protocol::pane::Relationship::Subagent,
            });
            let params = PaneSpawnParams {
                tab_id: tab.map(TabId),
                cwd: absolute_cwd(cwd)?,
                env: env_param(env),
                parent_pane_id: parent_pane.map(PaneRef),
                label,
                relationship,
                agent_hint,
                ..PaneSpawnParams::new(WorkspaceRef(workspace), argv)
            };
            call(global, Method::PaneSpawn(params), |r: PaneLaunchResult| {
                print_launched(&r)
            })
        },
        PaneCommand::Split {
            pane,
            direction,
            cwd,
            env,
            argv,
        } => {
            let params = PaneSplitParams {
                pane_id: pane_or_env(pane)?,
                direction: Some(split_dir(&direction)?),
                argv: (!argv.is_empty()).then_some(argv),
                cwd: absolute_cwd(cwd)?,
                env: env_param(env),
            };
            call(global, Method::PaneSplit(params), |r: PaneLaunchResult| {
                print_launched(&r)
            })
        },
        PaneCommand::List {
            workspace: Some(_),
            all_hosts: true,
        } => {
            return Err(fail_with(
                ErrorCode::BadParams,
                "--all-hosts lists every workspace; name a host's workspace with --host",
            ));
        },
        PaneCommand::List {
            workspace: Some(workspace),
            all_hosts: false,
        } => {
            let params = WorkspaceGetParams {
                workspace_id: WorkspaceRef(workspace),
            };
            call(
                global,
                Method::WorkspaceGet(params),
                |r: WorkspaceGetResult| {
                    if r.panes.is_empty() {
                        say!("no panes");
                    }
                    r.panes.iter().for_each(print_pane);
                },
            )
        },
        PaneCommand::List {
            workspace: None,
            all_hosts,
        } => list_all(global, all_hosts)?,
        PaneCommand::Rename { pane, name, clear } => {
            if clear == name.is_some() {
                return Err(fail_with(ErrorCode::BadParams, "give a name, or --clear"));
            }
            let params = PaneRenameParams {
                pane_id: PaneRef(pane),
                name: Some(name),
            };
            call(global, Method::PaneRename(params), |r: PaneResult| {
                print_pane(&r.pane)
            })
        },
        PaneCommand::Swap { pane, target } => {
            let params = PaneSwapParams {
                pane_id: PaneRef(pane),
                target_pane_id: PaneRef(target),
            };
            call(global, Method::PaneSwap(params), |r: TabsResult| {
                r.tabs.iter().for_each(|t| say!("{}  {}", t.id, t.title))
            })
        },
        PaneCommand::Move {
            pane,
            target,
            direction,
        } => {
            let params = PaneMoveParams {
                pane_id: PaneRef(pane),
                target_pane_id: PaneRef(target),
                direction: Some(split_dir(&direction)?),
            };
            call(global, Method::PaneMove(params), |r: TabsResult| {
                r.tabs.iter().for_each(|t| say!("{}  {}", t.id, t.title))
            })
        },
        PaneCommand::Clear { pane } => {
            let params = PaneTarget {
                pane_id: pane_or_env(pane)?,
            };
            call(global, Method::PaneClear(params), |r: PaneClearResult| {
                say!("cleared at offset {}", r.output_offset)
            })
        },
        PaneCommand::WaitOutput {
            pane,
            pattern,
            regex,
            mode,
            after_seq,
            raw,
            lines,
            timeout,
        } => {
            let params = PaneWaitForOutputParams {
                pane_id: PaneRef(pane),
                pattern,
                regex: Some(regex),
                mode: Some(read_mode(&mode)?),
                lines,
                strip_ansi: raw.then_some(false),
                after_seq,
                timeout_s: Some(timeout),
            };
            call(
                global,
                Method::PaneWaitForOutput(params),
                |r: PaneWaitForOutputResult| say!("{}", r.matched_line),
            )
        },
        PaneCommand::Submit {
            pane,
            text,
            stdin,
            submit_delay_ms,
            stall_timeout,
        } => {
            let text = match (text, stdin) {
                (Some(t), false) => t,
                (None, true) => {
                    let mut t = String::new();
                    std::io::Read::read_to_string(&mut std::io::stdin(), &mut t)
                        .map_err(|e| fail(&format!("cannot read stdin: {e}")))?;
                    t
                },
                _ => {
                    return Err(fail_with(
                        ErrorCode::BadParams,
                        "give the prompt with --text or --stdin",
                    ));
                },
            };
            let pane_id = pane_or_env(pane)?;
            let params = signaltty_protocol::state::PaneSubmitParams {
                pane_id: pane_id.clone(),
                text,
                submit_delay_ms,
                stall_timeout_s: stall_timeout,
            };
            let mut client = connect(global)?;
            let value = match client.call(Method::PaneSubmit(params)) {
                Ok(value) => value,
                Err(e) => {
                    let not_agent =
                        e.code == ErrorCode::AgentNotReady && not_an_agent(&mut client, &pane_id);
                    let code = fail_call(e);
                    if not_agent {
                        crate::cli::say_err(&format!(
                            "  hint: {} runs no agent, and `pane submit` is for agents: type \
                             into it with `signaltty pane input {} --text TEXT --enter`",
                            pane_id.0, pane_id.0
                        ));
                    }
                    return Err(code);
                },
            };
            if global.json {
                say!("{value}");
            } else {
                let r: signaltty_protocol::state::PaneSubmitResult = typed(value)?;
                say!(
                    "submitted: {} (lifecycle {}, attention {})",
                    r.outcome,
                    r.lifecycle.as_str(),
                    r.attention.as_str()
                );
            }
            0
        },
        PaneCommand::Attach { pane } => attach(global, pane),
        PaneCommand::MarkSeen { pane } => mark_seen(global, pane),
        PaneCommand::Resume { pane } => {
            let params = PaneTarget {
                pane_id: pane_or_env(pane)?,
            };
            call(global, Method::PaneResume(params), |r: PaneLaunchResult| {
                print_launched(&r)
            })
        },
        PaneCommand::Get { pane } => {
            let params = PaneTarget {
                pane_id: pane_or_env(pane)?,
            };
            call(global, Method::PaneGet(params), |r: PaneGetResult| {
                print_pane(&r.pane)
            })
        },
        PaneCommand::Read {
            pane,
            mode,
            lines,
            after_seq,
        } => {
            let mode = match mode.as_str() {
                "screen" => ReadMode::Screen,
                "tail" => ReadMode::Tail,
                "rendered" => ReadMode::Rendered,
                other => {
                    return Err(fail_with(
                        ErrorCode::BadParams,
                        format!("unknown mode {other:?} (screen, tail, rendered)"),
                    ));
                },
            };
            let params = PaneReadParams {
                pane_id: pane_or_env(pane)?,
                mode: Some(mode),
                lines,
                strip_ansi: None,
                after_seq,
            };
            call(global, Method::PaneRead(params), |r: PaneReadResult| {
                say!("{}", r.text);
                if let Some(next) = r.next_seq {
                    eprintln!(
                        "next_seq {next}{}",
                        if r.dropped == Some(true) {
                            " (cursor dropped)"
                        } else {
                            ""
                        }
                    );
                }
            })
        },
        PaneCommand::Input {
            pane,
            text,
            stdin,
            enter,
        } => {
            let mut bytes = match (text, stdin) {
                (Some(t), false) => t.into_bytes(),
                (None, true) => {
                    let mut b = Vec::new();
                    std::io::Read::read_to_end(&mut std::io::stdin(), &mut b)
                        .map_err(|e| fail(&format!("cannot read stdin: {e}")))?;
                    b
                },
                _ => {
                    return Err(fail_with(
                        ErrorCode::BadParams,
                        "give the text with --text or --stdin",
                    ));
                },
            };
            if enter {
                bytes.push(b'\r');
            }
            input(global, pane_or_env(pane)?, &bytes)?
        },
        PaneCommand::Resize { pane, cols, rows } => {
            let params = PaneResizeParams {
                pane_id: pane_or_env(pane)?,
                cols,
                rows,
            };
            call(global, Method::PaneResize(params), |r: PaneResult| {
                print_pane(&r.pane)
            })
        },
        PaneCommand::Signal {
            pane,
            signal: name,
            group,
        } => {
            let params = PaneSignalParams {
                pane_id: pane_or_env(pane)?,
                signal: parse_signal(&name)?,
                group: Some(group),
            };
            call(global, Method::PaneSignal(params), |_: SentResult| {
                say!("sent {name}")
            })
        },
        PaneCommand::Close { pane, signal: name } => {
            let params = PaneCloseParams {
                pane_id: pane_or_env(pane)?,
                signal: Some(parse_signal(&name)?),
            };
            call(global, Method::PaneClose(params), |_: ClosedResult| {
                say!("closed")
            })
        },
    })
}

/// Whether `pane` runs no agent (a plain shell, any other program), as
/// `pane.get` says; `false` when it cannot tell.
fn not_an_agent(client: &mut signaltty_model::client::Client, pane: &PaneRef) -> bool {
    client
        .call(Method::PaneGet(PaneTarget {
            pane_id: pane.clone(),
        }))
        .ok()
        .and_then(|v| serde_json::from_value::<PaneGetResult>(v).ok())
        .is_some_and(|r| !r.pane.agent.kind.is_agent())
}

/// The most raw bytes one `pane.input` carries: what base64 turns into
/// at most `MAX_INPUT_B64` characters.
const INPUT_CHUNK: usize = MAX_INPUT_B64 / 4 * 3;

/// `pane input`: the bytes in as few `pane.input` calls as the protocol's
/// limit allows, in order on one connection (docs/methods.md#paneinput);
/// prints the total written.
fn input(global: &Global, pane_id: PaneRef, bytes: &[u8]) -> Result<i32, i32> {
    let mut client = connect(global)?;
    let mut written = 0u64;
    let mut results = Vec::new();
    for chunk in bytes.chunks(INPUT_CHUNK) {
        let params = PaneInputParams {
            pane_id: pane_id.clone(),
            data_b64: base64::engine::general_purpose::STANDARD.encode(chunk),
        };
        let value = client.call(Method::PaneInput(params)).map_err(fail_call)?;
        let r: PaneInputResult = typed(value.clone())?;
        written += r.written;
        results.push(value);
    }
    if global.json {
        // One call: its result as it came; several: the total.
        match results.as_slice() {
            [one] => say!("{one}"),
            _ => say!(
                "{}",
                serde_json::json!({ "written": written, "calls": results.len() })
            ),
        }
    } else {
        say!("wrote {written} bytes");
    }
    Ok(0)
}

fn read_mode(mode: &str) -> Result<ReadMode, i32> {
    match mode {
        "screen" => Ok(ReadMode::Screen),
        "tail" => Ok(ReadMode::Tail),
        "rendered" => Ok(ReadMode::Rendered),
        other => Err(fail_with(
            ErrorCode::BadParams,
            format!("unknown mode {other:?} (screen, tail, rendered)"),
        )),
    }
}

fn split_dir(dir: &str) -> Result<SplitDir, i32> {
    match dir {
        "right" => Ok(SplitDir::Right),
        "down" => Ok(SplitDir::Down),
        other => Err(fail_with(
            ErrorCode::BadParams,
            format!("unknown direction {other:?} (right, down)"),
        )),
    }
}

/// `signaltty mark-seen PANE` and `pane mark-seen`.
pub fn mark_seen(global: &Global, pane: Option<String>) -> i32 {
    let pane_id = match pane_or_env(pane) {
        Ok(p) => p,
        Err(code) => return code,
    };
    call(
        global,
        Method::PaneMarkSeen(PaneTarget { pane_id }),
        |r: PaneResult| {
            say!("{}  {}", r.pane.id, r.pane.attention.as_str());
        },
    )
}

/// `signaltty attach [PANE]` and `pane attach`: this terminal on the pane
/// until the person detaches.
pub fn attach(global: &Global, pane: Option<String>) -> i32 {
    let Some(pane) = pane.or_else(env_pane) else {
        return fail_with(ErrorCode::BadParams, "name a pane to attach to");
    };
    match crate::remote::target(global) {
        Ok(target) => crate::attach::run(&target, &pane),
        Err(code) => code,
    }
}
