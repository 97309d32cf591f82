// A household's people: who is in, with which role, and who is online; adding and
// inviting people (a code and a link that opens the app and joins), roles, removing,
// renaming, the calendar feed, leaving, and deleting the household.

import { h, keyed, text } from "./dom.js";
import { store } from "./store.js";
import { confirmDialog, showPanel } from "./dialog.js";
import { toast, toastError } from "./toast.js";
import { subscribeCalendar } from "./calendar.js";
import * as api from "./api.js";

export function members(container, room, app) {
  const myRole = () => (store.rooms.get(room) || {}).role;
  const list = h("ul", { class: "members", "aria-label": "Members" });

  const addField = h("input", { id: `add-${room}`, name: "user", required: true, autocomplete: "off", autocapitalize: "none", spellcheck: "false" });
  const addForm = h("form", { class: "inline-form" }, h("label", { for: `add-${room}` }, "Add someone by name"), addField,
    h("button", { type: "submit" }, "Add"));
  addForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const reply = await api.addMember(room, addField.value.trim().toLowerCase());
      toast(reply.invited ? `Invited ${addField.value}: they are in once they accept.` : `Added ${addField.value}.`);
      addField.value = "";
    } catch (error) {
      toastError(error);
    }
  });

  const inviteButton = h("button", { type: "button" }, "Invite with a code or link");
  inviteButton.addEventListener("click", async () => {
    try {
      const reply = await api.invite(room);
      const link = `${location.origin}/#/join/${reply.code}`;
      const copy = h("button", { type: "button" }, "Copy link");
      copy.addEventListener("click", () => navigator.clipboard.writeText(link).then(() => toast("Link copied."), toastError));
      const share = navigator.share
        ? h("button", { type: "button", onclick: () => navigator.share({ title: "Join my household on Chorus", url: link }).catch(() => {}) }, "Share…")
        : null;
      await showPanel("Invite someone", [
        h("p", {}, "Give them this code to join with, or the link, which opens the app and joins:"),
        h("p", { class: "code", "data-invite-code": reply.code }, reply.code),
        h("p", { class: "link" }, h("a", { href: link, "data-invite-link": "" }, link)),
        h("p", { class: "hint" }, reply.expires ? `It works until ${new Date(reply.expires).toLocaleString()}.` : ""),
        h("div", { class: "row" }, copy, share),
      ]);
    } catch (error) {
      toastError(error);
    }
  });

  const renameField = h("input", { id: `rename-${room}`, name: "name", required: true, maxlength: 100, autocomplete: "off" });
  const renameForm = h("form", { class: "inline-form" }, h("label", { for: `rename-${room}` }, "Rename the household"), renameField,
    h("button", { type: "submit" }, "Rename"));
  renameForm.addEventListener("submit", (event) => {
    event.preventDefault();
    api.renameRoom(room, renameField.value).then(() => toast("Renamed."), toastError);
  });

  const calendar = h("button", { type: "button" }, "Subscribe in your calendar");
  calendar.addEventListener("click", () => subscribeCalendar(room, (store.rooms.get(room) || {}).name || "this household"));

  const leave = h("button", { type: "button", class: "danger" }, "Leave the household");
  leave.addEventListener("click", async () => {
    const name = (store.rooms.get(room) || {}).name;
    if (!(await confirmDialog(`Leave ${name}?`, "You will no longer see its tasks and chat; your tasks there become unassigned.", "Leave"))) return;
    try {
      await api.leave(room);
      app.go("#/rooms");
    } catch (error) {
      toastError(error);
    }
  });
  const remove = h("button", { type: "button", class: "danger" }, "Delete the household");
  remove.addEventListener("click", async () => {
    const name = (store.rooms.get(room) || {}).name;
    if (!(await confirmDialog(`Delete ${name}?`, "Its tasks, comments, messages and invites are deleted for everyone. This cannot be undone.", "Delete for everyone"))) return;
    try {
      await api.deleteRoom(room);
      toast(`Deleted ${name}.`);
      app.go("#/rooms");
    } catch (error) {
      toastError(error);
    }
  });

  const manage = h("section", { class: "block" }, addForm, h("div", { class: "row" }, inviteButton), renameForm);
  container.append(list, manage, h("section", { class: "block row" }, calendar), h("section", { class: "block row" }, leave, remove));

  function makeMember() {
    return h("li", { class: "member" }, h("span", { class: "presence" }), h("span", { class: "name" }), h("span", { class: "role" }),
      h("span", { class: "controls" }));
  }
  function updateMember(item, member) {
    const me = store.me && member.name === store.me.name;
    item.dataset.member = member.name;
    item.classList.toggle("online", !!member.online);
    const presence = item.querySelector(".presence");
    text(presence, member.online ? "online" : "offline");
    text(item.querySelector(".name"), me ? `${member.name} (you)` : member.name);
    text(item.querySelector(".role"), member.role);
    const controls = item.querySelector(".controls");
    const mine = myRole();
    const key = `${mine}|${member.role}|${me}`;
    if (controls.dataset.key === key) return;
    controls.dataset.key = key;
    controls.replaceChildren();
    if (me) return;
    if (mine === "owner") {
      const role = h("select", { "aria-label": `Role of ${member.name}`, value: member.role },
        ["member", "admin", "owner"].map((r) => h("option", { value: r }, r)));
      role.addEventListener("change", async () => {
        if (role.value === "owner" && !(await confirmDialog(`Make ${member.name} the owner?`, "You become an admin. Only the owner can delete the household.", "Hand over"))) {
          role.value = member.role;
          return;
        }
        api.setRole(room, member.name, role.value).catch((error) => {
          role.value = member.role;
          toastError(error);
        });
      });
      controls.append(role);
    }
    if ((mine === "owner" || (mine === "admin" && member.role === "member")) && member.role !== "owner") {
      const out = h("button", { type: "button", class: "danger small", "aria-label": `Remove ${member.name}` }, "Remove");
      out.addEventListener("click", async () => {
        if (!(await confirmDialog(`Remove ${member.name}?`, "Their tasks here become unassigned, and invite codes will not let them back in.", "Remove"))) return;
        api.removeMember(room, member.name).catch(toastError);
      });
      controls.append(out);
    }
  }

  function render() {
    const people = store.members.get(room) || [];
    keyed(list, people, (m) => m.name, makeMember, updateMember);
    const role = myRole();
    manage.hidden = role !== "owner" && role !== "admin";
    leave.hidden = role === "owner";
    remove.hidden = role !== "owner";
    if (document.activeElement !== renameField) renameField.value = (store.rooms.get(room) || {}).name || "";
  }
  render();
  // Who is online changes without an event: ask again each time this opens.
  api.loadMembers(room).catch(app.fail);

  return {
    refresh(topics) {
      if (topics.has(`members:${room}`) || topics.has("rooms")) render();
    },
    reload: () => api.loadMembers(room),
    destroy() {},
  };
}
