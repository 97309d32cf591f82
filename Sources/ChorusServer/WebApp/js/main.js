// The entry point: signs in (a device token, or the password once), routes by the
// address's #/… part to the screens, keeps them live from events, reconnects and
// catches up, and installs the service worker.
//
// Routes: #/rooms (households), #/rooms/ID[/tasks|chat|members|stats], #/tasks/ID,
// #/stream (my tasks), #/devices, #/settings, #/signin, #/register, #/join/CODE.
// From ~768 px wide the list pane and the detail pane show side by side; narrower,
// the deeper one shows alone with a Back button.

import { h, replace } from "./dom.js";
import { Session, ChorusError, OfflineError } from "./session.js";
import { store, listen, changed, reset } from "./store.js";
import { apply, describe } from "./events.js";
import { savedDevice, forgetDevice, createDeviceToken } from "./credentials.js";
import { lastRoute, saveRoute, scrollOf, keepScroll, forgetAll } from "./uistate.js";
import { toast } from "./toast.js";
import { closePanels } from "./dialog.js";
import * as api from "./api.js";

// The screens load when first shown (import()), so the first screen waits only for its
// own module; the one it will be is asked for at start, alongside the connection.
const MODULES = {
  signin: () => import("./signin.js"),
  rooms: () => import("./rooms.js"),
  room: () => import("./room.js"),
  task: () => import("./task.js"),
  stream: () => import("./stream.js"),
  devices: () => import("./devices.js"),
  settings: () => import("./settings.js"),
};
const loaded = {};
const loading = {};
function screenModule(name) {
  if (!loading[name]) {
    loading[name] = MODULES[name]().then((module) => (loaded[name] = module));
    loading[name].catch(() => { delete loading[name]; });
  }
  return loading[name];
}
/** Deletes held back for an undo: only the task screen makes them. */
function flushDeletes() {
  if (loaded.task) loaded.task.flushDeletes();
}

const JOIN = "chorus.join";
const panes = { list: document.getElementById("list"), detail: document.getElementById("detail") };
const main = document.getElementById("main");
const backButton = document.getElementById("back");
const nav = document.getElementById("nav");
const banner = document.querySelector("[data-banner=offline]");

const session = new Session(`wss://${location.host}/ws`);
api.useSession(session);

/** Filled in by the sign-in form; used by the next connection once, then forgotten. */
let passwordLogin = null;
let signedIn = false;
let everOnline = false;
const mounted = { list: null, detail: null };

// MARK: the app object screens get

