/*
 * routes.c - the routes and libmicrohttpd's callbacks: a request is
 * created when its URI arrives, dispatched when its headers are in, fed
 * its body, and freed with its access-log line when it completes. The one
 * file that knows every room: each room's handlers are called from here.
 *
 * One internal polling thread serves every connection and never waits on
 * a job (submission.c), so /healthz, the page and the API answer at once
 * while every worker is busy.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/clock.h"
#include "common/defaults.h"
#include "server/observe/access_log.h"
#include "server/core/api.h"
#include "server/class/class_gradebook.h"
#include "server/class/class_http.h"
#include "server/core/body.h"
#include "server/core/http.h"
#include "server/core/route.h"
#include "server/core/served.h"
#include "server/grade/submission.h"
#include "server/identity/auth.h"
#include "server/identity/caller.h"
#include "server/identity/deferred.h"
#include "server/identity/records.h"
#include "server/identity/token_guard.h"
#include "server/lti/lti.h"
#include "server/lti/lti_http.h"
#include "server/records/records_http.h"

/* --- the answers of the core's own routes ----------------------------------- */

static enum MHD_Result page_get(struct request *r)
{
    return response_file(r, "index.html");
}

static enum MHD_Result static_get(struct request *r)
{
    return response_file(r, r->path + strlen("/static/"));
}

static enum MHD_Result tasks_get(struct request *r)
{
    return response_json(r, 200, api_tasks());
}

/* The served exercise the row's "{id}" names, else NULL with the 404 in
 * *answer. */
static const struct exercise *exercise_of(struct request *r, enum MHD_Result *answer)
{
    char id[EX_ID_MAX + 1];
    const struct exercise *e = route_param(r->row, r->path, id, sizeof id)
                               ? served_find(id) : NULL;
    if (!e)
        *answer = response_error(r, ERROR_UNKNOWN_EXERCISE, SERVED_UNKNOWN_MESSAGE, NULL, NULL);
    return e;
}

static enum MHD_Result task_get(struct request *r)
{
    enum MHD_Result answer;
    const struct exercise *e = exercise_of(r, &answer);
    return e ? response_json(r, 200, api_task(e)) : answer;
}

/* The course's index: one page for every exercise list (it reads /api/tasks). */
static enum MHD_Result tasks_page_get(struct request *r)
{
    return response_file(r, "tasks.html");
}

/* An exercise's page: one template for all, which reads /api/tasks/{id}
 * (no copy per exercise in static/); an id not served is a 404 here too. */
static enum MHD_Result task_page_get(struct request *r)
{
    enum MHD_Result answer;
    return exercise_of(r, &answer) ? response_file(r, "task.html") : answer;
}

static enum MHD_Result health_get(struct request *r)
{
    struct server *s = r->srv;
    struct pool_stats ps;
    pool_get_stats(s->pool, &ps);
    /* the status is the grading's: a failing store does not stop
     * grading, so it is reported in the body only */
    json_t *h = api_health(&ps);
    if (h && s->records) {
        char msg[512];
        const char *st = records_health(s->records, msg, sizeof msg);
        uint64_t bytes, max_bytes;
        records_size(s->records, &bytes, &max_bytes);
        json_object_set_new(h, "store", json_pack("{s:s, s:s, s:s, s:I, s:I}", "kind",
                                                  records_kind(s->records), "status", st,
                                                  "message", msg,
                                                  "bytes", (json_int_t)bytes,
                                                  "max_bytes", (json_int_t)max_bytes));
    } else if (h) {
        json_object_set_new(h, "store", json_pack("{s:s, s:s, s:s, s:I, s:I}", "kind", "none",
                                                  "status", "none", "message", "",
                                                  "bytes", (json_int_t)0,
                                                  "max_bytes", (json_int_t)0));
    }
    /* LTI degraded (a platform's key set unreachable) is said in the
     * body too: grading and every other platform go on */
    if (h && s->lti)
        json_object_set_new(h, "lti", lti_health(s->lti));
    return response_json(r, ps.healthy ? 200 : 503, h);
}

