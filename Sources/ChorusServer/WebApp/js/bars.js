// The graphical parts: a progress bar (a native <progress>, so assistive technology
// reads its value) and the days-left ring, which empties as the due date nears and
// turns red once it has passed.

import { h } from "./dom.js";
import { timeLeft } from "./time.js";

export function progressBar(label) {
  return h("progress", { class: "bar", max: 100, value: 0, "aria-label": label });
}

export function setProgress(bar, percent, label) {
  const value = Math.max(0, Math.min(100, Math.round(percent || 0)));
  if (bar.value !== value) bar.value = value;
  if (label && bar.getAttribute("aria-label") !== label) bar.setAttribute("aria-label", label);
  bar.title = `${value}%`;
}

const RADIUS = 15;
const AROUND = 2 * Math.PI * RADIUS;

export function daysRing() {
  const track = h("svg:circle", { class: "ring-track", cx: 18, cy: 18, r: RADIUS });
  const left = h("svg:circle", { class: "ring-left", cx: 18, cy: 18, r: RADIUS, transform: "rotate(-90 18 18)" });
  const count = h("svg:text", { class: "ring-text", x: 18, y: 22, "text-anchor": "middle" });
  return h("svg:svg", { class: "ring", viewBox: "0 0 36 36", width: 36, height: 36, role: "img" }, track, left, count);
}

/** Sets the ring from the task: hidden without a due date. */
export function setRing(ring, task) {
  const left = timeLeft(task);
  ring.classList.toggle("none", !left);
  if (!left) {
    ring.setAttribute("aria-label", "no due date");
    return;
  }
  ring.classList.toggle("overdue", left.overdue);
  ring.classList.toggle("near", !left.overdue && left.fraction < 0.25);
  const arc = ring.querySelector(".ring-left");
  arc.setAttribute("stroke-dasharray", `${(left.fraction * AROUND).toFixed(2)} ${AROUND.toFixed(2)}`);
  const days = left.overdue ? "!" : String(Math.max(0, left.days));
  ring.querySelector(".ring-text").textContent = days;
  ring.setAttribute("aria-label", left.overdue ? "overdue" : `${Math.max(0, left.days)} days left, ${Math.round(left.fraction * 100)}% of the time`);
}
