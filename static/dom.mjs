// dom.mjs - the one element builder the page's views share, and text with
// `code` spans. DOM only.

/*
 * h('p', {className: 'x', 'data-y': 1}, 'text', child) builds an element.
 * An attribute that is null, undefined or false is left out; true gives
 * an empty attribute; 'className' sets the class. Null children are skipped.
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'className') node.className = v;
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

/* Text with `code` spans: the grader's messages quote code in backticks.
 * make is the element builder (this module's h; a pure view passes the one
 * it was given). Every piece of text stays a text child. */
export function richText(text, make = h) {
  const parts = String(text).split(/`([^`]*)`/);
  return parts.map((p, k) => (k % 2 ? make('code', {}, p) : p));
}
