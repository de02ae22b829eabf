/*
 * class_http.c - the live class view's routes: the page (/class), its
 * events (/api/class/events), the summary, the roster, one student's
 * attempts and the gradebook. All are the instructor's alone.
 *
 * Everything but one student's attempts and the batch's gradebook layouts
 * is answered from the feed's memory (class_feed.h); the attempts, with
 * their code, are read on the reader's thread (records_read) like every
 * other record, and so are the layouts (class_gradebook.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"
#include "server/class/class_feed.h"
#include "server/core/http.h"
#include "server/class/class_gradebook.h"
#include "server/class/class_http.h"
#include "server/identity/auth.h"
#include "server/identity/deferred.h"
#include "server/identity/records.h"
#include "server/core/route.h"
#include "store/store_choose.h"


static enum MHD_Result events(struct request *r, const char *klass)
{
    const char *last = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Last-Event-ID");
    if (!last)
        last = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "after");
    if (last && strlen(last) >= STORE_ID_SIZE)
        last = "-";   /* not an id this server gave: the view resets */
    enum class_stream_open why;
    struct MHD_Response *resp = class_feed_stream(r->srv->feed, r->conn, last, klass,
                                                   &why);
    if (!resp) {
        char msg[160];
        switch (why) {
        case CLASS_STREAM_FULL:
            snprintf(msg, sizeof msg, "%u class views are open already (--class-streams); "
                     "close one or try again.", r->srv->cfg.class_streams);
            return response_error(r, ERROR_TOO_MANY_STREAMS, msg,
                                  NULL, NULL);
        case CLASS_STREAM_STOPPING:
            return response_error(r, ERROR_SHUTTING_DOWN, "The server is stopping.",
                                  NULL, NULL);
        default:
            return response_out_of_memory(r);
        }
    }
    /* a proxy must pass each event on at once (nginx reads this) */
    response_header(r, resp, "X-Accel-Buffering", "no");
    return response_queue(r, 200, resp, "text/event-stream; charset=utf-8", "no-store");
}

/* --- one student's attempts, on the reader's thread ---------------------------- */

/* What the page shows of one attempt: its code, verdict and worked cell. */
static json_t *attempt_json(const struct store_record *x)
{
    json_t *v = json_loadb(x->verdict ? x->verdict : "", x->verdict_len, 0, NULL);
    json_t *src = json_stringn(x->source ? x->source : "", x->source_len);
    json_t *a = json_pack("{s:s, s:I, s:I, s:{s:i, s:s, s:s}, s:i, s:i, s:b, s:o}", "id", x->id,
                          "received_ms", (json_int_t)x->received_ms, "graded_ms",
                          (json_int_t)x->graded_ms, "status", "id", x->status, "name",
                          verdict_status_to_str((enum verdict_status)x->status), "slug",
                          verdict_status_slug((enum verdict_status)x->status), "points",
                          x->points, "max_points", x->max_points, "late", x->late, "source",
                          src ? src : json_string(""));
    static const char *const keep[] = { "message", "halves", "diagnostics", "diagnosis",
                                        "summary", "worked_cell", "loop" };
    for (size_t k = 0; a && k < sizeof keep / sizeof *keep; k++) {
        json_t *m = json_object_get(v, keep[k]);
        json_object_set(a, keep[k], m ? m : json_null());
    }
    json_decref(v);
    return a;
}

/* The request's class_req, made (zeroed) on the first call; NULL when
 * out of memory. */
static struct class_req *class_req_make(struct request *r)
{
    if (!r->feature)
        r->feature = calloc(1, sizeof(struct class_req));
    return r->feature;
}

static void student_call(struct store *s, void *arg)
{
    struct request *r = arg;
    struct store_error e = { 0 };
    struct store_record_list l = { 0 };
    struct class_req *q = r->feature;
    enum store_status st = store_student_records(s, q->student, 0, NULL,
                                                 CLASS_MAX_ATTEMPTS, &l, &e);
    json_t *attempts = json_array();
    for (size_t i = l.n; st == STORE_OK && i-- > 0;) {   /* oldest first */
        struct store_record x = { 0 };
        enum store_status g = store_record_get(s, l.v[i].id, NULL, true, &x, &e);
        if (g == STORE_OK)
            json_array_append_new(attempts, attempt_json(&x));
        else if (g != STORE_NOT_FOUND)   /* one forgotten meanwhile is skipped */
            st = g;
        store_record_clear(&x);
    }
    if (st == STORE_OK) {
        json_t *tile = class_feed_tile(r->srv->feed, q->klass, q->student);
        deferred_json(r, 200, json_pack("{s:o, s:o, s:b}", "student",
                                        tile ? tile : json_null(), "attempts", attempts,
                                        "more", l.more));
    } else {
        json_decref(attempts);
        e.status = st;
        deferred_store_error(r, &e);
    }
    store_record_list_clear(&l);
    MHD_resume_connection(r->conn);
}

