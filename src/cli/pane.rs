//! `signaltty new`, `signaltty pane …`, and `mark-seen` and `attach`, which
//! are `pane mark-seen` and `pane attach` too: one method call each (`new` is
//! workspace.create or tab.create, then pane.spawn), text by default, the raw
//! result with `--json`. Attaching is the terminal client's (`attach.rs`).

use crate::args::{Global, PaneCommand};
use crate::cli::{
    absolute_cwd, call, connect, env_pane, env_param, fail, fail_call, fail_with, fetch,
    pane_or_env, parse_signal, resolve_socket, typed,
};
use base64::Engine as _;
use signaltty_protocol::pane::{
    Attention, LiveState, Pane, PaneCloseParams, PaneGetResult, PaneInputParams, PaneInputResult,
    PaneLaunchResult, PaneReadParams, PaneReadResult, PaneResizeParams, PaneResult,
    PaneSignalParams, PaneSpawnParams, PaneTarget, ReadMode, RestoreState, SentResult,
};
use signaltty_protocol::pane::{
    PaneClearResult, PaneMoveParams, PaneRenameParams, PaneSplitParams, PaneSwapParams,
    PaneWaitForOutputParams, PaneWaitForOutputResult, TabsResult,
};
use signaltty_protocol::tab::{TabCreateParams, TabResult};
use signaltty_protocol::workspace::{
    ClosedResult, SplitDir, WorkspaceCreateParams, WorkspaceGetParams, WorkspaceGetResult,
    WorkspaceResult,
};
use signaltty_protocol::{ErrorCode, Method, PaneRef, TabId, WorkspaceRef};
use std::path::PathBuf;

/// The user's shell, for a spawn without a command.
fn user_shell() -> String {
    std::env::var("SHELL")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "sh".to_owned())
}

fn print_pane(p: &Pane) {
    let live = match p.live {
        LiveState::Live => "live".to_owned(),
        LiveState::Exited { code: Some(c) } => format!("exited {c}"),
        LiveState::Exited { code: None } => "exited".to_owned(),
    };
    // A pane that came back from a restart says so, and whether it resumes.
    let live = match p.restore_state {
        RestoreState::Restored => format!("{live}, restored"),
        RestoreState::Resumable => format!("{live}, resumable"),
        RestoreState::Live | RestoreState::Exited => live,
    };
    say!("{}", pane_line(p, &live, crate::paint::current()));
}

