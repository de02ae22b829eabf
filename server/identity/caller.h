/* caller.h - who a request is for, and the routes that sign in and out. */
#ifndef BUTTERFLY_CALLER_H
#define BUTTERFLY_CALLER_H

#include "server/core/http.h"

/* POST /api/session's bound: {"name": ...}, a name MAX_DISPLAY_NAME_BYTES. */
#define CALLER_SESSION_MAX_BODY 4096

/* The request's principal from its cookies or token; a token is looked up
 * on the reader's thread (REQ_LOOKUP, then caller_resume). True when the
 * request goes on to its route; false when *answer was queued instead
 * (401, 429, 403, a 303 for a link) or the request is suspended. */
bool caller_begin(struct request *r, enum MHD_Result *answer);

/* After the look-up: as caller_begin. */
bool caller_resume(struct request *r, enum MHD_Result *answer);

/* GET /api/me: who the page is signed in as (and a link's sign-in waiting). */
enum MHD_Result caller_me(struct request *r);

/* POST /api/session: headers in (the body's bound), then the body complete
 * (an open lab's display name, or the answer to "Sign in as NAME?"). */
enum MHD_Result caller_session_begin(struct request *r);
enum MHD_Result caller_session_finish(struct request *r);

/* DELETE /api/session: signs this browser out (the cookie is cleared). */
enum MHD_Result caller_session_end(struct request *r);

/* Whether client may start one more guest session or LTI login now
 * (SIGN_INS_PER_WINDOW in SIGN_IN_WINDOW_S), counting it; when not, a
 * 429 with Retry-After is queued and *refused is its result. */
bool caller_sign_in_allowed(struct request *r, enum MHD_Result *refused);

/* Whether r is the instructor's own request (the class view's API): true
 * when it is; false when *answer was queued: 403 for a cross-site read
 * with a cookie, 401 for nobody, 403 for a student. */
bool caller_instructor(struct request *r, enum MHD_Result *answer);

#endif