static enum MHD_Result one_student(struct request *r, const char *klass)
{
    char id[PRINCIPAL_ID_MAX];
    /* the route's {id}; one too long for an id is no student */
    json_t *tile = route_param(r->row, r->path, id, sizeof id)
                       ? class_feed_tile(r->srv->feed, klass, id) : NULL;
    if (!tile)
        return response_error(r, ERROR_NOT_FOUND, "No such student in this class.", NULL,
                              NULL);
    json_decref(tile);
    struct class_req *q = class_req_make(r);
    if (!q)
        return response_out_of_memory(r);
    snprintf(q->student, sizeof q->student, "%s", id);
    snprintf(q->klass, sizeof q->klass, "%s", klass ? klass : "");
    return deferred_begin(r, student_call);
}

enum MHD_Result class_http_get(struct request *r)
{
    /* the route table checked the records (NEED_RECORDS) and the
     * instructor (NEED_INSTRUCTOR; the page: NEED_INSTRUCTOR_PAGE) */
    if (r->route == ROUTE_CLASS)
        return response_file(r, "class.html");
    /* an LTI launch names its class (?class=ID, lti_classes.class_id;
     * ?context= is the older name); none: every student of the store */
    const char *klass = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "class");
    if (!klass || !*klass)
        klass = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "context");
    if (klass && !*klass)
        klass = NULL;
    /* a launch's session reads its own class: asked for none, it gets
     * that one; asked for another, it is refused */
    const char *scope = principal_class_scope(&r->who);
    if (scope && (!*scope || (klass && strcmp(klass, scope))))
        return response_error(r, ERROR_FORBIDDEN, "This session is for another class: open "
                              "this class's view from its course on the platform.", NULL, NULL);
    if (scope)
        klass = scope;
    struct class_feed *f = r->srv->feed;
    if (!class_feed_ready(f))
        return response_error(r, ERROR_LOADING,
                              "The class is being read from the records; try again shortly.",
                              MHD_HTTP_HEADER_RETRY_AFTER, "2");
    enum class_known known = klass && strlen(klass) < STORE_ID_SIZE
                                 ? class_feed_has_class(f, klass) : CLASS_UNKNOWN;
    if (klass && known == CLASS_PENDING)
        return response_error(r, ERROR_LOADING, "The class of a launch is being read; "
                              "try again shortly.", MHD_HTTP_HEADER_RETRY_AFTER, "1");
    if (klass && known != CLASS_KNOWN)
        return response_error(r, ERROR_NOT_FOUND,
                              "No such class here: open the class view from the course's "
                              "platform again.", NULL, NULL);
    /* ?task=ID: one exercise's attempts alone (the summary and the tiles) */
    const char *task = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "task");
    if (task && !store_task_ok(task))
        return response_error(r, ERROR_BAD_REQUEST, CLASS_BAD_TASK, NULL, NULL);
    switch (r->route) {
    case ROUTE_CLASS_EVENTS:
        return events(r, klass);
    case ROUTE_CLASS_SUMMARY:
        return response_json(r, 200, class_feed_summary(f, klass, task));
    case ROUTE_CLASS_STUDENTS:
        return response_json(r, 200, class_feed_students(f, klass, task));
    case ROUTE_CLASS_STUDENT:
        return one_student(r, klass);
    case ROUTE_CLASS_GRADEBOOK: {
        size_t n = 0;
        char *csv = class_feed_gradebook_csv(f, klass, &n);
        if (!csv)
            return response_out_of_memory(r);
        struct MHD_Response *resp = response_from_buffer(csv, n, MHD_RESPMEM_MUST_FREE);
        if (resp)
            response_header(r, resp, "Content-Disposition",
                            "attachment; filename=\"class-summary.csv\"");
        return response_queue(r, 200, resp, "text/csv; charset=utf-8", NULL);
    }
    case ROUTE_CLASS_GRADEBOOK_LAYOUT:
        if (!class_req_make(r))
            return response_out_of_memory(r);
        return class_gradebook_get(r, klass);
    default:
        return response_error(r, ERROR_NOT_FOUND, "No such resource.", NULL, NULL);
    }
}

void class_http_release(struct request *r)
{
    struct class_req *q = r->feature;
    if (!q)
        return;
    json_decref(q->members);
    free(q);
    r->feature = NULL;
}
