// signaltty web view: keeps the page in step with the live socket (a world,
// then numbered patches), draws the question queue, the panes and the tasks,
// and sends answers, prompts and task finishes with the session's CSRF token.
"use strict";

const $ = (id) => document.getElementById(id);
const csrf = document.querySelector('meta[name="csrf"]').content;
const items = new Map();
let epoch = null, version = null, sock = null, pause = 250, watching = null;
const seenQuestions = new Set();
let firstWorld = true;

const GLYPH = { working: "●", blocked: "!", done: "✓", idle: "○", failed: "✗", exited: "–", unknown: "?" };

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function since(ts) {
  if (!ts) return "";
  const s = Math.max(0, Math.floor((Date.now() - Date.parse(ts)) / 1000));
  if (s < 60) return s + "s";
  if (s < 3600) return Math.floor(s / 60) + "m";
  if (s < 86400) return Math.floor(s / 3600) + "h";
  return Math.floor(s / 86400) + "d";
}

function paneName(p) { return p.name || p.title || p.id; }
function firstLine(t) { return (t || "").split("\n").find((l) => l.trim()) || ""; }
function kind(k) { return [...items.values()].filter((i) => i.kind === k).sort((a, b) => a.order - b.order); }

function setStatus(text, cls) {
  const s = $("status");
  s.textContent = text;
  s.className = "status " + cls;
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const q = epoch ? `?epoch=${encodeURIComponent(epoch)}&v=${version}` : "";
  sock = new WebSocket(`${proto}//${location.host}/live${q}`);
  sock.onopen = () => {
    pause = 250;
    setStatus("live", "conn-live");
    $("banner").hidden = true;
    if (watching) watch(watching.host, watching.pane);
  };
  sock.onmessage = (ev) => onMessage(JSON.parse(ev.data));
  sock.onclose = () => {
    setStatus("reconnecting…", "conn-lost");
    const b = $("banner");
    b.textContent = "Reconnecting… what you see may be out of date.";
    b.hidden = false;
    setTimeout(connect, pause);
    pause = Math.min(pause * 2, 4000);
    checkPaired();
  };
}

function checkPaired() {
  fetch("/", { credentials: "same-origin" }).then((r) => {
    if (r.status === 401) { $("unpaired").hidden = false; }
  }).catch(() => {});
}

function onMessage(m) {
  if (m.t === "world") {
    items.clear();
    for (const it of m.items) items.set(it.key, it);
    epoch = m.epoch; version = m.v;
    render(firstWorld);
    firstWorld = false;
  } else if (m.t === "patch") {
    if (version !== null && m.v !== version + 1) { sock.close(); return; }
    for (const k of m.del) items.delete(k);
    for (const it of m.set) items.set(it.key, it);
    version = m.v;
    render(false);
  } else if (m.t === "screen") {
    if (watching && m.pane === watching.pane && m.host === watching.host) drawScreen(m);
  } else if (m.t === "screen_failed") {
    $("v-note").textContent = "Cannot show this screen: " + m.why;
    $("v-note").hidden = false;
  }
  document.body.dataset.v = String(version);
  document.body.dataset.epoch = epoch || "";
}

function post(path, body) {
  return fetch(path, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body),
  }).then(async (r) => {
    let j = {};
    try { j = await r.json(); } catch (e) { j = { ok: false, message: "HTTP " + r.status }; }
    if (r.status === 401) $("unpaired").hidden = false;
    j.status = r.status;
    return j;
  });
}

function render(quiet) {
  const panes = kind("pane");
  const counts = { working: 0, blocked: 0, done: 0 };
  for (const it of panes) if (counts[it.pane.lifecycle] !== undefined) counts[it.pane.lifecycle]++;
  for (const k of Object.keys(counts)) $("n-" + k).textContent = counts[k];
  renderQuestions(panes, quiet);
  renderPanes(panes);
  renderTasks();
  if (watching) renderViewHead();
}

