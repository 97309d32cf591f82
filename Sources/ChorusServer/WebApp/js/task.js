// A task: its progress (bar and slider), days left, done/reopen, every field of the
// protocol in one form (TASK EDIT with only what changed; TASK ASSIGN for the
// assignee), its subtasks with their rolled-up progress, its comments, and delete
// with a confirmation and a few seconds to undo.

import { h, keyed, text } from "./dom.js";
import { store, tasksWhere, bySoonest, changed } from "./store.js";
import { progressBar, setProgress, daysRing, setRing } from "./bars.js";
import { makeTaskRow, updateTaskRow } from "./taskrow.js";
import { dueText, formatStamp, formatWhen, toWire, fromWire } from "./time.js";
import { keepDraft, saveDraft, draft } from "./uistate.js";
import { confirmDialog } from "./dialog.js";
import { toast, toastError } from "./toast.js";
import * as api from "./api.js";

const UNDO_SECONDS = 5;

/** A date and an optional time, read and written as one wire value. */
function whenField(id, label) {
  const date = h("input", { id: `${id}-date`, type: "date", name: `${id}-date` });
  const time = h("input", { id: `${id}-time`, type: "time", name: `${id}-time`, "aria-label": `${label} time (optional)` });
  const wrap = h("div", { class: "field when" }, h("label", { for: `${id}-date` }, label), h("div", { class: "row" }, date, time));
  return {
    wrap,
    set(value) {
      const parts = fromWire(value);
      date.value = parts.date;
      time.value = parts.time;
    },
    same(value) {
      const parts = fromWire(value);
      return parts.date === date.value && parts.time === (date.value ? time.value : "");
    },
    value: () => toWire(date.value, time.value),
    inputs: [date, time],
  };
}

function field(id, label, input, hint) {
  return h("div", { class: "field" }, h("label", { for: id }, label), input, hint ? h("p", { class: "hint" }, hint) : null);
}

