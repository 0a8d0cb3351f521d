// signaltty hook-event shim for Pi (managed by `signaltty integration`).
// Rewritten by `signaltty integration install pi`; removed by uninstall.
// It reports only inside a signaltty pane ($SIGNALTTY_PANE) and never lets an
// error reach Pi.
import { spawnSync } from "node:child_process";

const CLI = "/REPORTER/signaltty";

function report(event: string, payload: Record<string, unknown>): void {
  if (!process.env.SIGNALTTY_PANE) return;
  try {
    spawnSync(CLI, ["hook-event", "--agent", "pi", "--event", event, "--payload-stdin"], {
      input: JSON.stringify(payload),
      timeout: 8000,
      stdio: ["pipe", "ignore", "ignore"],
    });
  } catch (_) {}
}

function sessionOf(ctx: any): string | undefined {
  try {
    return ctx?.sessionManager?.getSessionId?.() ?? undefined;
  } catch (_) {
    return undefined;
  }
}

function lastText(event: any): string | undefined {
  try {
    const messages = event?.messages ?? [];
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i];
      if (m?.role !== "assistant") continue;
      const parts = Array.isArray(m.content) ? m.content : [m.content];
      const text = parts.map((p: any) => (typeof p === "string" ? p : p?.text ?? "")).join("").trim();
      if (text) return text.slice(0, 2000);
    }
  } catch (_) {}
  return undefined;
}

// How the run's last model reply ended ("stop", "toolUse", "length", "error",
// "aborted": Esc mid-turn) and its error text, if any.
function lastStop(event: any): Record<string, unknown> {
  try {
    const messages = event?.messages ?? [];
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i];
      if (m?.role !== "assistant") continue;
      return { stop_reason: m.stopReason, error: m.errorMessage };
    }
  } catch (_) {}
  return {};
}

export default function signaltty(pi: any) {
  pi.on("session_start", async (_event: any, ctx: any) => {
    report("session_start", { session_id: sessionOf(ctx) });
  });
  pi.on("agent_start", async (_event: any, ctx: any) => {
    report("agent_start", { session_id: sessionOf(ctx) });
  });
  pi.on("agent_end", async (event: any, ctx: any) => {
    report("agent_end", { session_id: sessionOf(ctx), last_message: lastText(event), ...lastStop(event) });
  });
  pi.on("session_shutdown", async (_event: any, ctx: any) => {
    report("session_shutdown", { session_id: sessionOf(ctx) });
  });
}