function renderQuestions(panes, quiet) {
  const list = $("q-list");
  const asking = panes.filter((i) => i.pane.pending_decision)
    .sort((a, b) => Date.parse(a.pane.pending_decision.received_at) - Date.parse(b.pane.pending_decision.received_at));
  const keep = new Map();
  for (const card of list.querySelectorAll(".question")) keep.set(card.dataset.decision, card);
  const out = [];
  for (const it of asking) {
    const d = it.pane.pending_decision;
    if (!seenQuestions.has(d.id)) {
      seenQuestions.add(d.id);
      if (!quiet) notifyQuestion(it.pane, d);
    }
    let card = keep.get(d.id);
    if (!card) card = questionCard(it, d);
    keep.delete(d.id);
    out.push(card);
  }
  for (const card of keep.values()) {
    // A lost race stays on screen until read; the others go.
    if (card.classList.contains("lost")) out.push(card);
  }
  list.replaceChildren(...out);
  $("q-empty").hidden = out.length > 0;
  const n = asking.length;
  $("q-count").textContent = n; $("q-count").hidden = n === 0;
}

function questionCard(it, d) {
  const p = it.pane;
  const card = el("div", "question card");
  card.dataset.pane = p.id; card.dataset.decision = d.id; card.dataset.host = it.host;
  const head = el("div", "q-head");
  head.append(el("span", "glyph st-blocked", "!"), el("span", "name", paneName(p)), el("span", "agent", p.agent && p.agent.kind || ""));
  if (it.host !== "local") head.append(el("span", "host", it.host));
  card.append(head, el("div", "prompt-text", d.prompt));
  const opts = el("div", "options");
  if (d.answerable) {
    for (const o of d.options) {
      const b = el("button", "option btn", o.label || o.id);
      b.type = "button";
      b.dataset.option = o.id;
      if (/deny|no\b|reject/i.test(o.id + " " + (o.label || ""))) b.classList.add("danger");
      else if (o.id === "once" || /allow|yes/i.test(o.label || "")) b.classList.add("primary");
      b.addEventListener("click", () => answer(card, it, d, o, b));
      opts.append(b);
    }
  } else {
    opts.append(el("p", "hint", "Answer this one in the terminal."));
  }
  card.append(opts, el("div", "result"));
  return card;
}

function answer(card, it, d, o, button) {
  for (const b of card.querySelectorAll("button")) b.disabled = true;
  const result = card.querySelector(".result");
  result.textContent = "Sending " + (o.label || o.id) + "…";
  post("/api/answer", { host: it.host, pane: it.pane.id, decision: d.id, option: o.id }).then((r) => {
    if (r.ok) { result.textContent = "Sent: " + (o.label || o.id); card.classList.add("sent"); return; }
    if (r.status === 409) {
      card.classList.add("lost");
      result.textContent = "This was already answered elsewhere (in the terminal or another browser).";
      const dismiss = el("button", "btn small", "OK");
      dismiss.type = "button";
      dismiss.addEventListener("click", () => card.remove());
      result.append(" ", dismiss);
      return;
    }
    result.textContent = r.message || "The answer was refused.";
    for (const b of card.querySelectorAll("button")) b.disabled = false;
  }).catch((e) => {
    result.textContent = "Not sent: " + e;
    for (const b of card.querySelectorAll("button")) b.disabled = false;
  });
}

function renderPanes(panes) {
  const list = $("p-list");
  const hosts = kind("host");
  const several = hosts.length > 1;
  const out = [];
  const spaces = kind("workspace");
  for (const h of hosts) {
    if (several) {
      const head = el("div", "host-head", h.host);
      head.append(el("span", "link " + h.state, h.state + (h.why ? ": " + h.why : "")));
      out.push(head);
    }
    for (const w of spaces.filter((w) => w.host === h.host)) {
      const mine = panes.filter((p) => p.host === h.host && p.pane.workspace_id === w.workspace.id);
      if (!mine.length) continue;
      out.push(el("div", "ws-head", w.workspace.name));
      for (const it of mine) out.push(paneRow(it));
    }
  }
  list.replaceChildren(...out);
  $("p-empty").hidden = panes.length > 0;
}

