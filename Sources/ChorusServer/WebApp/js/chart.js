// Charts drawn as SVG: a household's stats per member, and a task's days-left ring.
// Colours come from CSS custom properties (with fallbacks) so light and dark themes
// restyle them; they are set through the CSSOM, which a strict CSP allows. Names come
// from other people, so they only ever go in as textContent.

const SVG = "http://www.w3.org/2000/svg";

function element(name, attributes = {}) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  return node;
}

function paint(node, property, variable, fallback) {
  node.style.setProperty(property, `var(${variable}, ${fallback})`);
  return node;
}

const count = (value) => Math.max(0, Math.floor(Number(value) || 0));
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** One member's figures in words, as the chart's label and a row's summary say them. */
function describe(m) {
  const overdue = m.overdue ? ` (${m.overdue} overdue)` : "";
  return `${m.name}: ${m.done} done, ${m.open} open${overdue}, ${plural(m.points, "point", "points")}`;
}

const WIDTH = 360;       // the viewBox width: the chart scales to its container, 360 px on a phone
const ROW = 70;          // one member: a name line, a bar, a line of figures
const NAME_CHARACTERS = 30; // longer names are cut on screen (not in the label) so they keep off the points
const BAR = 18;
const LEFT = 8;
const BAR_WIDTH = WIDTH - 2 * LEFT;

/**
 * Per member (`[{name, done, open, overdue, points}]`, overdue being part of open): the
 * name and points on one line, under it a bar of done, open on time and overdue tasks,
 * all bars on one scale so members compare at a glance.
 */
export function statsChart(members) {
  const rows = (members || []).map((m) => {
    const open = count(m.open);
    const overdue = Math.min(count(m.overdue), open);
    return { name: String(m.name ?? ""), done: count(m.done), open, overdue, onTime: open - overdue, points: count(m.points) };
  });
  const most = Math.max(1, ...rows.map((r) => r.done + r.open));
  const scale = BAR_WIDTH / most;
  const height = Math.max(1, rows.length) * ROW + 8;

  const svg = element("svg", { viewBox: `0 0 ${WIDTH} ${height}`, width: "100%", role: "img", class: "stats-chart" });
  svg.setAttribute("aria-label", rows.length
    ? `Tasks per member. ${rows.map(describe).join("; ")}.`
    : "Tasks per member: no members");
  const title = element("title");
  title.textContent = "Done, open and overdue tasks and points per member";
  svg.append(title);

  rows.forEach((r, i) => {
    const top = i * ROW + 8;
    const group = element("g", { class: "stats-member" });
    const name = paint(element("text", { x: LEFT, y: top + 14, "font-size": 15, class: "stats-name" }), "fill", "--chart-text", "currentColor");
    const characters = Array.from(r.name);
    name.textContent = characters.length > NAME_CHARACTERS ? characters.slice(0, NAME_CHARACTERS - 1).join("") + "…" : r.name;
    const points = paint(element("text", { x: WIDTH - LEFT, y: top + 14, "font-size": 15, "text-anchor": "end", class: "stats-points" }),
      "fill", "--chart-text", "currentColor");
    points.textContent = plural(r.points, "point", "points");
    const figures = paint(element("text", { x: LEFT, y: top + 58, "font-size": 13, class: "stats-figures" }),
      "fill", "--chart-text", "currentColor");
    figures.textContent = `${r.done} done · ${r.open} open` + (r.overdue ? ` · ${r.overdue} overdue` : "");
    group.append(name, points, figures);

    const track = paint(element("rect", { x: LEFT, y: top + 22, width: BAR_WIDTH, height: BAR, rx: 4, class: "stats-track" }),
      "fill", "--chart-track", "rgba(128, 128, 128, 0.18)");
    group.append(track);
    let x = LEFT;
    for (const [kind, value, variable, fallback] of [
      ["done", r.done, "--chart-done", "#2e7d4f"],
      ["open", r.onTime, "--chart-open", "#5b7fb0"],
      ["overdue", r.overdue, "--chart-overdue", "#c62828"],
    ]) {
      if (!value) continue;
      const width = value * scale;
      const bar = paint(element("rect", { x, y: top + 22, width, height: BAR, class: `stats-bar stats-${kind}` }), "fill", variable, fallback);
      bar.dataset.kind = kind;
      bar.dataset.value = value;
      group.append(bar);
      x += width;
    }
    svg.append(group);
  });
  return svg;
}

/**
 * A small ring for a task's days left: `fraction` of its time remaining (1 full, 0 due
 * now: empty); below 0 it is overdue, drawn as a full ring in the overdue colour.
 */
export function progressRing(fraction, label) {
  const f = Number.isFinite(fraction) ? fraction : 0;
  const overdue = f < 0;
  const left = overdue ? 0 : Math.min(1, f);
  const radius = 9, circumference = 2 * Math.PI * radius;
  const svg = element("svg", { viewBox: "0 0 24 24", width: 24, height: 24, role: "img", class: "progress-ring" });
  svg.setAttribute("aria-label", label || (overdue ? "Overdue" : `${Math.round(left * 100)}% of the time left`));
  if (overdue) svg.classList.add("overdue");
  const track = paint(element("circle", { cx: 12, cy: 12, r: radius, fill: "none", "stroke-width": 4, class: "ring-track" }),
    "stroke", overdue ? "--chart-overdue" : "--chart-track", overdue ? "#c62828" : "rgba(128, 128, 128, 0.25)");
  svg.append(track);
  if (left > 0) {
    // Starts at twelve o'clock and runs clockwise; the dash is the time still left.
    const arc = paint(element("circle", {
      cx: 12, cy: 12, r: radius, fill: "none", "stroke-width": 4, transform: "rotate(-90 12 12)",
      "stroke-dasharray": `${(left * circumference).toFixed(2)} ${circumference.toFixed(2)}`, class: "ring-left",
    }), "stroke", "--chart-ring", "#2e7d4f");
    svg.append(arc);
  }
  return svg;
}