static enum MHD_Result about_get(struct request *r)
{
    struct pool_stats ps;
    pool_get_stats(r->srv->pool, &ps);
    return response_json(r, 200, api_about(&ps, &r->srv->cfg));
}

static enum MHD_Result metrics_get(struct request *r)
{
    struct server *s = r->srv;
    struct pool_stats ps;
    pool_get_stats(s->pool, &ps);
    /* each room's counters, in the order the exposition always had */
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (f) {
        metrics_render(s->metrics, &ps, f);
        token_guard_render_metrics(s->guard, s->sign_ins, f);
        if (s->records)
            records_render_metrics(s->records, f);
        conn_limit_render_metrics(s->conns, f);
        if (s->lti)
            lti_render_metrics(s->lti, f);
        if (fclose(f) != 0) {
            free(text);
            text = NULL;
        }
    }
    if (!text)
        return response_out_of_memory(r);
    return response_queue(r, 200, response_from_buffer(text, strlen(text),
                                                       MHD_RESPMEM_MUST_FREE),
                          "text/plain; version=0.0.4; charset=utf-8", NULL);
}

static enum MHD_Result openapi_get(struct request *r)
{
    size_t len;
    const char *doc = api_openapi(&len);
    return response_queue(r, 200, response_from_buffer((char *)doc, len, MHD_RESPMEM_PERSISTENT),
                          "application/json", "no-cache");
}

/* The rooms' handlers that take the path too. */
static enum MHD_Result class_get(struct request *r)
{
    return class_http_get(r);
}

static enum MHD_Result records_get(struct request *r)
{
    return records_http_get(r);
}

/* POST signs in (a body), DELETE signs out (none). */
static enum MHD_Result session_begin(struct request *r)
{
    return !strcmp(r->method, "DELETE") ? caller_session_end(r) : caller_session_begin(r);
}

/* --- the route table ----------------------------------------------------------- */

#define GET_HEAD (METHOD_GET | METHOD_HEAD)
#define ONLY_GET "Only GET and HEAD here."

/*
 * Every route: its path (written here only; docs/openapi.json's paths are
 * these, tests/http/test_openapi.py checks), methods, needs, body bound
 * and handler. A GET's handler is its finish: it answers once the request
 * is complete (a body sent with a GET is read and dropped).
 */
