// "Subscribe in your calendar": a secret feed address (CALENDAR LINK) shown as a
// webcal:// link a phone opens in its calendar app, and as a QR code to scan from
// another device. The QR code is drawn by qr.js; without it the link alone is shown.

import { h } from "./dom.js";
import { showPanel, confirmDialog } from "./dialog.js";
import { toast, toastError } from "./toast.js";
import * as api from "./api.js";

/** `scope` is a room id or "me". */
export async function subscribeCalendar(scope, what) {
  const ok = await confirmDialog(`Calendar of ${what}`,
    "This makes a new secret address for your calendar app. Any address made before for it stops working.", "Make the address");
  if (!ok) return;
  let reply;
  try {
    reply = await api.calendarLink(scope);
  } catch (error) {
    toastError(error);
    return;
  }
  const picture = h("div", { class: "qr", "data-qr": "" });
  try {
    const { qrSvg } = await import("./qr.js");
    picture.append(qrSvg(reply.webcal, `QR code of the calendar address for ${what}`));
  } catch {
    picture.append(h("p", { class: "hint" }, "(No QR code here: open the link on the phone instead.)"));
  }
  const copy = h("button", { type: "button" }, "Copy address");
  copy.addEventListener("click", () => navigator.clipboard.writeText(reply.url).then(() => toast("Address copied."), toastError));
  await showPanel("Subscribe in your calendar", [
    h("p", {}, "Open this link on your phone to subscribe, or scan the code:"),
    h("p", {}, h("a", { href: reply.webcal, class: "webcal", "data-webcal": "" }, "Subscribe: ", reply.webcal)),
    picture,
    h("p", { class: "hint" }, "Keep the address to yourself: whoever has it sees these chores."),
    h("div", { class: "row" }, copy),
  ]);
}