export function taskScreen(container, params, app) {
  const id = params.task;
  const title = h("h2", { class: "task-title" });
  const where = h("p", { class: "meta" });
  const bar = progressBar("Progress");
  const percent = h("output", { class: "percent" });
  const slider = h("input", { id: "task-progress", type: "range", min: 0, max: 100, step: 5, "data-action": "progress" });
  const ring = daysRing();
  const due = h("p", { class: "due" });
  const doneButton = h("button", { type: "button", class: "primary", "data-action": "done" });
  const deleteButton = h("button", { type: "button", class: "danger", "data-action": "delete" }, "Delete task");

  slider.addEventListener("input", () => text(percent, `${slider.value}%`));
  slider.addEventListener("change", () => api.setProgress(id, Number(slider.value)).catch((error) => {
    toastError(error);
    render();
  }));
  doneButton.addEventListener("click", async () => {
    const task = store.tasks.get(id);
    doneButton.disabled = true;
    try {
      if (task.status === "done") await api.reopen(id);
      else {
        const reply = await api.done(id);
        if (reply.next) toast(`Next: ${reply.next.title} ${dueText(reply.next)}${reply.next.assignee ? ` for ${reply.next.assignee}` : ""}.`);
      }
    } catch (error) {
      toastError(error);
    } finally {
      doneButton.disabled = false;
    }
  });
  deleteButton.addEventListener("click", () => deleteWithUndo(id, app));

  // MARK: the form
  const titleInput = h("input", { id: "task-title", name: "title", required: true, maxlength: 200 });
  const notes = h("textarea", { id: "task-notes", name: "notes", rows: 4, maxlength: 4000 });
  const dueWhen = whenField("task-due", "Due");
  const startWhen = whenField("task-start", "Start");
  const remindWhen = whenField("task-remind", "Remind me");
  const estimate = h("input", { id: "task-estimate", name: "estimate", type: "number", min: 0, max: 3650, step: 0.5, inputmode: "decimal" });
  const points = h("input", { id: "task-points", name: "points", type: "number", min: 0, max: 1000, step: 1, inputmode: "numeric" });
  const repeat = h("select", { id: "task-repeat", name: "repeat" },
    [["", "Does not repeat"], ["daily", "Daily"], ["weekly", "Weekly"], ["monthly", "Monthly"], ["days", "Every … days"]]
      .map(([value, label]) => h("option", { value }, label)));
  const every = h("input", { id: "task-every", name: "every", type: "number", min: 1, max: 365, step: 1, inputmode: "numeric" });
  const everyField = field("task-every", "Every how many days", every);
  const rota = h("fieldset", { class: "rota" }, h("legend", {}, "Rota: take turns, in this order"));
  const assignee = h("select", { id: "task-assignee", name: "assignee" });
  const parent = h("select", { id: "task-parent", name: "parent" });
  const save = h("button", { type: "submit", class: "primary" }, "Save changes");
  const discard = h("button", { type: "button" }, "Discard changes");
  const form = h("form", { class: "task-form", "aria-label": "Task details" },
    field("task-title", "Title", titleInput), field("task-notes", "Notes", notes),
    dueWhen.wrap, startWhen.wrap, field("task-estimate", "Estimate (days)", estimate), remindWhen.wrap,
    field("task-repeat", "Repeat", repeat), everyField, rota,
    field("task-points", "Points", points), field("task-assignee", "Assigned to", assignee),
    field("task-parent", "Part of", parent, "A subtask's progress rolls up into its parent's."),
    h("div", { class: "row" }, save, discard));

  let dirty = false;
  const draftKey = `edit:${id}`;
  // "change" too: a choice made in a list is not always also an "input" (an automated
  // click on an option is a change only), and a live update must not undo it.
  const edited = () => {
    dirty = true;
    saveDraft(draftKey, JSON.stringify(readForm()));
    everyField.hidden = repeat.value !== "days";
  };
  form.addEventListener("input", edited);
  form.addEventListener("change", edited);
  discard.addEventListener("click", () => {
    dirty = false;
    saveDraft(draftKey, "");
    fillForm(store.tasks.get(id));
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const task = store.tasks.get(id);
    if (!task) return;
    save.disabled = true;
    try {
      const wanted = readForm();
      const fields = {};
      if (wanted.title !== task.title) fields.title = wanted.title;
      if (wanted.notes !== (task.notes || "")) fields.notes = wanted.notes;
      for (const [key, when] of [["due", dueWhen], ["start", startWhen], ["remind", remindWhen]]) {
        if (!when.same(task[key])) fields[key] = when.value();
      }
      if (wanted.estimate !== (task.estimate === null ? "" : String(task.estimate))) fields.estimate = wanted.estimate;
      if (wanted.points !== String(task.points)) fields.points = wanted.points;
      if (wanted.repeat !== (task.repeat || "")) fields.repeat = wanted.repeat;
      if (wanted.rotate !== (task.rotate || []).join(",")) fields.rotate = wanted.rotate;
      if (wanted.parent !== (task.parent === null ? "" : String(task.parent))) fields.parent = wanted.parent;
      await api.editTask(id, fields);
      if (wanted.assignee !== (task.assignee || "")) await api.assign(id, wanted.assignee);
      dirty = false;
      saveDraft(draftKey, "");
      fillForm(store.tasks.get(id));
      toast("Saved.");
    } catch (error) {
      toastError(error);
    } finally {
      save.disabled = false;
    }
  });

  function readForm() {
    const days = Math.round(Number(every.value));
    return {
      title: titleInput.value.trim(),
      notes: notes.value,
      due: [dueWhen.inputs[0].value, dueWhen.inputs[1].value],
      start: [startWhen.inputs[0].value, startWhen.inputs[1].value],
      remind: [remindWhen.inputs[0].value, remindWhen.inputs[1].value],
      estimate: estimate.value,
      points: points.value,
      repeat: repeat.value === "days" ? (days >= 1 ? `${days}d` : "") : repeat.value,
      rotate: [...rota.querySelectorAll("input:checked")].map((box) => box.value).join(","),
      assignee: assignee.value,
      parent: parent.value,
    };
  }

  function fillChoices(task) {
    const people = task.room === null ? [] : (store.members.get(task.room) || []).map((m) => m.name);
    if (task.assignee && !people.includes(task.assignee)) people.push(task.assignee);
    const assigneeKey = people.join();
    // New options keep what the person picked: the member list often lands after a quick choice.
    if (assignee.dataset.key !== assigneeKey) {
      const picked = assignee.value;
      assignee.dataset.key = assigneeKey;
      assignee.replaceChildren(h("option", { value: "" }, "Nobody"), ...people.map((n) => h("option", { value: n }, n)));
      if (people.includes(picked)) assignee.value = picked;
    }
    assignee.closest(".field").hidden = task.room === null;
    const rotaKey = people.join();
    if (rota.dataset.key !== rotaKey) {
      rota.dataset.key = rotaKey;
      const ticked = new Set([...rota.querySelectorAll("input:checked")].map((box) => box.value));
      rota.querySelectorAll("label").forEach((label) => label.remove());
      for (const name of people) {
        rota.append(h("label", { class: "check-label" }, h("input", { type: "checkbox", value: name, name: "rota", checked: ticked.has(name) }), name));
      }
    }
    rota.hidden = people.length === 0;
    const parents = tasksWhere((t) => t.room === task.room && t.id !== id && !t.parent).sort(bySoonest);
    const parentKey = parents.map((t) => `${t.id}:${t.title}`).join("|");
    if (parent.dataset.key !== parentKey) {
      const picked = parent.value;
      parent.dataset.key = parentKey;
      parent.replaceChildren(h("option", { value: "" }, "Nothing (a task of its own)"), ...parents.map((t) => h("option", { value: String(t.id) }, t.title)));
      if (parents.some((t) => String(t.id) === picked)) parent.value = picked;
    }
  }

  function fillForm(task, saved = null) {
    if (!task) return;
    fillChoices(task);
    const source = saved || {
      title: task.title, notes: task.notes || "", estimate: task.estimate === null ? "" : String(task.estimate),
      points: String(task.points), repeat: task.repeat || "", rotate: (task.rotate || []).join(","),
      assignee: task.assignee || "", parent: task.parent === null ? "" : String(task.parent),
    };
    titleInput.value = source.title;
    notes.value = source.notes;
    if (saved) {
      dueWhen.inputs[0].value = saved.due[0]; dueWhen.inputs[1].value = saved.due[1];
      startWhen.inputs[0].value = saved.start[0]; startWhen.inputs[1].value = saved.start[1];
      remindWhen.inputs[0].value = saved.remind[0]; remindWhen.inputs[1].value = saved.remind[1];
    } else {
      dueWhen.set(task.due);
      startWhen.set(task.start);
      remindWhen.set(task.remind);
    }
    estimate.value = source.estimate;
    points.value = source.points;
    const custom = /^(\d+)d$/.exec(source.repeat);
    repeat.value = custom ? "days" : source.repeat;
    every.value = custom ? custom[1] : "";
    everyField.hidden = !custom;
    const turns = source.rotate ? source.rotate.split(",") : [];
    for (const box of rota.querySelectorAll("input")) box.checked = turns.includes(box.value);
    assignee.value = source.assignee;
    parent.value = source.parent;
  }

  // MARK: subtasks and comments
  const subtasks = h("ul", { class: "tasks", "aria-label": "Subtasks" });
  const subField = h("input", { id: "new-subtask", name: "title", required: true, maxlength: 200, autocomplete: "off" });
  keepDraft(subField, `new-subtask:${id}`);
  const subForm = h("form", { class: "inline-form" }, h("label", { for: "new-subtask" }, "New subtask"), subField,
    h("button", { type: "submit" }, "Add"));
  subForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const task = store.tasks.get(id);
    if (!task || !subField.value.trim()) return;
    try {
      await api.addTask(task.room === null ? "me" : task.room, subField.value.trim(), { parent: id });
      subField.value = "";
      saveDraft(`new-subtask:${id}`, "");
    } catch (error) {
      toastError(error);
    }
  });
  const subtaskBlock = h("section", { class: "block" }, h("h3", {}, "Subtasks"), subtasks, subForm);

  const comments = h("ol", { class: "comments", "aria-label": "Comments" });
  const commentField = h("input", { id: "new-comment", name: "text", required: true, maxlength: 4000, autocomplete: "off" });
  keepDraft(commentField, `comment:${id}`);
  const commentForm = h("form", { class: "inline-form" }, h("label", { for: "new-comment" }, "Comment"), commentField,
    h("button", { type: "submit" }, "Post"));
  commentForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!commentField.value.trim()) return;
    try {
      await api.comment(id, commentField.value);
      commentField.value = "";
      saveDraft(`comment:${id}`, "");
    } catch (error) {
      toastError(error);
    }
  });

  const missing = h("p", { class: "empty", hidden: true }, "This task is gone: deleted, or in a household you left.");
  const body = h("div", {},
    h("header", { class: "task-head" }, title, where),
    h("div", { class: "task-progress" }, h("div", { class: "row" }, bar, percent, ring),
      h("label", { for: "task-progress" }, "Progress"), slider, due, h("div", { class: "row" }, doneButton)),
    subtaskBlock, form,
    h("section", { class: "block" }, h("h3", {}, "Comments"), comments, commentForm),
    h("section", { class: "block row" }, deleteButton));
  container.replaceChildren(h("section", { class: "screen", "data-screen": "task", "data-task": id }, missing, body));

  function render() {
    const task = store.tasks.get(id);
    const gone = !task || store.hidden.has(id);
    missing.hidden = !gone;
    body.hidden = gone;
    if (gone) return;
    app.setTitle(task.title);
    text(title, task.title);
    const room = task.room === null ? "Personal" : (store.rooms.get(task.room) || {}).name || "";
    const by = task.creator ? ` · added by ${task.creator} ${formatWhen(task.created)}` : "";
    text(where, `${room}${task.assignee ? ` · for ${task.assignee}` : " · nobody's yet"}${by}`);
    const kids = tasksWhere((t) => t.parent === id).sort(bySoonest);
    const done = task.status === "done";
    setProgress(bar, task.progress, `Progress: ${task.progress}%`);
    text(percent, `${task.progress}%`);
    if (document.activeElement !== slider) slider.value = task.progress;
    slider.disabled = done || kids.length > 0;
    slider.title = kids.length ? "Progress comes from the subtasks" : "";
    setRing(ring, task);
    text(due, `${dueText(task)}${task.overdue && !done ? "" : ""}${task.behind && !done ? " · behind schedule" : ""}`);
    text(doneButton, done ? "Reopen" : "Mark done");
    doneButton.setAttribute("aria-pressed", done ? "true" : "false");
    keyed(subtasks, kids, (t) => t.id, () => makeTaskRow(), (row, t) => updateTaskRow(row, t));
    subtaskBlock.hidden = !!task.parent;
    keyed(comments, store.comments.get(id) || [], (c) => c.id,
      () => h("li", { class: "comment" }, h("span", { class: "from" }), h("time", { class: "at" }), h("p", { class: "text" })),
      (item, c) => {
        text(item.querySelector(".from"), c.from);
        text(item.querySelector("time"), formatStamp(c.at));
        item.querySelector("time").setAttribute("datetime", c.at);
        text(item.querySelector(".text"), c.text);
      });
    if (!dirty) fillForm(task);
    else fillChoices(task);
  }

  const saved = draft(draftKey);
  function first() {
    const task = store.tasks.get(id);
    if (task && saved) {
      try {
        fillForm(task, JSON.parse(saved));
        dirty = true;
      } catch {
        saveDraft(draftKey, "");
      }
    }
    render();
  }
  first();
  const load = () => api.loadTask(id).then((task) => {
    if (task.room !== null && !store.members.has(task.room)) api.loadMembers(task.room).catch(() => {});
    if (task.room !== null && !store.loadedRooms.has(task.room)) api.loadRoomTasks(task.room).catch(() => {});
  });
  load().then(() => { if (saved && !dirty) first(); }, (error) => {
    if (error.code === 404) render();
    else app.fail(error);
  });

  return {
    refresh(topics) {
      if (topics.has("tasks") || topics.has(`comments:${id}`) || topics.has("rooms") || [...topics].some((t) => t.startsWith("members:"))) render();
    },
    reload: load,
    destroy() {},
  };
}

