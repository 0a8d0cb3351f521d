//! What `signaltty integration` configures and `signaltty doctor` checks:
//! an agent kind, or a generic program whose hooks are a builtin agent's
//! (Qwen Code, Kilo Code), chosen by the name the CLI takes.

use super::program::{self, PROGRAMS, Program};
use super::{INSTALLABLE, Report, Roots, Status};
use signaltty_protocol::pane::AgentKind;
use std::path::{Path, PathBuf};

/// An agent the integration commands configure: an agent kind, or a generic
/// program whose hooks are a builtin agent's (Qwen Code, Kilo Code).
#[derive(Debug, Clone, Copy)]
pub enum Agent {
    /// An installable agent kind (`INSTALLABLE`).
    Kind(AgentKind),
    /// A generic program (`PROGRAMS`).
    Program(Program),
}

impl Agent {
    /// Its name for `signaltty integration`.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Kind(k) => k.name(),
            Agent::Program(p) => p.name,
        }
    }

    /// The file its hooks live in, when it can be found.
    pub fn file(self, roots: &Roots) -> Option<PathBuf> {
        match self {
            Agent::Kind(k) => roots.file(k).ok(),
            Agent::Program(p) => Some(p.file(roots)),
        }
    }

    /// Writes its managed hooks, calling `reporter`.
    pub fn install(self, roots: &Roots, reporter: &Path) -> Result<Report, String> {
        match self {
            Agent::Kind(k) => super::install(k, roots, reporter),
            Agent::Program(p) => p.install(roots, reporter),
        }
    }

    /// Removes its managed hooks, and nothing else.
    pub fn uninstall(self, roots: &Roots) -> Result<Report, String> {
        match self {
            Agent::Kind(k) => super::uninstall(k, roots),
            Agent::Program(p) => p.uninstall(roots),
        }
    }

    /// Its hook file and what it holds.
    pub fn status(self, roots: &Roots, reporter: &Path) -> Result<(PathBuf, Status), String> {
        match self {
            Agent::Kind(k) => super::status(k, roots, reporter),
            Agent::Program(p) => Ok(p.status(roots, reporter)),
        }
    }
}

/// The agents named: one, or every one for `all` / `--all` / none given.
pub fn named(name: Option<&str>, all: bool) -> Result<Vec<Agent>, String> {
    match name {
        None | Some("all") => Ok(INSTALLABLE
            .into_iter()
            .map(Agent::Kind)
            .chain(PROGRAMS.into_iter().map(Agent::Program))
            .collect()),
        Some(_) if all => Err("give an agent or --all, not both".into()),
        Some(n) => super::parse_installable(n)
            .map(Agent::Kind)
            .or_else(|| program::parse(n).map(Agent::Program))
            .map(|a| vec![a])
            .ok_or_else(|| {
                format!(
                    "unknown agent {n:?} (claude, codex, opencode, cursor, gemini, pi, qwen, kilo or all)"
                )
            }),
    }
}
