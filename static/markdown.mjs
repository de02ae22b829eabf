// markdown.mjs - an exercise's brief (its README.md, an author's text) as
// the page shows it: a small subset of Markdown (paragraphs, # headings,
// - and 1. lists, ``` code blocks, `code`, *emphasis*, **strong**, and
// [links](url) to relative or https addresses only). parseMarkdown() is
// pure; renderMarkdown() builds the nodes with dom.mjs's h(), so every
// piece of the author's text is a text node: nothing is ever parsed as
// HTML, whatever the brief holds.

/* The longest brief shown; the rest is cut with a note (a brief is an
 * author's, but a page must not hang on a huge one). */
export const MARKDOWN_MAX_CHARS = 65536;
/* Emphasis and links nest this deep; deeper markers are text. */
const INLINE_DEPTH = 2;
/* The brief's headings sit under the page's own h1 and h2. */
const HEADING_OFFSET = 2;

/*
 * The address a link may have, or null: https:// ones, and relative ones
 * (a path, ./ ../, ?query or #fragment) that stay on this server. Refused:
 * any other scheme (javascript:, data:, http:), a protocol-relative
 * //host, backslashes (browsers read them as /), spaces and controls.
 */
export function safeHref(url) {
  if (typeof url !== 'string' || !url || url.length > 2048) return null;
  if (/[\s\\\u0000-\u001f\u007f]/.test(url)) return null;
  if (/^https:\/\/[^/?#]/i.test(url)) return url;
  if (url.startsWith('//')) return null;
  // a scheme is letters, digits, + - . before the first ':' that comes
  // before any / ? #
  const head = url.split(/[/?#]/, 1)[0];
  return head.includes(':') ? null : url;
}

const INLINE = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_|\[([^\]]+)\]\(((?:[^()\s]|\([^()\s]*\))+)\)/g;

/*
 * One line's inline pieces: [{type: 'text'|'code', text}, {type:
 * 'em'|'strong', children}, {type: 'link', href, children}]; a link whose
 * address safeHref refuses is its text alone.
 */
export function parseInline(text, depth = 0) {
  const out = [];
  const push = (node) => {
    const last = out[out.length - 1];
    if (node.type === 'text' && last && last.type === 'text') last.text += node.text;
    else if (node.type !== 'text' || node.text) out.push(node);
  };
  if (depth >= INLINE_DEPTH) return text ? [{ type: 'text', text }] : [];
  let at = 0;
  for (const m of text.matchAll(INLINE)) {
    push({ type: 'text', text: text.slice(at, m.index) });
    at = m.index + m[0].length;
    if (m[1] !== undefined) push({ type: 'code', text: m[1] });
    else if (m[2] !== undefined) push({ type: 'strong', children: parseInline(m[2], depth + 1) });
    else if (m[3] !== undefined || m[4] !== undefined) {
      push({ type: 'em', children: parseInline(m[3] !== undefined ? m[3] : m[4], depth + 1) });
    } else {
      const href = safeHref(m[6]);
      const children = parseInline(m[5], depth + 1);
      if (href) push({ type: 'link', href, children });
      else children.forEach(push);
    }
  }
  push({ type: 'text', text: text.slice(at) });
  return out;
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d{1,9}[.)]\s+(.*)$/;
const FENCE = /^\s*```/;

/*
 * The brief's blocks: {type: 'heading', level (3..6: # is h3, under the
 * page's h1 and h2), inline}, {type: 'paragraph', inline}, {type: 'list', ordered,
 * items: [inline]}, {type: 'code', text}, and {type: 'cut'} last when the
 * text was longer than MARKDOWN_MAX_CHARS. Anything else (HTML, tables,
 * quotes) is a paragraph's text, shown as written.
 */
export function parseMarkdown(source) {
  let text = typeof source === 'string' ? source : '';
  const cut = text.length > MARKDOWN_MAX_CHARS;
  if (cut) text = text.slice(0, MARKDOWN_MAX_CHARS);
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks = [];
  /* a paragraph's lines join into one run of text where they meet */
  const append = (inline, nodes) => {
    for (const n of nodes) {
      const last = inline[inline.length - 1];
      if (n.type === 'text' && last && last.type === 'text') last.text += n.text;
      else inline.push(n);
    }
  };
  let para = null;
  let list = null;
  const close = () => { para = null; list = null; };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (FENCE.test(line)) {
      close();
      const body = [];
      for (i++; i < lines.length && !FENCE.test(lines[i]); i++) body.push(lines[i]);
      blocks.push({ type: 'code', text: body.join('\n') });
      continue;
    }
    if (!line.trim()) { close(); continue; }
    const heading = HEADING.exec(line);
    if (heading) {
      close();
      blocks.push({ type: 'heading', level: Math.min(6, heading[1].length + HEADING_OFFSET),
        inline: parseInline(heading[2]) });
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    if (bullet || numbered) {
      const ordered = Boolean(numbered);
      if (!list || list.ordered !== ordered) {
        para = null;
        list = { type: 'list', ordered, items: [] };
        blocks.push(list);
      }
      list.items.push(parseInline((bullet || numbered)[1]));
      continue;
    }
    if (list && /^\s+\S/.test(line)) {
      // an indented line goes on with the list's last item
      const item = list.items[list.items.length - 1];
      append(item, parseInline(` ${line.trim()}`));
      continue;
    }
    list = null;
    if (!para) {
      para = { type: 'paragraph', inline: [] };
      blocks.push(para);
    } else {
      append(para.inline, [{ type: 'text', text: ' ' }]);
    }
    append(para.inline, parseInline(line.trim()));
  }
  if (cut) blocks.push({ type: 'cut' });
  return blocks;
}

function renderInline(nodes, h) {
  return nodes.map((n) => {
    if (n.type === 'text') return n.text;
    if (n.type === 'code') return h('code', {}, n.text);
    if (n.type === 'link') return h('a', { href: n.href }, ...renderInline(n.children, h));
    return h(n.type, {}, ...renderInline(n.children, h));
  });
}

/*
 * The nodes of a brief, built with h (dom.mjs's, or a test's own): its
 * blocks from parseMarkdown, every text as a text child.
 */
export function renderMarkdown(source, h) {
  return parseMarkdown(source).map((b) => {
    if (b.type === 'heading') return h(`h${b.level}`, {}, ...renderInline(b.inline, h));
    if (b.type === 'paragraph') return h('p', {}, ...renderInline(b.inline, h));
    if (b.type === 'list') {
      return h(b.ordered ? 'ol' : 'ul', {}, ...b.items.map((it) => h('li', {}, ...renderInline(it, h))));
    }
    if (b.type === 'code') return h('pre', {}, h('code', {}, b.text));
    return h('p', { className: 'brief-cut' }, 'The brief is longer than the page shows; the rest is left out.');
  });
}
