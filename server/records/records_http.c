/*
 * records_http.c - the routes of the records.
 *
 * Nothing here calls the store on libmicrohttpd's thread: a token to look
 * up, a record to read or a display name to keep is a job for the
 * reader's thread (records_read), which fills the request and resumes its
 * connection; the answer goes out from the HTTP thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/defaults.h"
#include "common/parse_num.h"
#include "server/core/request.h"
#include "server/core/route.h"
#include "server/identity/auth.h"
#include "server/identity/deferred.h"
#include "server/identity/records.h"
#include "server/records/records_http.h"

/* A read of the records, for the reader's thread (the request's
 * `feature`, made by records_http_get, freed by records_http_release). */
struct records_req {
    char id[STORE_ID_SIZE];          /* GET /api/submissions/{id} */
    /* a page of GET /api/me/submissions */
    char student[PRINCIPAL_ID_MAX];
    int64_t before_ms;
    char before_id[STORE_ID_SIZE];
    unsigned limit;
};

static const char not_found_msg[] = "No such submission.";

/* --- answers ------------------------------------------------------------------ */

/* --- reads ---------------------------------------------------------------- */

/* The student id whose records who reads; NULL for the instructor. */
static const char *reader_id(const struct principal *who)
{
    return who->kind == PRINCIPAL_INSTRUCTOR ? NULL : who->id;
}

static void get_call(struct store *s, void *arg)
{
    struct request *r = arg;
    struct store_error e = { 0 };
    struct store_record rec = { 0 };
    const char *id = ((struct records_req *)r->feature)->id;
    enum store_status st;
    READ_TWICE(st, store_record_get(s, id, reader_id(&r->who),
                                    r->who.kind == PRINCIPAL_INSTRUCTOR, &rec, &e));
    /* a launch's instructor reads the records of their class's learners */
    const char *scope = principal_class_scope(&r->who);
    if (st == STORE_OK && scope && !r->srv->class_has(r->srv->feed, scope, rec.student))
        st = STORE_NOT_FOUND;
    if (st == STORE_OK) {
        size_t n;
        char *text = response_verdict_text(rec.verdict, rec.verdict_len, true, NULL, NULL, &n);
        json_t *j = text ? json_loadb(text, n, 0, NULL) : NULL;
        free(text);
        if (j) {
            /* the code of the attempt, for the page to load it again */
            json_t *src = json_stringn(rec.source ? rec.source : "", rec.source_len);
            json_object_set_new(j, "source", src ? src : json_null());
            json_object_set_new(j, "received_ms", json_integer(rec.received_ms));
            json_object_set_new(j, "late", json_boolean(rec.late));
        }
        deferred_json(r, 200, j);
    } else if (st == STORE_NOT_FOUND) {
        deferred_error(r, ERROR_NOT_FOUND, not_found_msg);
    } else {
        deferred_store_error(r, &e);
    }
    store_record_clear(&rec);
    MHD_resume_connection(r->conn);
}

/* The paging cursor "MS.ID" of the last record of a page. */
static bool parse_cursor(const char *c, int64_t *ms, char id[STORE_ID_SIZE])
{
    const char *dot = c ? strchr(c, '.') : NULL;
    char num[24];
    uint64_t v;
    if (!dot || (size_t)(dot - c) >= sizeof num || strlen(dot + 1) >= STORE_ID_SIZE)
        return false;
    memcpy(num, c, (size_t)(dot - c));
    num[dot - c] = '\0';
    if (!parse_u64(num, INT64_MAX, &v) || !auth_token_shape(dot + 1))
        return false;
    *ms = (int64_t)v;
    snprintf(id, STORE_ID_SIZE, "%s", dot + 1);
    return true;
}

static void list_call(struct store *s, void *arg)
{
    struct request *r = arg;
    struct records_req *a = r->feature;
    struct store_error e = { 0 };
    struct store_record_list l = { 0 };
    enum store_status st;
    READ_TWICE(st, store_student_records(s, a->student, a->before_ms,
                                         a->before_id[0] ? a->before_id : NULL, a->limit, &l,
                                         &e));
    if (st == STORE_OK) {
        json_t *items = json_array();
        for (size_t i = 0; i < l.n; i++) {
            const struct store_record *x = &l.v[i];
            json_array_append_new(items, json_pack(
                "{s:s, s:s, s:I, s:I, s:{s:i, s:s, s:s}, s:i, s:i, s:b}", "id", x->id,
                "task", x->task ? x->task : "",
                "received_ms", (json_int_t)x->received_ms, "graded_ms", (json_int_t)x->graded_ms,
                "status", "id", x->status,
                "name", verdict_status_to_str((enum verdict_status)x->status),
                "slug", verdict_status_slug((enum verdict_status)x->status),
                "points", x->points, "max_points", x->max_points, "late", x->late));
        }
        json_t *next = json_null();
        if (l.more && l.n) {
            char cursor[64];
            snprintf(cursor, sizeof cursor, "%lld.%s", (long long)l.v[l.n - 1].received_ms,
                     l.v[l.n - 1].id);
            next = json_string(cursor);
        }
        deferred_json(r, 200, json_pack("{s:o, s:o}", "submissions", items, "next", next));
    } else {
        deferred_store_error(r, &e);
    }
    store_record_list_clear(&l);
    MHD_resume_connection(r->conn);
}

