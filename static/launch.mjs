// launch.mjs - the LTI launch this tab came from. The server lands each
// launch from a course on /#launch=TAG (a resource link, signed for the
// student); the page sends TAG with each submission (LAUNCH_HEADER), so a
// student with the exercise open from two courses in two tabs is scored
// in each tab's own course, not in the course launched last. The tag is
// kept in sessionStorage (one per tab) so that a reload, or a later
// address without the fragment, still names it. Pure but for the
// defaults of currentLaunch (the page's location and sessionStorage).

export const LAUNCH_HEADER = 'X-Butterfly-Launch';
const STORAGE_KEY = 'butterfly:launch';
const TAG = /^[1-9][0-9]{0,17}\.[0-9a-f]{32}$/;

/* The tag in an address's fragment ("#launch=TAG", among other
 * fragment parameters or alone), or null when there is none. */
export function launchFromHash(hash) {
  if (typeof hash !== 'string') return null;
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const tag = params.get('launch');
  return tag && TAG.test(tag) ? tag : null;
}

function tabStorage() {
  try {
    return globalThis.sessionStorage || null;
  } catch {
    return null;   // storage refused (a sandboxed frame): the fragment alone
  }
}

/* This tab's launch: the address's (then kept), else the one kept for
 * this tab, else null (not launched from a course). */
export function currentLaunch(hash = globalThis.location ? globalThis.location.hash : '', storage = tabStorage()) {
  const fromHash = launchFromHash(hash);
  try {
    if (fromHash && storage) storage.setItem(STORAGE_KEY, fromHash);
    if (fromHash) return fromHash;
    const kept = storage ? storage.getItem(STORAGE_KEY) : null;
    return kept && TAG.test(kept) ? kept : null;
  } catch {
    return fromHash;
  }
}

/* The headers that name a launch to the server: {} for none. */
export function launchHeaders(tag) {
  return tag ? { [LAUNCH_HEADER]: tag } : {};
}
