#!/usr/bin/env python3
"""A scripted model server on loopback for driving real agent CLIs in tests.

It speaks just enough of four streaming APIs for one kind of turn:

* Anthropic Messages      POST /v1/messages            (Claude Code)
* OpenAI Responses        POST /v1/responses           (Codex)
* OpenAI Chat Completions POST /v1/chat/completions    (OpenCode, Pi)
* Gemini                  POST /v1beta/models/M:streamGenerateContent (Gemini CLI)

A user message is answered with one call of the request's shell tool running
the script's `command`; a tool result with the script's `final` text; anything
else (titles, summaries) with a short `side` text. The script is a JSON file
re-read on every request, so a test can change the next turn while an agent
runs:

    {"command": "echo hello > out.txt", "final": "done: wrote out.txt",
     "side": "Fake title", "delay": 2.0, "final_delay": 0.5, "mode": "tool"}

`mode: "error"` answers the next main turn with an HTTP error instead (400, or
`error_status`; clients retry a 5xx for a long time).

`mode: "rate_limit"` answers the next main turn with HTTP 429 and the
provider's own usage-limit error, its reset `reset_in` seconds away (default
7200): Anthropic's `rate_limit_error` with the `anthropic-ratelimit-unified-*`
headers of a refused request, OpenAI Responses' `usage_limit_reached` with
`resets_at`/`resets_in_seconds`, Gemini's `RESOURCE_EXHAUSTED` with a quota
and a `RetryInfo` delay (a per-day quota id would make Gemini CLI drop the
delay, and one under 300 s would make it retry). Each also says not to retry (`retry-after`,
`x-should-retry: false`), so the client shows its limit instead of retrying.

`mode: "subagent"` answers the main turn's first request with one call of
its subagent tool (Claude Code's `Agent`, formerly `Task`; Codex's
`spawn_agent`, offered inside a tool namespace and called with it), whose task
carries SUBAGENT_MARK, and every later main request (the subagent's result,
or Claude's note that a background subagent finished) with `final`; the
subagent's own requests (their conversation holds the mark) get the shell
call of `command` and then `final`.

`mode: "mcp"` answers the main turn's user message with one call of the
tool named `tool` (an MCP tool, found in the request's tool list by its
name, inside a namespace as Codex offers it, or by the name the agent gives
it: Claude Code's `mcp__SERVER__TOOL`, Gemini CLI's `mcp_SERVER_TOOL`)
with the arguments `tool_args`, and its result with `final`; a request that
does not offer the tool gets the text `fake model: no tool TOOL` instead.
Every request's tool results are logged as `results` (their text).

A turn of several tool calls is scripted with `steps`, a list of commands (a
string, or `{"command": ..., "escalate": ...}` overriding the script's keys):
a request whose conversation holds n tool results gets the shell call of
`steps[n]` while there is one, then the `final` text. Without `steps` it is
the one `command`, as before.
Every request is appended to `--log` as one JSON line. The first line on stdout
is the port the server listens on (pass `--port 0` for any free port).
"""

import argparse
import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULTS = {
    "command": "echo hello > out.txt",
    "final": "done: wrote out.txt",
    "side": "Fake title",
    "delay": 2.0,
    "final_delay": 0.5,
    "mode": "tool",
    "escalate": True,
}

SHELL_NAMES = ("Bash", "bash", "exec_command", "shell", "run_shell_command", "local_shell")
SUBAGENT_TOOLS = ("Agent", "Task", "spawn_agent")
SUBAGENT_MARK = "[fake-model subagent]"

OPTIONS = None
LOG_LOCK = threading.Lock()


def script():
    """The current script: the defaults overlaid with the file's keys."""
    merged = dict(DEFAULTS)
    if OPTIONS.script:
        try:
            with open(OPTIONS.script, encoding="utf-8") as f:
                merged.update(json.load(f))
        except (OSError, ValueError):
            pass
    return merged


def ident(prefix):
    return prefix + uuid.uuid4().hex[:24]


# ------------------------------------------------------------------ requests

