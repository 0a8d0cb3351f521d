//! The agent programs signaltty knows by name: the kind of a command from its
//! program's basename, each built-in agent's executable, and the command a
//! restored pane is resumed with (docs/persistence.md). Pure functions that
//! the server's launches, `signaltty doctor` and `signaltty restore` share.

use signaltty_protocol::pane::{AgentKind, Pane, RestoreState};
use std::path::Path;

/// The kind of a command by its program's basename (spec/data-model.md §5.2 built-ins;
/// manifest overlays come with the agent adapters). Anything else is `generic`.
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

/// The executable name of each built-in agent kind (spec/data-model.md §5.2):
/// what `detect_kind` recognises and `signaltty doctor` looks for on `PATH`.
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

/// The command a resume runs (spec/persistence.md §8.3 step 2): when the
/// pane's original program is an absolute path whose basename is the resume
/// command's bare program, the original path is kept (the user's chosen
/// binary); anything else — a relative or bare original, a wrapper with
/// another name, a resume program that is itself a path — keeps the resume
/// command as it is. The original's launch options are never copied.
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
/// exact-session command (resolved as above), or, for a `RESTORED` pane whose
/// command is a plain interactive shell, that shell again in its cwd. `None`
/// when the pane has neither.
pub fn resume_command(pane: &Pane) -> Option<Vec<String>> {
    if let Some(resume) = &pane.agent.resume_argv {
        return Some(resolve_resume_argv(&pane.argv, resume));
    }
    let shell = pane
        .argv
        .first()
        .and_then(|p| Path::new(p).file_name())
        .and_then(|n| n.to_str())
        .is_some_and(|name| RESUMABLE_SHELLS.contains(&name));
    // Only an interactive shell: `sh -c …` ran a command, which is not ours to
    // run again.
    let interactive = pane
        .argv
        .iter()
        .skip(1)
        .all(|a| a == "-l" || a == "-i" || a == "--login");
    (pane.restore_state == RestoreState::Restored && shell && interactive)
        .then(|| pane.argv.clone())
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