static enum MHD_Result my_submissions(struct request *r)
{
    if (r->who.kind == PRINCIPAL_NONE)
        return response_error(r, ERROR_UNAUTHORIZED, "Sign in to see your submissions.",
                              NULL, NULL);
    struct records_req *a = r->feature;
    const char *student = r->who.id;
    if (r->who.kind == PRINCIPAL_INSTRUCTOR) {
        student = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "student");
        if (!student || !*student || strlen(student) >= sizeof a->student)
            return response_error(r, ERROR_BAD_REQUEST,
                                  "The instructor names the student: ?student=ID.", NULL, NULL);
        const char *scope = principal_class_scope(&r->who);
        if (scope && !r->srv->class_has(r->srv->feed, scope, student))
            return response_error(r, ERROR_FORBIDDEN,
                                  "That student is not a learner of the class this session "
                                  "was opened from.", NULL, NULL);
    }
    snprintf(a->student, sizeof a->student, "%s", student);
    const char *lim = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "limit");
    uint64_t n = DEFAULT_PAGE_SIZE;
    if (lim && (!parse_u64(lim, MAX_PAGE_SIZE, &n) || n == 0)) {
        char msg[96];
        snprintf(msg, sizeof msg, "The limit is a number from 1 to %u.", MAX_PAGE_SIZE);
        return response_error(r, ERROR_BAD_REQUEST, msg, NULL, NULL);
    }
    a->limit = (unsigned)n;
    const char *before = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "before");
    if (before && !parse_cursor(before, &a->before_ms, a->before_id))
        return response_error(r, ERROR_BAD_REQUEST,
                              "The cursor is not one this server gave (use \"next\").", NULL,
                              NULL);
    return deferred_begin(r, list_call);
}

static enum MHD_Result one_submission(struct request *r)
{
    char id[STORE_ID_SIZE];   /* the route's {id}: one that does not fit is no id */
    /* whatever the reason, the same answer: no one learns that an id exists */
    if (!route_param(r->row, r->path, id, sizeof id) || r->who.kind == PRINCIPAL_NONE ||
        strlen(id) != STORE_ID_SIZE - 1 || !auth_token_shape(id))
        return response_error(r, ERROR_NOT_FOUND, not_found_msg, NULL, NULL);
    struct records_req *q = r->feature;
    snprintf(q->id, sizeof q->id, "%s", id);
    char *answer = NULL;
    switch (records_detached_get(r->srv->records, q->id, &r->who, &answer)) {
    case DETACHED_PENDING:
        return response_json(r, 202, json_pack("{s:s, s:s}", "id", q->id, "state", "pending"));
    case DETACHED_UNRECORDED:
        return answer ? response_queue(r, 200, response_from_buffer(answer, strlen(answer),
                                                                    MHD_RESPMEM_MUST_FREE),
                                       "application/json", NULL)
                      : response_out_of_memory(r);
    case DETACHED_LOST:
        return response_error(r, ERROR_INTERNAL_ERROR,
                              "The verdict was lost (the server ran out of memory): submit "
                              "again.", NULL, NULL);
    case DETACHED_UNKNOWN:
        break;
    }
    return deferred_begin(r, get_call);
}

enum MHD_Result records_http_get(struct request *r)
{
    if (!r->srv->records)
        return response_error(r, ERROR_NOT_FOUND, "This server keeps no records.", NULL, NULL);
    r->feature = calloc(1, sizeof(struct records_req));
    if (!r->feature)
        return response_out_of_memory(r);
    switch (r->route) {
    case ROUTE_MY_SUBMISSIONS:
        return my_submissions(r);
    case ROUTE_SUBMISSION:
        return one_submission(r);
    default:
        return response_error(r, ERROR_NOT_FOUND, "No such resource.", NULL, NULL);
    }
}


void records_http_release(struct request *r)
{
    free(r->feature);
    r->feature = NULL;
}
