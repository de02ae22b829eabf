/*
 * http.h - what every room of the server shares: the server, one
 * request's state, and the answers (response.c). Each room's handlers are
 * declared in its own header; the route table (server/routes.c) calls them.
 *
 * Threads: libmicrohttpd's one polling thread runs every callback; the
 * pool's thread delivers verdicts (on_job_done), and the connection
 * watcher's thread reports clients that hung up. A request is touched by
 * the pool's thread only through its atomic `result` and by resuming its
 * connection; the watcher knows only job ids.
 */
#ifndef BUTTERFLY_HTTP_INTERNAL_H
#define BUTTERFLY_HTTP_INTERNAL_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "pool/pool.h"
#include "server/conn/client_addr.h"
#include "server/conn/conn_limit.h"
#include "server/conn/conn_watch.h"
#include "server/core/errors.h"
#include "server/observe/metrics.h"
#include "server/core/principal.h"
#include "server/core/request.h"
#include "server/core/server.h"
#include "server/core/static_files.h"
#include "store/store.h"

/* The rooms' own state, opaque here (identity/, class/, lti/). */
struct records;
struct class_feed;
struct lti;
struct token_guard;
struct route_row;

struct server {
    struct server_config cfg;
    struct MHD_Daemon *daemon;
    struct pool *pool;
    struct static_files *files;
    struct metrics *metrics;
    struct conn_watch *watch;
    struct conn_limit *conns;      /* the connections' bounds (conn_limit.h) */
    struct records *records;       /* NULL: no records (--database none) */
    struct class_feed *feed;       /* the live class view; NULL without records */
    struct lti *lti;               /* NULL: no --lti-config */
    struct token_guard *guard;         /* wrong tokens */
    struct token_guard *sign_ins;      /* guest sessions and LTI logins made */
    char *page_csp;                /* the pages' Content-Security-Policy (server_start) */
    char instructor_token[STORE_TOKEN_SIZE];
    unsigned port;
    atomic_uint gradebooks;        /* gradebook downloads being made (class_gradebook.c) */
    /* The class view's answers to the other features (the records' reads
     * ask whether a student is in an LTI instructor's class; a launch
     * says a class or a learner may be new), set by server.c, so that no
     * feature includes another's header. Called with `feed` (NULL: none). */
    bool (*class_has)(struct class_feed *f, const char *klass, const char *student);
    void (*class_changed)(struct class_feed *f);
};

enum request_state {
    REQ_NEW,         /* its headers not in yet */
    REQ_HEADERS,     /* no body wanted: answered once the request is complete */
    REQ_READING,     /* reading its body (the row's body, or body_take) */
    REQ_SUSPENDED,   /* suspended: another thread makes its answer (the row's resume) */
    REQ_LOOKUP,      /* suspended: a token is being looked up (identity/caller.c) */
    REQ_DONE,        /* answered */
};

/* What a token in a request is for. */
enum lookup_kind { LOOKUP_NONE, LOOKUP_BEARER, LOOKUP_LINK, LOOKUP_CLASS };

