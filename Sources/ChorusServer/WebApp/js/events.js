// Events (Protocol.md §12) into the store, live or replayed by SYNC, and the short
// line each one is told as ("bob: who took my milk?") when the app says what it missed.

import { store, changed, putRoom, putTasks, forgetRoom, forgetTask, addMessage, addComment, noteEventId } from "./store.js";
import * as api from "./api.js";

const soon = api.soon;

/** What the app is showing, so a message there is read rather than unread. */
export const showing = { chatRoom: null };

export function apply(event) {
  noteEventId(event.id);
  const room = typeof event.room === "number" ? event.room : null;
  const mine = store.me && event.by === store.me.name;
  switch (event.event) {
    case "task.added":
    case "task.updated":
    case "task.done":
    case "task.reopened":
    case "task.overdue":
    case "task.behind":
    case "task.reminder":
      if (event.task && typeof event.task === "object") putTasks([event.task]);
      // The room's roll-up and open count live in ROOMS.
      if (room !== null) api.roomsChanged();
      break;
    case "task.deleted":
      forgetTask(typeof event.task === "object" ? event.task.id : event.task);
      if (room !== null) api.roomsChanged();
      break;
    case "message":
      if (event.message) {
        addMessage(event.message);
        countUnread(room, mine, event.id);
      }
      break;
    case "comment":
      if (event.comment) {
        addComment(event.comment);
        countUnread(room, mine, null);
      }
      break;
    case "room.renamed":
      if (store.rooms.has(room)) putRoom({ id: room, name: event.name });
      break;
    case "room.deleted":
      forgetRoom(room);
      break;
    case "room.invited":
      soon("rooms", api.loadRooms);
      break;
    case "room.read":
      if (store.rooms.has(room)) putRoom({ id: room, unread: typeof event.unread === "number" ? event.unread : 0 });
      break;
    case "member.added":
    case "member.removed":
    case "member.role":
      if (store.me && event.user === store.me.name && event.event === "member.removed") {
        forgetRoom(room);
      } else {
        soon("rooms", api.loadRooms);
        if (store.members.has(room)) soon(`members:${room}`, () => api.loadMembers(room));
      }
      break;
    default:
      break;
  }
}

function countUnread(room, mine, eventId) {
  if (room === null || mine || !store.rooms.has(room)) return;
  if (showing.chatRoom === room && document.visibilityState === "visible") {
    if (eventId) api.markRead(room);
    return;
  }
  const known = store.rooms.get(room);
  putRoom({ id: room, unread: (known.unread || 0) + 1 });
  changed("unread");
}

/** One line for a person: who did what, or null for events not worth telling. */
export function describe(event) {
  const by = event.by || "";
  const title = event.task && typeof event.task === "object" ? event.task.title : event.title || "a task";
  switch (event.event) {
    case "message": return event.message ? `${event.message.from}: ${event.message.text}` : null;
    case "comment": return event.comment ? `${event.comment.from} on a task: ${event.comment.text}` : null;
    case "task.added": return `${by} added ${title}`;
    case "task.done": return `${by} finished ${title}`;
    case "task.updated": return `${by} changed ${title}`;
    case "task.reopened": return `${by} reopened ${title}`;
    case "task.deleted": return `${by} deleted ${title}`;
    case "task.overdue": return `Overdue: ${title}`;
    case "task.reminder": return `Reminder: ${title}`;
    case "task.behind": return `Behind schedule: ${title}`;
    case "member.added": return `${event.user} joined`;
    case "member.removed": return `${event.user} left`;
    case "room.invited": return `${event.invited_by} invited you to ${event.name}`;
    case "room.deleted": return `${by} deleted ${event.name}`;
    default: return null;
  }
}
