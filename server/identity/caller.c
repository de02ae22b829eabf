/*
 * caller.c - who a request is for: its session and pending cookies, a
 * bearer token, a personal link or the instructor's address looked up on
 * the reader's thread; and the routes that change it (POST and DELETE
 * /api/session, GET /api/me).
 *
 * Nothing here calls the store on libmicrohttpd's thread: a token to look
 * up or a display name to keep is a job for the reader's thread
 * (records_read), which fills the request and resumes its connection.
 */
#include "server/identity/caller.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/defaults.h"
#include "gradebook/student_id.h"
#include "server/core/body.h"
#include "server/core/cookie.h"
#include "server/core/route.h"
#include "server/identity/auth.h"
#include "server/identity/deferred.h"
#include "server/identity/records.h"
#include "server/identity/session.h"
#include "server/identity/token_guard.h"

_Static_assert(STORE_MAX_STUDENT_ID < PRINCIPAL_ID_MAX, "a session holds a roster id whole");

/* answer is what was queued (or MHD_YES, suspended): the request does not
 * go on to its route */
static bool caller_answered(enum MHD_Result *answer, enum MHD_Result a)
{
    *answer = a;
    return false;
}

/* Fills the header "Set-Cookie: name=value" (value made by the caller,
 * lasting life_s; freed here) into out ("" on failure). */
static void named_cookie(struct request *r, const char *name, char *value, unsigned life_s,
                         char *out, size_t n)
{
    char header[SESSION_HEADER_MAX];
    out[0] = '\0';
    if (value && cookie_set(name, value, r->secure, life_s, header, sizeof header))
        snprintf(out, n, "Set-Cookie: %s", header);
    free(value);
}

/* Fills the session cookie header for who into out ("" on failure). */
static void cookie_for(struct request *r, const struct principal *who, char *out, size_t n)
{
    named_cookie(r, SESSION_COOKIE,
                 session_cookie_make(records_session_key(r->srv->records), who, time(NULL),
                                     SESSION_LIFETIME_S),
                 SESSION_LIFETIME_S, out, n);
}

/* Fills the header that clears the pending cookie into out, when one came
 * with the request ("" when none did, or on failure). */
static void clear_pending(struct request *r, char *out, size_t n)
{
    char header[256];
    out[0] = '\0';
    if (r->had_pending &&
        cookie_set(PENDING_COOKIE, NULL, r->secure, 0, header, sizeof header))
        snprintf(out, n, "Set-Cookie: %s", header);
}

/* 303 to location, with the session cookie for r->who when set_cookie,
 * and the pending one for r->pending when the link asks first. */
static enum MHD_Result redirect(struct request *r, const char *location, bool set_cookie)
{
    struct MHD_Response *resp = response_from_buffer(NULL, 0, MHD_RESPMEM_PERSISTENT);
    if (!resp)
        return response_out_of_memory(r);
    response_header(r, resp, MHD_HTTP_HEADER_LOCATION, location);
    char pair[SESSION_HEADER_MAX + 16];   /* "Set-Cookie: " and the header */
    if (set_cookie) {
        cookie_for(r, &r->who, pair, sizeof pair);
        if (pair[0])
            response_add_pair(r, resp, pair);
    }
    if (r->link_pending) {
        named_cookie(r, PENDING_COOKIE,
                     session_pending_make(records_session_key(r->srv->records), &r->pending,
                                          time(NULL)),
                     PENDING_LIFETIME_S, pair, sizeof pair);
        if (pair[0])
            response_add_pair(r, resp, pair);
    }
    return response_queue(r, 303, resp, "text/plain; charset=utf-8", NULL);
}

/* --- who is asking ---------------------------------------------------------- */

