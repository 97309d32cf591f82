// The person's devices and bots (TOKEN LIST): each can be signed out (TOKEN REVOKE),
// which ends its sessions at once. This device's own is "Sign out".

import { h, keyed, text } from "./dom.js";
import { store } from "./store.js";
import { savedDevice } from "./credentials.js";
import { confirmDialog } from "./dialog.js";
import { formatWhen } from "./time.js";
import { toast, toastError } from "./toast.js";
import * as api from "./api.js";

export function devicesScreen(container, params, app) {
  const who = h("p", { class: "meta" });
  const list = h("ul", { class: "devices", "aria-label": "Devices and bots" });
  const signOut = h("button", { type: "button", class: "danger", "data-action": "sign-out" }, "Sign out of this device");
  signOut.addEventListener("click", () => app.signOut());
  container.replaceChildren(h("section", { class: "screen", "data-screen": "devices" },
    h("h2", {}, "Devices"), who,
    h("p", { class: "hint" }, "Every browser you sign in on, and every bot token, is listed here. Signing one out ends its sessions at once."),
    list, h("div", { class: "row block" }, signOut)));
  text(who, store.me ? `Signed in as ${store.me.name}` : "");

  function make() {
    const revoke = h("button", { type: "button", class: "danger small" }, "Sign out");
    revoke.addEventListener("click", async () => {
      const item = revoke.closest("li");
      const label = item.dataset.label;
      if (label === (savedDevice() || {}).label) return app.signOut();
      if (!(await confirmDialog(`Sign out ${label}?`, "Its sessions end now, and it must sign in again with the password.", "Sign out"))) return;
      try {
        await api.revoke(label);
        toast(`Signed out ${label}.`);
        load();
      } catch (error) {
        toastError(error);
      }
    });
    return h("li", { class: "device" }, h("span", { class: "name" }), h("span", { class: "meta" }), revoke);
  }
  function update(item, token) {
    const mine = token.label === (savedDevice() || {}).label;
    item.dataset.label = token.label;
    item.classList.toggle("this", mine);
    text(item.querySelector(".name"), mine ? `${token.label} (this device)` : token.label);
    const kind = token.kind || (token.label.startsWith("web-") ? "device" : "bot");
    const used = token.last_used ? `last used ${formatWhen(token.last_used)}` : "never used";
    text(item.querySelector(".meta"), `${kind} · since ${formatWhen(token.created)} · ${used}`);
    item.querySelector("button").setAttribute("aria-label", `Sign out ${token.label}`);
  }
  async function load() {
    const tokens = await api.tokens();
    keyed(list, tokens, (t) => t.label, make, update);
  }
  load().catch(app.fail);
  return { refresh() {}, reload: load, destroy() {} };
}