function paneRow(it) {
  const p = it.pane;
  const row = el("button", "pane row");
  row.type = "button";
  row.dataset.pane = p.id; row.dataset.state = p.lifecycle; row.dataset.host = it.host;
  const top = el("div", "row-top");
  top.append(el("span", "glyph st-" + p.lifecycle, GLYPH[p.lifecycle] || "?"), el("span", "name", paneName(p)));
  if (p.agent && p.agent.kind) top.append(el("span", "agent", p.agent.kind));
  if (p.attention && p.attention !== "none") top.append(el("span", "badge att-" + p.attention, p.attention.replace("_", " ")));
  const t = el("span", "since", since(p.lifecycle_since));
  t.dataset.since = p.lifecycle_since || "";
  top.append(t);
  row.append(top);
  const line = p.pending_decision ? firstLine(p.pending_decision.prompt) : firstLine(p.last_message);
  if (line) row.append(el("div", "row-note", line));
  row.addEventListener("click", () => openPane(it.host, p.id));
  return row;
}

function renderTasks() {
  const tasks = kind("task");
  const list = $("t-list");
  list.replaceChildren(...tasks.map(taskCard));
  $("t-empty").hidden = tasks.length > 0;
}

function taskCard(it) {
  const t = it.task;
  const card = el("div", "task card");
  card.dataset.task = t.id; card.dataset.state = t.state;
  const head = el("div", "row-top");
  head.append(el("span", "name", t.label || t.id), el("span", "badge", t.state));
  card.append(head, el("div", "row-note", t.branch || ""));
  if (it.note) card.append(el("div", "row-note", it.note));
  const stat = el("div", "row-note diffstat");
  card.append(stat);
  if (it.finishable) {
    const acts = el("div", "options");
    for (const mode of ["merge", "discard"]) {
      const b = el("button", "btn " + mode + (mode === "discard" ? " danger" : ""), mode === "merge" ? "Merge" : "Discard");
      b.type = "button";
      b.addEventListener("click", () => {
        if (!confirm((mode === "merge" ? "Merge " : "Discard ") + (t.label || t.id) + "?")) return;
        b.disabled = true;
        post("/api/task", { host: it.host, task: t.id, mode }).then((r) => {
          stat.textContent = r.ok ? (mode === "merge" ? "Merged." : "Discarded.") : (r.message || "Refused.");
          b.disabled = false;
        });
      });
      acts.append(b);
    }
    const d = el("button", "btn small", "Diff stat");
    d.type = "button";
    d.addEventListener("click", () => {
      fetch(`/api/diffstat?host=${encodeURIComponent(it.host)}&task=${encodeURIComponent(t.id)}`, { credentials: "same-origin" })
        .then((r) => r.json()).then((j) => {
          const r = j.result || {};
          const files = (r.files || []).length;
          stat.textContent = j.ok ? `${files} file(s) changed` : (j.message || "No diff.");
        });
    });
    acts.append(d);
    card.append(acts);
  }
  return card;
}

function openPane(host, pane) {
  watching = { host, pane };
  $("main").hidden = true;
  $("view").hidden = false;
  $("screen").replaceChildren();
  $("v-note").hidden = true;
  $("submit-result").textContent = "";
  renderViewHead();
  watch(host, pane);
  window.scrollTo(0, 0);
}

function closePane() {
  watching = null;
  if (sock && sock.readyState === 1) sock.send(JSON.stringify({ op: "unwatch" }));
  $("view").hidden = true;
  $("main").hidden = false;
}