/* The rows that need the last fields (body_max_text, page_refusal) name
 * them; the others leave them zero without writing them out. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct route_row table[] = {
    { "/", ROUTE_PAGE, GET_HEAD, ONLY_GET, 0, 0, NULL, NULL, page_get, NULL, NULL },
    { "/index.html", ROUTE_PAGE, GET_HEAD, ONLY_GET, 0, 0, NULL, NULL, page_get, NULL, NULL },
    { "/static/{name}", ROUTE_STATIC, GET_HEAD, ONLY_GET, PATH_ANY_REST, 0, NULL, NULL,
      static_get, NULL, NULL },
    { "/api/tasks", ROUTE_TASKS, GET_HEAD, ONLY_GET, 0, 0, NULL, NULL, tasks_get, NULL, NULL },
    { "/api/tasks/{id}", ROUTE_TASK, GET_HEAD, ONLY_GET, 0, 0, NULL, NULL, task_get, NULL,
      NULL },
    { "/tasks", ROUTE_PAGE, GET_HEAD, ONLY_GET, 0, 0, NULL, NULL, tasks_page_get, NULL, NULL },
    { "/tasks/{id}", ROUTE_PAGE, GET_HEAD, ONLY_GET, 0, 0, NULL, NULL, task_page_get, NULL,
      NULL },
    /* every exercise's submissions, the butterfly's included (submission.c
     * reads the id from the path, and refuses one not served, 404) */
    { "/api/tasks/{id}/submissions", ROUTE_SUBMIT, METHOD_POST, "Submit with POST.",
      NEED_SAME_ORIGIN, REQUEST_MAX_JSON, submission_begin, NULL, submission_finish,
      submission_answer, submission_release, .body_max_text = REQUEST_MAX_PLAIN },
    { "/healthz", ROUTE_HEALTH, GET_HEAD, ONLY_GET, 0, 0, NULL, NULL, health_get, NULL, NULL },
    { "/api/about", ROUTE_ABOUT, GET_HEAD, ONLY_GET, 0, 0, NULL, NULL, about_get, NULL, NULL },
    { "/metrics", ROUTE_METRICS, GET_HEAD, ONLY_GET, 0, 0, NULL, NULL, metrics_get, NULL, NULL },
    { "/api/openapi.json", ROUTE_OPENAPI, GET_HEAD, ONLY_GET, 0, 0, NULL, NULL, openapi_get,
      NULL, NULL },
    { "/class", ROUTE_CLASS, GET_HEAD, ONLY_GET, NEED_RECORDS | NEED_INSTRUCTOR_PAGE, 0, NULL,
      NULL, class_get, NULL, class_http_release,
      .page_refusal = "Open the instructor's address the server printed at start." },
    { "/api/me", ROUTE_ME, GET_HEAD, ONLY_GET, 0, 0, NULL, NULL, caller_me, NULL, NULL },
    { "/api/session", ROUTE_SESSION, METHOD_POST | METHOD_DELETE,
      "Only POST (sign in with a name) and DELETE (sign out) here.",
      NEED_RECORDS | NEED_SAME_ORIGIN, CALLER_SESSION_MAX_BODY, session_begin, NULL,
      caller_session_finish, NULL, NULL },
    { "/api/me/submissions", ROUTE_MY_SUBMISSIONS, GET_HEAD, ONLY_GET, NEED_RECORDS, 0, NULL,
      NULL, records_get, NULL, records_http_release },
    { "/api/submissions/{id}", ROUTE_SUBMISSION, GET_HEAD, ONLY_GET, NEED_RECORDS, 0, NULL,
      NULL, records_get, NULL, records_http_release },
    { "/api/class/events", ROUTE_CLASS_EVENTS, GET_HEAD, ONLY_GET,
      NEED_RECORDS | NEED_INSTRUCTOR, 0, NULL, NULL, class_get, NULL, class_http_release },
    { "/api/class/summary", ROUTE_CLASS_SUMMARY, GET_HEAD, ONLY_GET,
      NEED_RECORDS | NEED_INSTRUCTOR, 0, NULL, NULL, class_get, NULL, class_http_release },
    { "/api/class/students", ROUTE_CLASS_STUDENTS, GET_HEAD, ONLY_GET,
      NEED_RECORDS | NEED_INSTRUCTOR, 0, NULL, NULL, class_get, NULL, class_http_release },
    { "/api/class/students/{id}", ROUTE_CLASS_STUDENT, GET_HEAD, ONLY_GET,
      NEED_RECORDS | NEED_INSTRUCTOR, 0, NULL, NULL, class_get, NULL, class_http_release },
    { "/api/class/gradebook.csv", ROUTE_CLASS_GRADEBOOK, GET_HEAD, ONLY_GET,
      NEED_RECORDS | NEED_INSTRUCTOR, 0, NULL, NULL, class_get, NULL, class_http_release },
    { "/api/class/gradebook", ROUTE_CLASS_GRADEBOOK_LAYOUT, GET_HEAD, ONLY_GET,
      NEED_RECORDS | NEED_INSTRUCTOR, 0, NULL, NULL, class_get, NULL, class_http_release },
    { "/lti/login", ROUTE_LTI_LOGIN, GET_HEAD | METHOD_POST, "Only GET, HEAD and POST here.",
      NEED_LTI | NEED_CROSS_SITE_FORM, LTI_MAX_FORM, lti_http_begin, NULL, lti_http_finish,
      lti_http_answer, lti_http_release },
    { "/lti/launch", ROUTE_LTI_LAUNCH, METHOD_POST, "Only POST here.",
      NEED_LTI | NEED_CROSS_SITE_FORM, LTI_MAX_FORM, lti_http_begin, NULL, lti_http_finish,
      lti_http_answer, lti_http_release },
    { "/lti/jwks.json", ROUTE_LTI_JWKS, GET_HEAD, ONLY_GET, NEED_LTI, 0, lti_http_begin, NULL,
      lti_http_finish, NULL, lti_http_release },
    /* the chooser's own form, posted from inside the platform's frame: the
     * pages' Referrer-Policy (no-referrer) makes its Origin "null", so no
     * Origin can vouch for it; the choice's token (server-side, used once,
     * LTI_CHOICE_LIFETIME_S) and the cookie set with it do */
    { "/lti/deep-link", ROUTE_LTI_DEEP_LINK, METHOD_POST, "Only POST here.",
      NEED_LTI | NEED_CROSS_SITE_FORM, LTI_MAX_FORM, lti_http_begin, NULL, lti_http_finish,
      lti_http_answer, lti_http_release },
    { "/lti/canvas.json", ROUTE_LTI_CANVAS, GET_HEAD, ONLY_GET, NEED_LTI, 0, lti_http_begin,
      NULL, lti_http_finish, NULL, lti_http_release },
    /* a HEAD is answered without spending the one-time address (lti_http.c) */
    { "/lti/register", ROUTE_LTI_REGISTER, GET_HEAD, ONLY_GET, NEED_LTI, 0,
      lti_http_begin, NULL, lti_http_finish, lti_http_answer, lti_http_release },
};
#pragma GCC diagnostic pop

