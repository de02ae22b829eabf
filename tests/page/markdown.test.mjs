import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MARKDOWN_MAX_CHARS, parseInline, parseMarkdown, renderMarkdown, safeHref } from '../../static/markdown.mjs';

// An exercise's brief is an author's text shown on every student's page:
// it renders as the Markdown subset says, links go only to this server or
// to https, and nothing in it becomes markup.

/* A stand-in for dom.mjs's h(): plain objects, so that what the page
 * would build can be compared whole. */
const h = (tag, attrs = {}, ...children) => ({ tag, attrs, children });

test('paragraphs, headings, lists and code blocks are told apart', () => {
  const blocks = parseMarkdown([
    '# Title', '', 'One line', 'and its second.', '', '- first', '- second', '',
    '1. one', '2. two', '', '```', 'float x = 1.0;', '  return x;', '```', '### Small',
  ].join('\n'));
  assert.deepEqual(blocks.map((b) => b.type), ['heading', 'paragraph', 'list', 'list', 'code', 'heading']);
  assert.equal(blocks[0].level, 3);   // under the page's h1 and h2
  assert.equal(blocks[5].level, 5);
  assert.deepEqual(blocks[1].inline, [{ type: 'text', text: 'One line and its second.' }]);
  assert.equal(blocks[2].ordered, false);
  assert.equal(blocks[2].items.length, 2);
  assert.equal(blocks[3].ordered, true);
  assert.equal(blocks[4].text, 'float x = 1.0;\n  return x;');
});

test('code, emphasis, strong and links inline', () => {
  assert.deepEqual(parseInline('read `spectrum[p][k]`, *not* **this**, [docs](/docs/x.md)'), [
    { type: 'text', text: 'read ' }, { type: 'code', text: 'spectrum[p][k]' },
    { type: 'text', text: ', ' }, { type: 'em', children: [{ type: 'text', text: 'not' }] },
    { type: 'text', text: ' ' }, { type: 'strong', children: [{ type: 'text', text: 'this' }] },
    { type: 'text', text: ', ' },
    { type: 'link', href: '/docs/x.md', children: [{ type: 'text', text: 'docs' }] },
  ]);
  // a multiplication is no emphasis
  assert.deepEqual(parseInline('a * b * c'), [{ type: 'text', text: 'a * b * c' }]);
});

test('links go only to relative or https addresses', () => {
  for (const ok of ['https://example.org/fft', '/tasks/butterfly', './x', '../y', '#hint-1', '?a=1', 'notes.md']) {
    assert.equal(safeHref(ok), ok, ok);
  }
  for (const bad of ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,<b>', 'http://example.org',
    '//evil.example/x', '/\\evil.example', 'vbscript:x', 'java\nscript:x', ' https://x', 'https://', '',
    'x'.repeat(3000)]) {
    assert.equal(safeHref(bad), null, bad);
  }
  // a refused link keeps its words, without the address
  assert.deepEqual(parseInline('[click](javascript:alert(1))'), [{ type: 'text', text: 'click' }]);
});

test('HTML in a brief stays text: every piece is a text child, never markup', () => {
  const nodes = renderMarkdown('<img src=x onerror=alert(1)>\n\n# <script>alert(1)</script>\n\n- <b>x</b>', h);
  assert.deepEqual(nodes, [
    { tag: 'p', attrs: {}, children: ['<img src=x onerror=alert(1)>'] },
    { tag: 'h3', attrs: {}, children: ['<script>alert(1)</script>'] },
    { tag: 'ul', attrs: {}, children: [{ tag: 'li', attrs: {}, children: ['<b>x</b>'] }] },
  ]);
  // the only attribute an author's text can set is a checked link's href
  const link = renderMarkdown('[a](https://x.org/"onmouseover=1)', h)[0].children[0];
  assert.equal(link.tag, 'a');
  assert.deepEqual(Object.keys(link.attrs), ['href']);
  assert.equal(link.attrs.href, 'https://x.org/"onmouseover=1');
});

test('a brief past the bound is cut, and says so', () => {
  const blocks = parseMarkdown('word '.repeat(MARKDOWN_MAX_CHARS));
  assert.equal(blocks[blocks.length - 1].type, 'cut');
  const text = blocks[0].inline.map((n) => n.text).join('');
  assert.ok(text.length <= MARKDOWN_MAX_CHARS);
  assert.deepEqual(parseMarkdown('short').map((b) => b.type), ['paragraph']);
});

test('a brief that is not text renders as nothing', () => {
  assert.deepEqual(parseMarkdown(undefined), []);
  assert.deepEqual(parseMarkdown(42), []);
});