/** Hides the task at once, offers Undo for a few seconds, then deletes it for real. */
export async function deleteWithUndo(id, app) {
  const task = store.tasks.get(id);
  if (!task) return;
  if (!(await confirmDialog(`Delete “${task.title}”?`, "It is deleted for everyone in the household, with its comments.", "Delete"))) return;
  store.hidden.add(id);
  changed("tasks", `task:${id}`);
  let undone = false;
  const timer = setTimeout(async () => {
    if (undone) return;
    pendingDeletes.delete(id);
    try {
      await api.deleteTask(id);
    } catch (error) {
      toastError(error);
    } finally {
      store.hidden.delete(id);
      changed("tasks", `task:${id}`);
    }
  }, UNDO_SECONDS * 1000);
  pendingDeletes.set(id, timer);
  const back = task.room === null ? "#/stream" : `#/rooms/${task.room}`;
  app.go(back);
  toast(`Deleted “${task.title}”.`, {
    seconds: UNDO_SECONDS,
    action: {
      label: "Undo",
      run() {
        undone = true;
        clearTimeout(timer);
        pendingDeletes.delete(id);
        store.hidden.delete(id);
        changed("tasks", `task:${id}`);
      },
    },
  });
}

/** Deletes still waiting out their undo time: sent at once if the page goes away. */
export const pendingDeletes = new Map();
export function flushDeletes() {
  for (const [id, timer] of pendingDeletes) {
    clearTimeout(timer);
    api.deleteTask(id).catch(() => {});
  }
  pendingDeletes.clear();
}