class Turn:
    """What a request asks for, read from its body in the API's own shape."""

    def __init__(self, api, body):
        self.api = api
        self.body = body
        self.namespaces = {}
        self.tools = self._tools()
        self.last = self._last()

    def _tools(self):
        tools = {}
        if self.api == "gemini":
            for group in self.body.get("tools") or []:
                decls = group.get("functionDeclarations") or group.get("function_declarations") or []
                for d in decls:
                    tools[d.get("name")] = d.get("parameters") or d.get("parametersJsonSchema") or {}
            return tools
        for t in self.body.get("tools") or []:
            if not isinstance(t, dict):
                continue
            if self.api == "anthropic":
                tools[t.get("name")] = t.get("input_schema") or {}
            elif isinstance(t.get("function"), dict):
                tools[t["function"].get("name")] = t["function"].get("parameters") or {}
            elif t.get("type") == "local_shell":
                tools["local_shell"] = {}
            elif isinstance(t.get("tools"), list):
                # A namespace of tools (Codex's `multi_agent_v1`): each by
                # its own name, the namespace remembered for the call.
                for inner in t["tools"]:
                    if isinstance(inner, dict) and inner.get("name"):
                        tools[inner["name"]] = inner.get("parameters") or {}
                        self.namespaces[inner["name"]] = t.get("name")
            else:
                tools[t.get("name") or t.get("type")] = t.get("parameters") or {}
        return tools

    def _last(self):
        """'user', 'tool_result' or 'other', for the conversation's last entry."""
        if self.api == "responses":
            items = self.body.get("input")
            if isinstance(items, str):
                return "user"
            for item in reversed(items or []):
                kind = item.get("type", "message")
                if kind.endswith("_output"):
                    return "tool_result"
                if kind == "message":
                    return "user" if item.get("role") == "user" else "other"
            return "other"
        if self.api == "gemini":
            contents = self.body.get("contents") or []
            if not contents:
                return "other"
            parts = contents[-1].get("parts") or []
            if any("functionResponse" in p for p in parts):
                return "tool_result"
            return "user" if contents[-1].get("role") == "user" else "other"
        messages = self.body.get("messages") or []
        if not messages:
            return "other"
        last = messages[-1]
        if last.get("role") == "tool":
            return "tool_result"
        content = last.get("content")
        if isinstance(content, list) and any(
                isinstance(p, dict) and p.get("type") == "tool_result" for p in content):
            return "tool_result"
        return "user" if last.get("role") == "user" else "other"

    def user_texts(self):
        """The text of every user message in the request, oldest first: a
        resumed conversation carries the earlier turns' prompts."""
        texts = []

        def collect(content):
            if isinstance(content, str):
                texts.append(content)
            elif isinstance(content, list):
                for part in content:
                    if isinstance(part, dict) and isinstance(part.get("text"), str):
                        texts.append(part["text"])

        if self.api == "responses":
            items = self.body.get("input")
            if isinstance(items, str):
                return [items]
            for item in items or []:
                if item.get("type", "message") == "message" and item.get("role") == "user":
                    collect(item.get("content"))
        elif self.api == "gemini":
            for content in self.body.get("contents") or []:
                if content.get("role") == "user":
                    collect(content.get("parts"))
        else:
            for message in self.body.get("messages") or []:
                if message.get("role") == "user":
                    collect(message.get("content"))
        return texts

    def outputs(self):
        """The text of each tool result of a Responses conversation."""
        items = self.body.get("input") if self.api == "responses" else None
        if not isinstance(items, list):
            return []
        return [str(i.get("output"))[:300] for i in items
                if str(i.get("type", "")).endswith("_output")]

    def tool_results(self):
        """How many tool results the conversation holds."""
        if self.api == "responses":
            items = self.body.get("input")
            if not isinstance(items, list):
                return 0
            return sum(1 for i in items if str(i.get("type", "")).endswith("_output"))
        if self.api == "gemini":
            return sum(1 for c in self.body.get("contents") or []
                       for p in c.get("parts") or [] if "functionResponse" in p)
        count = 0
        for m in self.body.get("messages") or []:
            if m.get("role") == "tool":
                count += 1
            elif isinstance(m.get("content"), list):
                count += sum(1 for p in m["content"]
                             if isinstance(p, dict) and p.get("type") == "tool_result")
        return count

    def results(self):
        """The text of every tool result in the conversation, oldest first."""
        texts = []

        def text_of(content):
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return "".join(p.get("text", "") for p in content
                               if isinstance(p, dict) and isinstance(p.get("text"), str))
            return json.dumps(content)

        if self.api == "responses":
            items = self.body.get("input")
            for i in items if isinstance(items, list) else []:
                if str(i.get("type", "")).endswith("_output"):
                    texts.append(text_of(i.get("output")))
        elif self.api == "gemini":
            for c in self.body.get("contents") or []:
                for p in c.get("parts") or []:
                    if "functionResponse" in p:
                        # Gemini CLI wraps a tool's text as {"output": TEXT}.
                        response = p["functionResponse"].get("response")
                        output = response.get("output") if isinstance(response, dict) else None
                        texts.append(output if isinstance(output, str) else json.dumps(response))
        else:
            for m in self.body.get("messages") or []:
                if m.get("role") == "tool":
                    texts.append(text_of(m.get("content")))
                elif isinstance(m.get("content"), list):
                    texts.extend(text_of(p.get("content")) for p in m["content"]
                                 if isinstance(p, dict) and p.get("type") == "tool_result")
        return texts

    def named(self, wanted):
        """The offered tool called `wanted`, or an MCP tool of that name
        (Claude's `mcp__SERVER__wanted`, Gemini's `mcp_SERVER_wanted`)."""
        for name in self.tools:
            if name == wanted or (name and name.startswith("mcp_") and name.endswith("_" + wanted)):
                return name
        return None

    def shell(self):
        """The shell tool's name and schema, if the request offers one."""
        for name in SHELL_NAMES:
            if name in self.tools:
                return name, self.tools[name]
        for name, schema in self.tools.items():
            if name and any(w in name.lower() for w in ("shell", "bash", "exec")):
                return name, schema
        return None, None

    def call_args(self, name, schema, plan):
        props = (schema or {}).get("properties") or {}
        if name == "local_shell":
            return {"command": ["bash", "-lc", plan["command"]]}
        args = {}
        key = "cmd" if "cmd" in props else "command"
        if props.get(key, {}).get("type") == "array":
            args[key] = ["bash", "-lc", plan["command"]]
        else:
            args[key] = plan["command"]
        if "description" in props:
            args["description"] = "Write the file the test asked for"
        if plan.get("escalate") and "sandbox_permissions" in props:
            # Codex asks for approval only to leave its sandbox.
            args["sandbox_permissions"] = "require_escalated"
            if "justification" in props:
                args["justification"] = "The test needs this command to run."
        return args


