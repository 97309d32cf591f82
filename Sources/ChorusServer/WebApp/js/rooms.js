// The households: each with its progress bar, open count and unread count; the
// invitations waiting for an answer; a form to create one and one to join with a code.

import { h, keyed, text } from "./dom.js";
import { store } from "./store.js";
import { progressBar, setProgress } from "./bars.js";
import { keepDraft, saveDraft } from "./uistate.js";
import { toast, toastError } from "./toast.js";
import * as api from "./api.js";

export function roomsScreen(container, params, app) {
  const list = h("ul", { class: "rooms", "aria-label": "Your households" });
  const empty = h("p", { class: "empty" }, "No household yet: create one, or join with a code from a housemate.");
  const invitations = h("ul", { class: "invitations", "aria-label": "Invitations" });
  const invitationsBlock = h("section", { class: "block", hidden: true }, h("h3", {}, "Invitations"), invitations);

  const name = h("input", { id: "new-room", name: "room", required: true, maxlength: 100, autocomplete: "off" });
  keepDraft(name, "new-room");
  const create = h("form", { class: "inline-form" },
    h("label", { for: "new-room" }, "New household"), name, h("button", { type: "submit" }, "Create"));
  create.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!name.value.trim()) return;
    try {
      const room = await api.createRoom(name.value);
      name.value = "";
      saveDraft("new-room", "");
      app.go(`#/rooms/${room.id}`);
    } catch (error) {
      toastError(error);
    }
  });

  const code = h("input", { id: "join-code", name: "code", required: true, autocomplete: "off", autocapitalize: "characters",
    spellcheck: "false", placeholder: "K7QM-2XPT-9HWD-4RNA" });
  const joinForm = h("form", { class: "inline-form" },
    h("label", { for: "join-code" }, "Join with a code"), code, h("button", { type: "submit" }, "Join"));
  joinForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const room = await api.join(code.value);
      code.value = "";
      toast(`You joined ${room.name}.`);
      app.go(`#/rooms/${room.id}`);
    } catch (error) {
      toastError(error);
    }
  });

  const root = h("section", { class: "screen", "data-screen": "rooms" },
    h("h2", {}, "Households"), list, empty, invitationsBlock,
    h("section", { class: "block" }, create, joinForm));
  container.replaceChildren(root);

  function makeRoom() {
    const link = h("a", { class: "room-link" }, h("span", { class: "name" }), h("span", { class: "meta" }),
      h("span", { class: "unread", hidden: true }));
    return h("li", { class: "room-row" }, link, progressBar("Progress"));
  }
  function updateRoom(row, room) {
    row.dataset.room = room.id;
    const link = row.querySelector("a");
    link.setAttribute("href", `#/rooms/${room.id}`);
    link.toggleAttribute("aria-current", params.selected === room.id);
    row.classList.toggle("selected", params.selected === room.id);
    text(row.querySelector(".name"), room.name);
    text(row.querySelector(".meta"), `${room.open || 0} open · ${room.role}`);
    const unread = row.querySelector(".unread");
    unread.hidden = !room.unread;
    text(unread, room.unread || "");
    unread.setAttribute("aria-label", `${room.unread || 0} unread`);
    setProgress(row.querySelector("progress"), room.progress, `${room.name}: ${room.progress || 0}% done`);
  }
  function makeInvitation(room) {
    const accept = h("button", { type: "button", class: "primary" }, "Accept");
    const decline = h("button", { type: "button" }, "Decline");
    accept.addEventListener("click", () => api.accept(room.id).then(() => app.go(`#/rooms/${room.id}`), toastError));
    decline.addEventListener("click", () => api.decline(room.id).catch(toastError));
    return h("li", { class: "invitation" }, h("span", { class: "what" }), accept, decline);
  }
  function updateInvitation(row, room) {
    row.dataset.room = room.id;
    text(row.querySelector(".what"), `${room.invited_by || "Someone"} invited you to ${room.name}`);
    row.querySelector(".primary").setAttribute("aria-label", `Accept the invitation to ${room.name}`);
    row.querySelector("button:not(.primary)").setAttribute("aria-label", `Decline the invitation to ${room.name}`);
  }

  function render() {
    const rooms = [...store.rooms.values()];
    const member = rooms.filter((r) => r.role !== "invited").sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
    const invited = rooms.filter((r) => r.role === "invited");
    keyed(list, member, (r) => r.id, makeRoom, updateRoom);
    empty.hidden = member.length > 0;
    keyed(invitations, invited, (r) => r.id, makeInvitation, updateInvitation);
    invitationsBlock.hidden = invited.length === 0;
  }
  render();
  return {
    refresh(topics) {
      if (topics.has("rooms")) render();
    },
    update(next) {
      params = next;
      render();
    },
    reload: () => api.loadRooms(),
    destroy() {},
  };
}
