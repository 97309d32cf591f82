// A household's stats (STATS R) as a chart: done, open, overdue and points for each
// member, drawn by chart.js. Refreshed a moment after its tasks change.

import { h } from "./dom.js";
import * as api from "./api.js";

export function statsView(container, room, app) {
  const figure = h("figure", { class: "stats", "data-stats": "" }, h("p", { class: "empty" }, "Loading…"));
  container.append(h("h3", {}, "Who does what"), figure);
  let timer = 0;
  let live = true;

  async function load() {
    const members = await api.stats(room);
    if (!live) return;
    const rows = members.map((m) => ({ name: m.name, done: m.done, open: m.open, overdue: m.overdue, points: m.points }));
    let chart;
    let key = null;
    try {
      const { statsChart } = await import("./chart.js");
      chart = statsChart(rows);
      // The bars' colours in words, in the chart's order.
      key = h("ul", { class: "chart-key" }, [["done", "Done"], ["open", "Open"], ["overdue", "Overdue"]].map(([kind, label]) =>
        h("li", {}, h("span", { class: `swatch swatch-${kind}` }), label)));
    } catch {
      // Without the chart module, the same numbers as a list.
      chart = h("ul", {}, rows.map((r) => h("li", {}, `${r.name}: ${r.done} done, ${r.open} open, ${r.overdue} overdue, ${r.points} points`)));
    }
    if (!live) return;
    figure.replaceChildren(chart, h("figcaption", {}, key, "Tasks done, open and overdue, and points, per member"));
  }
  load().catch(app.fail);

  return {
    refresh(topics) {
      if (!topics.has("tasks")) return;
      clearTimeout(timer);
      timer = setTimeout(() => load().catch(() => {}), 400);
    },
    reload: load,
    destroy() {
      live = false;
      clearTimeout(timer);
    },
  };
}
