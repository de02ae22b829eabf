/*
 * route.h - what a row of the route table is (the table itself is
 * server/routes.c's, beside main.c): the path, the methods, what the
 * route needs, its body's bound, and its handler. The table's rows are
 * checked and called from one place, so a new route is one row and its
 * handler, and each route's path is written in that table only.
 */
#ifndef BUTTERFLY_ROUTE_H
#define BUTTERFLY_ROUTE_H

#include <stdbool.h>
#include <stddef.h>

#include "server/core/http.h"

/* The methods a row allows (its Allow header is written from them). */
enum {
    METHOD_GET = 1u << 0,
    METHOD_HEAD = 1u << 1,
    METHOD_POST = 1u << 2,
    METHOD_DELETE = 1u << 3,
};

/* What a route needs before its handler runs, checked in this order from
 * the row (routes.c's routes_dispatch). */
enum {
    NEED_RECORDS = 1u << 0,       /* a store (--database): 404 without */
    NEED_LTI = 1u << 1,           /* --lti-config (and a store): 404 without */
    NEED_SAME_ORIGIN = 1u << 2,   /* a POST or DELETE from the page's own origin (403) */
    NEED_CROSS_SITE_FORM = 1u << 3,   /* a platform's cross-site form (LTI): no Origin check */
    NEED_INSTRUCTOR = 1u << 4,    /* the instructor's own request (403, 401) */
    PATH_ANY_REST = 1u << 5,      /* the row's "{name}" takes the rest of the path, '/' too */
    NEED_INSTRUCTOR_PAGE = 1u << 6,   /* the instructor's page: anyone else is told, 401,
                                         the row's page_refusal (no data in it, so no
                                         cross-site check and no 403 for a student) */
};

/* A route's handler: each called for the request, NULL for none. */
typedef enum MHD_Result (*route_fn)(struct request *r);
typedef enum MHD_Result (*route_body_fn)(struct request *r, const char *data, size_t *size);

struct route_row {
    const char *path;          /* exact, or with "{name}" segments (route_matches) */
    enum route route;
    unsigned methods;          /* METHOD_* */
    const char *refusal;       /* the 405's sentence for another method */
    unsigned needs;            /* NEED_*, PATH_ANY_REST */
    size_t body_max;           /* the bound of a body it reads (r->limit); 0: none read */
    route_fn begin;            /* the headers are in and the checks passed; NULL: wait
                                  for the request to be complete (a GET) */
    route_body_fn body;        /* a piece of the body (NULL: body_take) */
    route_fn finish;           /* the request is complete: answer, or suspend */
    route_fn resume;           /* the suspended connection is resumed (NULL:
                                  deferred_answer, the reader's thread's answer) */
    void (*release)(struct request *r);   /* the request is over (NULL: nothing) */
    /* Rows that need them name these last, by name: */
    size_t body_max_text;      /* a text/plain body's own bound, when the route takes
                                  one beside JSON (the kernel itself); 0: body_max */
    const char *page_refusal;  /* NEED_INSTRUCTOR_PAGE's 401 sentence */
};

/* Whether path matches row's path segment by segment: a "{name}" segment,
 * anywhere in it, stands for one non-empty segment (a last one for any
 * non-empty rest of the path, '/' too, with PATH_ANY_REST). */
bool route_matches(const struct route_row *row, const char *path);

/* The segment of path that row's first "{name}" stands for, copied into
 * out (outsz bytes, NUL included). False, out "", when path does not
 * match row, row has no "{name}", or the segment does not fit. */
bool route_param(const struct route_row *row, const char *path, char *out, size_t outsz);

/* Whether row allows method; when it does not, *allow gets the Allow
 * header's value ("GET, HEAD", "POST, DELETE", ...; the caller's buffer
 * of allowsz); when it does, allow is left as it was. */
bool route_allows(const struct route_row *row, const char *method, char *allow, size_t allowsz);

/* The bound of a body of kind (request_body_kind of its Content-Type)
 * on row: body_max_text for text/plain where the row has one, else
 * body_max. */
size_t route_body_max(const struct route_row *row, enum body_kind kind);

/* Gives route_link the route table's n rows: routes_start does, before
 * the first request (a test that asks for links, before it asks). The
 * table is routes.c's, which calls into the features: they read it here,
 * so that no feature calls back into routes.c. */
void route_links_set(const struct route_row *rows, size_t n);

/*
 * The path of `route`, as its row in the table writes it, for a link or a
 * redirect: the first row of the route without a "{name}" segment when
 * param is NULL, else the first with one, that segment param (one
 * segment: no '/'). Into out (outsz bytes); false, out "", when no row
 * fits the call or the path does not fit.
 */
bool route_link(enum route route, const char *param, char *out, size_t outsz);

/* The route table (server/routes.c, beside main.c): the row of a decoded
 * path, NULL when nothing is there; the i-th row, NULL past the last. */
const struct route_row *routes_find(const char *path);
const struct route_row *routes_row(size_t i);

#endif
