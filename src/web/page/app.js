// signaltty web view: everything the page does. It keeps one websocket to the
// server at /live, holds the items the server sends (hosts, workspaces, panes,
// tasks), draws the question queue, the panes and the tasks from them, shows
// the live screen of one pane, and sends answers, prompts and task actions as
// small JSON POSTs carrying the session's CSRF token. Text from the server is
// only ever put into the page with textContent, never parsed as HTML.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const CSRF = (document.querySelector('meta[name="csrf"]') || {}).content || "";

  const GLYPH = {
    working: "●", blocked: "!", done: "✓", idle: "○",
    failed: "✗", exited: "–", unknown: "?",
  };
  const TASK_LOOK = {
    queued: ["⋯", "idle", "queued"],
    pending: ["○", "idle", "pending"],
    working: ["●", "working", "working"],
    input_required: ["!", "blocked", "needs input"],
    completed: ["✓", "done", "completed"],
    failed: ["✗", "failed", "failed"],
    canceled: ["–", "exited", "canceled"],
    rejected: ["✗", "failed", "rejected"],
  };
  const ATTENTION = {
    unread: "new", input_required: "input", permission_required: "permission",
    warning: "warning", rate_limited: "limit", error: "error",
  };

  // What the page holds.
  const items = new Map();          // key -> item
  let epoch = null;                 // last applied epoch
  let version = null;               // last applied version
  let watching = null;              // {host, pane} of the open pane view
  let gotWorld = false;             // a first world has arrived
  const seenQuestions = new Set();  // host/pane/decision ids already known
  const cardState = new Map();      // question key -> {cls, text}
  const taskOpen = new Set();       // expanded task keys
  const taskDiff = new Map();       // task key -> diffstat answer or error text
  const taskResult = new Map();     // task key -> {cls, text}
  let unpaired = false;

  // ---------- small helpers ----------

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function paneName(p) { return p.name || p.title || p.id; }
  function agentOf(p) {
    const k = (p.agent && p.agent.kind) || "";
    return k === "none" || k === "generic" ? "" : k;
  }
  function firstLine(s) {
    if (!s) return "";
    const line = String(s).split("\n").find((l) => l.trim() !== "");
    return line ? line.trim() : "";
  }

  function parseTime(s) {
    if (!s) return null;
    const t = Date.parse(s);
    return Number.isNaN(t) ? null : t;
  }

  function ago(ms) {
    let s = Math.max(0, Math.floor((Date.now() - ms) / 1000));
    if (s < 60) return s + "s";
    const m = Math.floor(s / 60); s %= 60;
    if (m < 60) return m + "m " + String(s).padStart(2, "0") + "s";
    const h = Math.floor(m / 60);
    if (h < 24) return h + "h " + String(m % 60).padStart(2, "0") + "m";
    return Math.floor(h / 24) + "d " + (h % 24) + "h";
  }

  // A span that shows the time since `since` and ticks with the clock.
  function sinceEl(cls, since) {
    const t = parseTime(since);
    const e = el("span", cls);
    if (t !== null) { e.dataset.since = String(t); e.textContent = ago(t); }
    return e;
  }

  // Time left until `until` (a usage limit's reset), "now" once it passed.
  function left(ms) {
    let s = Math.floor((ms - Date.now()) / 1000);
    if (s <= 0) return "resets now";
    if (s < 60) return "resets in " + s + "s";
    const m = Math.floor(s / 60); s %= 60;
    if (m < 60) return "resets in " + m + "m " + String(s).padStart(2, "0") + "s";
    const h = Math.floor(m / 60);
    if (h < 24) return "resets in " + h + "h " + String(m % 60).padStart(2, "0") + "m";
    return "resets in " + Math.floor(h / 24) + "d " + (h % 24) + "h";
  }

  // A span counting down to `until` with the clock (docs/states.md#usage-limits).
  function untilEl(cls, until) {
    const t = parseTime(until);
    const e = el("span", cls);
    if (t !== null) { e.dataset.until = String(t); e.textContent = left(t); }
    return e;
  }

  function tick() {
    for (const e of document.querySelectorAll("[data-since]")) {
      const txt = ago(Number(e.dataset.since));
      if (e.textContent !== txt) e.textContent = txt;
    }
    for (const e of document.querySelectorAll("[data-until]")) {
      const txt = left(Number(e.dataset.until));
      if (e.textContent !== txt) e.textContent = txt;
    }
  }

  function byKind(kind) {
    const out = [];
    for (const it of items.values()) if (it.kind === kind) out.push(it);
    return out;
  }

  function ord(a, b) {
    return (a.order ?? 0) - (b.order ?? 0) || String(a.key).localeCompare(String(b.key));
  }

  function showUnpaired() {
    if (unpaired) return;
    unpaired = true;
    $("unpaired").hidden = false;
    if (!gotWorld) document.body.classList.add("unpaired-only");
    setStatus("unpaired", "not paired");
    $("banner").hidden = true;
  }

  async function post(url, body) {
    let res;
    try {
      res = await fetch(url, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": CSRF },
        body: JSON.stringify(body),
      });
    } catch (_) {
      return { status: 0, data: { ok: false, message: "Could not reach the server." } };
    }
    let data = null;
    try { data = await res.json(); } catch (_) { data = null; }
    if (res.status === 401) showUnpaired();
    if (!data || typeof data !== "object") {
      data = { ok: res.ok, message: res.ok ? "" : "The server answered " + res.status + "." };
    }
    return { status: res.status, data };
  }

  // ---------- rendering ----------

  let drawPending = false;
  function draw() {
    if (drawPending) return;
    drawPending = true;
    requestAnimationFrame(() => {
      drawPending = false;
      drawCounts();
      drawQuestions();
      drawPanes();
      drawTasks();
      drawHosts();
      drawViewHead();
    });
  }

  function drawCounts() {
    const n = { working: 0, blocked: 0, done: 0 };
    for (const it of byKind("pane")) {
      const l = it.pane && it.pane.lifecycle;
      if (l in n) n[l] += 1;
    }
    for (const k of Object.keys(n)) $("n-" + k).textContent = String(n[k]);
  }

  function qKey(it) {
    const d = it.pane.pending_decision;
    return it.host + "/" + it.pane.id + "/" + d.id;
  }

  function questionItems() {
    return byKind("pane")
      .filter((it) => it.pane && it.pane.pending_decision)
      .sort((a, b) => {
        const ta = parseTime(a.pane.pending_decision.received_at) ?? 0;
        const tb = parseTime(b.pane.pending_decision.received_at) ?? 0;
        return ta - tb || ord(a, b);
      });
  }

  function drawQuestions() {
    const list = $("q-list");
    const qs = questionItems();
    const live = new Set(qs.map(qKey));
    for (const k of [...cardState.keys()]) if (!live.has(k)) cardState.delete(k);

    const frag = document.createDocumentFragment();
    let answerable = 0;
    for (const it of qs) {
      const p = it.pane;
      const d = p.pending_decision;
      const key = qKey(it);
      const state = cardState.get(key);
      if (d.answerable !== false) answerable += 1;

      const card = el("article", "question");
      card.dataset.pane = p.id;
      card.dataset.decision = d.id;
      card.dataset.host = it.host;
      if (state && state.card) card.classList.add(state.card);

      const head = el("div", "q-head");
      head.append(el("span", "q-pane", paneName(p)));
      if (agentOf(p)) head.append(el("span", "q-agent", agentOf(p)));
      head.append(sinceEl("q-age", d.received_at));
      card.append(head);
      card.append(el("div", "q-prompt", d.prompt));

      if (d.answerable === false) {
        card.append(el("p", "terminal-only", "Answer this one in the terminal."));
      } else {
        const opts = el("div", "q-options");
        (d.options || []).forEach((o, i) => {
          const b = el("button", "btn option", o.label || o.id);
          b.type = "button";
          b.dataset.option = o.id;
          if (i === 0) b.classList.add("primary");
          else if (/^(deny|reject|no)\b/i.test(o.id) || /^(deny|reject|no)\b/i.test(o.label || "")) b.classList.add("danger");
          if (state && state.lock) b.disabled = true;
          b.addEventListener("click", () => answer(it.host, p.id, d.id, o.id, key, o.label || o.id));
          opts.append(b);
        });
        card.append(opts);
      }
      const foot = el("div", "q-foot");
      const res = el("span", "result", state ? state.text : "");
      if (state && state.cls) res.classList.add(state.cls);
      foot.append(res);
      const open = el("button", "linkish", "Open pane ›");
      open.type = "button";
      open.addEventListener("click", () => openPane(it.host, p.id));
      foot.append(open);
      card.append(foot);
      frag.append(card);
    }
    list.replaceChildren(frag);
    $("q-empty").hidden = qs.length > 0;
    const c = $("q-count");
    c.hidden = answerable === 0;
    c.textContent = String(answerable);
  }

  // The card goes as soon as the server says the question ended, so what
  // became of an answer is also said in a toast that outlives it.
  async function answer(host, pane, decision, option, key, label) {
    const it = findPane(host, pane);
    const who = it ? paneName(it.pane) : pane;
    cardState.set(key, { lock: true, text: "Sending…", cls: "" });
    draw();
    const { status, data } = await post("/api/answer", { host, pane, decision, option });
    if (status === 200 && data.ok) {
      cardState.set(key, { lock: true, card: "sent", cls: "ok", text: "Sent." });
      toast(who + ": " + label + ".", "");
    } else if (status === 409) {
      cardState.set(key, { lock: true, card: "lost", cls: "err", text: "This was already answered elsewhere." });
      toast(who + ": already answered elsewhere; your " + label + " was not sent.", "err");
    } else {
      cardState.set(key, { lock: false, cls: "err", text: data.message || "Could not send the answer." });
      toast(who + ": " + (data.message || "could not send the answer."), "err");
    }
    draw();
  }

  let toastTimer = null;
  function toast(text, cls) {
    const t = $("toast");
    t.className = "toast" + (cls ? " " + cls : "");
    t.textContent = text;
    t.hidden = false;
    if (toastTimer) clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; toastTimer = null; }, 6000);
  }

  function groupedPanes() {
    // host -> [{ws, panes}] in order; panes whose workspace is unknown go last.
    // Fleet order: this machine first, then the hosts as configured.
    const hosts = byKind("host").sort(ord);
    const wss = byKind("workspace").sort(ord);
    const panes = byKind("pane").sort(ord);
    const hostNames = hosts.map((h) => h.host);
    for (const p of panes) if (!hostNames.includes(p.host)) hostNames.push(p.host);
    return hostNames.map((host) => {
      const groups = [];
      const byWs = new Map();
      for (const w of wss) {
        if (w.host !== host || !w.workspace) continue;
        const g = { ws: w.workspace, panes: [] };
        byWs.set(w.workspace.id, g);
        groups.push(g);
      }
      const orphans = { ws: null, panes: [] };
      for (const p of panes) {
        if (p.host !== host || !p.pane) continue;
        (byWs.get(p.pane.workspace_id) || orphans).panes.push(p);
      }
      if (orphans.panes.length) groups.push(orphans);
      return { host, item: hosts.find((h) => h.host === host), groups: groups.filter((g) => g.panes.length) };
    });
  }

  function paneRow(it) {
    const p = it.pane;
    const state = GLYPH[p.lifecycle] ? p.lifecycle : "unknown";
    const row = el("button", "pane st-" + state);
    row.type = "button";
    row.dataset.pane = p.id;
    row.dataset.host = it.host;
    row.dataset.state = p.lifecycle || "unknown";
    row.setAttribute("aria-label", paneName(p) + ", " + (p.lifecycle || "unknown"));
    row.append(el("span", "glyph", GLYPH[state]));

    const l1 = el("span", "p-line1");
    l1.append(el("span", "name", paneName(p)));
    if (agentOf(p)) l1.append(el("span", "agent", agentOf(p)));
    row.append(l1);

    const right = el("span", "p-right");
    if (p.attention && ATTENTION[p.attention]) {
      right.append(el("span", "badge a-" + p.attention, ATTENTION[p.attention]));
    }
    if (p.attention === "rate_limited" && p.resets_at) {
      right.append(untilEl("resets", p.resets_at));
    }
    right.append(sinceEl("since", p.lifecycle_since));
    right.append(el("span", "chev", "›"));
    row.append(right);

    const d = p.pending_decision;
    const line = firstLine(d ? d.prompt : "") || firstLine(p.last_message) || p.cwd || "";
    row.append(el("span", "p-line2", line));
    row.addEventListener("click", () => openPane(it.host, p.id));
    return row;
  }

  // The rows drawn, by item key: a row is made again only when its item
  // changed (a patch replaces the items it sets, so an unchanged one is the
  // same object). While the lists' shape (hosts, workspaces, which panes in
  // which order) stays the same, only the changed rows are swapped in place:
  // with hundreds of panes, rebuilding every row for one change kept the
  // phone's page busy for most of each frame.
  let paneRows = new Map();     // key -> {it, row}
  let paneShape = null;

  function rowOf(it, fresh) {
    const had = paneRows.get(it.key);
    if (had && had.it === it) { fresh.set(it.key, had); return had.row; }
    const made = { it, row: paneRow(it) };
    fresh.set(it.key, made);
    return made.row;
  }

  function drawPanes() {
    const hosts = groupedPanes();
    const several = byKind("host").length > 1;
    const shape = [several];
    for (const h of hosts) {
      if (several) shape.push("h", h.host, h.item && h.item.state, h.item && h.item.why);
      for (const grp of h.groups) {
        shape.push("g", grp.ws ? grp.ws.name || grp.ws.id : "", grp.ws && grp.ws.cwd);
        for (const p of grp.panes) shape.push(p.key);
      }
    }
    const shapeKey = JSON.stringify(shape);
    const fresh = new Map();
    if (shapeKey === paneShape) {
      for (const h of hosts) {
        for (const grp of h.groups) {
          for (const p of grp.panes) {
            const old = paneRows.get(p.key);
            const row = rowOf(p, fresh);
            if (old && old.row !== row) old.row.replaceWith(row);
          }
        }
      }
      paneRows = fresh;
      return;
    }
    paneShape = shapeKey;
    const frag = document.createDocumentFragment();
    let count = 0;
    for (const h of hosts) {
      if (several) {
        const g = el("div", "group host");
        g.append(el("span", "gname", h.host));
        if (h.item && h.item.state) {
          g.append(el("span", "hoststate " + h.item.state, h.item.state));
        }
        if (h.item && h.item.why) g.append(el("span", "gsub", h.item.why));
        frag.append(g);
      }
      for (const grp of h.groups) {
        const g = el("div", "group");
        g.append(el("span", "gname", grp.ws ? grp.ws.name || grp.ws.id : "Other"));
        if (grp.ws && grp.ws.cwd) g.append(el("span", "gsub", grp.ws.cwd));
        frag.append(g);
        const list = el("div", "list");
        for (const p of grp.panes) { list.append(rowOf(p, fresh)); count += 1; }
        frag.append(list);
      }
    }
    paneRows = fresh;
    $("p-list").replaceChildren(frag);
    $("p-empty").hidden = count > 0;
  }

  function taskRow(it) {
    const t = it.task;
    const look = TASK_LOOK[t.state] || ["?", "unknown", t.state || "unknown"];
    const box = el("div", "task st-" + look[1]);
    box.dataset.task = t.id;
    box.dataset.host = it.host;
    box.dataset.state = t.state || "";
    const open = taskOpen.has(it.key);

    const head = el("button", "task-head");
    head.type = "button";
    head.setAttribute("aria-expanded", open ? "true" : "false");
    head.append(el("span", "glyph", look[0]));
    head.append(el("span", "t-label", t.label || t.id));
    head.append(el("span", "t-state", look[2]));
    head.append(el("span", "t-branch", t.branch || ""));
    head.addEventListener("click", () => {
      if (taskOpen.has(it.key)) taskOpen.delete(it.key);
      else { taskOpen.add(it.key); loadDiff(it); }
      drawTasks();
    });
    box.append(head);

    const body = el("div", "task-body");
    const clashes = conflictsOf(it);
    body.hidden = !open && !it.note && !it.finishable && !clashes.length;
    if (clashes.length) box.classList.add("in-conflict");
    for (const c of clashes) body.append(el("p", "t-conflict", c));
    if (it.note) body.append(el("p", "t-note", it.note));
    if (open) {
      const d = taskDiff.get(it.key);
      const p = el("p", "t-diff");
      if (!d) p.textContent = "Loading the diff…";
      else if (typeof d === "string") p.textContent = d;
      else {
        const n = Array.isArray(d.files) ? d.files.length : 0;
        p.append(document.createTextNode(n + (n === 1 ? " file " : " files ")));
        p.append(el("span", "ins", "+" + (d.added ?? 0)));
        p.append(document.createTextNode(" "));
        p.append(el("span", "del", "−" + (d.removed ?? 0)));
      }
      body.append(p);
      const mp = d && typeof d === "object" ? d.merge_preview : null;
      if (mp) {
        const c = mp.conflicted || [];
        body.append(el("p", "t-merge " + (mp.clean ? "ok" : "err"), mp.clean
          ? "Merges cleanly into " + mp.target + "."
          : "Conflicts with " + mp.target + " in " + c.length + (c.length === 1 ? " file: " : " files: ") + c.join(", ")));
      }
    }
    if (it.finishable) {
      const acts = el("div", "t-actions");
      const m = el("button", "btn primary merge", "Merge");
      m.type = "button";
      m.addEventListener("click", () => finish(it, "merge"));
      const x = el("button", "btn danger discard", "Discard");
      x.type = "button";
      x.addEventListener("click", () => finish(it, "discard"));
      const r = taskResult.get(it.key);
      if (r && r.lock) { m.disabled = true; x.disabled = true; }
      acts.append(m, x);
      body.append(acts);
    }
    const r = taskResult.get(it.key);
    if (r) {
      const res = el("p", "result " + (r.cls || ""), r.text);
      body.append(res);
      body.hidden = false;
    }
    box.append(body);
    return box;
  }

  // The conflict radar's collisions of a task item, in words
  // (docs/tasks.md#conflict-radar).
  function conflictsOf(it) {
    const id = it.task.id;
    const out = [];
    for (const c of byKind("conflict")) {
      const k = c.conflict;
      if (c.host !== it.host || (k.a !== id && k.b !== id)) continue;
      const other = k.a === id ? k.b : k.a;
      let with_;
      if (!other) with_ = (k.target_branch || "its target branch") + " (target)";
      else {
        const t = byKind("task").find((x) => x.host === it.host && x.task && x.task.id === other);
        with_ = "task " + (t ? t.task.label || other : other);
      }
      out.push("Conflicts with " + with_ + " in " + (k.paths || []).join(", "));
    }
    return out;
  }

  function drawTasks() {
    const tasks = byKind("task").filter((t) => t.task).sort(ord);
    const frag = document.createDocumentFragment();
    if (tasks.length) {
      const list = el("div", "list");
      for (const t of tasks) list.append(taskRow(t));
      frag.append(list);
    }
    $("t-list").replaceChildren(frag);
    $("t-empty").hidden = tasks.length > 0;
  }

  async function loadDiff(it) {
    if (taskDiff.has(it.key)) return;
    const q = "host=" + encodeURIComponent(it.host) + "&task=" + encodeURIComponent(it.task.id);
    try {
      const res = await fetch("/api/diffstat?" + q, { credentials: "same-origin" });
      if (res.status === 401) { showUnpaired(); return; }
      const data = await res.json();
      taskDiff.set(it.key, data && data.ok && data.result ? data.result : (data && data.message) || "No diff.");
    } catch (_) {
      taskDiff.set(it.key, "Could not load the diff.");
    }
    drawTasks();
  }

  async function finish(it, mode) {
    const label = it.task.label || it.task.id;
    const ask = mode === "merge"
      ? "Merge “" + label + "” into " + (it.task.target_branch || "its target branch") + "?"
      : "Discard “" + label + "” and its work?";
    if (!window.confirm(ask)) return;
    taskResult.set(it.key, { lock: true, text: mode === "merge" ? "Merging…" : "Discarding…" });
    drawTasks();
    const { status, data } = await post("/api/task", { host: it.host, task: it.task.id, mode });
    if (status === 200 && data.ok) {
      taskResult.set(it.key, { lock: true, cls: "ok", text: mode === "merge" ? "Merged." : "Discarded." });
    } else {
      taskResult.set(it.key, { lock: false, cls: "err", text: data.message || "It did not work." });
    }
    drawTasks();
  }

  // ---------- connection state ----------

  function setStatus(cls, text) {
    const s = $("status");
    s.className = "status conn-" + cls;
    s.textContent = text;
  }

  let connected = false;
  function drawHosts() {
    $("v-conn").hidden = connected || unpaired;
    const banner = $("banner");
    if (unpaired) { banner.hidden = true; return; }
    if (!connected && gotWorld) {
      banner.className = "banner";
      banner.textContent = "Reconnecting… showing what was last received.";
      banner.hidden = false;
      return;
    }
    const down = byKind("host").filter((h) => h.state && h.state !== "live");
    if (connected && down.length && byKind("host").length === 1) {
      const h = down[0];
      banner.className = "banner" + (h.state === "unreachable" ? " bad" : "");
      banner.textContent = "Server " + h.host + ": " + h.state + (h.why ? " — " + h.why : "");
      banner.hidden = false;
      return;
    }
    banner.hidden = true;
  }

  // ---------- the live socket ----------

  let ws = null;
  let pause = 250;
  let failures = 0;       // closes in a row without ever opening
  let timer = null;

  function liveUrl() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    let url = proto + "//" + location.host + "/live";
    if (epoch !== null && version !== null) {
      url += "?epoch=" + encodeURIComponent(epoch) + "&v=" + encodeURIComponent(version);
    }
    return url;
  }

  function connect() {
    timer = null;
    if (unpaired) return;
    let opened = false;
    let sock;
    try { sock = new WebSocket(liveUrl()); } catch (_) { scheduleReconnect(false); return; }
    ws = sock;
    sock.addEventListener("open", () => {
      if (ws !== sock) return;
      opened = true;
      failures = 0;
      pause = 250;
      connected = true;
      setStatus("live", "live");
      if (watching) send({ op: "watch", host: watching.host, pane: watching.pane });
      draw();
    });
    sock.addEventListener("message", (ev) => {
      if (ws !== sock) return;
      let msg;
      try { msg = JSON.parse(ev.data); } catch (_) { return; }
      onMessage(msg, sock);
    });
    sock.addEventListener("close", () => {
      if (ws !== sock) return;
      ws = null;
      scheduleReconnect(opened);
    });
  }

  function scheduleReconnect(opened) {
    connected = false;
    if (unpaired) return;
    setStatus("reconnecting", "reconnecting…");
    draw();
    if (!opened) failures += 1;
    if (failures >= 3 && failures % 3 === 0) probePairing();
    if (timer) return;
    timer = setTimeout(connect, pause);
    pause = Math.min(pause * 2, 4000);
  }

  // Refused several times in a row: ask for the page itself. A 401 means the
  // session is gone; a reachable server that keeps refusing the socket also
  // means this browser is not (or no longer) paired.
  async function probePairing() {
    try {
      const res = await fetch("/", { credentials: "same-origin", cache: "no-store" });
      if (res.status === 401 || res.status === 403 || failures >= 9) showUnpaired();
    } catch (_) { /* the server is down: keep trying */ }
  }

  // Drop the socket and dial again at once, asking to be caught up from `version`.
  function resync() {
    const old = ws;
    ws = null;
    if (old) { try { old.close(); } catch (_) { /* already closed */ } }
    connected = false;
    setStatus("reconnecting", "reconnecting…");
    if (timer) clearTimeout(timer);
    timer = setTimeout(connect, 0);
  }

  function send(obj) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(obj));
  }

  function onMessage(msg) {
    switch (msg.t) {
      case "world": {
        items.clear();
        for (const it of msg.items || []) if (it && it.key) items.set(it.key, it);
        epoch = msg.epoch;
        version = msg.v;
        noteQuestions(gotWorld);
        gotWorld = true;
        applied();
        break;
      }
      case "patch": {
        if (version === null || msg.v !== version + 1) { resync(); return; }
        for (const k of msg.del || []) items.delete(k);
        for (const it of msg.set || []) if (it && it.key) items.set(it.key, it);
        version = msg.v;
        noteQuestions(true);
        applied();
        break;
      }
      case "screen":
        if (watching && msg.host === watching.host && msg.pane === watching.pane) drawScreen(msg);
        break;
      case "screen_failed":
        if (watching && msg.host === watching.host && msg.pane === watching.pane) {
          screenMessage("The screen is not available" + (msg.why ? ": " + msg.why : "."));
        }
        break;
      default:
        break;
    }
  }

  function applied() {
    document.body.dataset.v = String(version);
    document.body.dataset.epoch = String(epoch);
    draw();
  }

  // ---------- notifications ----------

  // A question that arrives while the page is in the background is shown
  // as a notification, through the service worker where there is one (a
  // phone's browser allows no other kind); one answered anywhere is taken
  // down again.
  function noteQuestions(notify) {
    const live = new Set();
    for (const it of byKind("pane")) {
      const d = it.pane && it.pane.pending_decision;
      if (!d) continue;
      const k = qKey(it);
      live.add(k);
      if (seenQuestions.has(k)) continue;
      seenQuestions.add(k);
      if (notify && document.hidden && "Notification" in window && Notification.permission === "granted") {
        showNotification("signaltty: " + paneName(it.pane) + " asks", d.prompt, k);
      }
    }
    for (const k of [...seenQuestions]) {
      if (live.has(k)) continue;
      seenQuestions.delete(k);
      closeNotification(k);
    }
  }

  function registration() {
    if (!("serviceWorker" in navigator)) return Promise.resolve(null);
    return navigator.serviceWorker.getRegistration().catch(() => null);
  }

  function showNotification(title, body, tag) {
    const opts = { body: body || "", tag, icon: "/icon-192.png", renotify: false, data: { url: "/" } };
    registration().then((reg) => {
      if (reg) return reg.showNotification(title, opts);
      const n = new Notification(title, opts);
      n.addEventListener("click", () => { window.focus(); n.close(); });
      return undefined;
    }).catch(() => { /* not allowed here: the page still shows the question */ });
  }

  function closeNotification(tag) {
    registration().then((reg) => reg ? reg.getNotifications({ tag }) : [])
      .then((list) => { for (const n of list) n.close(); })
      .catch(() => { /* nothing to take down */ });
  }

  function setupNotify() {
    const b = $("notify");
    const show = () => { b.hidden = !("Notification" in window) || Notification.permission !== "default"; };
    show();
    b.addEventListener("click", async () => {
      try { await Notification.requestPermission(); } catch (_) { /* ignored */ }
      show();
    });
  }

  // ---------- the pane view ----------

  function findPane(host, pane) {
    return items.get("pane/" + host + "/" + pane) ||
      byKind("pane").find((it) => it.host === host && it.pane && it.pane.id === pane);
  }

  function openPane(host, pane, fromHistory) {
    watching = { host, pane };
    $("view").hidden = false;
    document.body.classList.add("viewing");
    $("submit-result").textContent = "";
    $("submit-result").className = "submit-result";
    screenMessage(connected ? "Waiting for the screen…" : "Not connected; the screen shows once the page reconnects.");
    drawViewHead();
    send({ op: "watch", host, pane });
    if (!fromHistory) history.pushState({ pane, host }, "", "#pane=" + encodeURIComponent(pane));
  }

  function closePane(fromHistory) {
    if (!watching) return;
    watching = null;
    send({ op: "unwatch" });
    $("view").hidden = true;
    document.body.classList.remove("viewing");
    $("screen").replaceChildren();
    if (!fromHistory && history.state && history.state.pane) history.back();
  }

  function drawViewHead() {
    if (!watching) return;
    const it = findPane(watching.host, watching.pane);
    const glyph = $("v-glyph");
    const note = $("v-note");
    if (!it) {
      $("v-name").textContent = watching.pane;
      glyph.textContent = "";
      $("v-meta").textContent = "";
      if (gotWorld) { note.hidden = false; note.className = "view-note info"; note.textContent = "This pane is gone."; }
      return;
    }
    const p = it.pane;
    const state = GLYPH[p.lifecycle] ? p.lifecycle : "unknown";
    glyph.textContent = GLYPH[state];
    glyph.className = "glyph st-" + state;
    $("v-name").textContent = paneName(p);
    const meta = $("v-meta");
    meta.replaceChildren();
    const bits = [p.lifecycle || "unknown"];
    if (agentOf(p)) bits.push(agentOf(p));
    meta.append(document.createTextNode(bits.join(" · ") + " · "));
    meta.append(sinceEl("", p.lifecycle_since));
    if (p.cwd) meta.append(document.createTextNode(" · " + p.cwd));
    const d = p.pending_decision;
    if (!d) { note.hidden = true; return; }
    note.hidden = false;
    note.className = "view-note";
    note.replaceChildren(el("div", "vq-prompt", d.prompt));
    if (d.answerable === false) {
      note.append(el("div", "vq-hint", "Answer this one in the terminal."));
      return;
    }
    const key = qKey(it);
    const st = cardState.get(key);
    const opts = el("div", "q-options");
    (d.options || []).forEach((o, i) => {
      const b = el("button", "btn view-option" + (i === 0 ? " primary" : ""), o.label || o.id);
      b.type = "button";
      b.disabled = !!(st && st.lock);
      b.addEventListener("click", () => answer(it.host, p.id, d.id, o.id, key, o.label || o.id));
      opts.append(b);
    });
    note.append(opts);
    if (st && st.text) note.append(el("div", "result " + (st.cls || ""), st.text));
  }

  function screenMessage(text) {
    $("screen").replaceChildren(el("span", "msg", text));
  }

  // xterm's 256 colours: 16 system colours, a 6×6×6 cube, 24 greys.
  const BASE16 = [
    "#1c1f24", "#e0605a", "#5fbf6e", "#d9b24a", "#5c8fe6", "#b57fdc", "#4fb8c9", "#c8ccd4",
    "#5c6370", "#ff7b72", "#7ee08e", "#f2cc60", "#7fa8ff", "#d2a8ff", "#76e3ea", "#ffffff",
  ];
  function colour(v) {
    if (typeof v !== "number" || v < 0) return null;
    if (v >= 16777216) return "#" + (v - 16777216).toString(16).padStart(6, "0").slice(-6);
    if (v < 16) return BASE16[v];
    if (v < 232) {
      const n = v - 16;
      const lv = [0, 95, 135, 175, 215, 255];
      const hex = (x) => lv[x].toString(16).padStart(2, "0");
      return "#" + hex(Math.floor(n / 36)) + hex(Math.floor(n / 6) % 6) + hex(n % 6);
    }
    const g = (8 + (v - 232) * 10).toString(16).padStart(2, "0");
    return "#" + g + g + g;
  }
  const DEF_FG = "#d7dae0";
  const DEF_BG = "#0c0e12";

  function runSpan(text, fg, bg, flags) {
    let f = colour(fg);
    let b = colour(bg);
    if (flags & 16) { const t = f || DEF_FG; f = b || DEF_BG; b = t; }
    const cls = [];
    if (flags & 1) cls.push("b");
    if (flags & 2) cls.push("d");
    if (flags & 4) cls.push("i");
    if (flags & 8) cls.push("u");
    if (flags & 32) cls.push("s");
    if (!f && !b && !cls.length) return document.createTextNode(text);
    const s = el("span", cls.join(" "), text);
    if (f) s.style.color = f;
    if (b) s.style.backgroundColor = b;
    return s;
  }

  function drawScreen(msg) {
    const pre = $("screen");
    const box = pre.parentElement;
    const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 8;
    const frag = document.createDocumentFragment();
    const cur = Array.isArray(msg.cursor) ? msg.cursor : null;
    const lines = Array.isArray(msg.lines) ? msg.lines : [];
    lines.forEach((runs, row) => {
      if (row > 0) frag.append("\n");
      let col = 0;
      let cursorDone = !cur || cur[0] !== row;
      for (const run of runs || []) {
        const [text, fg, bg, flags] = run;
        const chars = Array.from(String(text ?? ""));
        if (!cursorDone && cur[1] >= col && cur[1] < col + chars.length) {
          const at = cur[1] - col;
          if (at > 0) frag.append(runSpan(chars.slice(0, at).join(""), fg, bg, flags));
          const c = runSpan(chars[at], fg, bg, flags);
          const cs = c.nodeType === 3 ? el("span", "", chars[at]) : c;
          cs.classList.add("cur");
          frag.append(cs);
          if (at + 1 < chars.length) frag.append(runSpan(chars.slice(at + 1).join(""), fg, bg, flags));
          cursorDone = true;
        } else {
          frag.append(runSpan(chars.join(""), fg, bg, flags || 0));
        }
        col += chars.length;
      }
      if (!cursorDone && cur[1] >= col) {
        frag.append(" ".repeat(cur[1] - col));
        frag.append(el("span", "cur", " "));
      }
    });
    pre.replaceChildren(frag);
    fitScreen(msg.cols || 80);
    if (atBottom) box.scrollTop = box.scrollHeight;
  }

  // Shrink the font so the whole width fits when it can stay readable;
  // wider screens scroll sideways inside their own box.
  let fittedFor = "";
  function fitScreen(cols) {
    const box = $("screen").parentElement;
    const key = cols + "x" + box.clientWidth;
    if (key === fittedFor) return;
    fittedFor = key;
    const avail = box.clientWidth - 22;
    const size = Math.max(8, Math.min(13, Math.floor((avail / (cols * 0.6)) * 10) / 10));
    $("screen").style.fontSize = size + "px";
  }

  async function submit(ev) {
    ev.preventDefault();
    if (!watching) return;
    const ta = $("prompt");
    const text = ta.value;
    const out = $("submit-result");
    if (!text.trim()) { ta.focus(); return; }
    $("send").disabled = true;
    out.className = "submit-result";
    out.textContent = "Sending…";
    const { status, data } = await post("/api/submit", { host: watching.host, pane: watching.pane, text });
    $("send").disabled = false;
    if (status === 200 && data.ok) {
      ta.value = "";
      out.className = "submit-result ok";
      const o = data.outcome;
      out.textContent = "Sent" + (o === undefined || o === null ? "." : ": " + (typeof o === "string" ? o : JSON.stringify(o)));
    } else {
      out.className = "submit-result err";
      out.textContent = data.message || "Could not send.";
    }
  }

  // ---------- start ----------

  function start() {
    setupNotify();
    $("back").addEventListener("click", () => closePane(false));
    $("prompt-form").addEventListener("submit", submit);
    $("prompt").addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("prompt-form").requestSubmit();
    });
    window.addEventListener("popstate", (e) => {
      if (e.state && e.state.pane) openPane(e.state.host, e.state.pane, true);
      else closePane(true);
    });
    window.addEventListener("resize", () => { fittedFor = ""; });
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && watching) closePane(false);
    });
    if (history.state && history.state.pane) history.replaceState(null, "", location.pathname);
    setInterval(tick, 1000);
    if ("serviceWorker" in navigator) {
      navigator.serviceWorker.register("/sw.js").catch(() => { /* offline shell is optional */ });
    }
    connect();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
