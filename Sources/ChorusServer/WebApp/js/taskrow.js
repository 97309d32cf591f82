// One task in a list (a household's, my stream, a task's subtasks): a one-tap done
// button, the title linking to the task, what is due, its progress bar and days-left
// ring; in my stream also a progress slider.

import { h, text } from "./dom.js";
import { progressBar, setProgress, daysRing, setRing } from "./bars.js";
import { dueText } from "./time.js";
import { store } from "./store.js";
import * as api from "./api.js";
import { toastError } from "./toast.js";

export function makeTaskRow({ slider = false } = {}) {
  // The mark shows only on a done task; the button's name says what a tap does.
  const check = h("button", { type: "button", class: "check", "data-action": "done" }, h("span", { class: "mark", "aria-hidden": "true" }, "✓"));
  const title = h("span", { class: "title" });
  const meta = h("span", { class: "meta" });
  const badges = h("span", { class: "badges" });
  const link = h("a", { class: "task-link" }, title, meta, badges);
  const bar = progressBar("Progress");
  const ring = daysRing();
  const row = h("li", { class: "task-row" }, check, link, h("span", { class: "graphs" }, bar, ring));
  if (slider) {
    const range = h("input", { type: "range", min: 0, max: 100, step: 5, class: "slider", "data-action": "progress" });
    range.addEventListener("change", () => {
      const id = Number(row.dataset.task);
      api.setProgress(id, Number(range.value)).catch((error) => {
        toastError(error);
        const task = store.tasks.get(id);
        if (task) range.value = task.progress;
      });
    });
    row.append(h("label", { class: "slider-label" }, h("span", { class: "visually-hidden" }, "Progress"), range));
  }
  check.addEventListener("click", async () => {
    const id = Number(row.dataset.task);
    const task = store.tasks.get(id);
    if (!task) return;
    check.disabled = true;
    try {
      if (task.status === "done") await api.reopen(id);
      else await api.done(id);
    } catch (error) {
      toastError(error);
    } finally {
      check.disabled = false;
    }
  });
  return row;
}

export function updateTaskRow(row, task, { showRoom = false, subtasks = 0 } = {}) {
  row.dataset.task = task.id;
  const done = task.status === "done";
  row.classList.toggle("done", done);
  row.classList.toggle("overdue", !!task.overdue);
  row.classList.toggle("sub", task.parent !== null && task.parent !== undefined);
  const check = row.querySelector(".check");
  check.setAttribute("aria-pressed", done ? "true" : "false");
  check.setAttribute("aria-label", done ? `Reopen ${task.title}` : `Mark ${task.title} done`);
  const link = row.querySelector(".task-link");
  link.setAttribute("href", `#/tasks/${task.id}`);
  text(row.querySelector(".title"), task.title);
  const parts = [];
  if (showRoom) parts.push(task.room === null ? "Personal" : (store.rooms.get(task.room) || {}).name || "");
  if (task.assignee) parts.push(`@${task.assignee}`);
  parts.push(dueText(task));
  if (subtasks) parts.push(`${subtasks} subtask${subtasks === 1 ? "" : "s"}`);
  text(row.querySelector(".meta"), parts.filter(Boolean).join(" · "));
  const badges = row.querySelector(".badges");
  const wanted = [task.overdue && !done ? "overdue" : null, task.behind && !done ? "behind" : null].filter(Boolean);
  if (badges.dataset.shown !== wanted.join()) {
    badges.dataset.shown = wanted.join();
    badges.replaceChildren(...wanted.map((word) => h("span", { class: `badge ${word}` }, word)));
  }
  setProgress(row.querySelector("progress"), task.progress, `Progress of ${task.title}: ${task.progress}%`);
  setRing(row.querySelector(".ring"), task);
  const range = row.querySelector(".slider");
  if (range) {
    if (document.activeElement !== range) range.value = task.progress;
    range.setAttribute("aria-label", `Progress of ${task.title}`);
    range.disabled = done;
  }
}
