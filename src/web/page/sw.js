// signaltty web view: the service worker. It keeps a copy of the page's own
// files so the app opens from the home screen, always trying the network first
// and falling back to the copy only when the server cannot be reached. Live
// data (the /live socket and every /api/ call) is never stored or served here.
"use strict";

const CACHE = "signaltty-shell-v2";
const SHELL = [
  "/", "/app.css", "/app.js", "/icon.svg", "/icon-180.png", "/icon-192.png", "/icon-512.png",
  "/manifest.webmanifest",
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((c) => c.addAll(SHELL))
      .catch(() => undefined)
      .then(() => self.skipWaiting())
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim())
  );
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  const path = req.mode === "navigate" ? "/" : url.pathname;
  if (!SHELL.includes(path) || url.search) return;
  event.respondWith(
    fetch(req).then((res) => {
      if (res.ok) {
        const copy = res.clone();
        caches.open(CACHE).then((c) => c.put(path, copy)).catch(() => undefined);
      }
      return res;
    }).catch(() => caches.match(path).then((hit) => hit || Response.error()))
  );
});

// A tap on a question's notification brings the page forward (or opens it).
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((list) => {
      for (const c of list) if ("focus" in c) return c.focus();
      return self.clients.openWindow("/");
    })
  );
});