/* On the reader's thread: whose token r->token is. */
static void lookup_call(struct store *s, void *arg)
{
    struct request *r = arg;
    struct store_error e = { 0 };
    struct store_student st = { 0 };
    enum store_status status = STORE_NOT_FOUND;
    struct principal found = { .kind = PRINCIPAL_NONE };
    if (r->lookup == LOOKUP_BEARER || r->lookup == LOOKUP_CLASS) {
        READ_TWICE(status, store_instructor_check(s, r->token, &e));
        if (status == STORE_OK)
            found.kind = PRINCIPAL_INSTRUCTOR;
    }
    if (status == STORE_NOT_FOUND && r->lookup != LOOKUP_CLASS) {
        READ_TWICE(status, store_student_by_token(s, r->token, &st, &e));
        /* a roster imported before rosters were checked may hold an id
         * that is not text (Latin-1): no JSON answer can carry it, so its
         * token is no token (401), never a dropped connection */
        if (status == STORE_OK && gradebook_text_problem(st.id, strlen(st.id)))
            status = STORE_NOT_FOUND;
        if (status == STORE_OK) {
            found.kind = st.verified ? PRINCIPAL_STUDENT : PRINCIPAL_GUEST;
            snprintf(found.id, sizeof found.id, "%s", st.id);
            /* and a name that is not text is shown as printable text */
            char *name = gradebook_text_problem(st.name, strlen(st.name))
                             ? gradebook_display(st.name, strlen(st.name)) : NULL;
            snprintf(found.name, sizeof found.name, "%s", name ? name : st.name);
            free(name);
            /* the section the top of the page shows, as text and cut to
             * its bound at a character (a section that is not text: none) */
            if (st.section && !gradebook_text_problem(st.section, strlen(st.section)))
                session_clean_name(st.section, found.section, sizeof found.section);
        }
        store_student_clear(&st);
    }
    r->lookup_status = status;
    if (status == STORE_OK) {
        /* the session made from this token ends when the token is renewed */
        session_fingerprint_token(r->token, found.cred);
        found.has_cred = true;
        bool other = r->lookup == LOOKUP_LINK && r->who.kind != PRINCIPAL_NONE &&
                     !principal_same(&r->who, &found);
        /* a link on a page signed in as nobody asks first: it might be a
         * classmate's, sent to sign you in as them. One for someone else
         * than the page's session leaves that session whose it is, and
         * waits too: the page says "sign out first", then asks (a lab PC
         * the last student left signed in) */
        if (r->lookup == LOOKUP_LINK && (r->who.kind == PRINCIPAL_NONE || other)) {
            r->pending = found;
            r->link_pending = true;
            r->link_other = other;
        } else {
            r->who = found;
        }
    }
    MHD_resume_connection(r->conn);
}

/* The routes that act for the request's session (or sign one in): two
 * session cookies are refused there. The page, its files, the task, the
 * probes and LTI are answered as for nobody (LTI's launch signs in by its
 * id_token, and replaces the session). */
static bool session_route(enum route route)
{
    switch (route) {
    case ROUTE_NONE: case ROUTE_PAGE: case ROUTE_STATIC: case ROUTE_TASKS: case ROUTE_TASK:
    case ROUTE_HEALTH: case ROUTE_ABOUT: case ROUTE_METRICS: case ROUTE_OPENAPI:
    case ROUTE_LTI_LOGIN: case ROUTE_LTI_LAUNCH: case ROUTE_LTI_JWKS:
    case ROUTE_LTI_DEEP_LINK: case ROUTE_LTI_CANVAS:
        return false;
    default:
        return true;
    }
}

/* The answers that may set or clear our cookies: not a file of the static
 * set, nor a probe (a cache may keep those). */
static bool cookie_route(enum route route)
{
    return session_route(route) || route == ROUTE_PAGE || route == ROUTE_LTI_LOGIN ||
           route == ROUTE_LTI_LAUNCH || route == ROUTE_LTI_DEEP_LINK;
}

/* How many of each cookie of ours came, counted over every Cookie header. */
struct cookie_counts {
    unsigned session_host, session_bare, pending_host, pending_bare;
};

