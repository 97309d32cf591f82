// Building the page from elements and text nodes only. Nothing here parses HTML:
// whatever a string holds (another person's message, a task title) becomes text.

/** An element: `h("button", {class: "x", onclick: f}, "Done")`. Children are
 *  nodes, strings (as text), arrays of either, or null/false (left out). */
export function h(tag, props, ...children) {
  const node = tag.startsWith("svg:")
    ? document.createElementNS("http://www.w3.org/2000/svg", tag.slice(4))
    : document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false || key === "value") continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.setAttribute("class", value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key in node && !tag.startsWith("svg:") && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  // After the children: a select's value needs its options.
  if (props && props.value !== undefined && props.value !== null) node.value = props.value;
  return node;
}

/** Appends children as `h` takes them. */
export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replaces everything inside `node`. */
export function replace(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

/** Keeps `container`'s children one per item, in order, by key: existing elements are
 *  updated in place (focus and state survive a live update), new ones made, gone ones
 *  removed. `make(item)` returns an element; `update(element, item)` refreshes it. */
export function keyed(container, items, key, make, update) {
  const old = new Map();
  for (const child of container.children) if (child.dataset.key) old.set(child.dataset.key, child);
  let previous = null;
  for (const item of items) {
    const id = String(key(item));
    let element = old.get(id);
    if (element) {
      old.delete(id);
      update(element, item);
    } else {
      element = make(item);
      element.dataset.key = id;
      update(element, item);
    }
    const wanted = previous ? previous.nextSibling : container.firstChild;
    if (wanted !== element) container.insertBefore(element, wanted);
    previous = element;
  }
  for (const gone of old.values()) gone.remove();
}

/** Sets the text of `node` only when it changed (no needless layout). */
export function text(node, value) {
  const wanted = value === null || value === undefined ? "" : String(value);
  if (node.textContent !== wanted) node.textContent = wanted;
}

/** A short random word, for tags and device labels. */
export function randomWord(length = 8) {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => "abcdefghijkmnpqrstuvwxyz23456789"[b % 32]).join("");
}
