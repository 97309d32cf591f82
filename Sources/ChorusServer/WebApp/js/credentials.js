// This device's sign-in: a device token (TOKEN CREATE web-… kind=device) kept in
// localStorage with the account's name and the token's label. Never the password.
// Whoever can run script in this origin could read it, which is why the page's CSP
// allows only this server's own scripts (SECURITY.md).

import { ChorusError } from "./session.js";
import { randomWord } from "./dom.js";

const KEY = "chorus.device";

/** `{name, label, token}` or null. */
export function savedDevice() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || "null");
    return saved && saved.token && saved.label ? saved : null;
  } catch {
    return null;
  }
}

export function forgetDevice() {
  localStorage.removeItem(KEY);
}

/** After a password login: a token for this device, so the next visit needs no
 *  password. A server that does not know `kind=` yet gets a plain token. */
export async function createDeviceToken(session, name) {
  const label = "web-" + randomWord(10);
  let reply;
  try {
    reply = await session.request(`TOKEN CREATE ${label} kind=device`);
  } catch (error) {
    if (!(error instanceof ChorusError) || error.code !== 400) throw error;
    reply = await session.request(`TOKEN CREATE ${label}`);
  }
  const device = { name, label, token: reply.token };
  localStorage.setItem(KEY, JSON.stringify(device));
  return device;
}
