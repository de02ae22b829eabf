// course.mjs - the course around this task, as an instructor describes it
// in static/course.json (see README): links to show under the task (none
// by default) and where Accepted sends the student next. Pure: whatever
// the file holds goes in, a safe shape comes out.

export const COURSE_URL = '/static/course.json';
export const EMPTY_COURSE = Object.freeze({ links: Object.freeze([]), next: null });

const MAX_LINKS = 50;
const MAX_TITLE = 200;
const MAX_URL = 2048;

/*
 * The URL as written when it is an http(s) address or a relative one,
 * else null: a `javascript:` or `data:` link from a mistyped (or hostile)
 * course file must not become something a student clicks.
 */
export function safeUrl(url) {
  if (typeof url !== 'string') return null;
  const text = url.trim();
  if (!text || text.length > MAX_URL) return null;
  let parsed;
  try {
    parsed = new URL(text, 'https://course.invalid/');
  } catch {
    return null;
  }
  return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? text : null;
}

function title(v) {
  if (typeof v !== 'string') return null;
  const t = v.trim().replace(/\s+/g, ' ');
  return t ? t.slice(0, MAX_TITLE) : null;
}

/*
 * {links: [{title, url | null, current}], next: {title, url} | null} from
 * the parsed course.json; anything else gives EMPTY_COURSE. A link needs a
 * title; its url is dropped when unsafe (the title still shows, as text);
 * `current: true` marks this task. `next` needs both a title and a safe url.
 */
export function parseCourse(raw) {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return EMPTY_COURSE;
  const links = [];
  for (const item of Array.isArray(raw.links) ? raw.links.slice(0, MAX_LINKS) : []) {
    if (!item || typeof item !== 'object') continue;
    const t = title(item.title);
    if (!t) continue;
    links.push({ title: t, url: safeUrl(item.url), current: item.current === true });
  }
  let next = null;
  if (raw.next && typeof raw.next === 'object') {
    const t = title(raw.next.title);
    const u = safeUrl(raw.next.url);
    if (t && u) next = { title: t, url: u };
  }
  return { links, next };
}

/* {n, of} from a subtitle such as "Task 2 of 6", else null. */
export function taskPosition(subtitle) {
  const m = /\btask\s+(\d+)\s+of\s+(\d+)\b/i.exec(String(subtitle ?? ''));
  if (!m) return null;
  const n = Number(m[1]);
  const of = Number(m[2]);
  return n >= 1 && n <= of ? { n, of } : null;
}

/*
 * Where an Accepted verdict points: {link: {title, url}} when the course
 * names its next step, else {text} in words, built from the task's place
 * in the course when the subtitle gives it.
 */
export function nextStep(course, subtitle) {
  if (course && course.next) return { link: course.next, text: null };
  const pos = taskPosition(subtitle);
  if (pos && pos.n < pos.of) {
    return { link: null, text: `go on to task ${pos.n + 1} of ${pos.of} from your course’s page.` };
  }
  if (pos) return { link: null, text: 'this was the last task of the course: back to your course’s page.' };
  return { link: null, text: 'go on to the next task from your course’s page.' };
}