const app = {
  go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
  setTitle(title) {
    document.title = title ? `${title} · Chorus` : "Chorus";
    document.getElementById("title").textContent = title || "Chorus";
  },
  selectedTask() {
    const match = /^#\/tasks\/(\d+)/.exec(location.hash);
    return match ? Number(match[1]) : null;
  },
  /** A load failed: a 404 means it is gone or not ours; offline is said by the banner. */
  fail(error) {
    if (error instanceof ChorusError && error.code === 404) {
      toast(error.message);
      if (!/^#\/tasks\//.test(location.hash)) app.go("#/rooms");
    } else if (error && error.code) {
      toast(error.message, { kind: "error" });
    }
  },
  signOut,
};

// MARK: routes

/** What the address asks for: each pane's screen, and where Back goes. */
function parse(hash) {
  let m;
  if ((m = /^#\/rooms\/(\d+)(?:\/(tasks|chat|members|stats))?$/.exec(hash))) {
    const room = Number(m[1]);
    return { list: ["rooms", { selected: room }], detail: ["room", { room, section: m[2] || "tasks" }], back: "#/rooms" };
  }
  if ((m = /^#\/tasks\/(\d+)$/.exec(hash))) {
    const task = Number(m[1]);
    const known = store.tasks.get(task);
    const room = known ? known.room : null;
    const list = room === null ? ["stream", {}] : ["room", { room, section: "tasks" }];
    return { list, detail: ["task", { task }], back: room === null ? "#/stream" : `#/rooms/${room}` };
  }
  if (hash === "#/stream") return { list: ["stream", {}], detail: null, back: null };
  if (hash === "#/devices") return { list: ["rooms", {}], detail: ["devices", {}], back: "#/rooms" };
  if (hash === "#/settings") return { list: ["rooms", {}], detail: ["settings", {}], back: "#/rooms" };
  return { list: ["rooms", {}], detail: null, back: null };
}

const SCREENS = { rooms: "roomsScreen", room: "roomScreen", task: "taskScreen", stream: "streamScreen", devices: "devicesScreen", settings: "settingsScreen" };

function keyOf(name, params) {
  if (name === "room") return `room:${params.room}`;
  if (name === "task") return `task:${params.task}`;
  return name;
}

function mount(pane, wanted) {
  const container = panes[pane];
  if (!wanted) {
    if (mounted[pane]) mounted[pane].screen.destroy();
    mounted[pane] = null;
    replace(container, h("div", { class: "placeholder" }, h("p", {}, "Choose a household or a task.")));
    return;
  }
  const [name, params] = wanted;
  const key = keyOf(name, params);
  if (mounted[pane] && mounted[pane].key === key) {
    if (mounted[pane].screen.update) mounted[pane].screen.update(params);
    return;
  }
  if (mounted[pane]) mounted[pane].screen.destroy();
  if (!loaded[name]) {
    // Not loaded yet: the pane waits (it stays as it was for the blink this takes), and
    // mounts the screen if the address still wants it then.
    const waiting = { key, params, screen: { destroy() {}, update(next) { waiting.params = next; } } };
    mounted[pane] = waiting;
    screenModule(name).then(() => {
      if (mounted[pane] !== waiting) return;
      mounted[pane] = null;
      mount(pane, [name, waiting.params]);
    }, (error) => {
      if (mounted[pane] === waiting) mounted[pane] = null;
      app.fail(error);
    });
    return;
  }
  container.replaceChildren();
  mounted[pane] = { key, screen: loaded[name][SCREENS[name]](container, params, app) };
  // Where this pane was scrolled to last time (a reload, or coming back).
  container.dataset.scrollKey = `${pane}:${key}`;
  const top = scrollOf(container.dataset.scrollKey);
  container.scrollTop = 0;
  restoring[pane] = top ? { top, until: Date.now() + 4000 } : null;
  requestAnimationFrame(restoreScroll);
}

function route() {
  closePanels();
  const hash = location.hash || "#/rooms";
  if (!signedIn) {
    const join = /^#\/join\/([A-Za-z0-9-]+)$/.exec(hash);
    if (join) sessionStorage.setItem(JOIN, join[1]);
    // Signing in with this device's token: the screen comes once it has.
    if (savedDevice() && !session.stopped) return;
    showSignIn(hash === "#/register" || (join && !savedDevice()));
    return;
  }
  const join = /^#\/join\/([A-Za-z0-9-]+)$/.exec(hash);
  if (join) {
    sessionStorage.setItem(JOIN, join[1]);
    joinPending();
    return;
  }
  if (hash === "#/signin" || hash === "#/register") {
    app.go("#/rooms");
    return;
  }
  saveRoute(hash);
  const wanted = parse(hash);
  main.dataset.depth = wanted.detail ? "detail" : "list";
  mount("list", wanted.list);
  mount("detail", wanted.detail);
  backButton.hidden = !wanted.back;
  backButton.dataset.to = wanted.back || "";
  for (const link of nav.querySelectorAll("a")) {
    const active = hash.startsWith(link.getAttribute("href")) ||
      (link.getAttribute("href") === "#/rooms" && /^#\/(rooms|tasks)/.test(hash) && !hash.startsWith("#/stream"));
    if (active) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (!wanted.detail) app.setTitle(wanted.list[0] === "stream" ? "My tasks" : "Households");
  if (wanted.detail && wanted.detail[0] === "devices") app.setTitle("Devices");
  if (wanted.detail && wanted.detail[0] === "settings") app.setTitle("Settings");
  changed("selection");
}

for (const pane of Object.values(panes)) keepScroll(pane, () => pane.dataset.scrollKey);

/** Scroll positions to restore once the pane's content is tall enough (it loads after
 *  the screen mounts); given up after a few seconds or when the person scrolls. */
const restoring = { list: null, detail: null };
function restoreScroll() {
  for (const [name, pane] of Object.entries(panes)) {
    const want = restoring[name];
    if (!want) continue;
    if (Date.now() > want.until) restoring[name] = null;
    else if (pane.scrollHeight - pane.clientHeight >= want.top) {
      pane.scrollTop = want.top;
      restoring[name] = null;
    }
  }
}

backButton.addEventListener("click", () => app.go(backButton.dataset.to || "#/rooms"));
addEventListener("hashchange", route);

// MARK: signing in and out

/** What the sign-in form says until the next sign-in (why the person is there). */
let signInNotice = null;
/** The form asked for while its module loads (register or not). */
let signInWanted = null;

function showSignIn(register, notice = signInNotice) {
  signInNotice = notice;
  signedIn = false;
  for (const pane of ["list", "detail"]) {
    if (mounted[pane]) mounted[pane].screen.destroy();
    mounted[pane] = null;
  }
  nav.hidden = true;
  backButton.hidden = true;
  main.dataset.depth = "list";
  panes.detail.replaceChildren();
  app.setTitle(register ? "Create your account" : "Sign in");
  if (!loaded.signin) {
    signInWanted = { register: !!register };
    screenModule("signin").then(() => { if (!signedIn && signInWanted) showSignIn(signInWanted.register, signInNotice); }, () => {});
    return;
  }
  signInWanted = null;
  loaded.signin.signInScreen(panes.list, {
    register,
    notice,
    joinCode: sessionStorage.getItem(JOIN),
    submit: (form) => new Promise((resolve, reject) => {
      passwordLogin = { ...form, resolve, reject };
      session.stop();
      session.start();
    }),
  });
}

/** The first requests of every connection: LOGIN/REGISTER once, else the device token. */
session.onOpen = async () => {
  const attempt = passwordLogin;
  passwordLogin = null;
  let reply;
  if (attempt) {
    const code = sessionStorage.getItem(JOIN);
    const verb = attempt.register ? "REGISTER" : "LOGIN";
    const invite = attempt.register && code ? ` invite=${code.replace(/[^A-Za-z0-9-]/g, "")}` : "";
    try {
      reply = await session.request(`${verb} ${attempt.name} ${quoteWord(attempt.password)}${invite}`);
      if (invite) sessionStorage.removeItem(JOIN);
      await createDeviceToken(session, reply.user.name);
    } catch (error) {
      if (!(error instanceof OfflineError)) formFailed = true;
      // A code that no longer works: the next try makes the account without it.
      if (invite && error.code === 404) sessionStorage.removeItem(JOIN);
      attempt.reject(error);
      throw error;
    }
    attempt.resolve();
    // Joined by the invite in REGISTER: the household replaces the join link before the
    // first route, so the link is not followed a second time (its JOIN would fail and
    // send the newcomer to the list instead).
    if (reply.room) location.hash = `#/rooms/${reply.room.id}`;
    await signedInAs(reply, false);
    return;
  }
  const device = savedDevice();
  if (!device) throw new ChorusError(401, "Please sign in.");
  try {
    reply = await session.request(`AUTH ${device.token}`);
  } catch (error) {
    if (error instanceof ChorusError && (error.code === 401 || error.code === 403)) forgetDevice();
    throw error;
  }
  await signedInAs(reply, everOnline);
};

function quoteWord(text) {
  return '"' + text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n") + '"';
}

/** After a login: where SYNC will start, then everything shown is loaded afresh. A
 *  reconnect first replays what happened meanwhile and says what it was. */
async function signedInAs(reply, reconnected) {
  signInNotice = null;
  if (store.me && store.me.name !== reply.user.name) reset();
  store.me = reply.user;
  if (reconnected && store.lastEventId) {
    await catchUp();
  } else {
    // A cursor past the end is answered with the log's last id (Protocol.md §9). Asked
    // alongside the first loads: events after it come live on this session anyway, and
    // the cursor is the largest id seen either way.
    session.request("SYNC 9007199254740991 1").then((end) => {
      if (typeof end.last === "number" && end.last > store.lastEventId) store.lastEventId = end.last;
    }, () => {});
  }
  everOnline = true;
  // The households first: the first screen needs only them; my tasks follow.
  const mine = api.loadMine();
  await api.loadRooms();
  mine.catch(() => {});
  if (!signedIn) {
    signedIn = true;
    nav.hidden = false;
    if (!location.hash || location.hash === "#/" || location.hash === "#/signin" || location.hash === "#/register") {
      const last = lastRoute();
      location.hash = last && !last.startsWith("#/join") ? last : "#/rooms";
    }
    route();
    joinPending();
  } else {
    for (const pane of ["list", "detail"]) {
      const screen = mounted[pane] && mounted[pane].screen;
      if (screen && screen.reload) screen.reload().catch(() => {});
    }
  }
}

/** SYNC from the last event seen, page by page; what came is applied and told. */
async function catchUp() {
  const missed = [];
  let after = store.lastEventId;
  for (let page = 0; page < 50; page++) {
    const reply = await session.request(`SYNC ${after} 500`);
    if (reply.reset) {
      store.lastEventId = reply.last || 0;
      toast("The server's history was restored: everything is loaded afresh.");
      return;
    }
    for (const event of reply.events || []) {
      apply(event);
      if (event.by !== store.me.name) {
        const line = describe(event);
        if (line) missed.push(line);
      }
    }
    if (!reply.more || !reply.last) break;
    after = reply.last;
  }
  if (missed.length) {
    const shown = missed.slice(-3).join(" · ");
    toast(`While you were away (${missed.length}): ${shown}`, { seconds: 10 });
  }
}

async function joinPending() {
  const code = sessionStorage.getItem(JOIN);
  if (!code || !signedIn) return;
  sessionStorage.removeItem(JOIN);
  try {
    const room = await api.join(code);
    toast(`You joined ${room.name}.`);
    app.go(`#/rooms/${room.id}`);
  } catch (error) {
    toast(error.message, { kind: "error" });
    app.go("#/rooms");
  }
}

async function signOut() {
  const device = savedDevice();
  flushDeletes();
  // This device's notices end with it: the server's subscription first, while the token works.
  await import("./push.js").then((push) => push.turnOff().catch(() => push.turnOff(false))).catch(() => {});
  try {
    if (device) await session.request(`TOKEN REVOKE ${device.label}`);
  } catch {
    // Offline: the token stays listed under Devices until revoked from another one.
  }
  forgetDevice();
  forgetAll();
  session.stop();
  reset();
  signInNotice = "You are signed out on this device.";
  history.replaceState(null, "", "#/signin");
  showSignIn(false);
}

// MARK: live

session.addEventListener("event", (event) => {
  const message = event.detail;
  if (message.event === "bye") {
    if (/revoked|disabled/.test(message.reason || "")) {
      // The server ended this device's push subscription with its token; the browser's goes too.
      import("./push.js").then((push) => push.turnOff(false)).catch(() => {});
      forgetDevice();
      session.stop();
      reset();
      showSignIn(false, "This device was signed out.");
    }
    return;
  }
  apply(message);
  if (message.event === "room.invited") toast(describe(message));
  if (message.event === "task.reminder" || message.event === "task.overdue") toast(describe(message));
  if (message.event === "room.deleted" || (message.event === "member.removed" && store.me && message.user === store.me.name)) {
    const here = /^#\/rooms\/(\d+)/.exec(location.hash);
    if (here && Number(here[1]) === message.room) app.go("#/rooms");
  }
});

/** A login that failed for good. The sign-in form says why itself; a device token
 *  that no longer works sends the person to the form. */
let formFailed = false;
session.addEventListener("failed", (event) => {
  if (formFailed) {
    formFailed = false;
    return;
  }
  const error = event.detail;
  showSignIn(false, error && error.code === 403 ? error.message : "Please sign in again.");
});

let bannerTimer = 0;
session.addEventListener("state", (event) => {
  const state = event.detail;
  clearTimeout(bannerTimer);
  if (state === "online") {
    banner.hidden = true;
    document.body.classList.remove("offline");
    return;
  }
  if (!signedIn && !savedDevice()) return;
  // A short blip is not worth a banner.
  bannerTimer = setTimeout(() => {
    if (session.state !== "online" && !session.stopped) {
      banner.hidden = false;
      document.body.classList.add("offline");
    }
  }, everOnline ? 1500 : 4000);
});

listen((topics) => {
  for (const pane of ["list", "detail"]) {
    const screen = mounted[pane] && mounted[pane].screen;
    if (screen && screen.refresh) screen.refresh(topics);
  }
  requestAnimationFrame(restoreScroll);
  // A task just loaded may belong in another list pane (a reload on #/tasks/ID).
  if (signedIn && topics.has("tasks") && app.selectedTask()) {
    const wanted = parse(location.hash);
    if (mounted.list && mounted.list.key !== keyOf(wanted.list[0], wanted.list[1])) mount("list", wanted.list);
  }
});

addEventListener("pagehide", flushDeletes);

// MARK: start

if (savedDevice()) {
  replace(panes.list, h("p", { class: "placeholder" }, "Connecting…"));
  session.start();
  // The screens the address will show once signed in, fetched while it connects.
  const wanted = parse(location.hash || lastRoute() || "#/rooms");
  for (const screen of [wanted.list, wanted.detail]) if (screen) screenModule(screen[0]).catch(() => {});
} else {
  route();
}

// The service worker: the app opens offline, and a new version takes over by itself.
// Registered once the page has loaded and is idle: its install fetches every file of the
// app, which would otherwise compete with the first screen on a first visit.
function registerWorker() {
  const policy = window.trustedTypes
    ? trustedTypes.createPolicy("chorus", { createScriptURL: (url) => { if (url === "/sw.js") return url; throw new TypeError("not the service worker"); } })
    : null;
  navigator.serviceWorker.register(policy ? policy.createScriptURL("/sw.js") : "/sw.js", { scope: "/" }).catch(() => {});
}
if ("serviceWorker" in navigator) {
  // Listened for at once: a navigation alone looks for a new worker, which may take over
  // before the registration above runs.
  const hadController = !!navigator.serviceWorker.controller;
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (hadController) toast("A new version of Chorus is ready.", { seconds: 30, action: { label: "Reload", run: () => location.reload() } });
  });
  // A tapped notification (sw.js) names the screen to show in this window.
  navigator.serviceWorker.addEventListener("message", (event) => {
    const message = event.data || {};
    if (message.type !== "open" || typeof message.url !== "string") return;
    const url = new URL(message.url, location.origin);
    if (url.origin === location.origin) location.hash = url.hash || "#/";
  });
  const later = () => (window.requestIdleCallback ? requestIdleCallback(registerWorker, { timeout: 3000 }) : setTimeout(registerWorker, 500));
  if (document.readyState === "complete") later();
  else addEventListener("load", later, { once: true });
}
