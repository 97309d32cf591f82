// Notices on this device (Web Push): the browser subscribes to its push service with the
// server's key, the server keeps what it answered (PUSH SUBSCRIBE), and the id is kept
// here so Stop and sign-out can end both.

import * as api from "./api.js";

const KEY = "chorus.push";
/** Seconds to wait for the browser's push service. */
const PATIENCE = 20;

/** `promise`, or a rejection after PATIENCE seconds: offline, a browser may wait for its push service without end (headless Chromium does). */
const patiently = (promise) => Promise.race([promise,
  new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer in ${PATIENCE} seconds.`)), PATIENCE * 1000))]);

/** Why this device cannot be notified: an Error with the state to show ("blocked", "failed"…). */
const failure = (state, message) => Object.assign(new Error(message), { state });

export const BLOCKED = "The browser blocks notifications from this site. Allow them in its site settings (beside the address), then try again.";

/** Why this browser cannot take pushes at all, or "". */
export function unsupported() {
  if (!window.isSecureContext) return "Notifications need a secure (https) connection.";
  return "PushManager" in window && "Notification" in window && "serviceWorker" in navigator ? "" : "This browser cannot show notifications from a web app.";
}

/** `{id, endpoint}` as the server keeps this device's subscription, or null. */
export function saved() {
  try {
    return JSON.parse(localStorage.getItem(KEY));
  } catch {
    return null;
  }
}

/** The device's name in PUSH LIST, such as "Chrome-Android": the first of each list its browser names. */
export function deviceLabel() {
  const named = (names) => names.find((name) => navigator.userAgent.includes(name)) || "";
  return [named(["Edg", "Firefox", "Chrome", "Safari"]).replace(/^Edg$/, "Edge") || "Browser", named(["Android", "iPhone", "iPad", "Mac", "Windows", "Linux"])]
    .filter(Boolean).join("-");
}

/** Bytes from base64url (the server's key, as pushManager.subscribe takes it). */
export function keyBytes(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(base64 + "===".slice((base64.length + 3) % 4)), (c) => c.charCodeAt(0));
}

async function browserSubscription() {
  const registration = !unsupported() && await navigator.serviceWorker.getRegistration();
  return registration ? registration.pushManager.getSubscription() : null;
}

/** "on" when the browser and the server both hold this device's subscription, or why not. */
export async function deviceState() {
  if (unsupported()) return "unsupported";
  if (Notification.permission === "denied") return "blocked";
  const kept = saved();
  if (!kept) return "off";
  const [subscription, held] = await Promise.all([browserSubscription(), api.pushSubscriptions()]);
  const onServer = held.some((s) => s.id === kept.id);
  if (onServer && subscription && subscription.endpoint === kept.endpoint) return "on";
  // Half gone (signed out elsewhere; dropped by the push service): the other half reaches nobody.
  if (onServer) await api.pushUnsubscribe(kept.id).catch(() => {});
  localStorage.removeItem(KEY);
  return "off";
}

/** Asks the person, subscribes the browser, and gives the server the subscription. */
export async function turnOn() {
  const reason = unsupported();
  if (reason) throw failure("unsupported", reason);
  const permission = await Notification.requestPermission();
  if (permission === "denied") throw failure("blocked", BLOCKED);
  if (permission !== "granted") throw failure("off", "Notifications were not allowed; press the button to be asked again.");
  const key = keyBytes(await api.pushKey());
  const { pushManager } = await navigator.serviceWorker.ready;
  let subscription;
  try {
    subscription = await pushManager.getSubscription() || await patiently(pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }));
  } catch (error) {
    throw failure("failed", `This browser could not reach its push service: ${error.message || error.name}`);
  }
  return keep(subscription.toJSON());
}

/** Gives the server a subscription (its toJSON()) and remembers its id. */
export async function keep(subscription) {
  const kept = await api.pushSubscribe(subscription, deviceLabel());
  localStorage.setItem(KEY, JSON.stringify({ id: kept.id, endpoint: subscription.endpoint }));
  return kept;
}

/** Ends the server's subscription (unless its session is gone), then the browser's. */
export async function turnOff(tellServer = true) {
  const kept = saved();
  if (kept && tellServer) await api.pushUnsubscribe(kept.id).catch((error) => { if (error.code !== 404) throw error; });
  localStorage.removeItem(KEY);
  const subscription = await browserSubscription().catch(() => null);
  if (subscription) await patiently(subscription.unsubscribe()).catch(() => {});
}