const struct route_row *routes_find(const char *path)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (route_matches(&table[i], path))
            return &table[i];
    return NULL;
}

const struct route_row *routes_row(size_t i)
{
    return i < sizeof table / sizeof table[0] ? &table[i] : NULL;
}

struct forwarding {
    const char *name;
    char joined[CLIENT_ADDR_MAX_FORWARDING];
    bool found;
};

/* Joins every line of one header: libmicrohttpd's lookup returns only
 * the first, and a proxy that appends a line of its own (HAProxy) writes
 * the one that counts last. */
static enum MHD_Result join_forwarding(void *arg, enum MHD_ValueKind kind, const char *key,
                                       const char *value)
{
    struct forwarding *f = arg;
    (void)kind;
    if (key && value && !strcasecmp(key, f->name)) {
        client_addr_join(f->joined, sizeof f->joined, value);
        f->found = true;
    }
    return MHD_YES;
}

/* The client of the request (client_addr.h), into r->client. */
static void resolve_client(struct request *r)
{
    struct client_id peer;
    const struct client_rules *rules = &r->srv->cfg.clients;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    client_addr_from_sockaddr(ci ? ci->client_addr : NULL, &peer);
    /* TLS ends at the proxy: only a trusted one may say it was there */
    const char *pub = r->srv->cfg.public_url;
    const char *proto = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                    "X-Forwarded-Proto");
    r->secure = (pub && !strncmp(pub, "https://", 8)) ||
                (proto && !strcmp(proto, "https") &&
                 client_addr_proxies_contain(&rules->proxies, &peer));
    /* the headers are read only for a trusted peer; joining them costs a
     * walk over the request's headers, so only then */
    if (rules->proxies.n == 0 || !client_addr_proxies_contain(&rules->proxies, &peer)) {
        client_addr_resolve(&peer, NULL, rules, &r->client);
        return;
    }
    struct forwarding f = { client_addr_header_to_str(rules->header), "", false };
    MHD_get_connection_values(r->conn, MHD_HEADER_KIND, join_forwarding, &f);
    client_addr_resolve(&peer, f.found ? f.joined : NULL, rules, &r->client);
}