/// One pane as a line. Into a pipe: every field whole, as scripts read it.
/// On a terminal: the state glyphs first, coloured, and the title and cwd cut
/// so the line fits the terminal's width.
fn pane_line(p: &Pane, live: &str, paint: crate::paint::Paint) -> String {
    use crate::paint::{columns, cut, cut_left};
    let (glyph, lc_colour) = crate::paint::lifecycle(p.lifecycle);
    let (mark, at_colour) = crate::paint::attention(p.attention);
    let lifecycle = paint.paint(p.lifecycle.as_str(), lc_colour, false);
    let attention = paint.paint(p.attention.as_str(), at_colour, false);
    let Some(width) = paint.width() else {
        return format!(
            "{}  {}  [{live}]  {lifecycle}/{attention}  {}x{}  {}",
            p.id, p.title, p.pty_size.cols, p.pty_size.rows, p.cwd
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
    // "GM id  state  title  cwd[  [live]]".
    let fixed = 3 + columns(p.id.as_str()) + 2 + state_cols.max(7) + 2 + 2 + columns(&live);
    let room = width.saturating_sub(fixed);
    let title = cut(&p.title, columns(&p.title).min((room / 3).max(8)).min(room));
    // A cwd cut to a few columns says nothing: then it is left out.
    let cwd_room = room.saturating_sub(columns(&title));
    let cwd = if cwd_room >= 12 || cwd_room >= columns(&p.cwd) {
        cut_left(&p.cwd, cwd_room)
    } else {
        String::new()
    };
    format!(
        "{}{} {}  {state}{pad}  {title}  {cwd}{live}",
        paint.paint(glyph, lc_colour, false),
        paint.paint(mark, at_colour, true),
        p.id,
    )
}

/// `signaltty new [--workspace W] [--name N] [--cwd DIR] [--tab T] [--env K=V…] [-- ARGV…]`.
pub fn new(
    global: &Global,
    workspace: Option<String>,
    name: Option<String>,
    tab: Option<String>,
    cwd: Option<PathBuf>,
    env: Vec<(String, String)>,
    argv: Vec<String>,
) -> i32 {
    match run_new(global, workspace, name, tab, cwd, env, argv) {
        Ok(code) | Err(code) => code,
    }
}

fn run_new(
    global: &Global,
    workspace: Option<String>,
    name: Option<String>,
    tab: Option<String>,
    cwd: Option<PathBuf>,
    env: Vec<(String, String)>,
    argv: Vec<String>,
) -> Result<i32, i32> {
    let cwd = absolute_cwd(cwd)?;
    let mut client = connect(global)?;
    // A new workspace gets its first tab from the spawn; an existing one gets a new
    // tab, since a spawn needs an empty one.
    let mut tab_id = None;
    let workspace = match workspace {
        Some(w) => {
            let created: TabResult = fetch(
                &mut client,
                Method::TabCreate(TabCreateParams {
                    workspace_id: WorkspaceRef(w.clone()),
                    title: tab,
                }),
            )?;
            tab_id = Some(created.tab.id);
            WorkspaceRef(w)
        },
        None => {
            let created: WorkspaceResult = fetch(
                &mut client,
                Method::WorkspaceCreate(WorkspaceCreateParams {
                    name,
                    cwd: cwd.clone(),
                }),
            )?;
            WorkspaceRef(created.workspace.id.0)
        },
    };
    let argv = if argv.is_empty() {
        vec![user_shell()]
    } else {
        argv
    };
    let params = PaneSpawnParams {
        tab_id,
        cwd,
        env: env_param(env),
        ..PaneSpawnParams::new(workspace, argv)
    };
    let value = client.call(Method::PaneSpawn(params)).map_err(fail_call)?;
    if global.json {
        say!("{value}");
    } else {
        print_launched(&typed::<PaneLaunchResult>(value)?);
    }
    Ok(0)
}

/// A launched pane, and what its agent's hook setup says.
fn print_launched(r: &PaneLaunchResult) {
    print_pane(&r.pane);
    if let Some(i) = &r.integration {
        say!("  hooks: {} {}", i.agent, i.status);
        if let Some(n) = &i.notice {
            eprintln!("signaltty: {n}");
        }
    }
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
                vec![user_shell()]
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
        PaneCommand::List { workspace } => {
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
            let params = signaltty_protocol::state::PaneSubmitParams {
                pane_id: pane_or_env(pane)?,
                text,
                submit_delay_ms,
                stall_timeout_s: stall_timeout,
            };
            call(
                global,
                Method::PaneSubmit(params),
                |r: signaltty_protocol::state::PaneSubmitResult| {
                    say!(
                        "submitted: {} (lifecycle {}, attention {})",
                        r.outcome,
                        r.lifecycle.as_str(),
                        r.attention.as_str()
                    )
                },
            )
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
        PaneCommand::Input { pane, text, enter } => {
            let mut bytes = text.into_bytes();
            if enter {
                bytes.push(b'\r');
            }
            let params = PaneInputParams {
                pane_id: pane_or_env(pane)?,
                data_b64: base64::engine::general_purpose::STANDARD.encode(bytes),
            };
            call(global, Method::PaneInput(params), |r: PaneInputResult| {
                say!("wrote {} bytes", r.written)
            })
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
    crate::attach::run(&resolve_socket(global), &pane)
}
