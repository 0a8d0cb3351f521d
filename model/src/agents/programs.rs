//! The agent programs signaltty knows by name: the kind of a command from its
//! program's basename, each built-in agent's executable, and the command a
//! restored pane is resumed with (docs/persistence.md). Pure functions that
//! the server's launches, `signaltty doctor` and `signaltty restore` share.

use signaltty_protocol::pane::{AgentKind, Pane, RestoreState};
use std::path::Path;

/// The kind of a command by its program's basename (the built-in programs of
/// docs/agents.md#agent-kinds-and-detection; manifest overlays come with the
/// agent adapters). Anything else is `generic`.
pub fn detect_kind(argv: &[String]) -> AgentKind {
    let Some(program) = argv.first() else {
        return AgentKind::None;
    };
    let base = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program);
    BUILTIN_EXECUTABLES
        .iter()
        .find(|(name, _)| *name == base)
        .map_or(AgentKind::Generic, |(_, kind)| *kind)
}

/// The executable name of each built-in agent kind
/// (docs/agents.md#agent-kinds-and-detection): what `detect_kind` recognises
/// and `signaltty doctor` looks for on `PATH`.
pub const BUILTIN_EXECUTABLES: [(&str, AgentKind); 6] = [
    ("codex", AgentKind::Codex),
    ("claude", AgentKind::Claude),
    ("opencode", AgentKind::Opencode),
    ("cursor-agent", AgentKind::Cursor),
    ("pi", AgentKind::Pi),
    ("gemini", AgentKind::Gemini),
];

/// The executable a built-in agent kind runs as; `None` for `generic` and `none`.
pub fn executable(kind: AgentKind) -> Option<&'static str> {
    BUILTIN_EXECUTABLES
        .iter()
        .find(|(_, k)| *k == kind)
        .map(|(name, _)| *name)
}

/// Shells a restored pane may be started again in (tmux-resurrect parity).
pub const RESUMABLE_SHELLS: &[&str] = &["bash", "zsh", "fish", "sh", "dash"];

/// The command a resume runs (docs/restore.md#the-resume-command): when the
/// pane's original program is an absolute path whose basename is the resume
/// command's bare program, the original path is kept (the user's chosen
/// binary); anything else — a relative or bare original, a wrapper with another
/// name, a resume program that is itself a path — keeps the resume command as
/// it is. The original's launch options are never copied.
pub fn resolve_resume_argv(original: &[String], resume: &[String]) -> Vec<String> {
    let mut argv = resume.to_vec();
    if let (Some(orig), Some(program)) = (original.first(), argv.first_mut())
        && Path::new(orig).is_absolute()
        && !program.is_empty()
        && !program.contains('/')
        && Path::new(orig).file_name().and_then(|n| n.to_str()) == Some(program.as_str())
    {
        *program = orig.clone();
    }
    argv
}

/// What `pane.resume` starts in a pane without a process: the adapter's
/// exact-session command (resolved as above), or, for a pane the server's
/// restart took (`RESTORED` or `RESUMABLE`) whose command is an interactive
/// shell, that shell again in its cwd. `None` when the pane has neither.
pub fn resume_command(pane: &Pane) -> Option<Vec<String>> {
    if let Some(resume) = &pane.agent.resume_argv {
        return Some(resolve_resume_argv(&pane.argv, resume));
    }
    let taken = matches!(
        pane.restore_state,
        RestoreState::Restored | RestoreState::Resumable
    );
    (taken && interactive_shell(&pane.argv)).then(|| pane.argv.clone())
}

/// Whether a pane with this command comes back `RESUMABLE` after a restart:
/// its agent reported a session, or it is an interactive shell. The one
/// rule behind the restore state, `server.status`'s count and `pane.resume`.
pub fn comes_back_resumable(pane: &Pane) -> bool {
    pane.agent.resume_argv.is_some() || interactive_shell(&pane.argv)
}

/// Whether `argv` is an interactive shell: a shell of [`RESUMABLE_SHELLS`]
/// whose options run no command and name no script, so starting it again
/// runs nothing the person did not type. `bash --norc --noprofile`, `zsh -l`
/// and `bash --rcfile ~/.x` are; `sh -c 'make'`, `bash -lc make`, `fish
/// --command=x` and `bash script.sh` are not.
pub fn interactive_shell(argv: &[String]) -> bool {
    let Some(name) = argv
        .first()
        .and_then(|p| Path::new(p).file_name())
        .and_then(|n| n.to_str())
    else {
        return false;
    };
    if !RESUMABLE_SHELLS.contains(&name) {
        return false;
    }
    let mut args = argv.iter().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            // Options that take the next word as their value.
            "--rcfile" | "--init-file" | "-o" | "+o" | "-O" | "+O" => {
                args.next();
            },
            "--command" | "--init-command" | "-C" => return false,
            a if a.starts_with("--command=") => return false,
            a if a.starts_with("--") => {},
            // A cluster of short options: `-c` among them runs a command.
            a if (a.starts_with('-') || a.starts_with('+')) && a.len() > 1 => {
                if a[1..].contains('c') {
                    return false;
                }
            },
            // `-` or `--` ends the options; a word after them, or any other
            // word, is a script to run.
            _ => return false,
        }
    }
    true
}

/// Why `pane.resume` refuses `pane` (not live, no [`resume_command`]), in
/// words that fit what the pane ran.
pub fn not_resumable_because(pane: &Pane) -> String {
    let id = &pane.id;
    let program = pane.argv.first().map_or("", String::as_str);
    let kind_has_adapter = executable(pane.agent.kind).is_some();
    if kind_has_adapter {
        return format!(
            "pane {id} is not resumable: its agent reported no session to resume \
             (start it again with `signaltty new -- {}`)",
            basename(program)
        );
    }
    if interactive_shell(&pane.argv) {
        return format!(
            "pane {id} is not resumable: its shell exited by itself; only a pane the \
             server's restart took comes back"
        );
    }
    format!(
        "pane {id} is not resumable: it ran `{}`, a command rather than an agent or an \
         interactive shell, and signaltty does not run a command again by itself",
        pane.argv.join(" ")
    )
}

/// Runtimes whose process is named after the script they run.
pub const RUNTIMES: &[&str] = &["node", "bun", "deno", "python", "python3"];

/// The last component of a path, or the path itself.
pub fn basename(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map_or_else(|| path.to_owned(), |n| n.to_string_lossy().into_owned())
}

/// The name of a command line: the program's basename, or for a runtime the
/// basename of its script without a `.js`/`.mjs`/`.cjs`/`.ts`/`.py` extension.
pub fn name_of(argv: &[String]) -> String {
    let Some(first) = argv.first() else {
        return String::new();
    };
    let program = basename(first);
    let runtime = RUNTIMES.contains(&program.as_str()) || program.starts_with("python3.");
    if !runtime {
        return program;
    }
    argv.iter()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(|script| {
            let base = basename(script);
            match base.rsplit_once('.') {
                Some((stem, "js" | "mjs" | "cjs" | "ts" | "py")) => stem.to_owned(),
                _ => base,
            }
        })
        .unwrap_or(program)
}

#[cfg(test)]
mod tests;
