// The commands the screens use, each a request line (Protocol.md) whose reply goes
// into the store. Screens call these; only this module writes request lines.

import { quote, option, restOfLine, word } from "./wire.js";
import { store, changed, putRooms, putRoom, putTasks, forgetRoom, forgetTask, addMessage, addComment } from "./store.js";

let session = null;

export function useSession(value) {
  session = value;
}

export function send(line, options) {
  return session.request(line, options);
}

/** Things to fetch again shortly: several changes in a row cost one request. */
const due = new Map();
export function soon(key, work) {
  if (due.has(key)) return;
  due.set(key, setTimeout(() => {
    due.delete(key);
    work().catch(() => {});
  }, 250));
}

/** A task changed here or elsewhere: the rooms' roll-up bars and open counts follow. */
export function roomsChanged() {
  soon("rooms", loadRooms);
}

// MARK: rooms

export async function loadRooms() {
  putRooms((await send("ROOMS")).rooms || []);
}

export async function loadMembers(room) {
  const reply = await send(`ROOM SHOW ${room}`);
  store.members.set(room, reply.room.members || []);
  const { members, ...rest } = reply.room;
  putRoom(rest);
  changed(`members:${room}`);
}

export async function createRoom(name) {
  const reply = await send(`ROOM CREATE ${restOfLine(name)}`);
  putRoom(reply.room);
  return reply.room;
}

export async function renameRoom(room, name) {
  putRoom((await send(`ROOM RENAME ${room} ${restOfLine(name)}`)).room);
}

/** A housemate is added at once; anyone else invited (`invited: true`). */
export async function addMember(room, name) {
  const reply = await send(`ROOM ADD ${room} ${word(name)}`);
  loadMembers(room).catch(() => {});
  return reply;
}

export async function removeMember(room, name) {
  await send(`ROOM REMOVE ${room} ${word(name)}`);
  await loadMembers(room);
}

export async function setRole(room, name, role) {
  await send(`ROOM ROLE ${room} ${word(name)} ${role}`);
  await loadMembers(room);
}

export async function invite(room) {
  return send(`ROOM INVITE ${room}`);
}

export async function join(code) {
  const reply = await send(`ROOM JOIN ${word(code)}`);
  putRoom(reply.room);
  return reply.room;
}

export async function accept(room) {
  putRoom((await send(`ROOM ACCEPT ${room}`)).room);
}

export async function decline(room) {
  await send(`ROOM DECLINE ${room}`);
  forgetRoom(room);
}

export async function leave(room) {
  await send(`ROOM LEAVE ${room}`);
  forgetRoom(room);
}

export async function deleteRoom(room) {
  await send(`ROOM DELETE ${room}`);
  forgetRoom(room);
}

/** Marks the room read up to the newest event seen (a server without READ: nothing). */
export async function markRead(room) {
  const known = store.rooms.get(room);
  if (!known || !store.lastEventId) return;
  if (known.unread) putRoom({ id: room, unread: 0 });
  try {
    const reply = await send(`READ ${room} ${store.lastEventId}`);
    if (typeof reply.unread === "number" && store.rooms.has(room)) putRoom({ id: room, unread: reply.unread });
  } catch {
    // Unread counts are a convenience: an old server, or offline, changes nothing else.
  }
}

// MARK: tasks

export async function loadRoomTasks(room) {
  const reply = await send(`TASKS ${room} all`);
  for (const [id, task] of store.tasks) if (task.room === room && !reply.tasks.some((t) => t.id === id)) store.tasks.delete(id);
  putTasks(reply.tasks);
  store.loadedRooms.add(room);
  changed(`room:${room}`);
}

export async function loadMine() {
  putTasks((await send("TASKS mine open")).tasks || []);
}

export async function loadTask(id) {
  const reply = await send(`TASK SHOW ${id}`);
  const { subtasks, comments, ...task } = reply.task;
  putTasks([task, ...(subtasks || [])]);
  store.comments.set(id, comments || []);
  changed(`comments:${id}`);
  return task;
}

