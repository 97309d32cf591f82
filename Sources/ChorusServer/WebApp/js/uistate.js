// What should survive a reload, the app going to the background or being quit: the
// open screen (the address's #/… part, and the last one for a fresh start), each
// pane's scroll position, and anything typed but not sent yet.

const DRAFTS = "chorus.drafts";
const SCROLL = "chorus.scroll";
const ROUTE = "chorus.route";

function read(storage, key) {
  try {
    return JSON.parse(storage.getItem(key) || "{}") || {};
  } catch {
    return {};
  }
}

function write(storage, key, value) {
  try {
    storage.setItem(key, JSON.stringify(value));
  } catch {
    // Storage full or refused (private mode): the state is only lost on reload.
  }
}

export function draft(key) {
  return read(localStorage, DRAFTS)[key] || "";
}

export function saveDraft(key, text) {
  const drafts = read(localStorage, DRAFTS);
  if (text) drafts[key] = text;
  else delete drafts[key];
  write(localStorage, DRAFTS, drafts);
}

/** Fills `field` with its draft and keeps the draft as it is typed. */
export function keepDraft(field, key) {
  if (!field.value) field.value = draft(key);
  field.addEventListener("input", () => saveDraft(key, field.value));
}

export function scrollOf(key) {
  return read(sessionStorage, SCROLL)[key] || 0;
}

/** Remembers `element`'s scroll position as it scrolls, under `key()`: what it shows now. */
export function keepScroll(element, key) {
  let timer = 0;
  element.addEventListener("scroll", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const name = key();
      if (!name) return;
      const all = read(sessionStorage, SCROLL);
      all[name] = Math.round(element.scrollTop);
      write(sessionStorage, SCROLL, all);
    }, 150);
  }, { passive: true });
}

export function lastRoute() {
  return localStorage.getItem(ROUTE) || "";
}

export function saveRoute(hash) {
  try {
    localStorage.setItem(ROUTE, hash);
  } catch {
    // As above.
  }
}

/** Everything of the signed-in person (sign out, another account). */
export function forgetAll() {
  for (const key of [DRAFTS, ROUTE]) localStorage.removeItem(key);
  sessionStorage.removeItem(SCROLL);
}
