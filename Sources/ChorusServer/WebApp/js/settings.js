// Settings (#/settings): notices on this device (push.js), which notices to get and when
// (NOTIFY), and the e-mail address they may also go to (NOTIFY EMAIL). Each change is one
// NOTIFY, and the screen then shows what the server answered; a refusal is said in words
// next to the control, which goes back to what the server has.

import { h, text } from "./dom.js";
import { OfflineError } from "./session.js";
import * as api from "./api.js";
import * as push from "./push.js";

const KINDS = [["reminder", "Reminders"], ["overdue", "Overdue"], ["behind", "Behind schedule"], ["assigned", "Assigned to me"],
  ["comment", "Comments on my tasks"], ["dm", "Direct messages"], ["mention", "Mentions"]];

const DEVICE = {
  on: "Notices come to this device.",
  off: "Notices do not come to this device.",
  unsupported: "",
  blocked: push.BLOCKED,
};

/** The browser's own zone, as the time zone database names it. */
function deviceZone() {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "";
}

/** A refusal in words: `messages` by status code, else the server's own. */
function explain(error, messages = {}) {
  if (error instanceof OfflineError) return error.message;
  const message = messages[error && error.code] || (error && error.message) || String(error);
  const sentence = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : sentence + ".";
}

/** Where a refusal about `control` is said; the control is described by it. */
function errorLine(control) {
  const line = h("p", { class: "form-error", role: "alert", hidden: true, id: `${control.id}-error` });
  control.setAttribute("aria-describedby", line.id);
  return line;
}

function say(line, message) {
  text(line, message);
  line.hidden = !message;
}

function checkbox(id, label, props = {}) {
  const box = h("input", { type: "checkbox", id, ...props });
  return [box, h("label", { class: "check-label", for: id }, box, label)];
}