function watch(host, pane) {
  if (sock && sock.readyState === 1) sock.send(JSON.stringify({ op: "watch", host, pane }));
}

function renderViewHead() {
  const it = items.get(`pane/${watching.host}/${watching.pane}`);
  if (!it) { $("v-note").textContent = "This pane is gone."; $("v-note").hidden = false; return; }
  const p = it.pane;
  $("v-glyph").textContent = GLYPH[p.lifecycle] || "?";
  $("v-glyph").className = "glyph st-" + p.lifecycle;
  $("v-name").textContent = paneName(p);
  $("v-meta").textContent = [p.agent && p.agent.kind, p.lifecycle, since(p.lifecycle_since), it.host !== "local" ? it.host : ""].filter(Boolean).join(" · ");
}

const PALETTE = (() => {
  const base = ["#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
    "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"];
  const out = base.slice();
  const lv = [0, 95, 135, 175, 215, 255];
  for (let r = 0; r < 6; r++) for (let g = 0; g < 6; g++) for (let b = 0; b < 6; b++)
    out.push(`rgb(${lv[r]},${lv[g]},${lv[b]})`);
  for (let i = 0; i < 24; i++) { const v = 8 + i * 10; out.push(`rgb(${v},${v},${v})`); }
  return out;
})();

function colour(c) {
  if (c < 0) return null;
  if (c < 256) return PALETTE[c];
  const v = c - 16777216;
  return `rgb(${(v >> 16) & 255},${(v >> 8) & 255},${v & 255})`;
}

function drawScreen(m) {
  const pre = $("screen");
  const frag = document.createDocumentFragment();
  m.lines.forEach((runs, i) => {
    for (const [text, fg, bg, flags] of runs) {
      const s = el("span", null, text);
      let f = colour(fg), b = colour(bg);
      if (flags & 16) { const x = f; f = b || "var(--bg)"; b = x || "var(--fg)"; }
      if (f) s.style.color = f;
      if (b) s.style.backgroundColor = b;
      if (flags & 1) s.classList.add("b");
      if (flags & 2) s.classList.add("d");
      if (flags & 4) s.classList.add("i");
      if (flags & 8) s.classList.add("u");
      if (flags & 32) s.classList.add("s");
      frag.append(s);
    }
    if (i < m.lines.length - 1) frag.append("\n");
  });
  pre.replaceChildren(frag);
}

function submit(ev) {
  ev.preventDefault();
  if (!watching) return;
  const text = $("prompt").value;
  if (!text.trim()) return;
  $("send").disabled = true;
  $("submit-result").textContent = "Sending…";
  post("/api/submit", { host: watching.host, pane: watching.pane, text }).then((r) => {
    $("send").disabled = false;
    if (r.ok) { $("prompt").value = ""; $("submit-result").textContent = "Sent: the pane is " + (r.result && r.result.outcome || "working") + "."; }
    else $("submit-result").textContent = r.message || "Refused.";
  }).catch((e) => { $("send").disabled = false; $("submit-result").textContent = "Not sent: " + e; });
}

function notifyQuestion(p, d) {
  if (!("Notification" in window) || Notification.permission !== "granted" || !document.hidden) return;
  try { new Notification("signaltty: " + paneName(p) + " asks", { body: d.prompt, tag: d.id }); } catch (e) { /* not shown */ }
}

function setupNotify() {
  const b = $("notify");
  if (!("Notification" in window) || Notification.permission !== "default") return;
  b.hidden = false;
  b.addEventListener("click", () => Notification.requestPermission().then(() => { b.hidden = true; }));
}

function tick() {
  for (const t of document.querySelectorAll(".since")) if (t.dataset.since) t.textContent = since(t.dataset.since);
  if (watching) renderViewHead();
}

$("back").addEventListener("click", closePane);
$("prompt-form").addEventListener("submit", submit);
setupNotify();
setInterval(tick, 1000);
if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
connect();
