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
 * (no `recorded` field), else {saved, text}. me is GET /api/me's answer
 * when the run was answered: "Saved to your attempts" only of a record
 * that is the student's (a run from a page signed in as nobody is kept,
 * but as nobody's). */
export function recordNote(verdict, me = null) {
  if (!verdict || typeof verdict.recorded !== 'boolean') return null;
  if (verdict.recorded && me && (me.kind === 'student' || me.kind === 'guest')) {
    return { saved: true, text: 'Saved to your attempts.' };
  }
  if (verdict.recorded && me && me.kind === 'instructor') return { saved: true, text: 'Saved, as the instructor’s run.' };
  if (verdict.recorded) {
    return { saved: false, text: 'Not saved to your attempts: this page is not signed in, so the run is nobody’s. Sign in at the top of the page, then run again.' };
  }
  // refused, not failed: the instructor removed this student from the
  // class (butterfly-admin forget) while the run was graded
  if (verdict.record_error && verdict.record_error.code === 'student_forgotten') {
    return { saved: false, text: 'Not saved: you were removed from this class while the run was graded, so it is not recorded. Your code is still in this browser.' };
  }
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

/* The sentence at the top of the page for GET /api/me's answer. */
export function whoText(me) {
  if (!me || me.kind === 'none') return 'Not signed in.';
  if (me.kind === 'instructor') return 'Signed in as the instructor.';
  if (me.kind === 'guest') return `Signed in as ${me.name} (a name you gave: not checked).`;
  // a roster student's section, when the roster gives one (GET /api/me's
  // `section`; an LTI launch's learner has none)
  const section = typeof me.section === 'string' && me.section ? ` (section ${me.section})` : '';
  return `Signed in as ${me.name}${section}.`;
}

/* A link opened on a page signed in as someone else (GET /api/me names
 * both): the page signs in as nobody new until its session is gone. */
export function otherText(me) {
  if (!me || me.kind === 'none' || !me.pending || typeof me.pending.name !== 'string') return '';
  const as = me.kind === 'instructor' ? 'the instructor' : me.name;
  return `This page is signed in as ${as}. The link is for ${me.pending.name}: sign out first.`;
}

/*
 * What the page must ask before a run, for GET /api/me's answer `me` and
 * whether an open lab's name form is on show: null when a run may go, else
 * {ask, text} with ask 'confirm' (a link's sign-in waits: "Is that
 * you?"), 'other' (a link for someone else than the page's session) or
 * 'name' (an open lab, no name yet), and the sentence the results show.
 * A run before that would be recorded as nobody's, or as the wrong
 * student's.
 */
export function runHold(me, nameForm) {
  if (!me || me.records !== true) return null;
  if (me.pending && me.kind === 'none') {
    return { ask: 'confirm', text: `Not run yet: first answer the question at the top of the page (is the link yours, ${me.pending.name}?), so that the run is kept as yours.` };
  }
  if (me.pending) {
    return { ask: 'other', text: `Not run yet: ${otherText(me)} Otherwise the run would be recorded as theirs.` };
  }
  if (me.kind === 'none' && nameForm) {
    return { ask: 'name', text: 'Not run yet: first give your name at the top of the page, so that the run is kept as yours.' };
  }
  return null;
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
  if (me.pending) return null;   // the question at the top says it (otherText)
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
  const bar = doc.getElementById('signin');
  if (!section || !bar) return;
  const who = doc.getElementById('history-who');
  const list = doc.getElementById('history-list');
  const more = doc.getElementById('history-more');
  const form = doc.getElementById('history-name-form');
  const note = doc.getElementById('record-note');
  const status = doc.getElementById('history-status');
  const said = doc.getElementById('signin-status');
  const signOut = doc.getElementById('history-sign-out');
  const latest = doc.getElementById('history-latest');
  const confirmBox = doc.getElementById('history-confirm');
  const confirmYes = doc.getElementById('history-confirm-yes');
  const confirmNo = doc.getElementById('history-confirm-no');
  const otherBox = doc.getElementById('signin-other');
  const otherOut = doc.getElementById('signin-other-out');
  let next = null;
  let me = null;          // GET /api/me's last answer (or POST/DELETE /api/session's)
  let latestId = null;    // the newest attempt's id, once listed
  let heldRun = false;    // a Run waits for the question's answer
  let known = false;      // GET /api/me has answered (or failed): until then a Run waits

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

  /* A second browser (no draft of its own: the editor holds the starter)
   * is offered the newest attempt's code at the top. */
  function updateLatest() {
    latest.hidden = !(latestId && doc.body.dataset.draft === 'starter');
  }

  async function loadPage(reset) {
    const url = reset || !next ? MY_SUBMISSIONS_URL : `${MY_SUBMISSIONS_URL}?before=${encodeURIComponent(next)}`;
    const { ok, body } = await request(fetchFn, url);
    if (!ok || !body || !Array.isArray(body.submissions)) {
      status.textContent = 'Your earlier attempts cannot be shown right now.';
      return;
    }
    if (reset) {
      list.replaceChildren();
      latestId = body.submissions.length ? String(body.submissions[0].id) : null;
      updateLatest();
    }
    addRows(body.submissions);
    next = typeof body.next === 'string' ? body.next : null;
    more.hidden = next === null;
    status.textContent = list.children.length ? '' : 'No attempts yet: press Run.';
  }

  async function loadAttempt(id, button) {
    const { ok, body } = await request(fetchFn, `/api/submissions/${encodeURIComponent(id)}`);
    if (!ok || !body || typeof body.source !== 'string') {
      status.textContent = 'That attempt could not be loaded.';
      return false;
    }
    doc.dispatchEvent(new CustomEvent('butterfly:load-source', { detail: { source: body.source, record: body } }));
    status.textContent = 'The attempt’s code is in the editor.';
    if (button) button.blur();
    return true;
  }

  function hideQuestions() {
    confirmBox.hidden = true;
    otherBox.hidden = true;
    bar.dataset.ask = '';
  }

  /* A run held for the question goes once it is answered yes (or the
   * name given); any other answer leaves it to the student. */
  function runHeld() {
    if (!heldRun) return;
    heldRun = false;
    doc.dispatchEvent(new CustomEvent('butterfly:run'));
  }

  async function showSignedIn(answer) {
    me = answer;
    hideQuestions();
    who.textContent = whoText(me);
    form.hidden = true;
    signOut.hidden = false;
    if (me.kind === 'instructor') return;
    await loadPage(true);
  }

  function showSignedOut(answer) {
    me = answer || { kind: 'none', name: '', records: true };
    hideQuestions();
    who.textContent = 'Not signed in: open your personal link, or give your name to keep your attempts.';
    form.hidden = false;
    signOut.hidden = true;
    list.replaceChildren();
    list.hidden = true;
    more.hidden = true;
    next = null;
    latestId = null;
    updateLatest();
  }

  let asked = null;   // GET /api/me's pending: whom the question is about

  function askFirst(answer) {
    showSignedOut(answer);
    form.hidden = true;
    who.textContent = 'Not signed in yet.';
    asked = answer.pending;
    doc.getElementById('history-confirm-text').textContent = confirmText(asked);
    confirmYes.textContent = `Sign in as ${asked.name}`;
    confirmBox.hidden = false;
    bar.dataset.ask = 'yes';
  }

  /* Signed in as A with B's link waiting: one way on, signing out. */
  async function askOther(answer) {
    await showSignedIn(answer);
    doc.getElementById('signin-other-text').textContent = otherText(answer);
    otherBox.hidden = false;
    signOut.hidden = true;   // one button, the notice's own
    bar.dataset.ask = 'yes';
  }

  async function show(answer) {
    if (answer.kind === 'none' && answer.pending) askFirst(answer);
    else if (answer.kind === 'none') showSignedOut(answer);
    else if (answer.pending) await askOther(answer);
    else await showSignedIn(answer);
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
      said.textContent = 'The server could not be reached; try again.';
      return;
    }
    if (code === 200 && body && body.kind !== 'none') {
      await showSignedIn(body);
      said.textContent = 'Signed in.';
      runHeld();
    } else {
      heldRun = false;
      showSignedOut(code === 200 && body ? body : null);
      said.textContent = code === 200
        ? 'Not signed in: that link was not yours. Ask your instructor for your own.'
        : errorText(error, 'That did not work; open your link again.');
    }
  }
  confirmYes.addEventListener('click', () => answer(true));
  confirmNo.addEventListener('click', () => answer(false));

  /* Signs out; the answer names a link's sign-in left waiting (a link
   * opened while signed in as someone else), and the page then asks. */
  async function signOutNow() {
    const r = await request(fetchFn, SESSION_URL, { method: 'DELETE', headers: CSRF_HEADERS });
    if (r.status !== 200) {
      said.textContent = errorText(r.error, 'Signing out did not work; try again.');
      return;
    }
    const body = r.body && typeof r.body === 'object' ? r.body : null;
    if (body && body.pending) {
      askFirst(body);
      said.textContent = 'Signed out.';
      confirmYes.focus();
      return;
    }
    heldRun = false;
    showSignedOut(body);
    said.textContent = 'Signed out: this browser no longer keeps your session.';
    doc.getElementById('history-name').focus();
  }
  signOut.addEventListener('click', signOutNow);
  otherOut.addEventListener('click', signOutNow);

  latest.addEventListener('click', async () => {
    if (latestId && await loadAttempt(latestId, null)) {
      latest.hidden = true;
      said.textContent = 'Your latest attempt’s code is in the editor.';
    }
  });
  doc.addEventListener('butterfly:draft-state', updateLatest);

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
      said.textContent = '';
      runHeld();
    } else if (error && error.code === 'roster') {
      // a class with a roster: names are not how it signs in, so the form
      // goes and a run is not held for it
      form.hidden = true;
      heldRun = false;
      who.textContent = 'Not signed in: this class signs in with personal links. Open yours.';
      said.textContent = errorText(error, '');
    } else {
      said.textContent = errorText(error, 'The name could not be kept.');
    }
  });
  more.addEventListener('click', () => loadPage(false));

  /* Run asks first (app.mjs sends this, cancelable, before each run):
   * while a link's question waits, or an open lab has no name yet, the run
   * is held, the question is brought into view and focused, and it goes
   * once the answer is yes; the results are left as they are. */
  doc.addEventListener('butterfly:before-run', (event) => {
    if (!known) {   // who this page is for is not known yet: the run goes once it is
      event.preventDefault();
      heldRun = true;
      return;
    }
    const hold = runHold(me, !form.hidden);
    if (!hold) return;
    event.preventDefault();
    said.textContent = hold.text;
    heldRun = true;
    const target = hold.ask === 'confirm' ? confirmYes : hold.ask === 'other' ? otherOut : doc.getElementById('history-name');
    bar.scrollIntoView({ block: 'nearest' });
    target.focus();
  });

  /* The server refused a run because a link's sign-in waits (409
   * sign_in_pending: a question this page has not shown, from another tab
   * or a link opened since): ask it now. */
  doc.addEventListener('butterfly:sign-in-pending', () => {
    said.textContent = 'Not run yet: a sign-in is waiting for your answer here. Answer it, and the run goes.';
    heldRun = true;
    (async () => {
      const r = await request(fetchFn, ME_URL);
      if (r.status !== 200 || !r.body) return;
      await show(r.body);
      const target = !confirmBox.hidden ? confirmYes : !otherBox.hidden ? otherOut : null;
      if (!target) { heldRun = false; return; }
      bar.scrollIntoView({ block: 'nearest' });
      target.focus();
    })();
  });

  doc.addEventListener('butterfly:verdict', (event) => {
    const rn = recordNote(event.detail && event.detail.verdict, me);
    if (!rn) return;
    note.hidden = false;
    note.dataset.saved = rn.saved ? 'yes' : 'no';
    note.textContent = rn.text;
    if (rn.saved && !section.hidden && me && me.kind !== 'instructor') loadPage(true);
  });

  /* A Run pressed before GET /api/me answered: now it goes, or waits
   * for the question the answer brings (focused, as a Run would). */
  function afterKnown() {
    known = true;
    if (!heldRun) return;
    heldRun = false;
    const event = new CustomEvent('butterfly:run');
    const hold = runHold(me, !form.hidden);
    if (!hold) {
      doc.dispatchEvent(event);
      return;
    }
    heldRun = true;
    said.textContent = hold.text;
    const target = hold.ask === 'confirm' ? confirmYes : hold.ask === 'other' ? otherOut : doc.getElementById('history-name');
    target.focus();
  }

  (async () => {
    try {
      const { status: code, body } = await request(fetchFn, ME_URL);
      if (code !== 200 || !body || body.records !== true) return;   // no records: localStorage only
      section.hidden = false;
      bar.hidden = false;
      await show(body);
      // last, so that the list's own status does not hide it
      const line = signinNote(signin, body);
      if (line) said.textContent = line;
    } finally {
      afterKnown();
      // for tests: the first answer is on show
      section.dataset.ready = 'true';
    }
  })();
}