/* The refusals of conn_limit_headers: a connection let in over
 * --max-connections is answered 503 and closed (it holds a spare slot);
 * a forwarded client past --per-ip-connections is answered 429, and the
 * proxy's connection, which carries other clients too, stays open. */
static enum MHD_Result connection_refused(struct request *r, enum conn_verdict v)
{
    bool busy = v == CONN_BUSY;
    char secs[16];
    snprintf(secs, sizeof secs, "%u", CONNECTION_RETRY_AFTER_S);
    if (busy)   /* closed after the answer: the connection holds a spare slot
                 * (Retry-After: the table's CONNECTION_RETRY_AFTER_S) */
        return response_error(r, ERROR_TOO_MANY_CONNECTIONS,
                              "The server has no connection to spare; try again shortly.",
                              MHD_HTTP_HEADER_CONNECTION, "close");
    return response_error(r, ERROR_TOO_MANY_REQUESTS,
                          "You have too many requests open at once; wait for their answers.",
                          MHD_HTTP_HEADER_RETRY_AFTER, secs);
}

static enum MHD_Result routes_dispatch(struct request *r);

/* The headers are in: who is asking, for what, and may they. */
static enum MHD_Result on_headers(struct request *r, const char *url, const char *method)
{
    snprintf(r->method, sizeof r->method, "%s", method);
    resolve_client(r);
    enum conn_verdict cv = conn_limit_headers(r->srv->conns, r->slot, &r->client);
    if (cv != CONN_OK)
        return connection_refused(r, cv);
    /* An escaped NUL cuts the path libmicrohttpd hands over (so
     * "index.html%00.css" would read "index.html"): refuse it outright. */
    if (r->uri.escaped_nul)
        return response_error(r, ERROR_BAD_REQUEST, "The path holds an escaped NUL byte.",
                              NULL, NULL);
    r->path = url;
    r->row = routes_find(url);
    r->route = r->row ? r->row->route : ROUTE_NONE;
    /* static names never need escapes: an escaped one is a probe */
    if (r->route == ROUTE_NONE || (r->route == ROUTE_STATIC && r->uri.escaped))
        return response_error(r, ERROR_NOT_FOUND, r->route == ROUTE_NONE
                              ? "No such resource." : "No such file.", NULL, NULL);
    char allow[64];
    if (!route_allows(r->row, method, allow, sizeof allow))
        return response_error(r, ERROR_METHOD_NOT_ALLOWED, r->row->refusal,
                              MHD_HTTP_HEADER_ALLOW, allow);
    enum MHD_Result answer;
    return caller_begin(r, &answer) ? routes_dispatch(r) : answer;
}

/* Goes on with a request whose principal is known: the row's needs, in
 * order, then its begin. */
