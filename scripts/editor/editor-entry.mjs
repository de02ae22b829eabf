// editor-entry.mjs - CodeMirror 6 set up for the exercise page; build.sh
// bundles it into static/editor.bundle.js. It exports createEditor with the
// same interface as the page's plain text area (static/editor.mjs):
//   {kind, getValue(), setValue(text), setDiagnostics(placed), goTo(line, column), focus()}
// The fixed signature line and closing brace are block widgets around the
// document, so the document is exactly the body the grader receives and
// its line numbers are the grader's.

import { EditorState, StateEffect, StateField, Prec } from '@codemirror/state';
import {
  EditorView, Decoration, WidgetType, keymap, lineNumbers, drawSelection,
  highlightActiveLine, highlightActiveLineGutter, highlightSpecialChars,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import {
  StreamLanguage, HighlightStyle, bracketMatching, indentOnInput, indentUnit, syntaxHighlighting,
} from '@codemirror/language';
import { clike } from '@codemirror/legacy-modes/mode/clike';
import { setDiagnostics, lintGutter } from '@codemirror/lint';
import { tags, highlightTree } from '@lezer/highlight';

function words(text) {
  return Object.fromEntries(text.split(/\s+/).filter(Boolean).map((w) => [w, true]));
}

// GLSL 4.50 as far as a kernel body uses it, plus the course's names.
const glsl = StreamLanguage.define(clike({
  name: 'glsl',
  keywords: words(`const in out inout uniform buffer shared coherent volatile restrict readonly
    writeonly precise invariant highp mediump lowp precision break continue return discard for
    while do if else switch case default struct layout`),
  types: words(`void bool int uint float double vec2 vec3 vec4 ivec2 ivec3 ivec4 uvec2 uvec3 uvec4
    bvec2 bvec3 bvec4 dvec2 dvec3 dvec4 mat2 mat3 mat4 mat2x2 mat2x3 mat2x4 mat3x2 mat3x3 mat3x4
    mat4x2 mat4x3 mat4x4 dmat2 dmat3 dmat4`),
  blockKeywords: words('for while do if else switch struct'),
  builtin: words(`radians degrees sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh pow
    exp log exp2 log2 sqrt inversesqrt abs sign floor ceil trunc round roundEven fract mod modf min
    max clamp mix step smoothstep isnan isinf fma length distance dot cross normalize
    floatBitsToInt intBitsToFloat bitfieldExtract findLSB findMSB bitCount`),
  atoms: words('true false this half spectrum PI'),
  indentStatements: true,
  hooks: {
    '#': (stream) => {
      stream.skipToEnd();
      return 'meta';
    },
  },
}));

// Colours come from CSS variables, so the page's light and dark schemes
// apply to the code too.
const highlight = HighlightStyle.define([
  { tag: tags.keyword, color: 'var(--syn-keyword)', fontWeight: '600' },
  { tag: [tags.typeName, tags.className], color: 'var(--syn-type)' },
  { tag: tags.standard(tags.variableName), color: 'var(--syn-builtin)' },
  { tag: [tags.atom, tags.bool], color: 'var(--syn-atom)' },
  { tag: tags.number, color: 'var(--syn-number)' },
  { tag: tags.comment, color: 'var(--syn-comment)', fontStyle: 'italic' },
  { tag: [tags.meta, tags.processingInstruction], color: 'var(--syn-meta)' },
  { tag: tags.string, color: 'var(--syn-string)' },
  { tag: tags.definition(tags.variableName), color: 'var(--syn-def)' },
  { tag: tags.invalid, color: 'var(--fail-fg)' },
]);

const theme = EditorView.theme({
  '&': { color: 'var(--code-fg)', backgroundColor: 'var(--code-bg)', fontSize: '0.95rem' },
  '.cm-content': { fontFamily: 'var(--mono)', caretColor: 'var(--code-fg)', padding: '2px 0' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.5' },
  '.cm-gutters': { backgroundColor: 'var(--code-gutter-bg)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine': { backgroundColor: 'var(--code-active)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--code-active)' },
  '&.cm-focused .cm-cursor': { borderLeftColor: 'var(--code-fg)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': { backgroundColor: 'var(--code-selection) !important' },
  '&.cm-focused .cm-matchingBracket': { backgroundColor: 'var(--code-bracket)', outline: '1px solid var(--muted)' },
  '&.cm-focused .cm-nonmatchingBracket': { backgroundColor: 'var(--fail-bg)' },
  '.cm-fixedLine': {
    fontFamily: 'var(--mono)', padding: '0 2px 0 6px', color: 'var(--muted)',
    backgroundColor: 'var(--code-fixed-bg)', lineHeight: '1.5', whiteSpace: 'pre', cursor: 'default',
    userSelect: 'none',
  },
  '.cm-fixedLine.cm-fixedError': { backgroundColor: 'var(--fail-bg)', color: 'var(--fail-fg)', outline: '1px solid var(--fail-border)' },
  '.cm-errorLine': { backgroundColor: 'var(--code-error-line)' },
  '.cm-tooltip': { backgroundColor: 'var(--panel)', color: 'var(--fg)', border: '1px solid var(--border)' },
  '.cm-diagnostic-error': { borderLeftColor: 'var(--fail-border)' },
  '.cm-lineMessage': {
    fontFamily: 'var(--sans, inherit)', fontSize: '0.85rem', padding: '0 6px 2px', whiteSpace: 'pre-wrap',
    backgroundColor: 'var(--fail-bg)', color: 'var(--fail-fg)', borderLeft: '3px solid var(--fail-border)',
  },
});

/* Renders a fixed line with the same highlighting as the document. */
function highlightedLine(text) {
  const span = document.createElement('span');
  const tree = glsl.parser.parse(text);
  let at = 0;
  highlightTree(tree, highlight, (from, to, classes) => {
    if (from > at) span.append(text.slice(at, from));
    const s = document.createElement('span');
    s.className = classes;
    s.textContent = text.slice(from, to);
    span.append(s);
    at = to;
  });
  if (at < text.length) span.append(text.slice(at));
  return span;
}

class FixedLine extends WidgetType {
  constructor(text, role, error) {
    super();
    this.text = text;
    this.role = role;
    this.error = error;
  }

  eq(other) {
    return other.text === this.text && other.role === this.role && other.error === this.error;
  }

  toDOM() {
    const div = document.createElement('div');
    div.className = `cm-fixedLine cm-fixed-${this.role}${this.error ? ' cm-fixedError' : ''}`;
    div.title = this.error || 'Fixed by the harness: not editable';
    // Words for screen readers as hidden text: an aria-label on a plain
    // div is ignored by some and not allowed by ARIA.
    const hidden = (text) => {
      const span = document.createElement('span');
      span.className = 'visually-hidden';
      span.textContent = text;
      return span;
    };
    div.append(hidden(this.role === 'signature' ? 'Fixed first line: ' : 'Fixed last line: '), highlightedLine(this.text));
    if (this.error) div.append(hidden(`. Error: ${this.error}`));
    return div;
  }

  get estimatedHeight() {
    return 22;
  }

  ignoreEvent() {
    return true;
  }
}

/* A compile error's words under its line, so that they are read without
 * a hover: on a touch screen, and by a keyboard user reading the code. */
class LineMessage extends WidgetType {
  constructor(text) {
    super();
    this.text = text;
  }

  eq(other) {
    return other.text === this.text;
  }

  toDOM() {
    const div = document.createElement('div');
    div.className = 'cm-lineMessage';
    div.setAttribute('data-line-message', '');
    div.textContent = this.text;
    return div;
  }

  ignoreEvent() {
    return false;
  }
}

const setMarks = StateEffect.define();

/*
 * The fixed lines and the error-line backgrounds. Error lines follow edits
 * (mapped through changes) until the next run replaces them. Block widgets
 * must come from a state field, not a view plugin or a function.
 */
function fixedLines(signature, closing) {
  function build(doc, lines, afterError) {
    return Decoration.set([
      Decoration.widget({ widget: new FixedLine(signature, 'signature', null), block: true, side: -1 }).range(0),
      Decoration.widget({ widget: new FixedLine(closing, 'closing', afterError), block: true, side: 1 }).range(doc.length),
      ...iterate(lines),
    ], true);
  }
  return StateField.define({
    create: (state) => ({ lines: Decoration.none, afterError: null, decorations: build(state.doc, Decoration.none, null) }),
    update(value, tr) {
      let { lines, afterError } = value;
      let changed = tr.docChanged;
      lines = lines.map(tr.changes);
      for (const effect of tr.effects) {
        if (effect.is(setMarks)) {
          const ranges = [];
          const texts = new Map();
          for (const d of effect.value.lines) {
            if (d.line < 1 || d.line > tr.state.doc.lines) continue;
            texts.set(d.line, texts.has(d.line) ? `${texts.get(d.line)}\n${d.text}` : d.text);
          }
          for (const [n, text] of [...texts].sort((x, y) => x[0] - y[0])) {
            const line = tr.state.doc.line(n);
            ranges.push(Decoration.line({
              class: 'cm-errorLine',
              attributes: { 'data-error-line': String(n), title: text },
            }).range(line.from));
            ranges.push(Decoration.widget({ widget: new LineMessage(text), block: true, side: 1 }).range(line.to));
          }
          lines = Decoration.set(ranges, true);
          afterError = effect.value.afterError;
          changed = true;
        }
      }
      if (!changed) return value;
      return { lines, afterError, decorations: build(tr.state.doc, lines, afterError) };
    },
    provide: (field) => EditorView.decorations.from(field, (value) => value.decorations),
  });
}

function iterate(set) {
  const out = [];
  for (let cursor = set.iter(); cursor.value; cursor.next()) out.push(cursor.value.range(cursor.from, cursor.to));
  return out;
}

export function createEditor({ parent, doc = '', signature = '', closing = '}', label = 'Kernel body',
  describedBy, onChange = () => {}, onRun = () => {} }) {
  const field = fixedLines(signature, closing);
  const contentAttributes = { 'aria-label': label };
  if (describedBy) contentAttributes['aria-describedby'] = describedBy;
  const state = EditorState.create({
    doc,
    extensions: [
      lineNumbers(),
      highlightActiveLineGutter(),
      highlightSpecialChars(),
      history(),
      drawSelection(),
      indentOnInput(),
      indentUnit.of('    '),
      EditorState.tabSize.of(4),
      bracketMatching(),
      highlightActiveLine(),
      glsl,
      syntaxHighlighting(highlight),
      lintGutter(),
      field,
      Prec.highest(keymap.of([{ key: 'Mod-Enter', run: () => { onRun(); return true; } }])),
      keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
      EditorView.contentAttributes.of(contentAttributes),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) onChange(update.state.doc.toString());
      }),
      theme,
    ],
  });
  const view = new EditorView({ state, parent });

  return {
    kind: 'codemirror',
    view,
    getValue: () => view.state.doc.toString(),
    setValue(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    setDiagnostics(placed) {
      const docLength = view.state.doc.length;
      const diagnostics = placed.map((d) => ({
        from: Math.min(d.from, docLength),
        to: Math.min(Math.max(d.to, d.from), docLength),
        severity: d.severity === 'warning' ? 'warning' : d.severity === 'info' ? 'info' : 'error',
        message: d.text,
      }));
      const after = placed.filter((d) => d.afterCode).map((d) => d.text);
      const spec = setDiagnostics(view.state, diagnostics);
      view.dispatch(spec);
      view.dispatch({
        effects: setMarks.of({
          lines: placed.filter((d) => !d.afterCode),
          afterError: after.length ? after.join('\n') : null,
        }),
      });
    },
    goTo(line, column = null) {
      const n = Math.max(1, Math.min(line, view.state.doc.lines));
      const l = view.state.doc.line(n);
      const pos = Number.isInteger(column) && column >= 1 ? Math.min(l.from + column - 1, l.to) : l.from;
      view.dispatch({ selection: { anchor: pos }, scrollIntoView: true });
      view.focus();
    },
    focus: () => view.focus(),
  };
}