/** `where` is a room id or "me"; `options` an object of TASK ADD options. */
export async function addTask(where, title, options = {}) {
  const words = Object.entries(options).filter(([, v]) => v !== "" && v != null).map(([k, v]) => option(k, v));
  const reply = await send(`TASK ADD ${where} ${quote(title)} ${words.join(" ")}`.trim());
  putTasks([reply.task]);
  if (reply.next) putTasks([reply.next]);
  roomsChanged();
  return reply.task;
}

/** Only the fields given; an empty value clears one. */
export async function editTask(id, fields) {
  const words = Object.entries(fields).map(([k, v]) => option(k, v));
  if (!words.length) return store.tasks.get(id);
  const reply = await send(`TASK EDIT ${id} ${words.join(" ")}`);
  putTasks([reply.task]);
  roomsChanged();
  return reply.task;
}

export async function assign(id, name) {
  putTasks([(await send(`TASK ASSIGN ${id} ${name ? word(name) : "-"}`)).task]);
}

export async function setProgress(id, percent) {
  putTasks([(await send(`TASK PROGRESS ${id} ${Math.round(percent)}`)).task]);
  roomsChanged();
}

export async function done(id) {
  const reply = await send(`TASK DONE ${id}`);
  putTasks(reply.next ? [reply.task, reply.next] : [reply.task]);
  roomsChanged();
  return reply;
}

export async function reopen(id) {
  putTasks([(await send(`TASK REOPEN ${id}`)).task]);
  roomsChanged();
}

export async function deleteTask(id) {
  await send(`TASK DELETE ${id}`);
  forgetTask(id);
  roomsChanged();
}

// MARK: chat

export async function loadHistory(room, before) {
  const reply = await send(`HISTORY ${room} 50${before ? ` before=${before}` : ""}`);
  const page = store.messages.get(room);
  if (before && page) page.list.unshift(...reply.messages.filter((m) => !page.list.some((k) => k.id === m.id)));
  else store.messages.set(room, { list: reply.messages, more: reply.more });
  store.messages.get(room).more = !!reply.more;
  changed(`messages:${room}`);
}

export async function say(room, text) {
  addMessage((await send(`SAY ${room} ${restOfLine(text)}`)).message);
}

export async function comment(task, text) {
  addComment((await send(`COMMENT ${task} ${restOfLine(text)}`)).comment);
}

// MARK: planning and devices

export async function stats(room) {
  return (await send(`STATS ${room}`)).members || [];
}

export async function calendarLink(scope) {
  return send(`CALENDAR LINK ${scope}`);
}

export async function tokens() {
  return (await send("TOKEN LIST")).tokens || [];
}

export async function revoke(label) {
  return send(`TOKEN REVOKE ${word(label)}`);
}

// MARK: notices (CONTRACT §10)

/** The notice choices `{push, email, kinds, quiet, tz}`, after setting those given ({push: "off"}…). */
export async function notify(fields = {}) {
  const words = Object.entries(fields).map(([k, v]) => option(k, v));
  return (await send(["NOTIFY", ...words].join(" "))).notify;
}

export async function emailCode(address) {
  return send(`NOTIFY EMAIL ${quote(address)}`);
}

export async function verifyEmail(code) {
  return (await send(`NOTIFY EMAIL VERIFY ${word(code)}`)).notify;
}

export async function pushKey() {
  return (await send("PUSH KEY")).key;
}

/** PUSH SUBSCRIBE from a PushSubscription's toJSON() (its push service's address and keys) and a label. */
export function pushSubscribeLine(subscription, label) {
  const keys = (subscription && subscription.keys) || {};
  if (!subscription || !subscription.endpoint || !keys.p256dh || !keys.auth) throw new Error("The browser's subscription has no address or keys.");
  return `PUSH SUBSCRIBE ${quote(subscription.endpoint)} ${word(keys.p256dh)} ${word(keys.auth)} ${word(label || "")}`.trimEnd();
}

export async function pushSubscribe(subscription, label) {
  return (await send(pushSubscribeLine(subscription, label))).subscription;
}

export async function pushSubscriptions() {
  return (await send("PUSH LIST")).subscriptions || [];
}

export async function pushUnsubscribe(id) {
  return send(`PUSH UNSUBSCRIBE ${Number(id)}`);
}
