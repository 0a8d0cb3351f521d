//! Generic agents signaltty configures: programs with no agent kind of their
//! own whose hooks are a builtin agent's. Qwen Code runs Claude Code's hooks
//! (names, payloads, verdict); Kilo Code loads OpenCode's plugins and gets
//! OpenCode's events. Their hooks report as `--agent generic`, so the pane
//! stays a generic one (its display name, screen rules and resume command are
//! the program's), and the program's bundled manifest names the vocabulary
//! that reads them (`vocabulary` in `manifests/qwen.toml`, `manifests/kilo.toml`).
//!
//! | program | file | shape |
//! |---|---|---|
//! | qwen | `<qwen dir>/settings.json` (`$QWEN_HOME`, else `~/.qwen`) | grouped JSON: Claude Code's installed hooks |
//! | kilo | `<kilo dir>/plugins/signaltty.js` (`$KILO_CONFIG_DIR`, else `<config>/kilo`) | whole file: the OpenCode plugin |

use super::{Report, Roots, Status, Target, check_reporter, opencode, plan, read_status};
use super::{hooks_json::Shape, remove, write};
use signaltty_protocol::pane::AgentKind;
use std::path::{Path, PathBuf};

/// A generic agent signaltty can configure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Program {
    /// Its name for `signaltty integration` (the program's own name).
    pub name: &'static str,
    /// The builtin kind whose hooks it speaks.
    pub vocabulary: AgentKind,
}

/// Qwen Code: Claude Code's hooks in its `settings.json`.
pub const QWEN: Program = Program {
    name: "qwen",
    vocabulary: AgentKind::Claude,
};

/// Kilo Code: the OpenCode plugin in its plugin directory.
pub const KILO: Program = Program {
    name: "kilo",
    vocabulary: AgentKind::Opencode,
};

/// The programs, in the order `all` installs them (after the agent kinds).
pub const PROGRAMS: [Program; 2] = [QWEN, KILO];

/// The first line of the Kilo Code plugin file signaltty writes.
pub const KILO_HEADER: &str =
    "// signaltty hook-event shim for Kilo Code (managed by `signaltty integration`).";

/// The program `signaltty integration` calls `name`.
pub fn parse(name: &str) -> Option<Program> {
    PROGRAMS.into_iter().find(|p| p.name == name)
}

impl Program {
    /// The file its hooks live in.
    pub fn file(&self, roots: &Roots) -> PathBuf {
        match self.vocabulary {
            AgentKind::Opencode => roots.kilo.join("plugins").join("signaltty.js"),
            _ => roots.qwen.join("settings.json"),
        }
    }

    fn target(&self, reporter: &Path) -> Target {
        let agent = AgentKind::Generic.name();
        match self.vocabulary {
            AgentKind::Opencode => Target::Owned(
                KILO_HEADER,
                opencode::plugin_for(KILO_HEADER, self.name, agent, &reporter.to_string_lossy()),
            ),
            kind => Target::Json(plan(kind, agent, Shape::Grouped, reporter)),
        }
    }

    /// Installs (merges) its managed hooks with `reporter` as their command.
    pub fn install(&self, roots: &Roots, reporter: &Path) -> Result<Report, String> {
        check_reporter(reporter)?;
        let (file, changed) = write(self.target(reporter), &self.file(roots))?;
        Ok(self.report(file, changed))
    }

    /// Removes its managed hooks, and only those.
    pub fn uninstall(&self, roots: &Roots) -> Result<Report, String> {
        let (file, changed) = remove(self.target(Path::new("/signaltty")), &self.file(roots))?;
        Ok(self.report(file, changed))
    }

    /// What its file holds, read from the file.
    pub fn status(&self, roots: &Roots, reporter: &Path) -> (PathBuf, Status) {
        let path = self.file(roots);
        let status = read_status(self.target(reporter), &path, false);
        (path, status)
    }

    fn report(&self, file: PathBuf, changed: bool) -> Report {
        Report {
            agent: AgentKind::Generic,
            file,
            changed,
            notice: None,
        }
    }
}

#[cfg(test)]
mod tests;
