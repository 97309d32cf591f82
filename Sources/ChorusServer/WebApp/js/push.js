// Notices on this device (Web Push, CONTRACT §10): the browser subscribes to its own push
// service with the server's key, and the server keeps what it answered (PUSH SUBSCRIBE).
// The subscription's id is kept here, so "Stop" and signing out can end it (PUSH
// UNSUBSCRIBE) along with the browser's own subscription.

import * as api from "./api.js";

const KEY = "chorus.push";
/** Seconds to wait for the browser's push service. */
const PATIENCE = 20;

/** Why this device cannot be notified: its state ("blocked", "failed"…) and words for it. */
export class PushFailure extends Error {
  constructor(state, message) {
    super(message);
    this.state = state;
  }
}

export const BLOCKED = "Notifications are blocked for this site in the browser. To allow them, open the site's settings " +
  "(the icon beside the address), set Notifications to Allow, then press the button again.";

/** Why this browser cannot take pushes at all, or "" when it can. */
export function unsupported() {
  if (!window.isSecureContext) return "Notifications need a secure (https) connection to the server.";
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    return "This browser cannot show notifications from a web app.";
  }
  return "";
}

/** `{id, endpoint}`: this device's subscription as the server keeps it, or null. */
export function saved() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "null");
  } catch {
    return null;
  }
}

/** A name for the device in PUSH LIST: its browser and system, such as "Chrome-Android". */
export function deviceLabel() {
  const agent = navigator.userAgent;
  const browser = /Edg\//.test(agent) ? "Edge" : /Firefox\//.test(agent) ? "Firefox" : /Chrome\//.test(agent) ? "Chrome"
    : /Safari\//.test(agent) ? "Safari" : "Browser";
  const system = /Android/.test(agent) ? "Android" : /iPhone|iPad/.test(agent) ? "iOS" : /Mac OS/.test(agent) ? "macOS"
    : /Windows/.test(agent) ? "Windows" : /Linux/.test(agent) ? "Linux" : "";
  return [browser, system].filter(Boolean).join("-").replace(/[^A-Za-z0-9._-]/g, "").slice(0, 64);
}

/** The bytes of a base64url text (the server's key, as pushManager.subscribe takes it). */
export function keyBytes(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(base64 + "===".slice((base64.length + 3) % 4)), (c) => c.charCodeAt(0));
}

async function browserSubscription() {
  if (unsupported()) return null;
  const registration = await navigator.serviceWorker.getRegistration();
  return registration ? registration.pushManager.getSubscription() : null;
}

/** "on" when the browser and the server both hold this device's subscription; "off",
 *  "blocked" (the person said no) or "unsupported" otherwise. */
export async function deviceState() {
  if (unsupported()) return "unsupported";
  if (Notification.permission === "denied") return "blocked";
  const kept = saved();
  if (!kept) return "off";
  const [subscription, held] = await Promise.all([browserSubscription(), api.pushSubscriptions()]);
  if (subscription && subscription.endpoint === kept.endpoint && held.some((s) => s.id === kept.id)) return "on";
  // Ended on one side (signed out from another device; the push service gave it up): the
  // server's half alone reaches nobody.
  if (held.some((s) => s.id === kept.id)) await api.pushUnsubscribe(kept.id).catch(() => {});
  localStorage.removeItem(KEY);
  return "off";
}

/** Asks the person, subscribes the browser, and gives the server the subscription. */
export async function turnOn() {
  const reason = unsupported();
  if (reason) throw new PushFailure("unsupported", reason);
  const permission = await Notification.requestPermission();
  if (permission === "denied") throw new PushFailure("blocked", BLOCKED);
  if (permission !== "granted") throw new PushFailure("off", "Notifications were not allowed. Press the button again to be asked once more.");
  const key = keyBytes(await api.pushKey());
  const registration = await navigator.serviceWorker.ready;
  let subscription;
  try {
    subscription = await registration.pushManager.getSubscription();
    // One made with another key (a server that changed its key) cannot carry this one's pushes.
    const held = subscription && subscription.options.applicationServerKey;
    if (held && new Uint8Array(held).join() !== key.join()) {
      await subscription.unsubscribe();
      subscription = null;
    }
    subscription = subscription || await Promise.race([
      registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }),
      // Offline, a browser may wait for its push service without end (headless Chromium does).
      new Promise((resolve, reject) => setTimeout(() => reject(new Error(`it did not answer within ${PATIENCE} seconds.`)), PATIENCE * 1000)),
    ]);
  } catch (error) {
    throw new PushFailure("failed", `This browser could not reach its push service: ${error.message || error.name}`);
  }
  return keep(subscription.toJSON());
}

/** Gives the server a browser's subscription (its toJSON()) and remembers its id. */
export async function keep(subscription) {
  const kept = await api.pushSubscribe(subscription, deviceLabel());
  localStorage.setItem(KEY, JSON.stringify({ id: kept.id, endpoint: subscription.endpoint }));
  return kept;
}

/** Ends this device's notices: the server's subscription (unless `tellServer` is false,
 *  for a session already gone), then the browser's. */
export async function turnOff(tellServer = true) {
  const kept = saved();
  if (kept && tellServer) {
    try {
      await api.pushUnsubscribe(kept.id);
    } catch (error) {
      // 404: already ended (its token was revoked); anything else, such as offline, stops here.
      if (error.code !== 404) throw error;
    }
  }
  localStorage.removeItem(KEY);
  const subscription = await browserSubscription().catch(() => null);
  if (subscription) await subscription.unsubscribe().catch(() => false);
}