static enum MHD_Result count_cookie_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                           const char *value)
{
    struct cookie_counts *c = cls;
    (void)kind;
    if (!key || strcasecmp(key, MHD_HTTP_HEADER_COOKIE) != 0 || !value)
        return MHD_YES;
    /* each count stops at 2 (cookie_count), and the header is
     * within libmicrohttpd's memory limit for a connection */
    c->session_host += cookie_count(value, COOKIE_HOST_PREFIX SESSION_COOKIE);
    c->session_bare += cookie_count(value, SESSION_COOKIE);
    c->pending_host += cookie_count(value, COOKIE_HOST_PREFIX PENDING_COOKIE);
    c->pending_bare += cookie_count(value, PENDING_COOKIE);
    return MHD_YES;
}

/*
 * The session and pending cookies' values for r (NULL: none to read), and
 * what the answer clears (r->clear_cookies) or renames. Over TLS the
 * __Host- names are ours; a bare-named session there is an older
 * server's, honoured once and renamed (caller_begin checks it is one), and
 * every bare name is cleared. Over plain http only the bare names count
 * (a browser sends __Host- cookies only over TLS). False when two
 * sessions came (two values of one name, or both names) on a route that
 * acts for the session: the caller refuses both, since which one the
 * browser put first is the tosser's choice.
 */
static bool read_cookies(struct request *r, const char **session, const char **pending)
{
    struct cookie_counts c = { 0 };
    MHD_get_connection_values(r->conn, MHD_HEADER_KIND, count_cookie_header, &c);
    if (!r->secure)
        c.session_host = c.pending_host = 0;
    unsigned sessions = c.session_host + c.session_bare;
    r->has_cookie = sessions > 0;
    r->had_pending = c.pending_host + c.pending_bare > 0;
    bool cookies = cookie_route(r->route);
    if (cookies && r->secure && c.session_bare)
        r->clear_cookies |= COOKIE_CLEAR_SESSION_BARE;
    if (cookies && r->secure && c.pending_bare)
        r->clear_cookies |= COOKIE_CLEAR_PENDING_BARE;
    if (sessions > 1) {
        if (cookies)
            r->clear_cookies |= COOKIE_CLEAR_SESSION;
        /* signing out acts for nobody, and its answer clears both names:
         * the page's way out of two */
        bool sign_out = r->route == ROUTE_SESSION && !strcmp(r->method, "DELETE");
        if (session_route(r->route) && !sign_out)
            return false;
    } else if (c.session_host == 1) {
        *session = MHD_lookup_connection_value(r->conn, MHD_COOKIE_KIND,
                                               COOKIE_HOST_PREFIX SESSION_COOKIE);
    } else if (c.session_bare == 1) {
        *session = MHD_lookup_connection_value(r->conn, MHD_COOKIE_KIND, SESSION_COOKIE);
        if (r->secure && cookies)
            r->session_to_rename = *session;
        else if (r->secure)
            *session = NULL;   /* not renamed on this answer: not honoured on it */
    }
    /* a pending sign-in is only a question the page asks: two, or one
     * under the bare name over TLS, is none (and is cleared) */
    if (r->secure && c.pending_host == 1 && !c.pending_bare)
        *pending = MHD_lookup_connection_value(r->conn, MHD_COOKIE_KIND,
                                               COOKIE_HOST_PREFIX PENDING_COOKIE);
    else if (!r->secure && c.pending_bare == 1)
        *pending = MHD_lookup_connection_value(r->conn, MHD_COOKIE_KIND, PENDING_COOKIE);
    return true;
}

