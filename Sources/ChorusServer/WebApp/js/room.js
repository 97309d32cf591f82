// A household: its name, roll-up bar and sections (tasks, chat, members, stats), each
// section its own module. The section is part of the address: #/rooms/3/chat.

import { h, text } from "./dom.js";
import { store } from "./store.js";
import { progressBar, setProgress } from "./bars.js";
import { roomTasks } from "./roomtasks.js";
import { chat } from "./chat.js";
import { members } from "./members.js";
import { statsView } from "./statsview.js";
import * as api from "./api.js";

const SECTIONS = [["tasks", "Tasks", roomTasks], ["chat", "Chat", chat], ["members", "Members", members], ["stats", "Stats", statsView]];

export function roomScreen(container, params, app) {
  const id = params.room;
  const title = h("h2", { class: "room-name" });
  const bar = progressBar("Household progress");
  const summary = h("span", { class: "meta" });
  const links = new Map();
  const unread = h("span", { class: "unread", hidden: true });
  const nav = h("nav", { class: "sections", "aria-label": "Household sections" },
    SECTIONS.map(([key, label]) => {
      const link = h("a", { href: `#/rooms/${id}/${key}`, "data-section": key }, label, key === "chat" ? unread : null);
      links.set(key, link);
      return link;
    }));
  const body = h("div", { class: "section-body" });
  const root = h("section", { class: "screen", "data-screen": "room", "data-room": id },
    h("header", { class: "room-head" }, title, h("div", { class: "rollup" }, bar, summary)), nav, body);
  container.replaceChildren(root);

  let section = null;
  let sectionKey = null;

  function showSection(key) {
    if (key === sectionKey) return;
    if (section) section.destroy();
    sectionKey = key;
    for (const [name, link] of links) {
      if (name === key) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    const make = SECTIONS.find(([name]) => name === key)[2];
    body.replaceChildren();
    section = make(body, id, app);
  }

  function renderHead() {
    const room = store.rooms.get(id);
    if (!room) {
      text(title, "Household");
      return;
    }
    text(title, room.name);
    app.setTitle(room.name);
    setProgress(bar, room.progress, `Household progress: ${room.progress || 0}%`);
    text(summary, `${room.progress || 0}% · ${room.open || 0} open`);
    unread.hidden = !room.unread;
    text(unread, room.unread ? ` ${room.unread}` : "");
    links.get("chat").setAttribute("aria-label", room.unread ? `Chat, ${room.unread} unread` : "Chat");
  }

  renderHead();
  showSection(params.section || "tasks");
  if (!store.loadedRooms.has(id)) api.loadRoomTasks(id).catch(app.fail);
  if (!store.members.has(id)) api.loadMembers(id).catch(app.fail);

  return {
    update(next) {
      showSection(next.section || "tasks");
    },
    refresh(topics) {
      if (topics.has("rooms") || topics.has(`room:${id}`)) renderHead();
      if (section) section.refresh(topics);
    },
    reload() {
      return Promise.all([api.loadRoomTasks(id), api.loadMembers(id), section && section.reload ? section.reload() : null]);
    },
    destroy() {
      if (section) section.destroy();
    },
  };
}
