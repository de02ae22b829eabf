// history.mjs - the student's records on the page: who the page is signed
// in as, an open lab's display name, the list of earlier attempts (time,
// verdict, points) with a button that loads an attempt's code, a plain
// "not saved" when the server could not keep a run, and signing out.
//
// app.mjs knows nothing of this module but two events on document:
//   'butterfly:verdict' (detail {verdict}) after each run, from app.mjs;
//   'butterfly:load-source' (detail {source, record}) from here, which
//   app.mjs answers by putting the code in the editor and the record's
//   saved verdict in the results.
// When the server keeps no records (GET /api/me says records: false) the
// section stays hidden and the browser's localStorage is all there is.
// Its requests go through api.mjs's request(), as all the page's do.
// The pure functions are exported for node's tests; the rest is DOM.

import { CSRF_HEADERS, ME_URL, MY_SUBMISSIONS_URL, SESSION_URL, errorText, request } from './api.mjs';

/* The address without a personal token (?k=) or a sign-in note, or null
 * when there is nothing to take out. */
export function addressWithoutToken(href) {
  const url = new URL(href);
  if (!url.searchParams.has('k') && !url.searchParams.has('signin')) return null;
  url.searchParams.delete('k');
  url.searchParams.delete('signin');
  return url.pathname + (url.searchParams.toString() ? `?${url.searchParams}` : '') + url.hash;
}

/* What a verdict says about its record: null when the server keeps none
 * (no `recorded` field), else {saved, text}. */
export function recordNote(verdict) {
  if (!verdict || typeof verdict.recorded !== 'boolean') return null;
  if (verdict.recorded) return { saved: true, text: 'Saved to your attempts.' };
  const why = verdict.record_error && typeof verdict.record_error.message === 'string'
    ? verdict.record_error.message : '';
  return { saved: false, text: `Not saved: the server could not keep this run${why ? ` (${why})` : ''}. Your code is still in this browser.` };
}

/* One list row's facts from an entry of GET /api/me/submissions. */
export function historyRow(item, locale = undefined) {
  const when = new Date(item.received_ms);
  const points = Number.isInteger(item.points) && Number.isInteger(item.max_points)
    ? `${item.points} / ${item.max_points}` : '';
  return {
    id: String(item.id),
    time: Number.isFinite(when.getTime()) ? when.toLocaleString(locale) : '',
    iso: Number.isFinite(when.getTime()) ? when.toISOString() : '',
    verdict: item.status && typeof item.status.name === 'string' ? item.status.name : '',
    points,
  };
}

/* The question a waiting link's sign-in asks (GET /api/me's `pending`):
 * the page signs in only when the student says it is them. */
export function confirmText(pending) {
  if (!pending || typeof pending.name !== 'string') return '';
  const unchecked = pending.kind === 'guest' ? ' (a name given, not checked)' : '';
  return `This link signs this page in as ${pending.name}${unchecked}. Is that you? If someone sent you their link, choose Not me.`;
}

/* The sentence under the heading for GET /api/me's answer. */
export function whoText(me) {
  if (!me || me.kind === 'none') return '';
  if (me.kind === 'instructor') return 'Signed in as the instructor.';
  if (me.kind === 'guest') return `Signed in as ${me.name} (a name you gave: not checked).`;
  return `Signed in as ${me.name}.`;
}

/* The sentence for the page's ?signin= note (the server redirects there
 * from a personal link: `failed`, the token is not valid; `other`, the
 * link is someone else's and the page is signed in already, which it
 * never silently replaces; `confirm`, the page is to ask "Sign in as
 * NAME?" first), with `me` what GET /api/me answered; null when there is
 * nothing to say. */
export function signinNote(param, me) {
  if (param === 'failed') return 'That sign-in link is not valid (any more): ask your instructor for a new one.';
  if (param === 'confirm') {
    if (!me || me.kind !== 'none' || me.pending) return null;
    return 'That sign-in was not confirmed within ten minutes: open your link again.';
  }
  if (param !== 'other') return null;
  if (!me || me.kind === 'none') return 'That link was not used: open it again to sign in.';
  const as = me.kind === 'instructor' ? 'the instructor' : me.name;
  return `That link signs in someone else, and this page is signed in as ${as}: nothing changed. To use the link, sign out first, then open it again.`;
}

// ---- DOM ---------------------------------------------------------------------

function el(doc, tag, attrs = {}, ...children) {
  const node = doc.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'className') node.className = v;
    else node.setAttribute(k, v);
  }
  node.append(...children);   // strings become text nodes: nothing is parsed as HTML
  return node;
}

