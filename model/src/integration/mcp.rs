//! signaltty's MCP server entry in an agent's user config
//! (docs/mcp.md#installing-it): `signaltty mcp` under the name `signaltty`,
//! written with the same safe edit as the hooks
//! (docs/integrations.md#how-files-are-edited). Everything else in the file
//! is kept; a file that does not parse is left as it is, with an error.
//!
//! | agent | file | entry |
//! |---|---|---|
//! | claude | `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json`) | `mcpServers.signaltty` |
//! | codex | `<codex root>/config.toml` | `[mcp_servers.signaltty]`, with `env_vars` and `tool_timeout_sec` |
//! | gemini | `~/.gemini/settings.json` | `mcpServers.signaltty` |

use super::file::{self, Edit};
use super::{Report, Roots};
use serde_json::{Map, Value, json};
use signaltty_protocol::pane::AgentKind;
use std::path::{Path, PathBuf};

/// The server's name in every agent's config (Claude Code calls its tools
/// `mcp__signaltty__<tool>`).
pub const NAME: &str = "signaltty";

/// The agents whose MCP config signaltty writes, in the order `all` does.
pub const AGENTS: [AgentKind; 3] = [AgentKind::Claude, AgentKind::Codex, AgentKind::Gemini];

/// The agents named: one of [`AGENTS`], or all of them for `all`.
pub fn named(name: &str) -> Result<Vec<AgentKind>, String> {
    if name == "all" {
        return Ok(AGENTS.to_vec());
    }
    AGENTS
        .into_iter()
        .find(|k| k.name() == name)
        .map(|k| vec![k])
        .ok_or_else(|| format!("unknown agent {name:?} for MCP (claude, codex, gemini or all)"))
}

/// The file `kind` keeps its user-scope MCP servers in.
pub fn file(kind: AgentKind, roots: &Roots) -> Result<PathBuf, String> {
    match kind {
        AgentKind::Claude => Ok(roots.claude_state.clone()),
        AgentKind::Codex => Ok(roots.codex.join("config.toml")),
        AgentKind::Gemini => Ok(roots.home.join(".gemini").join("settings.json")),
        other => Err(format!(
            "signaltty writes no MCP config for {} (only claude, codex and gemini)",
            other.name()
        )),
    }
}

/// Writes (or refreshes) the entry that starts `binary mcp`; repeating it
/// changes nothing.
pub fn install(kind: AgentKind, roots: &Roots, binary: &Path) -> Result<Report, String> {
    let path = file(kind, roots)?;
    let command = binary.to_string_lossy().into_owned();
    let (file, changed) = file::update(&path, |bytes| match kind {
        AgentKind::Codex => edit_toml(bytes, &path, |servers| {
            let entry = servers
                .entry(NAME)
                .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()))
                .as_table_mut()
                .ok_or_else(|| format!("`mcp_servers.{NAME}` is not a table"))?;
            entry.insert("command", toml_edit::value(command.as_str()));
            let args: toml_edit::Array = ["mcp"].into_iter().collect();
            entry.insert("args", toml_edit::value(args));
            // Codex gives a tool call a minute unless told otherwise; a
            // task's wait or an ask takes longer (docs/mcp.md#installing-it).
            if !entry.contains_key("tool_timeout_sec") {
                entry.insert("tool_timeout_sec", toml_edit::value(CODEX_TOOL_TIMEOUT_S));
            }
            pass_through(entry)
        }),
        _ => edit_json(bytes, &path, |servers| {
            let entry = servers.entry(NAME).or_insert_with(|| json!({}));
            let Value::Object(entry) = entry else {
                return Err(format!("`mcpServers.{NAME}` is not an object"));
            };
            if kind == AgentKind::Claude {
                entry.insert("type".into(), json!("stdio"));
            }
            entry.insert("command".into(), json!(command));
            entry.insert("args".into(), json!(["mcp"]));
            Ok(())
        }),
    })?;
    Ok(Report {
        agent: kind,
        file,
        changed,
        notice: None,
    })
}

/// Removes signaltty's entry (and the servers table, when it leaves it
/// empty); nothing else.
pub fn uninstall(kind: AgentKind, roots: &Roots) -> Result<Report, String> {
    let path = file(kind, roots)?;
    let (file, changed) = file::update(&path, |bytes| {
        if bytes.is_none() {
            return Ok(Edit::Keep);
        }
        match kind {
            AgentKind::Codex => edit_toml(bytes, &path, |servers| {
                servers.remove(NAME);
                Ok(())
            }),
            _ => edit_json(bytes, &path, |servers| {
                servers.remove(NAME);
                Ok(())
            }),
        }
    })?;
    Ok(Report {
        agent: kind,
        file,
        changed,
        notice: None,
    })
}

