// Modal questions and panels on a native <dialog>: focus moves into it and back, Escape
// closes it, and the page behind cannot be reached meanwhile.

import { h } from "./dom.js";

/** A panel with `title` and `content`, closed by its Close button or Escape. Resolves
 *  with the value of the button that closed it ("" for Escape). */
export function showPanel(title, content, buttons = [{ label: "Close", value: "close" }]) {
  const heading = h("h2", { id: "dialog-title" }, title);
  const form = h("form", { method: "dialog", class: "dialog-buttons" },
    buttons.map((b) => h("button", { value: b.value, class: b.class || "", type: "submit" }, b.label)));
  const dialog = h("dialog", { "aria-labelledby": "dialog-title" }, heading, h("div", { class: "dialog-body" }, content), form);
  document.body.append(dialog);
  const before = document.activeElement;
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (before && before.isConnected) before.focus();
      resolve(dialog.returnValue);
    });
  });
}

/** Closes every open panel, as Escape would (a question closed so is answered "no"): the
 *  screen it belonged to is going away (Back, a tapped notification, a link). */
export function closePanels() {
  for (const open of document.querySelectorAll("dialog[open]")) open.close();
}

/** Asks before something that cannot be taken back. */
export async function confirmDialog(title, body, confirmLabel) {
  const answer = await showPanel(title, h("p", {}, body), [
    { label: "Cancel", value: "cancel" },
    { label: confirmLabel, value: "yes", class: "danger" },
  ]);
  return answer === "yes";
}
