// Request lines (Protocol.md §2): every free-form argument goes in double quotes with
// its quotes, backslashes and newlines escaped, so a title such as `a=b` or `"x"` is
// always one plain argument and never an option or two words.

/** Control characters the server refuses in a line (all but tab and newline). */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** One quoted argument. */
export function quote(value) {
  const clean = String(value).replace(/\r\n?/g, "\n").replace(CONTROLS, "");
  return '"' + clean.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n") + '"';
}

/** `key="value"`, or `key=` (which clears the field in TASK EDIT). */
export function option(key, value) {
  return value === "" || value === null || value === undefined ? `${key}=` : `${key}=${quote(value)}`;
}

/** The rest of a text verb's line (SAY, COMMENT, ROOM CREATE): taken verbatim by the
 *  server, so it must stay on one line. */
export function restOfLine(value) {
  return String(value).replace(/[\r\n]+/g, " ").replace(CONTROLS, "").trim();
}

/** A name or code argument (letters, digits, `. _ -`): anything else is dropped. */
export function word(value) {
  return String(value).replace(/[^A-Za-z0-9._-]/g, "");
}

/** Bytes of UTF-8 a line takes on the wire. */
export function byteLength(line) {
  return new TextEncoder().encode(line).length;
}
