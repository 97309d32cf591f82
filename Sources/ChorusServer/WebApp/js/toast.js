// Short notes at the bottom of the screen (role="status", read out politely), some
// with one action such as Undo. They leave by themselves.

import { h } from "./dom.js";

function region() {
  return document.getElementById("toasts");
}

/** Shows `message` for `seconds`; with `action` ({label, run}) a button in it. Returns
 *  a function that removes it early. */
export function toast(message, { seconds = 5, action = null, kind = "" } = {}) {
  const close = () => item.remove();
  const button = action
    ? h("button", { type: "button", class: "toast-action", onclick: () => { close(); action.run(); } }, action.label)
    : null;
  const item = h("div", { class: `toast ${kind}`, role: "status" }, h("span", {}, message), button,
    h("button", { type: "button", class: "toast-close", "aria-label": "Dismiss", onclick: close }, "×"));
  region().append(item);
  // A burst (notices held for a login) keeps only the newest few on screen.
  while (region().children.length > 3) region().firstElementChild.remove();
  setTimeout(close, seconds * 1000);
  return close;
}

/** An error from a request, said plainly. */
export function toastError(error) {
  toast(error && error.message ? error.message : String(error), { kind: "error", seconds: 7 });
}
