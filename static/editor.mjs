// editor.mjs - the code editor: CodeMirror 6 from editor.bundle.js when
// the project's build made it, otherwise a plain text area with line
// numbers. Both give the page the same small interface:
//   {kind, getValue(), setValue(text), setDiagnostics(placed), goTo(line, column), focus()}
// where `placed` comes from diagnostics.mjs.

const INDENT = '    ';

/*
 * Creates the editor in options.parent. options: {parent, doc, signature,
 * closing, label, describedBy, onChange(text), onRun()}. Never rejects:
 * a missing or broken bundle gives the text area.
 */
export async function loadEditor(options, bundleUrl = './editor.bundle.js') {
  try {
    const mod = await import(bundleUrl);
    return mod.createEditor(options);
  } catch (error) {
    console.info('Code editor bundle not available; using a plain text area.', error);
    options.parent.replaceChildren();
    return createPlainEditor(options);
  }
}

export function createPlainEditor({ parent, doc = '', signature = '', closing = '}', label = 'Kernel body',
  describedBy, onChange = () => {}, onRun = () => {} }) {
  const root = document.createElement('div');
  root.className = 'plain-editor';
  const head = document.createElement('pre');
  head.className = 'fixed-line';
  head.title = 'Fixed by the harness: not editable';
  head.textContent = signature;
  const body = document.createElement('div');
  body.className = 'plain-body';
  const gutter = document.createElement('pre');
  gutter.className = 'plain-gutter';
  gutter.setAttribute('aria-hidden', 'true');
  const area = document.createElement('textarea');
  area.className = 'plain-area';
  area.spellcheck = false;
  area.wrap = 'off';
  area.setAttribute('autocapitalize', 'off');
  area.setAttribute('autocomplete', 'off');
  area.setAttribute('autocorrect', 'off');
  area.setAttribute('aria-label', label);
  if (describedBy) area.setAttribute('aria-describedby', describedBy);
  area.value = doc;
  const tail = document.createElement('pre');
  tail.className = 'fixed-line fixed-closing';
  tail.title = 'Fixed by the harness: not editable';
  tail.textContent = closing;
  body.append(gutter, area);
  // A text area cannot show words on a line: the errors' words follow it,
  // each a button to its line, so they are read without a hover.
  const messages = document.createElement('ul');
  messages.className = 'plain-messages';
  root.append(head, body, tail, messages);
  parent.append(root);

  let errorLines = new Map();
  let escaped = false;

  function render() {
    const count = area.value.split('\n').length;
    area.rows = Math.max(12, count + 1);
    gutter.replaceChildren();
    for (let n = 1; n <= count; n++) {
      const span = document.createElement('span');
      span.textContent = String(n);
      if (errorLines.has(n)) {
        span.className = 'plain-error-line';
        span.title = errorLines.get(n);
      }
      gutter.append(span, '\n');
    }
  }

  function insert(text) {
    area.focus();
    // execCommand keeps the browser's undo history; setRangeText is the fallback.
    if (!document.execCommand || !document.execCommand('insertText', false, text)) {
      area.setRangeText(text, area.selectionStart, area.selectionEnd, 'end');
      area.dispatchEvent(new Event('input'));
    }
  }

  area.addEventListener('input', () => {
    render();
    onChange(area.value);
  });
  area.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      escaped = true;
      return;
    }
    if (event.key === 'Tab' && !escaped && !event.ctrlKey && !event.altKey && !event.metaKey) {
      event.preventDefault();
      if (event.shiftKey) {
        const start = area.value.lastIndexOf('\n', area.selectionStart - 1) + 1;
        const lead = /^ {1,4}/.exec(area.value.slice(start));
        if (lead) {
          area.setSelectionRange(start, start + lead[0].length);
          insert('');
        }
      } else {
        insert(INDENT);
      }
      return;
    }
    escaped = false;
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      onRun();
    }
  });
  render();

  return {
    kind: 'textarea',
    getValue: () => area.value,
    setValue(text) {
      area.value = text;
      render();
      onChange(area.value);
    },
    setDiagnostics(placed) {
      errorLines = new Map();
      let after = null;
      for (const d of placed) {
        if (d.afterCode) after = d.text;
        else errorLines.set(d.line, (errorLines.has(d.line) ? `${errorLines.get(d.line)}\n` : '') + d.text);
      }
      tail.classList.toggle('has-error', after !== null);
      tail.title = after ?? 'Fixed by the harness: not editable';
      messages.replaceChildren(...placed.map((d) => {
        const li = document.createElement('li');
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = d.text;
        button.addEventListener('click', () => this.goTo(d.afterCode ? d.line - 1 : d.line, d.column));
        li.append(button);
        return li;
      }));
      render();
    },
    goTo(line, column = null) {
      const lines = area.value.split('\n');
      const n = Math.max(1, Math.min(line, lines.length));
      const start = lines.slice(0, n - 1).reduce((sum, l) => sum + l.length + 1, 0);
      const at = Number.isInteger(column) && column >= 1 ? start + Math.min(column - 1, lines[n - 1].length) : start;
      area.focus();
      area.setSelectionRange(at, at);
    },
    focus: () => area.focus(),
  };
}