class Reply:
    """What to answer: a tool call, a text, or an error."""

    def __init__(self, turn, plan):
        self.tool = None
        self.args = None
        self.text = None
        self.error = False
        self.limit = False
        self.delay = 0.0
        self.namespace = None
        name, schema = turn.shell()
        if plan.get("mode") == "subagent" and self.delegate(turn, plan):
            return
        if plan.get("mode") == "mcp" and turn.last in ("user", "tool_result"):
            tool = turn.named(plan.get("tool", ""))
            if turn.last == "tool_result":
                self.text = plan["final"]
                self.delay = float(plan["final_delay"])
            elif tool is None:
                self.text = "fake model: no tool " + str(plan.get("tool"))
            else:
                self.tool = tool
                self.namespace = turn.namespaces.get(tool)
                self.args = plan.get("tool_args") or {}
                self.delay = float(plan["delay"])
            return
        steps = plan.get("steps")
        if steps and name and turn.last in ("user", "tool_result"):
            done = turn.tool_results()
            if done < len(steps):
                if turn.last == "user" and plan.get("mode") == "error":
                    self.error = True
                    return
                step = steps[done]
                step = step if isinstance(step, dict) else {"command": step}
                self.tool = name
                self.args = turn.call_args(name, schema, dict(plan, **step))
                self.delay = float(plan["delay"] if turn.last == "user" else plan["final_delay"])
                return
        if turn.last == "tool_result":
            self.text = plan["final"]
            self.delay = float(plan["final_delay"])
        elif turn.last == "user" and name:
            if plan.get("mode") == "error":
                self.error = True
                return
            if plan.get("mode") == "rate_limit":
                self.limit = True
                return
            self.tool = name
            self.args = turn.call_args(name, schema, plan)
            self.delay = float(plan["delay"])
        else:
            self.text = plan["side"]


    def delegate(self, turn, plan):
        """The main turn of `mode: "subagent"`: a foreground call of the
        subagent tool, then the final text. False for the subagent's own
        requests and for requests offering no subagent tool."""
        tool = next((t for t in SUBAGENT_TOOLS if t in turn.tools), None)
        if tool is None or any(SUBAGENT_MARK in t for t in turn.user_texts()):
            return False
        if turn.last == "user" and turn.tool_results() == 0:
            self.tool = tool
            self.namespace = turn.namespaces.get(tool)
            self.args = subagent_args(tool, turn.tools[tool])
            self.delay = float(plan["delay"])
        elif turn.last in ("tool_result", "user"):
            # The subagent's result, or Claude telling the main turn that a
            # background subagent finished: the conversation's final text.
            self.text = plan["final"]
            self.delay = float(plan["final_delay"])
        else:
            self.text = plan["side"]
        return True