static enum MHD_Result routes_dispatch(struct request *r)
{
    const struct route_row *row = r->row;
    struct server *s = r->srv;
    if ((row->needs & NEED_RECORDS) && (!s->records || !s->feed))
        return response_error(r, ERROR_NOT_FOUND, "This server keeps no records.", NULL, NULL);
    if ((row->needs & NEED_LTI) && (!s->lti || !s->records))
        return response_error(r, ERROR_NOT_FOUND, "LTI is not set up here (--lti-config).",
                              NULL, NULL);
    bool changes = !strcmp(r->method, "POST") || !strcmp(r->method, "DELETE");
    if ((row->needs & NEED_SAME_ORIGIN) && changes && s->records) {
        /* A request that changes state must come from the page's own
         * origin: a cross-site form or fetch carries neither a matching
         * Origin nor CSRF_HEADER. A signed-out curl with neither is
         * graded as before, since it acts for nobody; a bearer token is
         * no ambient credential. Without records there is no session to
         * abuse, and the server is today's. (NEED_CROSS_SITE_FORM: LTI's
         * login and launch are the platform's cross-site forms by design:
         * the id_token, the state and its cookie authenticate them.) */
        const char *origin = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Origin");
        bool custom = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, CSRF_HEADER);
        bool needs = (r->has_cookie && r->lookup != LOOKUP_BEARER) ||
                     r->route == ROUTE_SESSION || origin;
        if (needs && !auth_same_origin(origin, MHD_lookup_connection_value(
                                                   r->conn, MHD_HEADER_KIND, "Host"),
                                       s->cfg.public_url, custom))
            return response_error(r, ERROR_CROSS_SITE,
                                  "This request must come from the exercise page itself.",
                                  NULL, NULL);
    }
    if (row->needs & NEED_INSTRUCTOR) {
        enum MHD_Result answer;
        if (!caller_instructor(r, &answer))
            return answer;
    }
    if ((row->needs & NEED_INSTRUCTOR_PAGE) && r->who.kind != PRINCIPAL_INSTRUCTOR)
        return response_error(r, ERROR_UNAUTHORIZED, row->page_refusal, NULL, NULL);
    /* the body's kind is read once, here: its bound is the row's for it,
     * and a handler that reads a body goes by it (r->kind) */
    r->kind = request_body_kind(MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                            MHD_HTTP_HEADER_CONTENT_TYPE));
    r->limit = route_body_max(row, r->kind);
    r->state = REQ_HEADERS;
    return row->begin ? row->begin(r) : MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size, void **con_cls)
{
    struct request *r = *con_cls;
    (void)cls;
    (void)url;
    (void)version;
    if (!r)
        return MHD_NO;   /* the URI callback always makes one: out of memory */
    r->conn = conn;
    switch (r->state) {
    case REQ_NEW:
        return on_headers(r, url, method);
    case REQ_HEADERS:
        /* A body on a GET is read and dropped (up to the limit); the
         * answer goes out once the request is complete, which keeps the
         * connection alive for the next request. */
        if (*upload_size > 0) {
            r->len += *upload_size;
            *upload_size = 0;
            return r->len > REQUEST_MAX_PLAIN ? MHD_NO : MHD_YES;
        }
        return r->row->finish(r);
    case REQ_READING:
        if (*upload_size > 0)
            return r->row->body ? r->row->body(r, upload_data, upload_size)
                                : body_take(r, upload_data, upload_size);
        return r->row->finish(r);
    case REQ_SUSPENDED:
        return r->row->resume ? r->row->resume(r) : deferred_answer(r);
    case REQ_LOOKUP: {
        enum MHD_Result answer;
        return caller_resume(r, &answer) ? routes_dispatch(r) : answer;
    }
    case REQ_DONE:
        *upload_size = 0;   /* answered early (413): drop the rest */
        return MHD_YES;
    }
    return MHD_NO;
}

/* Made at the start of every request, even one libmicrohttpd answers
 * itself (a header too large, say), so every request gets its log line. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    struct request *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->srv = cls;
    r->conn = conn;
    r->wait_ms = -1;
    r->start_ms = clock_now_ms();
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    r->slot = ci ? ci->socket_context : NULL;
    request_uri_inspect(uri, &r->uri);
    client_id_local(&r->client);   /* "-" in the log until the headers are in */
    return r;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct server *s = cls;
    struct request *r = *con_cls;
    /* the connection waits for its next request's header from now */
    const union MHD_ConnectionInfo *sc =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    conn_limit_request_done(s->conns, sc ? sc->socket_context : NULL);
    if (!r)
        return;
    if (r->row && r->row->release)
        r->row->release(r);
    free(r->body);   /* a body no route took (an answer on an error path) */
    free(r->deferred_body);
    if (r->status == 0) {
        /* answered by libmicrohttpd itself (a 400 or 431 of its own) */
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_HTTP_STATUS);
        if (ci)
            r->status = ci->http_status;
    }
    metrics_count_response(s->metrics, r->status);
    if (s->cfg.access_log)
        access_log_write(stderr, &(struct access_log_entry){
            .client = &r->client, .method = r->method, .path = r->uri.log_path,
            .status = r->status, .ms = clock_now_ms() - r->start_ms,
            .verdict = r->verdict_slug[0] ? r->verdict_slug : NULL, .seed = r->seed,
            .wait_ms = r->wait_ms,
            .note = toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? NULL : "(connection closed)",
        });
    free(r);
    *con_cls = NULL;
}