bool caller_begin(struct request *r, enum MHD_Result *answer)
{
    struct server *s = r->srv;
    if (!s->records)
        return true;   /* no records: today's server, no sessions */
    const char *cookie = NULL, *pending = NULL;
    if (!read_cookies(r, &cookie, &pending))
        return caller_answered(answer, response_error(r, ERROR_TWO_SESSIONS,
                              "This request carries two session cookies (one may be another "
                              "site's, set to sign you in as someone else): both are refused. "
                              "Clear this site's cookies and sign in again.", NULL, NULL));
    /* a forged, altered or expired cookie is simply no session, and so is
     * one made from a token since renewed or for a student forgotten */
    if (session_cookie_read(records_session_key(s->records), cookie, time(NULL), &r->who) &&
        !records_session_current(s->records, &r->who))
        memset(&r->who, 0, sizeof r->who);
    if (r->session_to_rename && !r->who.before_host_names) {
        /* made by this server for the __Host- name, found under the bare
         * one: tossed there by another host (cookie tossing), no session */
        memset(&r->who, 0, sizeof r->who);
    }
    if (r->who.kind == PRINCIPAL_NONE)
        r->session_to_rename = NULL;
    /* and a link waiting for "Sign in as NAME?", by the same rules */
    if (session_pending_read(records_session_key(s->records), pending, time(NULL), &r->pending) &&
        !records_session_current(s->records, &r->pending))
        memset(&r->pending, 0, sizeof r->pending);
    const char *authz = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                    MHD_HTTP_HEADER_AUTHORIZATION);
    const char *q = NULL;
    /* another scheme is another layer's credential (nginx's auth_basic in
     * front of a lab): no token of ours, and the request goes on */
    if (authz && strncasecmp(authz, "Bearer", 6) != 0)
        authz = NULL;
    if (authz) {
        if (!auth_bearer(authz, r->token, sizeof r->token))
            return caller_answered(answer, response_error(r, ERROR_UNAUTHORIZED,
                                  "Send Authorization: Bearer TOKEN with your own token.",
                                  MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer"));
        r->lookup = LOOKUP_BEARER;
    } else if (r->route == ROUTE_PAGE &&
               (q = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "k"))) {
        r->lookup = LOOKUP_LINK;
    } else if (r->route == ROUTE_CLASS &&
               (q = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "token"))) {
        r->lookup = LOOKUP_CLASS;
    }
    if (r->lookup == LOOKUP_NONE)
        return true;
    size_t qn = q ? auth_token_len(q) : 0;
    if (q)
        snprintf(r->token, sizeof r->token, "%.*s",
                 (int)(qn < sizeof r->token ? qn : sizeof r->token - 1), q);
    unsigned retry = 0;
    if (!token_guard_allow(s->guard, &r->client, time(NULL), &retry)) {
        char secs[16];
        snprintf(secs, sizeof secs, "%u", retry);
        return caller_answered(answer, response_error(r, ERROR_TOO_MANY_TOKEN_FAILURES,
                              "Too many wrong tokens from this address; wait and try again.",
                              MHD_HTTP_HEADER_RETRY_AFTER, secs));
    }
    if (!q || qn < sizeof r->token) {
        if (auth_token_shape(r->token)) {
            MHD_suspend_connection(r->conn);
            r->state = REQ_LOOKUP;
            if (!records_read(s->records, lookup_call, r)) {
                r->lookup_status = STORE_UNAVAILABLE;
                MHD_resume_connection(r->conn);
            }
            return caller_answered(answer, MHD_YES);
        }
    }
    /* not a token's shape: wrong without a look-up */
    r->lookup_status = STORE_NOT_FOUND;
    return caller_resume(r, answer);
}

