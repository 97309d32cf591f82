// A household's chat: the history (older pages on request), live messages as they come,
// and a line to write in (its draft kept). Shown means read: the room is marked read
// up to the newest event when it opens and as messages arrive while it is on screen.

import { h, keyed, text } from "./dom.js";
import { store } from "./store.js";
import { showing } from "./events.js";
import { keepDraft, saveDraft } from "./uistate.js";
import { formatStamp } from "./time.js";
import { toastError } from "./toast.js";
import * as api from "./api.js";

export function chat(container, room, app) {
  const older = h("button", { type: "button", class: "older", hidden: true }, "Show older messages");
  const log = h("ol", { class: "messages", role: "log", "aria-label": "Messages" });
  const empty = h("p", { class: "empty", hidden: true }, "No messages yet. Say hello.");
  const field = h("input", { id: `say-${room}`, name: "text", required: true, maxlength: 4000, autocomplete: "off", enterkeyhint: "send" });
  keepDraft(field, `say:${room}`);
  const form = h("form", { class: "inline-form say" }, h("label", { for: `say-${room}` }, "Message"), field,
    h("button", { type: "submit" }, "Send"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const words = field.value.trim();
    if (!words) return;
    field.disabled = true;
    try {
      await api.say(room, words);
      field.value = "";
      saveDraft(`say:${room}`, "");
    } catch (error) {
      toastError(error);
    } finally {
      field.disabled = false;
      field.focus();
    }
  });
  older.addEventListener("click", async () => {
    const page = store.messages.get(room);
    if (!page || !page.list.length) return;
    // Keep the messages on screen where they are as older ones come in above them.
    const pane = container.closest(".pane");
    const before = pane ? pane.scrollHeight - pane.scrollTop : 0;
    holdScroll = true;
    try {
      await api.loadHistory(room, page.list[0].id);
      await new Promise((resolve) => requestAnimationFrame(resolve));
      if (pane) pane.scrollTop = pane.scrollHeight - before;
    } catch (error) {
      toastError(error);
    } finally {
      holdScroll = false;
    }
  });
  let holdScroll = false;
  container.append(older, log, empty, form);
  showing.chatRoom = room;

  function makeMessage() {
    return h("li", { class: "message" }, h("span", { class: "from" }), h("time", { class: "at" }), h("p", { class: "text" }));
  }
  function updateMessage(item, message) {
    item.classList.toggle("mine", !!store.me && message.from === store.me.name);
    text(item.querySelector(".from"), message.from);
    const at = item.querySelector("time");
    at.setAttribute("datetime", message.at);
    text(at, formatStamp(message.at));
    // Another person's words: always as text, never as markup.
    text(item.querySelector(".text"), message.text);
  }

  function render() {
    const page = store.messages.get(room);
    const pane = container.closest(".pane");
    const atBottom = !pane || pane.scrollHeight - pane.scrollTop - pane.clientHeight < 80;
    const list = page ? page.list : [];
    keyed(log, list, (m) => m.id, makeMessage, updateMessage);
    older.hidden = !page || !page.more;
    empty.hidden = !page || list.length > 0;
    if (atBottom && pane && !holdScroll) pane.scrollTop = pane.scrollHeight;
  }

  render();
  const load = () => api.loadHistory(room).then(() => api.markRead(room));
  if (!store.messages.has(room)) load().catch(app.fail);
  else api.markRead(room);

  return {
    refresh(topics) {
      if (topics.has(`messages:${room}`)) render();
    },
    reload: load,
    destroy() {
      if (showing.chatRoom === room) showing.chatRoom = null;
    },
  };
}
