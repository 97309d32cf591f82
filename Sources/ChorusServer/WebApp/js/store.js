// What the app knows, kept current by replies and events. Screens read it and listen
// for the topics they show ("rooms", "room:3", "tasks", "messages:3", "comments:12",
// "members:3"); nothing here touches the page.

import { dueInstant } from "./time.js";

const listeners = new Set();

export const store = {
  /** `{name, admin}` once signed in. */
  me: null,
  /** Room id → ROOM (Protocol.md §6), invitations included (`role: "invited"`). */
  rooms: new Map(),
  /** Room id → its members `[{name, role, online}]`, once ROOM SHOW was asked. */
  members: new Map(),
  /** Task id → TASK, from every listing, TASK SHOW and event seen. */
  tasks: new Map(),
  /** Rooms whose tasks are all in `tasks` (TASKS R all was asked). */
  loadedRooms: new Set(),
  /** Room id → `{list: [MESSAGE], more}` once HISTORY was asked. */
  messages: new Map(),
  /** Task id → `[COMMENT]` once TASK SHOW was asked. */
  comments: new Map(),
  /** Tasks deleted but still within their undo time: shown nowhere. */
  hidden: new Set(),
  /** The largest event id seen: where SYNC starts after a reconnect. */
  lastEventId: 0,
};

/** Calls `listener(topics)` with the Set of topics changed, once per turn. */
export function listen(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

let changedTopics = null;
export function changed(...topics) {
  if (!changedTopics) {
    changedTopics = new Set();
    queueMicrotask(() => {
      const topics = changedTopics;
      changedTopics = null;
      for (const listener of [...listeners]) listener(topics);
    });
  }
  for (const topic of topics) changedTopics.add(topic);
}

/** Forgets everything (sign out, another account). */
export function reset() {
  store.me = null;
  for (const key of ["rooms", "members", "tasks", "messages", "comments"]) store[key].clear();
  store.loadedRooms.clear();
  store.hidden.clear();
  store.lastEventId = 0;
  changed("rooms", "tasks");
}

export function putRooms(rooms) {
  const previous = store.rooms;
  store.rooms = new Map();
  for (const room of rooms) {
    // A server without unread counts: keep what this app counted.
    if (room.unread === undefined && previous.has(room.id)) room.unread = previous.get(room.id).unread;
    store.rooms.set(room.id, room);
  }
  for (const id of previous.keys()) if (!store.rooms.has(id)) forgetRoom(id);
  changed("rooms");
}

export function putRoom(room) {
  const old = store.rooms.get(room.id);
  store.rooms.set(room.id, { ...old, ...room });
  changed("rooms", `room:${room.id}`);
}

export function forgetRoom(id) {
  store.rooms.delete(id);
  store.members.delete(id);
  store.messages.delete(id);
  store.loadedRooms.delete(id);
  for (const [taskId, task] of store.tasks) if (task.room === id) store.tasks.delete(taskId);
  changed("rooms", `room:${id}`, "tasks");
}

export function putTasks(tasks) {
  for (const task of tasks) {
    store.tasks.set(task.id, task);
    changed(`task:${task.id}`);
  }
  changed("tasks");
}

export function forgetTask(id) {
  store.tasks.delete(id);
  store.comments.delete(id);
  changed("tasks", `task:${id}`);
}

/** Tasks of a room, or a task's subtasks, as shown: not hidden by a pending delete. */
export function tasksWhere(test) {
  const out = [];
  for (const task of store.tasks.values()) if (!store.hidden.has(task.id) && test(task)) out.push(task);
  return out;
}

/** Soonest due first, tasks without a due date last, then by id (Protocol.md §7). */
export function bySoonest(a, b) {
  const x = dueInstant(a.due), y = dueInstant(b.due);
  if (x && y) return x - y || a.id - b.id;
  if (x) return -1;
  if (y) return 1;
  return a.id - b.id;
}

/** My stream: open tasks assigned to me, and my own personal ones (TASKS mine open). */
export function myStream() {
  const me = store.me && store.me.name;
  return tasksWhere((task) => task.status === "open" && (task.assignee === me || task.room === null)).sort(bySoonest);
}

export function addMessage(message) {
  const page = store.messages.get(message.room);
  if (!page || page.list.some((m) => m.id === message.id)) return;
  page.list.push(message);
  changed(`messages:${message.room}`);
}

export function addComment(comment) {
  const list = store.comments.get(comment.task);
  if (!list || list.some((c) => c.id === comment.id)) return;
  list.push(comment);
  changed(`comments:${comment.task}`);
}

export function noteEventId(id) {
  if (typeof id === "number" && id > store.lastEventId) store.lastEventId = id;
}