export function settingsScreen(container, params, app) {
  /** The choices as the server last answered them. */
  let choices = null;
  /** Requests sent and not yet answered; a reply is shown only when it is the newest's. */
  let sent = 0;
  let answered = 0;

  // MARK: this device

  const deviceStatus = h("p", { role: "status", "data-push": "" });
  const onButton = h("button", { type: "button", id: "settings-push-on", class: "primary", "data-action": "push-on", hidden: true }, "Notify me on this device");
  const offButton = h("button", { type: "button", "data-action": "push-off", hidden: true }, "Stop notifying this device");
  const deviceError = errorLine(onButton);

  function showDevice(state, message = DEVICE[state]) {
    deviceStatus.dataset.push = state;
    text(deviceStatus, message);
    onButton.hidden = state === "on" || state === "blocked" || state === "unsupported";
    offButton.hidden = state !== "on";
  }
  async function checkDevice() {
    say(deviceError, "");
    const reason = push.unsupported();
    if (reason) return showDevice("unsupported", reason);
    try {
      showDevice(await push.deviceState());
    } catch (error) {
      showDevice("off");
      say(deviceError, explain(error));
    }
  }
  onButton.addEventListener("click", async () => {
    say(deviceError, "");
    onButton.disabled = true;
    text(deviceStatus, "Asking the browser…");
    try {
      await push.turnOn();
      showDevice("on");
    } catch (error) {
      if (error instanceof push.PushFailure) showDevice(error.state, error.message);
      else {
        showDevice("off");
        say(deviceError, explain(error));
      }
    } finally {
      onButton.disabled = false;
    }
  });
  offButton.addEventListener("click", async () => {
    say(deviceError, "");
    try {
      await push.turnOff();
      showDevice("off");
    } catch (error) {
      say(deviceError, explain(error));
    }
  });

  // MARK: what to tell me

  const [pushBox, pushLabel] = checkbox("settings-push", "Send notices to my devices");
  const pushError = errorLine(pushBox);
  const kindBoxes = [];
  const kinds = h("fieldset", { id: "settings-kinds" }, h("legend", {}, "Tell me about"), KINDS.map(([kind, name]) => {
    const [box, label] = checkbox(`settings-kind-${kind}`, name, { name: "kind", value: kind });
    kindBoxes.push(box);
    return label;
  }));
  const kindsError = errorLine(kinds);

  const [quietBox, quietLabel] = checkbox("settings-quiet", "Hold notices during quiet hours");
  const quietFrom = h("input", { type: "time", id: "settings-quiet-from", required: true });
  const quietTo = h("input", { type: "time", id: "settings-quiet-to", required: true });
  const quietError = errorLine(quietBox);
  const quiet = h("fieldset", {}, h("legend", {}, "Quiet hours"), quietLabel,
    h("div", { class: "times" },
      h("div", {}, h("label", { for: "settings-quiet-from" }, "From"), quietFrom),
      h("div", {}, h("label", { for: "settings-quiet-to" }, "To"), quietTo)),
    h("p", { class: "hint" }, "Notices that come up then wait until the quiet hours end."), quietError);

  const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : null;
  const zone = zones
    ? h("select", { id: "settings-tz" }, zones.map((name) => h("option", { value: name }, name)))
    : h("input", { id: "settings-tz", autocomplete: "off", spellcheck: "false", placeholder: "Europe/London" });
  const here = deviceZone();
  const useHere = h("button", { type: "button", "data-action": "use-device-zone", hidden: true }, `Use this device's zone (${here})`);
  const zoneError = errorLine(zone);

  /** One NOTIFY; `error` is where a refusal is said. */
  async function change(fields, error, messages) {
    say(error, "");
    const mine = ++sent;
    screen.dataset.busy = "";
    try {
      const reply = await api.notify(fields);
      if (mine === sent) show(reply);
      else choices = reply;
    } catch (failure) {
      say(error, explain(failure, messages));
      if (choices && mine === sent) show(choices);
    } finally {
      if (++answered === sent) delete screen.dataset.busy;
    }
  }
  const quietWindow = () => `${quietFrom.value}-${quietTo.value}`;

  pushBox.addEventListener("change", () => change({ push: pushBox.checked ? "on" : "off" }, pushError));
  kinds.addEventListener("change", () => change({ kinds: kindBoxes.filter((b) => b.checked).map((b) => b.value).join(",") }, kindsError));
  quietBox.addEventListener("change", () => {
    if (!quietBox.checked) return change({ quiet: "off" }, quietError);
    if (!quietFrom.value) quietFrom.value = "22:00";
    if (!quietTo.value) quietTo.value = "07:00";
    change({ quiet: quietWindow() }, quietError);
  });
  for (const field of [quietFrom, quietTo]) {
    field.addEventListener("change", () => {
      if (quietBox.checked && quietFrom.value && quietTo.value) change({ quiet: quietWindow() }, quietError);
    });
  }
  zone.addEventListener("change", () => {
    if (zone.value.trim()) change({ tz: zone.value.trim() }, zoneError, { 422: "The server does not know that time zone." });
  });
  useHere.addEventListener("click", () => change({ tz: here }, zoneError, { 422: "The server does not know this device's time zone." }));

  // MARK: e-mail

  const emailStatus = h("p", {});
  const [emailBox, emailLabel] = checkbox("settings-email-on", "E-mail me notices too");
  const emailError = errorLine(emailBox);
  emailBox.addEventListener("change", () => change({ email: emailBox.checked ? "on" : "off" }, emailError,
    { 409: "Prove an address first: send a code to it below." }));

  const address = h("input", { type: "email", id: "settings-email", autocomplete: "email", required: true, maxlength: 254 });
  const codeForm = h("form", { class: "inline-form" });
  const code = h("input", { id: "settings-code", inputmode: "numeric", autocomplete: "one-time-code", required: true, maxlength: 12 });
  const sendError = errorLine(address);
  const verifyError = errorLine(code);
  const sendNote = h("p", { class: "notice", role: "status", hidden: true });
  const addressForm = h("form", { class: "inline-form" },
    h("label", { for: "settings-email" }, "E-mail address"), address, h("button", { type: "submit" }, "Send code"));
  addressForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    say(sendError, "");
    sendNote.hidden = true;
    try {
      await api.emailCode(address.value.trim());
      text(sendNote, `A code is on its way to ${address.value.trim()}. Type it below within 30 minutes.`);
      sendNote.hidden = false;
      code.focus();
    } catch (error) {
      say(sendError, explain(error, { 503: "This server does not send e-mail, so notices cannot come by mail.",
        422: "That does not look like an e-mail address." }));
    }
  });
  codeForm.append(h("label", { for: "settings-code" }, "Code from the mail"), code, h("button", { type: "submit" }, "Verify"));
  codeForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    say(verifyError, "");
    try {
      show(await api.verifyEmail(code.value));
      code.value = "";
      sendNote.hidden = true;
    } catch (error) {
      say(verifyError, explain(error, { 409: "No code is waiting, or it expired: send a new one." }));
    }
  });

  // MARK: showing the server's choices

  function show(next) {
    choices = next;
    pushBox.checked = !!next.push;
    for (const box of kindBoxes) box.checked = (next.kinds || []).includes(box.value);
    quietBox.checked = !!next.quiet;
    if (next.quiet) [quietFrom.value, quietTo.value] = next.quiet.split("-");
    quietFrom.disabled = quietTo.disabled = !next.quiet;
    if (zones && next.tz && !zones.includes(next.tz) && !zone.querySelector(`option[value="${CSS.escape(next.tz)}"]`)) {
      zone.prepend(h("option", { value: next.tz }, next.tz));
    }
    zone.value = next.tz || "";
    useHere.hidden = !here || here === next.tz;
    emailBox.checked = !!next.email;
    text(emailStatus, next.email ? `Notices also go by mail to ${next.email}.` : "Notices do not go by mail.");
    screen.dataset.loaded = "";
  }

  const screen = h("section", { class: "screen settings", "data-screen": "settings" },
    h("h2", {}, "Settings"),
    h("section", { class: "block", "data-section": "device" }, h("h3", {}, "This device"), deviceStatus,
      h("div", { class: "row" }, onButton, offButton), deviceError),
    h("section", { class: "block", "data-section": "notices" }, h("h3", {}, "What to tell me"),
      pushLabel, h("p", { class: "hint" }, "Off: nothing is pushed to any of your devices."), pushError,
      kinds, kindsError, quiet,
      h("label", { for: "settings-tz" }, "Time zone"), zone, h("p", { class: "hint" }, "Quiet hours and due times are in this zone."),
      useHere, zoneError),
    h("section", { class: "block", "data-section": "email" }, h("h3", {}, "E-mail"), emailStatus, emailLabel, emailError,
      addressForm, sendError, sendNote, codeForm, verifyError));
  container.replaceChildren(screen);

  async function load() {
    show(await api.notify());
    await checkDevice();
  }
  load().catch(app.fail);
  return { refresh() {}, reload: load, destroy() {} };
}
