//! The OpenCode plugin file (docs/integrations.md#opencode): a whole JavaScript
//! file owned by signaltty that forwards OpenCode's session events to
//! `signaltty hook-event --agent opencode`. Its first line marks it as ours.

/// The first line of every plugin file signaltty writes.
pub const HEADER: &str =
    "// signaltty hook-event shim for OpenCode (managed by `signaltty integration`).";

/// Whether `text` is a plugin file signaltty wrote.
pub fn is_owned(text: &[u8]) -> bool {
    text.starts_with(HEADER.as_bytes())
}

/// The plugin, reporting through `reporter` (an absolute path, embedded as a
/// JSON string literal).
pub fn plugin(reporter: &str) -> String {
    plugin_for(HEADER, "opencode", "opencode", reporter)
}

/// The plugin as a descendant of OpenCode that loads the same plugins (Kilo
/// Code) gets it: its own first line, the name `signaltty integration install`
/// knows it by, and the `--agent` its events report as.
pub fn plugin_for(header: &str, name: &str, agent: &str, reporter: &str) -> String {
    let cli = serde_json::to_string(reporter).unwrap_or_else(|_| "\"signaltty\"".to_owned());
    // The reporter's path last: nothing in it is taken for a placeholder.
    let body = BODY
        .replace("__SIGNALTTY_NAME__", name)
        .replace("__SIGNALTTY_AGENT__", agent)
        .replace("__SIGNALTTY_CLI__", &cli);
    format!("{header}\n{body}")
}

const BODY: &str = r#"// Rewritten by `signaltty integration install __SIGNALTTY_NAME__`; removed by uninstall.
// It reports only inside a signaltty pane ($SIGNALTTY_PANE) and never lets an
// error reach OpenCode.
import { spawnSync } from "node:child_process";

const CLI = __SIGNALTTY_CLI__;
const FORWARDED = new Set([
  "permission.asked", "permission.replied",
  "question.asked", "question.replied", "question.rejected",
]);

function report(event, payload) {
  if (!process.env.SIGNALTTY_PANE) return;
  try {
    spawnSync(CLI, ["hook-event", "--agent", "__SIGNALTTY_AGENT__", "--event", event, "--payload-stdin"], {
      input: JSON.stringify(payload),
      timeout: 8000,
      stdio: ["pipe", "ignore", "ignore"],
    });
  } catch (_) {}
}

function sessionOf(event) {
  const p = (event && event.properties) || {};
  return p.sessionID ?? p.sessionId ?? p.session_id ?? event.sessionID ?? (p.info && p.info.id);
}

function text(value) {
  if (value == null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value.message === "string") return value.message;
  if (value.data && typeof value.data.message === "string") return value.data.message;
  if (value.error) return text(value.error);
  try { return JSON.stringify(value); } catch (_) { return String(value); }
}

async function onEvent(input) {
  try {
    const event = (input && input.event) || input || {};
    const id = sessionOf(event);
    const props = event.properties || {};
    switch (event.type) {
      case "session.created":
        if (id) report("session.created", { session_id: id });
        break;
      case "session.status": {
        const s = props.status;
        const status = typeof s === "string" ? s : s && s.type;
        if (status === "busy" || status === "idle") report("session.status", { session_id: id, status });
        break;
      }
      case "session.idle":
        report("session.idle", { session_id: id });
        break;
      case "session.error":
      case "session.execution.failed": {
        // Esc mid-turn ends a turn with a MessageAbortedError: its name tells
        // an interruption from a failure.
        const error = props.error ?? event.error;
        report("session.error", { session_id: id, message: text(props.message ?? error) ?? "unknown", name: error && error.name });
        break;
      }
      default:
        if (FORWARDED.has(event.type)) report(event.type, { session_id: id, ...props });
    }
  } catch (_) {}
}

export const SignalttyPlugin = async () => ({ event: onEvent });

async function setupSignaltty() {
  return { event: onEvent };
}

// One default for both plugin hosts: callable (the classic loader calls it),
// and a definition object with an id and `server`/`setup` (the newer one);
// SIGNALTTY_OPENCODE_PLUGIN_API=v1|v2 pins one for testing.
const api = process.env.SIGNALTTY_OPENCODE_PLUGIN_API;
const plugin = async (ctx) => SignalttyPlugin(ctx);
plugin.id = "signaltty";
plugin.server = SignalttyPlugin;
if (api !== "v1") plugin.setup = setupSignaltty;
export default plugin;
"#;

#[cfg(test)]
mod tests;