/// Whether the file holds an entry that starts `binary mcp`.
pub fn installed(kind: AgentKind, roots: &Roots, binary: &Path) -> Result<bool, String> {
    let path = file(kind, roots)?;
    let Some(bytes) = file::read(&path)? else {
        return Ok(false);
    };
    let text = String::from_utf8_lossy(&bytes);
    let (command, args) = if kind == AgentKind::Codex {
        let doc: toml::Table = toml::from_str(&text).map_err(|e| unparsable(&path, e))?;
        let entry = doc.get("mcp_servers").and_then(|s| s.get(NAME));
        let command = entry
            .and_then(|e| e.get("command"))
            .and_then(|c| c.as_str().map(str::to_owned));
        let args: Option<Vec<String>> = entry
            .and_then(|e| e.get("args"))
            .and_then(|a| a.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect()
            });
        (command, args)
    } else {
        let doc: Value = serde_json::from_str(&text).map_err(|e| unparsable(&path, e))?;
        let entry = &doc["mcpServers"][NAME];
        let args = entry["args"].as_array().map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect()
        });
        (entry["command"].as_str().map(str::to_owned), args)
    };
    Ok(command.as_deref() == Some(&*binary.to_string_lossy())
        && args == Some(vec!["mcp".to_owned()]))
}

/// How long Codex lets one tool call of signaltty run, unless the user set
/// another limit: an hour, `task.wait`'s own default.
pub const CODEX_TOOL_TIMEOUT_S: i64 = 3600;

/// The variables `signaltty mcp` finds its server and config by. Codex
/// starts MCP servers with a few variables only; these are handed on by
/// name (`env_vars`), added to any the user listed.
pub const CODEX_PASSED: [&str; 5] = [
    "SIGNALTTY_SOCKET",
    "SIGNALTTY_CONFIG",
    "SIGNALTTY_HOST",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME",
];

fn pass_through(entry: &mut toml_edit::Table) -> Result<(), String> {
    let names = entry
        .entry("env_vars")
        .or_insert_with(|| toml_edit::value(toml_edit::Array::new()))
        .as_array_mut()
        .ok_or_else(|| format!("`mcp_servers.{NAME}.env_vars` is not an array"))?;
    for name in CODEX_PASSED {
        if !names.iter().any(|v| v.as_str() == Some(name)) {
            names.push(name);
        }
    }
    Ok(())
}

fn unparsable(path: &Path, e: impl std::fmt::Display) -> String {
    format!("{} cannot be parsed ({e}); left unchanged", path.display())
}

/// Applies `change` to the `mcpServers` object of a JSON config (an absent or
/// empty file is `{}`); an emptied `mcpServers` goes too.
fn edit_json(
    bytes: Option<&[u8]>,
    path: &Path,
    change: impl FnOnce(&mut Map<String, Value>) -> Result<(), String>,
) -> Result<Edit, String> {
    let mut doc = match bytes {
        Some(b) if !b.iter().all(u8::is_ascii_whitespace) => {
            serde_json::from_slice::<Value>(b).map_err(|e| unparsable(path, e))?
        },
        _ => json!({}),
    };
    let before = doc.clone();
    let Value::Object(top) = &mut doc else {
        return Err(format!(
            "{} is not a JSON object; left unchanged",
            path.display()
        ));
    };
    let servers = top.entry("mcpServers").or_insert_with(|| json!({}));
    let Value::Object(servers) = servers else {
        return Err(format!(
            "{}: `mcpServers` is not an object; left unchanged",
            path.display()
        ));
    };
    change(servers).map_err(|e| format!("{}: {e}; left unchanged", path.display()))?;
    if servers.is_empty() {
        top.remove("mcpServers");
    }
    if doc == before && bytes.is_some() {
        return Ok(Edit::Keep);
    }
    let mut out = serde_json::to_vec_pretty(&doc).map_err(|e| e.to_string())?;
    out.push(b'\n');
    Ok(Edit::Write(out))
}

/// Applies `change` to the `[mcp_servers]` table of a TOML config, comments
/// and order kept; an emptied table goes too.
fn edit_toml(
    bytes: Option<&[u8]>,
    path: &Path,
    change: impl FnOnce(&mut toml_edit::Table) -> Result<(), String>,
) -> Result<Edit, String> {
    let text = match bytes {
        Some(b) => std::str::from_utf8(b).map_err(|e| unparsable(path, e))?,
        None => "",
    };
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| unparsable(path, e))?;
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_mut()
        .ok_or_else(|| {
            format!(
                "{}: `mcp_servers` is not a table; left unchanged",
                path.display()
            )
        })?;
    change(servers).map_err(|e| format!("{}: {e}; left unchanged", path.display()))?;
    if servers.is_empty() {
        doc.remove("mcp_servers");
    }
    let out = doc.to_string();
    if out == text && bytes.is_some() {
        return Ok(Edit::Keep);
    }
    Ok(Edit::Write(out.into_bytes()))
}

#[cfg(test)]
mod tests;
