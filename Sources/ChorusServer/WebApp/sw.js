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

// A push (CONTRACT §10) carries {"event","title","body","url"}. A notification with an
// address in the app is tagged with it, so a newer push about the same task replaces the
// older one on screen, as the push service's Topic does for those still in transit; one
// without stands alone.
self.addEventListener("push", (event) => {
  let notice = {};
  try {
    notice = event.data ? event.data.json() : {};
  } catch {
    notice = { body: event.data ? event.data.text() : "" };
  }
  const url = appAddress(notice.url);
  const named = url !== self.location.origin + "/";
  event.waitUntil(self.registration.showNotification(typeof notice.title === "string" && notice.title ? notice.title : "Chorus", {
    body: typeof notice.body === "string" ? notice.body : "",
    tag: named ? url : "",
    renotify: named,
    icon: "/icon-192.png",
    data: { url },
  }));
});

// Tapping a notification opens its task: in the app's window if one is open (the page
// follows the address it is sent), else in a new one.
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = appAddress(event.notification.data && event.notification.data.url);
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
    const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
    if (!open) return self.clients.openWindow(url);
    open.postMessage({ type: "open", url });
    return open.focus();
  }));
});

/** An address in this app (a push names one); anything else opens the app's start. */
function appAddress(text) {
  if (typeof text !== "string") return self.location.origin + "/";
  try {
    const url = new URL(text, self.location.origin);
    return url.origin === self.location.origin ? url.href : self.location.origin + "/";
  } catch {
    return self.location.origin + "/";
  }
}