bool caller_resume(struct request *r, enum MHD_Result *answer)
{
    struct server *s = r->srv;
    memset(r->token, 0, sizeof r->token);
    if (r->lookup_status == STORE_NOT_FOUND) {
        token_guard_count(s->guard, &r->client, time(NULL));
        if (r->lookup == LOOKUP_LINK)
            return caller_answered(answer, redirect(r, "/?signin=failed", false));
        return caller_answered(answer, response_error(
            r, ERROR_UNAUTHORIZED, r->lookup == LOOKUP_CLASS
                ? "This is not the instructor's token." : "The token is not valid.",
            MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer"));
    }
    if (r->lookup_status != STORE_OK) {
        /* the store cannot say who this is: a submission is graded
         * unattributed (and not recorded, see submission.c); the rest wait */
        if (r->lookup == LOOKUP_BEARER && r->route == ROUTE_SUBMIT) {
            memset(&r->who, 0, sizeof r->who);
            return true;
        }
        return caller_answered(answer, response_error(r, ERROR_STORE_UNAVAILABLE,
                              "The records cannot be read now; try again shortly.",
                              MHD_HTTP_HEADER_RETRY_AFTER, "5"));
    }
    /* a link or the instructor's address: the token becomes a cookie and
     * leaves the address bar (and so the history and any Referer); a link
     * for someone else than the page's session changes nothing, and the
     * page says to sign out first */
    char to[64];
    if (r->lookup == LOOKUP_LINK) {
        /* the page, with the question the link leaves it (app.mjs reads it) */
        route_link(ROUTE_PAGE, NULL, to, sizeof to);
        if (r->link_other || r->link_pending)
            strncat(to, r->link_other ? "?signin=other" : "?signin=confirm",
                    sizeof to - strlen(to) - 1);
        return caller_answered(answer, redirect(r, to, !r->link_other && !r->link_pending));
    }
    if (r->lookup == LOOKUP_CLASS) {
        route_link(ROUTE_CLASS, NULL, to, sizeof to);
        return caller_answered(answer, redirect(r, to, true));
    }
    return true;
}

static json_t *me_json(const struct request *r)
{
    json_t *j = json_pack("{s:s, s:s, s:s, s:b}", "kind", principal_kind_to_str(r->who.kind),
                          "name", r->who.name, "section", r->who.section,
                          "records", r->srv->records != NULL);
    /* a link's sign-in waiting for the page to ask: on a page signed in
     * as nobody, or as someone else (the page says to sign out first) */
    if (j && r->pending.kind != PRINCIPAL_NONE &&
        (r->who.kind == PRINCIPAL_NONE || !principal_same(&r->who, &r->pending)))
        json_object_set_new(j, "pending",
                            json_pack("{s:s, s:s, s:s}", "kind",
                                      principal_kind_to_str(r->pending.kind), "name",
                                      r->pending.name, "id", r->pending.id));
    return j;
}

enum MHD_Result caller_me(struct request *r)
{
    return response_json(r, 200, me_json(r));
}

/* --- an open lab's display name, and signing out ----------------------------- */

/* What an answer does to the session cookie. */
enum session_cookie_change { SESSION_KEPT, SESSION_SET, SESSION_CLEARED };

static enum MHD_Result me_with_cookies(struct request *r, enum session_cookie_change session,
                                       bool keep_pending);

enum MHD_Result caller_session_end(struct request *r)
{
    if (!r->srv->records)
        return response_error(r, ERROR_NOT_FOUND, "This server keeps no records.", NULL, NULL);
    /* the cookie is signed, not kept: signing out is the browser
     * forgetting it, so the answer clears it (a copy taken elsewhere lasts
     * until its token is renewed or it expires). A link's sign-in left
     * waiting stays: it only asks, and it is how a link opened on a page
     * signed in as someone else asks "Sign in as NAME?" once that
     * session is gone (the page's "sign out first") */
    memset(&r->who, 0, sizeof r->who);
    return me_with_cookies(r, SESSION_CLEARED, true);
}

/* 200 with GET /api/me's answer for r; the session cookie as `session`
 * says; a pending cookie that came cleared unless keep_pending. */
static enum MHD_Result me_with_cookies(struct request *r, enum session_cookie_change session,
                                       bool keep_pending)
{
    json_t *j = me_json(r);
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text)
        return response_error(r, ERROR_INTERNAL_ERROR, "The answer could not be written.", NULL,
                               NULL);
    struct MHD_Response *resp = response_from_buffer(text, strlen(text), MHD_RESPMEM_MUST_FREE);
    if (!resp)
        return response_queue(r, 200, NULL, "application/json", NULL);
    char header[SESSION_HEADER_MAX + 16];   /* "Set-Cookie: " and the header */
    if (session == SESSION_SET) {
        cookie_for(r, &r->who, header, sizeof header);
        if (header[0])
            response_add_pair(r, resp, header);
    } else if (session == SESSION_CLEARED) {
        if (cookie_clear_session(r->secure, header, sizeof header))
            response_header(r, resp, MHD_HTTP_HEADER_SET_COOKIE, header);
        /* and under the bare name an older server gave it over TLS, came
         * it or not (a browser that kept it would be signed in again) */
        if (r->secure && cookie_clear_bare(SESSION_COOKIE, header, sizeof header))
            response_header(r, resp, MHD_HTTP_HEADER_SET_COOKIE, header);
    }
    if (!keep_pending) {
        clear_pending(r, header, sizeof header);
        if (header[0])
            response_add_pair(r, resp, header);
    }
    return response_queue(r, 200, resp, "application/json", NULL);
}

/* POST /api/session {"confirm": true|false, "id": ID}: the page's answer
 * to "Sign in as NAME?" for the link waiting in the pending cookie. `id`
 * (GET /api/me's pending.id) is whom the page asked about: a yes for
 * anyone else is refused, as when another tab (or a page of someone
 * else's, opening a link of theirs at the top level) replaced the pending
 * sign-in after the question was shown. The session cookie is never
 * touched by a no, and a yes never replaces someone else's session. */
static enum MHD_Result session_confirm(struct request *r, bool yes, const char *id)
{
    if (!yes) {
        memset(&r->pending, 0, sizeof r->pending);
        return me_with_cookies(r, SESSION_KEPT, false);
    }
    if (r->pending.kind == PRINCIPAL_NONE)
        return response_error(r, ERROR_NO_PENDING_SIGN_IN,
                              "No sign-in is waiting (a link's lasts ten minutes): open your "
                              "link again.", NULL, NULL);
    if (!id || strcmp(id, r->pending.id) != 0)
        return response_error(r, ERROR_PENDING_CHANGED,
                              "The sign-in waiting is not the one this page asked about: "
                              "reload the page and answer again.", NULL, NULL);
    if (r->who.kind != PRINCIPAL_NONE && !principal_same(&r->who, &r->pending))
        return response_error(r, ERROR_SIGNED_IN_AS_OTHER,
                              "This page is signed in as someone else: sign out first.",
                              NULL, NULL);
    r->who = r->pending;
    memset(&r->pending, 0, sizeof r->pending);
    return me_with_cookies(r, SESSION_SET, false);
}

enum MHD_Result caller_session_begin(struct request *r)
{
        enum MHD_Result refused;
    if (body_refused(r, "The request is over the limit of 4 KiB.", &refused))
        return refused;
    r->state = REQ_READING;
    return MHD_YES;
}

static void session_call(struct store *s, void *arg)
{
    struct request *r = arg;
    struct store_error e = { 0 };
    bool roster = false;
    enum store_status st;
    READ_TWICE(st, store_has_roster(s, &roster, &e));
    if (st == STORE_OK && roster) {
        deferred_error(r, ERROR_ROSTER,
                       "This class has a roster: sign in with your personal link.");
    } else if (st == STORE_OK) {
        struct store_student guest = { .id = r->who.id, .name = r->who.name, .section = "",
                                       .email = "", .verified = false };
        /* a second "Zoë" is "Zoë (2)" in the class view and every
         * gradebook, and is told so by the name the answer gives */
        char given[sizeof r->who.name];
        st = store_guest_put(s, &guest, given, sizeof given, &e);
        if (st == STORE_CONFLICT) {
            char why[640];
            snprintf(why, sizeof why, "%s.", e.message);
            deferred_error(r, ERROR_BAD_REQUEST, why);
            st = STORE_OK;
        } else if (st == STORE_OK) {
            snprintf(r->who.name, sizeof r->who.name, "%s", given);
            cookie_for(r, &r->who, r->deferred_header[0], sizeof r->deferred_header[0]);
            /* a link's sign-in left waiting is moot now */
            clear_pending(r, r->deferred_header[1], sizeof r->deferred_header[1]);
            memset(&r->pending, 0, sizeof r->pending);
            deferred_json(r, 200, me_json(r));
        }
    }
    if (st != STORE_OK)
        deferred_store_error(r, &e);
    MHD_resume_connection(r->conn);
}

bool caller_sign_in_allowed(struct request *r, enum MHD_Result *refused)
{
    unsigned retry = 0;
    time_t now = time(NULL);
    if (token_guard_allow(r->srv->sign_ins, &r->client, now, &retry)) {
        token_guard_count(r->srv->sign_ins, &r->client, now);   /* this one counts */
        return true;
    }
    char secs[16];
    snprintf(secs, sizeof secs, "%u", retry ? retry : 1);
    *refused = response_error(r, ERROR_TOO_MANY_SIGN_INS,
                              "Too many new sessions from this address; wait and try again.",
                              MHD_HTTP_HEADER_RETRY_AFTER, secs);
    return false;
}

enum MHD_Result caller_session_finish(struct request *r)
{
    if (!r->srv->records)
        return response_error(r, ERROR_NOT_FOUND, "This server keeps no records.", NULL, NULL);
    if (r->too_large)
        return response_error(r, ERROR_PAYLOAD_TOO_LARGE,
                              "The request is over the limit of 4 KiB.", NULL, NULL);
    json_t *j = json_loadb(r->body ? r->body : "", r->len, JSON_REJECT_DUPLICATES, NULL);
    json_t *confirm = json_object_get(j, "confirm");
    if (confirm) {
        bool is_bool = json_is_boolean(confirm), yes = json_is_true(confirm);
        json_t *jid = json_object_get(j, "id");
        char id[PRINCIPAL_ID_MAX];
        bool has_id = json_is_string(jid) && json_string_length(jid) < sizeof id;
        if (has_id)
            snprintf(id, sizeof id, "%s", json_string_value(jid));
        json_decref(j);
        free(r->body);
        r->body = NULL;
        if (!is_bool)
            return response_error(r, ERROR_BAD_REQUEST,
                                  "Send JSON {\"confirm\": true, \"id\": ID} or "
                                  "{\"confirm\": false}.", NULL, NULL);
        return session_confirm(r, yes, has_id ? id : NULL);
    }
    json_t *name = json_object_get(j, "name");
    char why[128];
    struct principal guest = { .kind = PRINCIPAL_GUEST };
    bool ok = json_is_string(name) &&
              session_check_name(json_string_value(name), json_string_length(name),
                                 MAX_DISPLAY_NAME_BYTES, guest.name, sizeof guest.name, why,
                                 sizeof why);
    if (!json_is_string(name))
        snprintf(why, sizeof why, "Send JSON {\"name\": \"...\"}.");
    json_decref(j);
    free(r->body);
    r->body = NULL;
    if (!ok)
        return response_error(r, ERROR_BAD_REQUEST, why, NULL, NULL);
    enum MHD_Result refused;
    if (!caller_sign_in_allowed(r, &refused))
        return refused;
    char id[STORE_ID_SIZE];
    if (!store_new_id(id))
        return response_error(r, ERROR_INTERNAL_ERROR, "No random bytes.", NULL, NULL);
    snprintf(guest.id, sizeof guest.id, "%s", id);
    r->who = guest;
    return deferred_begin(r, session_call);
}

bool caller_instructor(struct request *r, enum MHD_Result *answer)
{
    const char *site = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Sec-Fetch-Site");
    const char *origin = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Origin");
    bool cross = (site && strcmp(site, "same-origin") && strcmp(site, "none")) ||
                 (origin && !auth_same_origin(origin, MHD_lookup_connection_value(
                                                          r->conn, MHD_HEADER_KIND, "Host"),
                                              r->srv->cfg.public_url, false));
    /* a bearer token is no ambient credential: a script that holds it may
     * read from anywhere, a cookie may not */
    if (cross && r->lookup != LOOKUP_BEARER)
        return caller_answered(answer, response_error(r, ERROR_CROSS_SITE,
                              "The class view is read from its own page only.", NULL, NULL));
    if (r->who.kind == PRINCIPAL_NONE)
        return caller_answered(answer, response_error(r, ERROR_UNAUTHORIZED,
                              "Open the instructor's address the server printed at start, or "
                              "send Authorization: Bearer TOKEN.",
                              MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer"));
    if (r->who.kind != PRINCIPAL_INSTRUCTOR)
        return caller_answered(answer, response_error(r, ERROR_FORBIDDEN,
                                                      "The class view is the instructor's.",
                                                      NULL, NULL));
    return true;
}
