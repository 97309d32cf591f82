// A household's tasks: a quick-add form, a filter (everyone's, mine, one person's,
// done) and the list, each open task followed by its open subtasks.

import { h, keyed } from "./dom.js";
import { store, tasksWhere, bySoonest } from "./store.js";
import { makeTaskRow, updateTaskRow } from "./taskrow.js";
import { keepDraft, saveDraft, draft } from "./uistate.js";
import { toastError } from "./toast.js";
import * as api from "./api.js";

export function roomTasks(container, room, app) {
  const titleField = h("input", { id: `new-task-${room}`, name: "title", required: true, maxlength: 200, autocomplete: "off" });
  keepDraft(titleField, `new-task:${room}`);
  const add = h("form", { class: "inline-form add-task" },
    h("label", { for: `new-task-${room}` }, "New task"), titleField, h("button", { type: "submit" }, "Add"));
  add.addEventListener("submit", async (event) => {
    event.preventDefault();
    const title = titleField.value.trim();
    if (!title) return;
    try {
      await api.addTask(room, title);
      titleField.value = "";
      saveDraft(`new-task:${room}`, "");
    } catch (error) {
      toastError(error);
    }
  });

  const filter = h("select", { id: `filter-${room}`, name: "filter" });
  const filterKey = `filter:${room}`;
  filter.addEventListener("change", () => {
    saveDraft(filterKey, filter.value === "everyone" ? "" : filter.value);
    render();
  });
  const list = h("ul", { class: "tasks", "aria-label": "Tasks" });
  const empty = h("p", { class: "empty", hidden: true });
  // Alone in a household, the next step is asking the others in: say where.
  const alone = h("p", { class: "hint invite-hint", hidden: true }, "Only you here so far. ",
    h("a", { href: `#/rooms/${room}/members` }, "Invite housemates"), " with a code or a link.");
  container.append(alone, add,
    h("div", { class: "filter" }, h("label", { for: `filter-${room}` }, "Show"), filter),
    list, empty);

  function renderFilter() {
    const people = (store.members.get(room) || []).map((m) => m.name).filter((n) => !store.me || n !== store.me.name);
    const options = [["everyone", "Everyone's open tasks"], ["mine", "Mine"], ...people.map((n) => [`@${n}`, `${n}'s`]), ["done", "Done"]];
    const key = options.map((o) => o[0]).join();
    if (filter.dataset.options !== key) {
      filter.dataset.options = key;
      filter.replaceChildren(...options.map(([value, label]) => h("option", { value }, label)));
    }
    const wanted = draft(filterKey) || "everyone";
    filter.value = options.some((o) => o[0] === wanted) ? wanted : "everyone";
  }

  function visible() {
    const here = tasksWhere((t) => t.room === room);
    const choice = filter.value;
    if (choice === "done") return here.filter((t) => t.status === "done").sort((a, b) => (b.done_at || "").localeCompare(a.done_at || ""));
    const open = here.filter((t) => t.status === "open");
    if (choice === "mine") return open.filter((t) => store.me && t.assignee === store.me.name).sort(bySoonest);
    if (choice.startsWith("@")) return open.filter((t) => t.assignee === choice.slice(1)).sort(bySoonest);
    // Everyone's: top-level tasks, each followed by its subtasks.
    const children = new Map();
    for (const task of open) if (task.parent) children.set(task.parent, [...(children.get(task.parent) || []), task]);
    const out = [];
    for (const task of open.filter((t) => !t.parent || !store.tasks.has(t.parent)).sort(bySoonest)) {
      out.push(task);
      out.push(...(children.get(task.id) || []).sort(bySoonest));
    }
    return out;
  }

  function render() {
    renderFilter();
    const members = store.members.get(room);
    alone.hidden = !members || members.length !== 1;
    const tasks = visible();
    const counts = new Map();
    for (const task of store.tasks.values()) if (task.parent) counts.set(task.parent, (counts.get(task.parent) || 0) + 1);
    keyed(list, tasks, (t) => t.id, () => makeTaskRow(), (row, task) => {
      updateTaskRow(row, task, { subtasks: counts.get(task.id) || 0 });
      row.classList.toggle("selected", app.selectedTask() === task.id);
    });
    empty.hidden = tasks.length > 0 || !store.loadedRooms.has(room);
    empty.textContent = filter.value === "done" ? "Nothing done yet." : "Nothing to do here. Add a task above.";
  }
  render();

  return {
    refresh(topics) {
      if (topics.has("tasks") || topics.has(`members:${room}`) || topics.has(`room:${room}`) || topics.has("selection")) render();
    },
    destroy() {},
  };
}
