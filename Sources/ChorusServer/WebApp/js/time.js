// Times as people read them, in this device's zone. The server speaks UTC
// (`2026-12-05T18:00:00Z`) and dates alone (`2026-12-05`, a day wherever you are);
// it takes a time back as `YYYY-MM-DDTHH:MMZ` (Protocol.md §7), so what someone picks
// in their zone is the moment they meant whatever the server's zone is.

const DAY = 86400000;
const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A local Date for a wire value: a date alone is the start of that local day. */
export function toDate(value) {
  if (!value) return null;
  const match = dateOnly.exec(value);
  if (match) return new Date(+match[1], +match[2] - 1, +match[3]);
  const date = new Date(value);
  return isNaN(date) ? null : date;
}

export function isDateOnly(value) {
  return dateOnly.test(value || "");
}

/** When a task is due: a date alone is due at the end of that day. */
export function dueInstant(value) {
  const date = toDate(value);
  if (date && isDateOnly(value)) date.setHours(23, 59, 59, 999);
  return date;
}

function startOfDay(date) {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate());
}

/** Whole calendar days from today to `date` (negative when past). */
export function daysFromToday(date, now = new Date()) {
  return Math.round((startOfDay(date) - startOfDay(now)) / DAY);
}

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short" });
const yearFormat = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric" });
const clockFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });

/** `Sat 5 Dec`, `Sat 5 Dec, 18:00`, with the year when it is not this one. */
export function formatWhen(value, now = new Date()) {
  const date = toDate(value);
  if (!date) return "";
  const day = date.getFullYear() === now.getFullYear() ? dayFormat.format(date) : yearFormat.format(date);
  return isDateOnly(value) ? day : `${day}, ${clockFormat.format(date)}`;
}

/** A message's time: `18:04` today, `Mon 7 Dec 18:04` before. */
export function formatStamp(value, now = new Date()) {
  const date = toDate(value);
  if (!date) return "";
  return daysFromToday(date, now) === 0 ? clockFormat.format(date) : `${formatWhen(value, now).replace(/,.*/, "")} ${clockFormat.format(date)}`;
}

/** What a task's due says: `due today`, `due Sat 5 Dec (in 3 days)`, `2 days overdue`. */
export function dueText(task, now = new Date()) {
  if (task.status === "done") return "done";
  const due = dueInstant(task.due);
  if (!due) return "no due date";
  const days = daysFromToday(due, now);
  if (due < now) {
    const late = -days;
    return late <= 0 ? "overdue" : `${late} ${late === 1 ? "day" : "days"} overdue`;
  }
  const time = isDateOnly(task.due) ? "" : ` ${clockFormat.format(due)}`;
  if (days === 0) return `due today${time}`;
  if (days === 1) return `due tomorrow${time}`;
  return `due ${formatWhen(task.due, now)} (in ${days} days)`;
}

/** What is left of the time from the task's start (or creation) to its due, 0–1, and
 *  whether it is past. Null without a due date. */
export function timeLeft(task, now = new Date()) {
  const due = dueInstant(task.due);
  if (!due) return null;
  const begin = toDate(task.start) || toDate(task.created) || now;
  const whole = Math.max(due - begin, DAY / 24);
  const left = Math.min(1, Math.max(0, (due - now) / whole));
  return { fraction: task.status === "done" ? 1 : left, overdue: task.status !== "done" && due < now, days: daysFromToday(due, now) };
}

/** The wire value for a date field and an optional time field (both local). */
export function toWire(date, time) {
  if (!date) return "";
  if (!time) return date;
  const [y, m, d] = date.split("-").map(Number);
  const [hh, mm] = time.split(":").map(Number);
  const moment = new Date(y, m - 1, d, hh, mm);
  return moment.toISOString().slice(0, 16) + "Z";
}

const pad = (n) => String(n).padStart(2, "0");

/** A wire value as local `{date: "YYYY-MM-DD", time: "HH:MM" or ""}` for form fields. */
export function fromWire(value) {
  if (!value) return { date: "", time: "" };
  if (isDateOnly(value)) return { date: value, time: "" };
  const date = toDate(value);
  if (!date) return { date: "", time: "" };
  return {
    date: `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`,
    time: `${pad(date.getHours())}:${pad(date.getMinutes())}`,
  };
}