export function startHistory(doc = document, fetchFn = fetch, win = window) {
  const section = doc.getElementById('history');
  if (!section) return;
  const who = doc.getElementById('history-who');
  const list = doc.getElementById('history-list');
  const more = doc.getElementById('history-more');
  const form = doc.getElementById('history-name-form');
  const note = doc.getElementById('record-note');
  const status = doc.getElementById('history-status');
  const signOut = doc.getElementById('history-sign-out');
  const confirmBox = doc.getElementById('history-confirm');
  const confirmYes = doc.getElementById('history-confirm-yes');
  const confirmNo = doc.getElementById('history-confirm-no');
  let next = null;

  const clean = addressWithoutToken(win.location.href);
  const signin = new URL(win.location.href).searchParams.get('signin');
  if (clean !== null) win.history.replaceState(null, '', clean);

  function addRows(items) {
    for (const item of items) {
      const row = historyRow(item);
      const load = el(doc, 'button', { type: 'button', className: 'history-load' }, 'Load this code');
      load.addEventListener('click', () => loadAttempt(row.id, load));
      list.append(el(doc, 'li', {},
        el(doc, 'time', { datetime: row.iso }, row.time), ' ',
        el(doc, 'span', { className: 'history-verdict' }, row.verdict), ' ',
        el(doc, 'span', { className: 'history-points' }, row.points ? `${row.points} points` : ''), ' ',
        load));
    }
    list.hidden = list.children.length === 0;
  }

  async function loadPage(reset) {
    const url = reset || !next ? MY_SUBMISSIONS_URL : `${MY_SUBMISSIONS_URL}?before=${encodeURIComponent(next)}`;
    const { ok, body } = await request(fetchFn, url);
    if (!ok || !body || !Array.isArray(body.submissions)) {
      status.textContent = 'Your earlier attempts cannot be shown right now.';
      return;
    }
    if (reset) list.replaceChildren();
    addRows(body.submissions);
    next = typeof body.next === 'string' ? body.next : null;
    more.hidden = next === null;
    status.textContent = list.children.length ? '' : 'No attempts yet: press Run.';
  }

  async function loadAttempt(id, button) {
    const { ok, body } = await request(fetchFn, `/api/submissions/${encodeURIComponent(id)}`);
    if (!ok || !body || typeof body.source !== 'string') {
      status.textContent = 'That attempt could not be loaded.';
      return;
    }
    doc.dispatchEvent(new CustomEvent('butterfly:load-source', { detail: { source: body.source, record: body } }));
    status.textContent = 'The attempt’s code is in the editor.';
    if (button) button.blur();
  }

  async function showSignedIn(me) {
    who.textContent = whoText(me);
    form.hidden = true;
    signOut.hidden = false;
    if (me.kind === 'instructor') return;
    await loadPage(true);
  }

  function showSignedOut() {
    who.textContent = 'Not signed in: open your personal link, or give a name to keep your attempts.';
    form.hidden = false;
    signOut.hidden = true;
    list.replaceChildren();
    list.hidden = true;
    more.hidden = true;
    next = null;
  }

  let asked = null;   // GET /api/me's pending: whom the question is about

  function askFirst(pending) {
    showSignedOut();
    form.hidden = true;
    who.textContent = 'Not signed in yet.';
    asked = pending;
    doc.getElementById('history-confirm-text').textContent = confirmText(pending);
    confirmYes.textContent = `Sign in as ${pending.name}`;
    confirmBox.hidden = false;
  }

  async function answer(yes) {
    confirmYes.disabled = true;
    confirmNo.disabled = true;
    const { status: code, body, error } = await request(fetchFn, SESSION_URL, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...CSRF_HEADERS },
      // the id says whom this page asked about: a sign-in another page put
      // in its place meanwhile is refused
      body: JSON.stringify(yes ? { confirm: true, id: asked && asked.id } : { confirm: false }),
    });
    confirmYes.disabled = false;
    confirmNo.disabled = false;
    if (error && (error.kind === 'network' || code >= 500)) {   // nothing decided: ask again
      status.textContent = 'The server could not be reached; try again.';
      return;
    }
    confirmBox.hidden = true;
    if (code === 200 && body && body.kind !== 'none') {
      await showSignedIn(body);
      status.textContent = 'Signed in.';
    } else {
      showSignedOut();
      status.textContent = code === 200
        ? 'Not signed in: that link was not yours. Ask your instructor for your own.'
        : errorText(error, 'That did not work; open your link again.');
    }
  }
  confirmYes.addEventListener('click', () => answer(true));
  confirmNo.addEventListener('click', () => answer(false));

  signOut.addEventListener('click', async () => {
    const r = await request(fetchFn, SESSION_URL, { method: 'DELETE', headers: CSRF_HEADERS });
    if (r.status !== 200) {
      status.textContent = errorText(r.error, 'Signing out did not work; try again.');
      return;
    }
    showSignedOut();
    status.textContent = 'Signed out: this browser no longer keeps your session.';
    doc.getElementById('history-name').focus();
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = doc.getElementById('history-name').value;
    const { status: code, body, error } = await request(fetchFn, SESSION_URL, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...CSRF_HEADERS },
      body: JSON.stringify({ name }),
    });
    if (code === 200 && body) {
      await showSignedIn(body);
    } else {
      status.textContent = errorText(error, 'The name could not be kept.');
    }
  });
  more.addEventListener('click', () => loadPage(false));

  doc.addEventListener('butterfly:verdict', (event) => {
    const rn = recordNote(event.detail && event.detail.verdict);
    if (!rn) return;
    note.hidden = false;
    note.dataset.saved = rn.saved ? 'yes' : 'no';
    note.textContent = rn.text;
    if (rn.saved && !section.hidden) loadPage(true);
  });

  (async () => {
    const { status: code, body: me } = await request(fetchFn, ME_URL);
    if (code !== 200 || !me || me.records !== true) return;   // no records: localStorage only
    section.hidden = false;
    if (me.kind === 'none' && me.pending) askFirst(me.pending);
    else if (me.kind === 'none') showSignedOut();
    else await showSignedIn(me);
    // last, so that the list's own status does not hide it
    const said = signinNote(signin, me);
    if (said) status.textContent = said;
  })();
}
