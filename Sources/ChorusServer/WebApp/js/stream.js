// My stream: the open tasks assigned to me in every household, and my personal ones,
// soonest first, overdue and behind marked, each one tap from done or a slide from
// its new progress. Personal tasks are added here.

import { h, keyed, text } from "./dom.js";
import { myStream } from "./store.js";
import { makeTaskRow, updateTaskRow } from "./taskrow.js";
import { keepDraft, saveDraft } from "./uistate.js";
import { subscribeCalendar } from "./calendar.js";
import { toastError } from "./toast.js";
import * as api from "./api.js";

export function streamScreen(container, params, app) {
  const summary = h("p", { class: "meta" });
  const list = h("ul", { class: "tasks", "aria-label": "My tasks" });
  const empty = h("p", { class: "empty", hidden: true }, "Nothing for you to do. Enjoy it.");
  const field = h("input", { id: "new-personal", name: "title", required: true, maxlength: 200, autocomplete: "off" });
  keepDraft(field, "new-task:me");
  const add = h("form", { class: "inline-form" }, h("label", { for: "new-personal" }, "New personal task"), field,
    h("button", { type: "submit" }, "Add"));
  add.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!field.value.trim()) return;
    try {
      await api.addTask("me", field.value.trim());
      field.value = "";
      saveDraft("new-task:me", "");
    } catch (error) {
      toastError(error);
    }
  });
  const calendar = h("button", { type: "button" }, "Subscribe in your calendar");
  calendar.addEventListener("click", () => subscribeCalendar("me", "your tasks"));

  container.replaceChildren(h("section", { class: "screen", "data-screen": "stream" },
    h("h2", {}, "My tasks"), summary, list, empty, add, h("div", { class: "row block" }, calendar)));

  function render() {
    const tasks = myStream();
    keyed(list, tasks, (t) => t.id, () => makeTaskRow({ slider: true }), (row, task) => {
      updateTaskRow(row, task, { showRoom: true });
      row.classList.toggle("selected", app.selectedTask() === task.id);
    });
    const overdue = tasks.filter((t) => t.overdue).length;
    text(summary, `${tasks.length} open${overdue ? ` · ${overdue} overdue` : ""}`);
    empty.hidden = tasks.length > 0;
  }
  render();
  api.loadMine().catch(app.fail);

  return {
    refresh(topics) {
      if (topics.has("tasks") || topics.has("rooms") || topics.has("selection")) render();
    },
    reload: () => api.loadMine(),
    destroy() {},
  };
}
