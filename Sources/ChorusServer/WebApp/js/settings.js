// Settings (#/settings): notices on this device (push.js), which notices to get and when
// (NOTIFY), and an e-mail address for them (NOTIFY EMAIL). Each change is one NOTIFY and
// the screen shows the server's answer; a refusal is said beside its control.

import { h, text } from "./dom.js";
import { OfflineError } from "./session.js";
import * as api from "./api.js";
import * as push from "./push.js";

const KINDS = { reminder: "Reminders", overdue: "Overdue", behind: "Behind schedule", assigned: "Assigned to me",
  comment: "Comments on my tasks", dm: "Direct messages", mention: "Mentions" };

/** A zone's canonical name here ("Etc/UTC" is "UTC"). */
function canonical(name) {
  try {
    return new Intl.DateTimeFormat("en", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return name;
  }
}

/** A refusal in words: `messages` by status code, else the server's own. */
function explain(error, messages = {}) {
  const said = (!(error instanceof OfflineError) && messages[error.code]) || error.message || String(error);
  return said[0].toUpperCase() + said.slice(1) + (/[.!?]$/.test(said) ? "" : ".");
}

/** Where a refusal about `control` is said; the control is described by it. */
function errorLine(control) {
  control.setAttribute("aria-describedby", `${control.id}-error`);
  return h("p", { class: "form-error", role: "alert", hidden: true, id: `${control.id}-error` });
}

function say(line, message) {
  text(line, message);
  line.hidden = !message;
}

function checkbox(id, name, props) {
  const box = h("input", { type: "checkbox", id, ...props });
  return [box, h("label", { class: "check-label", for: id }, box, name)];
}

export function settingsScreen(container, params, app) {
  /** NOTIFYs sent and answered: a reply is shown only when it is the newest's. */
  let sent = 0, answered = 0, choices = null;

  // MARK: this device

  const deviceStatus = h("p", { role: "status", "data-push": "" });
  const onButton = h("button", { type: "button", id: "settings-push-on", class: "primary", hidden: true }, "Notify me on this device");
  const offButton = h("button", { type: "button", id: "settings-push-off", hidden: true }, "Stop notifying this device");
  const deviceError = errorLine(onButton);
  function showDevice(state, message) {
    deviceStatus.dataset.push = state;
    text(deviceStatus, message || { on: "Notices come to this device.", off: "Notices do not come to this device.", blocked: push.BLOCKED }[state]);
    onButton.hidden = !/off|failed/.test(state);
    onButton.disabled = false;
    offButton.hidden = state !== "on";
  }
  async function device(work) {
    say(deviceError, "");
    try {
      showDevice(await work());
    } catch (error) {
      if (error.state) showDevice(error.state, error.message);
      else {
        showDevice(deviceStatus.dataset.push === "on" ? "on" : "off");
        say(deviceError, explain(error));
      }
    }
  }
  onButton.addEventListener("click", () => {
    onButton.disabled = true;
    text(deviceStatus, "Asking the browser…");
    device(() => push.turnOn().then(() => "on"));
  });
  offButton.addEventListener("click", () => device(() => push.turnOff().then(() => "off")));

  // MARK: what to tell me

  const [pushBox, pushLabel] = checkbox("settings-push", "Send notices to my devices");
  const pushError = errorLine(pushBox);
  const kindBoxes = Object.entries(KINDS).map(([kind, name]) => checkbox(`settings-kind-${kind}`, name, { name: "kind", value: kind }));
  const kinds = h("fieldset", { id: "settings-kinds" }, h("legend", {}, "Tell me about"), kindBoxes.map(([, label]) => label));
  const kindsError = errorLine(kinds);
  const [quietBox, quietLabel] = checkbox("settings-quiet", "Hold notices during quiet hours");
  const quietError = errorLine(quietBox);
  const time = (id, name) => {
    const field = h("input", { type: "time", id, required: true });
    return [field, h("div", {}, h("label", { for: id }, name), field)];
  };
  const [from, fromCell] = time("settings-quiet-from", "From");
  const [to, toCell] = time("settings-quiet-to", "To");
  const zones = Intl.supportedValuesOf ? Intl.supportedValuesOf("timeZone") : null;
  const zone = zones
    ? h("select", { id: "settings-tz" }, zones.map((name) => h("option", { value: name }, name)))
    : h("input", { id: "settings-tz", autocomplete: "off", spellcheck: "false" });
  const zoneError = errorLine(zone);
  const here = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const useHere = h("button", { type: "button", id: "settings-use-zone", hidden: true }, `Use this device's zone (${here})`);
  const badZone = { 422: "The server does not know that time zone." };

  /** One NOTIFY; `error` is where a refusal is said. */
  async function change(fields, error, messages) {
    say(error, "");
    const mine = ++sent;
    screen.dataset.busy = "";
    try {
      choices = await api.notify(fields);
    } catch (failure) {
      say(error, explain(failure, messages));
    }
    if (mine === sent && choices) show(choices);
    if (++answered === sent) delete screen.dataset.busy;
  }
  const quietChange = () => {
    if (quietBox.checked) change({ quiet: `${from.value || "22:00"}-${to.value || "07:00"}` }, quietError);
  };

  pushBox.addEventListener("change", () => change({ push: pushBox.checked ? "on" : "off" }, pushError));
  kinds.addEventListener("change", () => change({ kinds: kindBoxes.filter(([box]) => box.checked).map(([box]) => box.value).join(",") }, kindsError));
  quietBox.addEventListener("change", () => (quietBox.checked ? quietChange() : change({ quiet: "off" }, quietError)));
  from.addEventListener("change", quietChange);
  to.addEventListener("change", quietChange);
  zone.addEventListener("change", () => change({ tz: zone.value.trim() }, zoneError, badZone));
  useHere.addEventListener("click", () => change({ tz: here }, zoneError, badZone));

  // MARK: e-mail

  const emailStatus = h("p", {});
  const [emailBox, emailLabel] = checkbox("settings-email-on", "E-mail me notices too");
  const emailError = errorLine(emailBox);
  emailBox.addEventListener("change", () => change({ email: emailBox.checked ? "on" : "off" }, emailError,
    { 409: "Prove an address first: send a code to it below." }));
  const address = h("input", { type: "email", id: "settings-email", autocomplete: "email", required: true, maxlength: 254 });
  const code = h("input", { id: "settings-code", inputmode: "numeric", autocomplete: "one-time-code", required: true, maxlength: 12 });
  const sendError = errorLine(address);
  const verifyError = errorLine(code);
  const sendNote = h("p", { class: "notice", role: "status", hidden: true });
  /** One field and a button; `run` sends it, a refusal goes to `error`. */
  function form(field, name, button, error, run, messages) {
    const element = h("form", { class: "inline-form" }, h("label", { for: field.id }, name), field, h("button", { type: "submit" }, button));
    element.addEventListener("submit", async (event) => {
      event.preventDefault();
      say(error, "");
      try {
        await run(field.value.trim());
      } catch (failure) {
        say(error, explain(failure, messages));
      }
    });
    return element;
  }
  const addressForm = form(address, "E-mail address", "Send code", sendError, async (value) => {
    sendNote.hidden = true;
    await api.emailCode(value);
    say(sendNote, `A code is on its way to ${value}. Type it below within 30 minutes.`);
    code.focus();
  }, { 503: "This server does not send e-mail, so notices cannot come by mail.", 422: "That does not look like an e-mail address." });
  const codeForm = form(code, "Code from the mail", "Verify", verifyError, async (value) => {
    show(await api.verifyEmail(value));
    code.value = "";
    sendNote.hidden = true;
  }, { 409: "No code is waiting, or it expired: send a new one." });

  // MARK: the server's choices, shown

  function show(next) {
    choices = next;
    pushBox.checked = next.push;
    for (const [box] of kindBoxes) box.checked = next.kinds.includes(box.value);
    quietBox.checked = !!next.quiet;
    if (next.quiet) [from.value, to.value] = next.quiet.split("-");
    from.disabled = to.disabled = !next.quiet;
    // The server's name for the zone, or this browser's for the same one.
    const tz = zones && !zones.includes(next.tz) && zones.includes(canonical(next.tz)) ? canonical(next.tz) : next.tz;
    if (zones && !zones.includes(tz) && !zone.querySelector(`[value="${CSS.escape(tz)}"]`)) zone.prepend(h("option", { value: tz }, tz));
    zone.value = tz;
    useHere.hidden = canonical(here) === canonical(tz);
    emailBox.checked = !!next.email;
    text(emailStatus, next.email ? `Notices also go by mail to ${next.email}.` : "Notices do not go by mail.");
    screen.dataset.loaded = "";
  }

  const screen = h("section", { class: "screen settings", "data-screen": "settings" }, h("h2", {}, "Settings"),
    h("section", { class: "block", "data-section": "device" }, h("h3", {}, "This device"), deviceStatus,
      h("div", { class: "row" }, onButton, offButton), deviceError),
    h("section", { class: "block", "data-section": "notices" }, h("h3", {}, "What to tell me"),
      pushLabel, pushError, kinds, kindsError,
      h("fieldset", {}, h("legend", {}, "Quiet hours"), quietLabel, h("div", { class: "times" }, fromCell, toCell),
        h("p", { class: "hint" }, "Notices that come up then wait until the quiet hours end."), quietError),
      h("label", { for: "settings-tz" }, "Time zone"), zone, useHere, zoneError),
    h("section", { class: "block", "data-section": "email" }, h("h3", {}, "E-mail"), emailStatus, emailLabel, emailError,
      addressForm, sendError, sendNote, codeForm, verifyError));
  container.replaceChildren(screen);

  async function load() {
    show(await api.notify());
    const reason = push.unsupported();
    await (reason ? showDevice("unsupported", reason) : device(push.deviceState));
  }
  load().catch(app.fail);
  return { refresh() {}, reload: load, destroy() {} };
}
