/*
 * request.h - routing and request parsing as pure functions: no sockets,
 * no libmicrohttpd, so tests and fuzzers call them directly.
 */
#ifndef BUTTERFLY_REQUEST_H
#define BUTTERFLY_REQUEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/task.h"

/* The routes (their paths are server/routes.c's table, written there only). */
enum route {
    ROUTE_NONE,
    ROUTE_PAGE,
    ROUTE_STATIC,
    ROUTE_TASKS,
    ROUTE_TASK,
    ROUTE_SUBMIT,
    ROUTE_HEALTH,
    ROUTE_ABOUT,
    ROUTE_METRICS,
    ROUTE_OPENAPI,
    ROUTE_CLASS,             /* GET /class: the instructor's page */
    ROUTE_ME,                /* GET /api/me: who the page is signed in as */
    ROUTE_SESSION,           /* POST /api/session: an open lab's display name */
    ROUTE_MY_SUBMISSIONS,    /* GET /api/me/submissions */
    ROUTE_SUBMISSION,        /* GET /api/submissions/{id} */
    ROUTE_CLASS_EVENTS,      /* GET /api/class/events: Server-Sent Events */
    ROUTE_CLASS_SUMMARY,     /* GET /api/class/summary */
    ROUTE_CLASS_STUDENTS,    /* GET /api/class/students */
    ROUTE_CLASS_STUDENT,     /* GET /api/class/students/{id} */
    ROUTE_CLASS_GRADEBOOK,   /* GET /api/class/gradebook.csv: the view's own sheet */
    ROUTE_CLASS_GRADEBOOK_LAYOUT,   /* GET /api/class/gradebook?layout=: the batch's layouts */
    ROUTE_LTI_LOGIN,         /* GET or POST /lti/login: LTI's login initiation */
    ROUTE_LTI_LAUNCH,        /* POST /lti/launch: the id_token */
    ROUTE_LTI_JWKS,          /* GET /lti/jwks.json: the tool's public keys */
    ROUTE_LTI_DEEP_LINK,     /* POST /lti/deep-link: an instructor's choice (Deep Linking) */
    ROUTE_LTI_CANVAS,        /* GET /lti/canvas.json: Canvas's developer key */
    ROUTE_LTI_REGISTER,      /* GET /lti/register: Dynamic Registration's one-time address */
};

/* What the raw request URI says before any decoding. */
struct request_uri {
    char log_path[200];    /* the path for the access log: cut, no query string */
    bool escaped;          /* the path holds a %-escape */
    bool escaped_nul;      /* ... and one of them is %00 */
};

/* Inspects a raw request URI (the path and the query string). */
void request_uri_inspect(const char *uri, struct request_uri *out);

enum body_kind {
    BODY_PLAIN,            /* text/plain: the body is the kernel */
    BODY_JSON,             /* application/json: {"source": "..."} */
    BODY_UNSUPPORTED,
};

/* The kind of a Content-Type value (its media type, parameters ignored,
 * case-insensitive). NULL is unsupported. */
enum body_kind request_body_kind(const char *content_type);

/* The largest request body of a kind, in bytes. JSON escapes can make a
 * 64 KiB kernel longer, so its envelope may be bigger; the kernel inside
 * is still checked against TASK_MAX_SOURCE. */
#define REQUEST_MAX_PLAIN TASK_MAX_SOURCE
#define REQUEST_MAX_JSON  (4 * TASK_MAX_SOURCE)

/* The 413 sentence for a body of kind k: written here once. */
const char *request_too_large_message(enum body_kind k);

enum length_check {
    LENGTH_OK,             /* a Content-Length within the limit, or chunked */
    LENGTH_TOO_LARGE,      /* 413 at once: the body is never read */
    LENGTH_REQUIRED,       /* 411: neither a length nor chunked */
    LENGTH_MALFORMED,      /* 400: a Content-Length that is not a number */
};

/* "ok", "too large", "length required" or "malformed"; never NULL. */
const char *request_length_check_to_str(enum length_check c);

/* Checks the Content-Length and Transfer-Encoding headers (either may be
 * NULL) against `limit`. */
enum length_check request_check_length(const char *content_length,
                                       const char *transfer_encoding, size_t limit);

/*
 * The kernel source in a body of kind k: the body itself, or the string
 * "source" of a JSON object. On success *src and *src_len point into the
 * body or into *owner (a JSON value the caller releases with json_decref;
 * NULL for plain text). False with a sentence for the client in msg.
 */
bool request_extract_source(enum body_kind k, const char *body, size_t len, const char **src,
                            size_t *src_len, json_t **owner, char *msg, size_t msgsz);

#endif
