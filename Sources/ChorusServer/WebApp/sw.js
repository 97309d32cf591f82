// The service worker: keeps the app's shell (its HTML, CSS, modules and icons) so the
// app opens without a network, and replaces it when a new version is served. chorusd
// writes the version (a digest of every file) and the shell's paths into this file as
// it serves it, so any change to any file makes a new worker.
// Never cached: the session (/ws), calendar feeds, health and metrics.

const VERSION = "__CHORUS_VERSION__";
const SHELL = ["__CHORUS_SHELL__"];
const CACHE = `chorus-${VERSION}`;
const NEVER = ["/ws", "/calendar/", "/healthz", "/metrics"];

self.addEventListener("install", (event) => {
  // Fetched past the HTTP cache, so the new worker never keeps an old file.
  event.waitUntil(caches.open(CACHE)
    .then((cache) => cache.addAll(SHELL.map((path) => new Request(path, { cache: "no-cache" }))))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name.startsWith("chorus-") && name !== CACHE).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

/** The cache, opened once for every request the page makes while it loads. */
let opened = null;
function shell() {
  if (!opened) opened = caches.open(CACHE);
  return opened;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (NEVER.some((path) => url.pathname === path || url.pathname.startsWith(path))) return;
  // Opening the app at any of its addresses (#/… is never sent) is the page.
  const path = request.mode === "navigate" && (url.pathname === "/" || url.pathname === "/index.html") ? "/" : url.pathname;
  if (path !== "/" && !SHELL.includes(path)) return;
  event.respondWith(shell()
    .then((cache) => cache.match(path))
    .then((kept) => kept || fetch(request)));
});