def subagent_args(tool, schema):
    """A call of the subagent tool whose task carries SUBAGENT_MARK: Claude's
    `Agent`/`Task` as it documents them, Codex's `spawn_agent` from the
    schema the request offers."""
    task = f"{SUBAGENT_MARK} Run the command the test asked for."
    if tool in ("Agent", "Task"):
        return {"description": "Write the file", "prompt": task,
                "subagent_type": "general-purpose", "run_in_background": False}
    props = (schema or {}).get("properties") or {}
    args = {}
    for key, spec in props.items():
        if key in ("message", "prompt", "task", "instructions", "input") \
                and (spec or {}).get("type") == "string":
            args[key] = task
    if "task_name" in props:
        args["task_name"] = "write_file"
    if not any(k in args for k in ("message", "prompt", "task", "instructions", "input")):
        args["message"] = task
    return args


def pieces(text):
    """The text in a few streamed pieces."""
    words = text.split(" ")
    return [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words)]


# ------------------------------------------------------------------ server

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def record(self, entry):
        if not OPTIONS.log:
            return
        entry["t"] = time.time()
        with LOG_LOCK, open(OPTIONS.log, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")

    def limit_reply(self, api, reset_in):
        """HTTP 429 with `api`'s usage-limit error, resetting in `reset_in` s."""
        reset = int(time.time()) + reset_in
        headers = {"retry-after": str(reset_in), "x-should-retry": "false"}
        if api == "anthropic":
            headers.update({
                "request-id": ident("req_"),
                "anthropic-ratelimit-unified-status": "rejected",
                "anthropic-ratelimit-unified-reset": str(reset),
                "anthropic-ratelimit-unified-representative-claim": "five_hour",
                "anthropic-ratelimit-unified-5h-status": "rejected",
                "anthropic-ratelimit-unified-5h-reset": str(reset),
                "anthropic-ratelimit-unified-5h-utilization": "1.0",
                "anthropic-ratelimit-unified-fallback": "unavailable",
                "anthropic-ratelimit-unified-overage-status": "rejected",
                "anthropic-ratelimit-unified-overage-disabled-reason": "org_level_disabled",
            })
            body = {"type": "error", "error": {"type": "rate_limit_error",
                                               "message": "This request would exceed your account's rate limit. Please try again later."}}
        elif api == "responses" or api == "chat":
            body = {"error": {"type": "usage_limit_reached", "code": "usage_limit_reached",
                              "message": "The usage limit has been reached", "plan_type": "plus",
                              "resets_at": reset, "resets_in_seconds": reset_in}}
        else:
            body = {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
                              "message": "You exceeded your current quota, please check your plan and billing details.",
                              "details": [
                                  {"@type": "type.googleapis.com/google.rpc.QuotaFailure",
                                   "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_requests",
                                                   "quotaId": "GenerateRequestsPerHourPerProjectPerModel"}]},
                                  {"@type": "type.googleapis.com/google.rpc.RetryInfo",
                                   "retryDelay": "%ds" % reset_in}]}}
        self.json_reply(body, 429, headers)

    def json_reply(self, obj, status=200, headers=None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def open_stream(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def event(self, data, name=None):
        text = "" if name is None else f"event: {name}\n"
        text += "data: " + (data if isinstance(data, str) else json.dumps(data)) + "\n\n"
        raw = text.encode()
        self.wfile.write(f"{len(raw):x}\r\n".encode() + raw + b"\r\n")
        self.wfile.flush()

    def close_stream(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        path = self.path.split("?")[0]
        self.record({"method": "GET", "path": path})
        model = OPTIONS.model
        if "v1beta" in path and path.rstrip("/").endswith("models"):
            return self.json_reply({"models": [{"name": "models/" + model,
                                                "supportedGenerationMethods": ["generateContent"]}]})
        if path.rstrip("/").endswith("models"):
            return self.json_reply({"object": "list", "data": [
                {"id": model, "object": "model", "type": "model", "created": 0,
                 "created_at": "2025-01-01T00:00:00Z", "owned_by": "fake", "display_name": model}],
                "models": [{"slug": model, "display_name": model}]})
        if "/models/" in path:
            return self.json_reply({"id": path.rsplit("/", 1)[-1], "object": "model", "type": "model"})
        return self.json_reply({"ok": True})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?")[0]
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return self.json_reply({"error": {"message": "unparsable body"}}, 400)
        if path.endswith("/count_tokens") or ":countTokens" in path:
            return self.json_reply({"input_tokens": 100, "totalTokens": 100})
        if path.endswith("/responses"):
            api = "responses"
        elif path.endswith("/chat/completions"):
            api = "chat"
        elif path.endswith("/messages"):
            api = "anthropic"
        elif path.endswith(":streamGenerateContent") or path.endswith(":generateContent"):
            api = "gemini"
        else:
            self.record({"method": "POST", "path": path, "api": None})
            return self.json_reply({"error": {"message": "unknown path"}}, 404)
        turn = Turn(api, body)
        reply = Reply(turn, script())
        self.record({"method": "POST", "path": path, "api": api, "last": turn.last,
                     "tool": reply.tool, "args": reply.args, "text": reply.text,
                     "error": reply.error, "limit": reply.limit, "users": turn.user_texts(),
                     "tools": sorted(n for n in turn.tools if n),
                     "outputs": turn.outputs(), "results": turn.results()})
        if reply.error:
            # 400 by default: clients retry 5xx (for a long while) but not 4xx.
            status = int(script().get("error_status", 400))
            return self.json_reply({"error": {"type": "invalid_request_error", "code": status,
                                              "message": "fake model: scripted failure"}}, status)
        if reply.limit:
            return self.limit_reply(api, int(script().get("reset_in", 7200)))
        stream = bool(body.get("stream")) or path.endswith(":streamGenerateContent")
        try:
            getattr(self, "answer_" + api)(body, reply, stream)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def wait(self, seconds, keepalive=None):
        """Sleeps, sending `keepalive()` about once a second."""
        end = time.time() + seconds
        while time.time() < end:
            time.sleep(min(1.0, end - time.time()))
            if keepalive and time.time() < end:
                keepalive()

    # Anthropic Messages: message_start, one content block, message_delta, stop.
    def answer_anthropic(self, body, reply, stream):
        model = body.get("model") or OPTIONS.model
        usage = {"input_tokens": 100, "output_tokens": 20,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        tool_id = ident("toolu_")
        if reply.tool:
            block = {"type": "tool_use", "id": tool_id, "name": reply.tool, "input": reply.args}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": reply.text}
            stop = "end_turn"
        message = {"id": ident("msg_"), "type": "message", "role": "assistant", "model": model,
                   "stop_reason": None, "stop_sequence": None}
        if not stream:
            time.sleep(reply.delay)
            return self.json_reply(dict(message, content=[block], stop_reason=stop, usage=usage))
        self.open_stream()
        self.event({"type": "message_start", "message": dict(message, content=[], usage=usage)},
                   "message_start")
        self.wait(reply.delay, lambda: self.event({"type": "ping"}, "ping"))
        if reply.tool:
            self.event({"type": "content_block_start", "index": 0,
                        "content_block": dict(block, input={})}, "content_block_start")
            self.event({"type": "content_block_delta", "index": 0,
                        "delta": {"type": "input_json_delta", "partial_json": json.dumps(reply.args)}},
                       "content_block_delta")
        else:
            self.event({"type": "content_block_start", "index": 0,
                        "content_block": {"type": "text", "text": ""}}, "content_block_start")
            for piece in pieces(reply.text):
                self.event({"type": "content_block_delta", "index": 0,
                            "delta": {"type": "text_delta", "text": piece}}, "content_block_delta")
        self.event({"type": "content_block_stop", "index": 0}, "content_block_stop")
        self.event({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 20}}, "message_delta")
        self.event({"type": "message_stop"}, "message_stop")
        self.close_stream()

    # OpenAI Responses: created, the output item (added, deltas, done), completed.
    def answer_responses(self, body, reply, stream):
        model = body.get("model") or OPTIONS.model
        response = {"id": ident("resp_"), "object": "response", "created_at": int(time.time()),
                    "model": model, "status": "in_progress", "output": [], "usage": None}
        if reply.tool == "local_shell":
            item = {"type": "local_shell_call", "id": ident("lsh_"), "call_id": ident("call_"),
                    "status": "completed", "action": dict({"type": "exec"}, **reply.args)}
        elif reply.tool:
            item = {"type": "function_call", "id": ident("fc_"), "call_id": ident("call_"),
                    "name": reply.tool, "arguments": json.dumps(reply.args), "status": "completed"}
            if reply.namespace:
                item["namespace"] = reply.namespace
        else:
            item = {"type": "message", "id": ident("msg_"), "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": reply.text, "annotations": []}]}
        usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 120}
        finished = dict(response, status="completed", output=[item], usage=usage)
        if not stream:
            time.sleep(reply.delay)
            return self.json_reply(finished)
        seq = iter(range(1 << 30))

        def send(kind, **fields):
            self.event(dict({"type": kind, "sequence_number": next(seq)}, **fields), kind)

        self.open_stream()
        send("response.created", response=response)
        send("response.in_progress", response=response)
        self.wait(reply.delay)
        if item["type"] == "message":
            send("response.output_item.added", output_index=0,
                 item=dict(item, status="in_progress", content=[]))
            part = {"type": "output_text", "text": "", "annotations": []}
            send("response.content_part.added", item_id=item["id"], output_index=0,
                 content_index=0, part=part)
            for piece in pieces(reply.text):
                send("response.output_text.delta", item_id=item["id"], output_index=0,
                     content_index=0, delta=piece)
            send("response.output_text.done", item_id=item["id"], output_index=0,
                 content_index=0, text=reply.text)
            send("response.content_part.done", item_id=item["id"], output_index=0,
                 content_index=0, part=dict(part, text=reply.text))
        else:
            added = dict(item, status="in_progress")
            if item["type"] == "function_call":
                added["arguments"] = ""
            send("response.output_item.added", output_index=0, item=added)
            if item["type"] == "function_call":
                send("response.function_call_arguments.delta", item_id=item["id"],
                     output_index=0, delta=item["arguments"])
                send("response.function_call_arguments.done", item_id=item["id"],
                     output_index=0, arguments=item["arguments"])
        send("response.output_item.done", output_index=0, item=item)
        send("response.completed", response=finished)
        self.close_stream()

    # OpenAI Chat Completions: chunks with deltas, a finish reason, [DONE].
    def answer_chat(self, body, reply, stream):
        model = body.get("model") or OPTIONS.model
        cid = ident("chatcmpl-")
        created = int(time.time())
        call_id = ident("call_")
        usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        if not stream:
            time.sleep(reply.delay)
            message = {"role": "assistant", "content": reply.text}
            if reply.tool:
                message["tool_calls"] = [{"id": call_id, "type": "function", "function": {
                    "name": reply.tool, "arguments": json.dumps(reply.args)}}]
            return self.json_reply({"id": cid, "object": "chat.completion", "created": created,
                                    "model": model, "usage": usage, "choices": [{
                                        "index": 0, "message": message,
                                        "finish_reason": "tool_calls" if reply.tool else "stop"}]})

        def chunk(delta, finish=None):
            self.event({"id": cid, "object": "chat.completion.chunk", "created": created,
                        "model": model,
                        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

        self.open_stream()
        chunk({"role": "assistant", "content": ""})
        self.wait(reply.delay)
        if reply.tool:
            chunk({"tool_calls": [{"index": 0, "id": call_id, "type": "function",
                                   "function": {"name": reply.tool, "arguments": ""}}]})
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": json.dumps(reply.args)}}]})
            chunk({}, "tool_calls")
        else:
            for piece in pieces(reply.text):
                chunk({"content": piece})
            chunk({}, "stop")
        if (body.get("stream_options") or {}).get("include_usage"):
            self.event({"id": cid, "object": "chat.completion.chunk", "created": created,
                        "model": model, "choices": [], "usage": usage})
        self.event("[DONE]")
        self.close_stream()

    # Gemini: one candidate with a function call or a text.
    def answer_gemini(self, body, reply, stream):
        if reply.tool:
            parts = [{"functionCall": {"name": reply.tool, "args": reply.args}}]
        else:
            parts = [{"text": reply.text}]
        answer = {"candidates": [{"content": {"role": "model", "parts": parts},
                                  "finishReason": "STOP", "index": 0}],
                  "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20,
                                    "totalTokenCount": 120},
                  "modelVersion": OPTIONS.model}
        if not stream:
            time.sleep(reply.delay)
            return self.json_reply(answer)
        self.open_stream()
        self.wait(reply.delay)
        self.event(answer)
        self.close_stream()


def main():
    global OPTIONS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", help="JSON file with the turn's script")
    parser.add_argument("--log", help="append one JSON line per request here")
    parser.add_argument("--model", default="fake-model")
    OPTIONS = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", OPTIONS.port), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