/* Per request; created by the URI log callback, freed when it completes. */
struct request {
    struct server *srv;
    struct MHD_Connection *conn;
    double start_ms;
    char method[16];
    struct request_uri uri;
    struct client_id client;       /* the fair-share key (client_addr.h) */
    struct conn_slot *slot;        /* its connection's (conn_limit.h); NULL: not bounded */
    enum request_state state;
    const struct route_row *row;   /* its row of the route table (core/route.h) */
    const char *path;              /* the decoded path (libmicrohttpd's, as long as the request) */
    enum route route;
    enum body_kind kind;           /* its Content-Type's, read once by routes_dispatch */
    bool too_large;                /* a chunked body went past the limit */
    bool header_lost;              /* a header of the answer to be could not be added
                                      (response_header): it is not sent */
    size_t limit;
    char *body;
    size_t len;
    unsigned status;
    /* the access log's line (on_completed), which the core writes: the
     * verdict of a submission and its wait, as submission.c sets them */
    char verdict_slug[32];
    uint64_t seed;
    double wait_ms;                /* -1: none */
    /* Who is asking (identity/caller.c), for every route: these stay in
     * the core, since they are found before the row's begin runs (a
     * token's lookup suspends the request ahead of any route's state),
     * and the core reads them itself: routes_dispatch the cookie and the
     * lookup for the same-origin check, response_queue the cookies to
     * clear or rename on every answer. */
    /* who: from the cookie, or a token looked up off this thread */
    struct principal who;
    /* whom a personal link opened on a signed-out page was for, waiting
     * for the page's "Sign in as NAME?" (PENDING_COOKIE) */
    struct principal pending;
    bool link_pending;             /* this request's link: set the pending cookie */
    bool had_pending;              /* a pending cookie came, valid or not: clear it */
    bool secure;                   /* the client reached us over TLS */
    bool has_cookie;               /* a session cookie came, valid or not */
    /* cookies response_queue clears on the answer (COOKIE_CLEAR_* bits),
     * unless the answer sets that cookie itself: bare names over TLS (an
     * older server's, or tossed), and ours when two sessions came */
    unsigned clear_cookies;
    /* a bare-named session over TLS that an older server made, honoured
     * this once: the answer sets it again under its __Host- name (NULL:
     * none; libmicrohttpd's copy, valid as long as the request) */
    const char *session_to_rename;
    enum lookup_kind lookup;
    /* a personal link for someone else than the session it came with: it
     * does not replace that session (a link an attacker sent would sign
     * the victim in as the attacker, to collect their work) */
    bool link_other;
    char token[PRINCIPAL_TOKEN_MAX + 1];
    enum store_status lookup_status;
    /* an answer made on the reader's thread (REQ_SUSPENDED, deferred.h),
     * the core's: deferred_answer sends it for every route that reads
     * the records, freed by on_completed */
    unsigned deferred_status;
    char *deferred_body;           /* JSON text, owned (or deferred_len bytes of deferred_type) */
    size_t deferred_len;           /* 0: strlen(deferred_body) */
    const char *deferred_type;     /* NULL: application/json */
    char deferred_header[2][1300]; /* "Name: value" pairs, "" when none */
    /* The route's own state, a struct of its room's (struct lti_req,
     * class_req, records_req, grade_req), which the core never reads:
     * made by the row's begin or its handler, freed by the row's release,
     * which on_completed calls on every path. NULL: none made yet. */
    void *feature;
};

/* What response_queue clears (request.clear_cookies). */
enum {
    COOKIE_CLEAR_SESSION_BARE = 1u << 0,   /* SESSION_COOKIE, over TLS */
    COOKIE_CLEAR_PENDING_BARE = 1u << 1,   /* PENDING_COOKIE, over TLS */
    COOKIE_CLEAR_SESSION = 1u << 2,        /* the session under its own name */
};

/* Starts libmicrohttpd on s's address with the route table's callbacks
 * (server/routes.c, beside main.c). NULL with a reason in err on failure. */
struct MHD_Daemon *routes_start(struct server *s, char *err, size_t errsz);

/* --- response.c ------------------------------------------------------------ */

/* Adds the headers every response has, queues it, marks the request
 * answered. Takes resp (destroyed here); NULL means out of memory, and so
 * does a header lost on the way (response_header): the out-of-memory
 * answer goes instead. */
enum MHD_Result response_queue(struct request *r, unsigned status, struct MHD_Response *resp,
                               const char *type, const char *cache);

/* A response from a buffer it will own (MUST_FREE) or borrow (PERSISTENT). */
struct MHD_Response *response_from_buffer(char *data, size_t len,
                                          enum MHD_ResponseMemoryMode mode);

/* Sends j (consumed) as compact JSON. */
enum MHD_Result response_json(struct request *r, unsigned status, json_t *j);

/* Sends {"error": {"code", "message"}} with e's status and code
 * (errors.h), one extra header when header is not NULL, and e's
 * Retry-After unless that header is one. */
enum MHD_Result response_error(struct request *r, enum error_kind e, const char *message,
                               const char *header, const char *value);

/* The one answer to running out of memory: a 500 internal_error from a
 * body written at compile time (MHD_NO, closing the connection, only when
 * libmicrohttpd cannot make even that response). */
enum MHD_Result response_out_of_memory(struct request *r);

/* Sends a file of the static set (ETag, CSP, revalidation), or 404. */
enum MHD_Result response_file(struct request *r, const char *name);

/* Adds header name: value to resp, which is r's answer to be; false when
 * it cannot (out of memory), which r remembers so that response_queue
 * sends the out-of-memory answer in place of one without that header.
 * Every header of an answer is added through here. */
bool response_header(struct request *r, struct MHD_Response *resp, const char *name,
                     const char *value);

/* Adds a header "Name: value" (as deferred_header holds them) to resp,
 * through response_header. */
void response_add_pair(struct request *r, struct MHD_Response *resp, const char *pair);

/* The verdict answer: the stored JSON with "recorded" (and the reason
 * when false) added as its last members. A new string, NULL on OOM. */
char *response_verdict_text(const char *stored, size_t len, bool recorded, const char *code,
                            const char *reason, size_t *outlen);

#endif