/* libmicrohttpd's messages, HTTP_LOG_BURST per HTTP_LOG_WINDOW_S at most:
 * it writes one for every connection closed in the middle of a header
 * (conn_limit.h closes them by the thousand under a slow-header flood),
 * and a log written that fast fills the disk, or blocks the polling
 * thread on a stderr nobody reads fast enough. */
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static double window_start = -1e18;
    static unsigned in_window, left_out;
    (void)cls;
    double now = clock_now_ms();
    pthread_mutex_lock(&lock);
    if (now - window_start >= HTTP_LOG_WINDOW_S * 1000.0) {
        if (left_out)
            fprintf(stderr, "libmicrohttpd: %u more messages left out in %u s\n", left_out,
                    HTTP_LOG_WINDOW_S);
        window_start = now;
        in_window = left_out = 0;
    }
    bool shown = in_window < HTTP_LOG_BURST;
    if (shown)
        in_window++;
    else
        left_out++;
    pthread_mutex_unlock(&lock);
    if (shown) {
        fputs("libmicrohttpd: ", stderr);
        vfprintf(stderr, fmt, ap);
    }
}

/* The accept policy (conn_limit_admit): libmicrohttpd closes a refused
 * socket at once. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    struct server *s = cls;
    (void)addrlen;
    return conn_limit_admit(s->conns, addr) ? MHD_YES : MHD_NO;
}

/* A connection opened or closed: its slot in conn_limit.h's bookkeeping
 * is the connection's socket context. */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    struct server *s = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *fd =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *ca =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        *socket_context = conn_limit_opened(s->conns, fd ? fd->connect_fd : -1,
                                            ca ? ca->client_addr : NULL);
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        conn_limit_closed(s->conns, *socket_context);
        *socket_context = NULL;
    }
}

struct MHD_Daemon *routes_start(struct server *s, char *err, size_t errsz)
{
    /* the features' links and redirects are written from the table too */
    route_links_set(table, sizeof table / sizeof table[0]);
    const struct server_config *c = &s->cfg;
    struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)c->port) };
    struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t)c->port) };
    const struct sockaddr *addr;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL_LINUX_ONLY |
                     MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (inet_pton(AF_INET, c->bind, &a4.sin_addr) == 1) {
        addr = (const struct sockaddr *)&a4;
    } else if (inet_pton(AF_INET6, c->bind, &a6.sin6_addr) == 1) {
        addr = (const struct sockaddr *)&a6;
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, errsz, "bad bind address \"%s\" (give an IPv4 or IPv6 address)", c->bind);
        return NULL;
    }
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, (uint16_t)c->port, on_accept, s, on_request, s,
        MHD_OPTION_SOCK_ADDR, addr,
        /* both bounds are conn_limit.h's: libmicrohttpd's per-address one
         * counts whole addresses, and at its own limit it would stop
         * accepting where ours makes room */
        MHD_OPTION_CONNECTION_LIMIT, conn_limit_capacity(s->conns),
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
        MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)c->connection_timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, c->connection_memory,
        MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
        MHD_OPTION_END);
    if (!d)
        snprintf(err, errsz, "cannot listen on %s port %u (in use?)", c->bind, c->port);
    return d;
}
