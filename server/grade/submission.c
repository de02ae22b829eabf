/*
 * submission.c - one submission from its headers to its verdict.
 *
 * The HTTP thread never waits on a job: once the body is in, the
 * connection is suspended and the job queued; the pool's thread hands the
 * result over and resumes the connection, and the answer goes out from
 * the HTTP thread. While suspended, the socket is watched (conn_watch.c):
 * a client that hangs up has its job cancelled.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/score.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/defaults.h"
#include "common/report.h"
#include "pool/wait_estimate.h"
#include "server/core/body.h"
#include "server/core/http.h"
#include "server/core/route.h"
#include "server/core/served.h"
#include "server/grade/submission.h"
#include "server/identity/idempotency.h"
#include "server/identity/records.h"
#include "server/identity/lti_tag.h"

static enum MHD_Result answer_refusal(struct request *r);

/*
 * A submission's own state (the request's `feature`): made by
 * submission_begin, freed by submission_release. The pool's thread
 * writes `result` (and, before it, the record's fields) and the records
 * writer's thread `record_status` and `record_reason`, each before it
 * resumes the connection; libmicrohttpd's thread reads them once resumed.
 */
struct grade_req {
    const struct exercise *exercise;   /* the path's, served (served.h) */
    bool format_text;              /* ?format=text */
    int fd;                        /* its socket, watched while suspended (-1: none) */
    double submitted_ms;
    enum pool_submit_status refused;   /* POOL_SUBMITTED (0) unless refused */
    double retry_wait_ms;          /* the pool's estimate, for Retry-After */
    _Atomic(struct pool_result *) result;   /* set by the pool's thread */
    atomic_uint watch_handoff;     /* conn_watch_handoff: both threads done with the watch */
    /* the record of a submission */
    char id[STORE_ID_SIZE];        /* "" when nothing is recorded */
    int64_t lti_link;              /* the LTI launch the page came from, 0: none */
    char *source;                  /* the source as sent, owned until queued */
    size_t source_len;
    int64_t received_ms;
    char *stored;                  /* the verdict JSON as stored, owned */
    size_t stored_len;
    enum store_status record_status;
    char record_reason[256];
    /* Idempotency-Key (key "" when none came): whose it is, the SHA-256
     * of the body, whether this request holds it in the table of keys in
     * flight (released by on_recorded, or at the latest by
     * submission_release), and what the store said of it: the key was a
     * record's already, with the same body (replayed: stored is that
     * record's, replay_status its verdict) or another (key_reused). */
    char key[IDEMPOTENCY_KEY_MAX + 1];
    char scope[IDEMPOTENCY_SCOPE_MAX];
    char body_sha256[STORE_SHA256_SIZE];
    bool claimed, replayed, key_reused;
    int replay_status;
};

/* A ?wait=false submission: its connection is answered 202 at once, so
 * the job carries what the record needs itself. */
struct detached_job {
    struct server *srv;
    const struct exercise *exercise;
    char id[STORE_ID_SIZE];
    struct principal who;
    struct client_id client;
    int64_t lti_link;           /* the launch the page came from, 0: none */
    char *source;
    size_t source_len;
    int64_t received_ms;
};

/*
 * The worker's verdict bytes with the record's id as their first member:
 * a new NUL-terminated string of *outlen bytes, NULL on OOM or when the
 * bytes are not a JSON object with members (never so for a verdict).
 */
static char *with_id(const char *bytes, size_t len, const char *id, size_t *outlen)
{
    if (len < 3 || bytes[0] != '{' || bytes[len - 1] != '}')
        return NULL;
    char head[STORE_ID_SIZE + 16];
    int hl = snprintf(head, sizeof head, "{\"id\":\"%s\",", id);   /* ids are hex */
    char *out = malloc((size_t)hl + len);
    if (!out)
        return NULL;
    memcpy(out, head, (size_t)hl);
    memcpy(out + hl, bytes + 1, len - 1);
    out[(size_t)hl + len - 1] = '\0';
    *outlen = (size_t)hl + len - 1;
    return out;
}

/* Whether who's records are kept whatever they cost: a signed-in student
 * (a roster's or an LTI launch's) or the instructor. Anyone else (signed
 * out, an open lab's unverified name, which anyone can make) has a budget
 * and a bounded record (records_write, UNTRUSTED_SOURCE_KEPT). */
static bool trusted(const struct principal *who)
{
    return who->kind == PRINCIPAL_STUDENT || who->kind == PRINCIPAL_INSTRUCTOR;
}

/*
 * The record of a graded verdict: the stored text is the worker's bytes
 * with the id in front (the bytes answered). The points, the device and
 * what the class view shows (*facts) come from the verdict's header, which
 * the worker filled from the verdict it made (common/verdict_facts.h); its
 * task is exercise e's id. The
 * server never parses a verdict to record it. An untrusted client's
 * source longer than UNTRUSTED_SOURCE_KEPT is kept as its SHA-256 only
 * (source "", the hash of what was sent). A new record the writer will
 * own, NULL on OOM.
 */
static struct store_record *record_of(const struct exercise *e, const char *id,
                                      const struct principal *who,
                                      int64_t lti_link, const char *source, size_t source_len,
                                      int64_t received_ms, const struct pool_result *res,
                                      char **stored, size_t *stored_len,
                                      struct verdict_shown *facts)
{
    const struct verdict_facts *vf = &res->head.facts;
    size_t tl = 0;
    char *text = with_id(res->verdict, res->verdict_len, id, &tl);
    struct store_record *rec = calloc(1, sizeof *rec);
    if (!text || !rec)
        goto fail;
    *facts = vf->shown;
    snprintf(rec->id, sizeof rec->id, "%s", id);
    rec->task = strdup(e->id);   /* the records' task column: the exercise */
    rec->student = who->kind == PRINCIPAL_STUDENT || who->kind == PRINCIPAL_GUEST
                   ? strdup(who->id) : NULL;
    rec->lti_link = lti_link;
    rec->late_out = &rec->late;   /* the class view's event tells it (class_feed_committed) */
    rec->received_ms = received_ms;
    rec->graded_ms = records_now_ms();
    /* 64 KiB filler a millisecond's Rejected costs would otherwise be
     * kept whole, each time */
    size_t kept = !trusted(who) && source_len > UNTRUSTED_SOURCE_KEPT ? 0 : source_len;
    rec->source = malloc(kept + 1);
    if (rec->source) {
        memcpy(rec->source, source, kept);
        rec->source[kept] = '\0';
    }
    rec->source_len = kept;
    store_sha256_hex(source, source_len, rec->sha256);
    rec->status = (int)res->head.status;
    rec->points = (int)vf->points;
    rec->max_points = (int)vf->max_points;
    rec->verdict = text;
    rec->verdict_len = tl;
    rec->seed = res->head.seed;
    rec->device = vf->device[0] ? strdup(vf->device) : NULL;
    rec->grader_version = strdup(BUTTERFLY_VERSION);
    text = NULL;   /* the record's now */
    if (!rec->task || !rec->source || !rec->grader_version || (vf->device[0] && !rec->device) ||
        (rec->student == NULL && (who->kind == PRINCIPAL_STUDENT || who->kind == PRINCIPAL_GUEST)))
        goto fail;
    if (!(*stored = strdup(rec->verdict)))
        goto fail;
    *stored_len = tl;
    return rec;
fail:
    free(text);
    store_record_free(rec);
    return NULL;
}

/* Whether a graded result is one to keep: the kernel's own verdict. */
static bool to_record(const struct pool_result *res)
{
    return res->graded && !res->cancelled;
}

enum MHD_Result submission_begin(struct request *r)
{
    /* made before anything can be refused, so that every answer and
     * submission_release find it */
    struct grade_req *q = calloc(1, sizeof *q);
    if (!q)
        return response_out_of_memory(r);
    q->fd = -1;
    r->feature = q;
    /* the exercise first, before the body is read: a submission to one
     * not served (unknown, or left out by --exercises) never reaches the
     * pool */
    char exercise[EX_ID_MAX + 1];
    q->exercise = route_param(r->row, r->path, exercise, sizeof exercise)
                  ? served_find(exercise) : NULL;
    if (!q->exercise)
        return response_error(r, ERROR_UNKNOWN_EXERCISE, SERVED_UNKNOWN_MESSAGE, NULL, NULL);
    /* a link's sign-in waiting for "Sign in as NAME?": a run now would be
     * recorded as nobody's, and confirming later would not bring it back
     * (issue 31 item 3); refused before the body is read, nothing kept */
    if (r->srv->records && r->who.kind == PRINCIPAL_NONE && r->pending.kind != PRINCIPAL_NONE)
        return response_error(r, ERROR_SIGN_IN_PENDING,
                              "This page's sign-in waits for its answer: answer \"Sign in as "
                              "NAME?\" at the top of the page (or Not me), then run again, so "
                              "that the run is recorded as yours.", NULL, NULL);
    /* the same on a page signed in as A where B's link waits (a shared lab
     * PC): whoever is at the keyboard, the run must not go in as A's
     * silently (issue 31 item 4); a bearer's request carries no cookie */
    if (r->srv->records && r->who.kind != PRINCIPAL_NONE && r->pending.kind != PRINCIPAL_NONE &&
        !principal_same(&r->who, &r->pending))
        return response_error(r, ERROR_SIGN_IN_PENDING,
                              "A link for someone else waits on this page, which is signed in "
                              "as another student: sign out at the top of the page (the link "
                              "then asks who you are), then run again.", NULL, NULL);
    /* r->kind is the Content-Type's, read by routes_dispatch with the
     * row's bound for it (r->limit) */
    if (r->kind == BODY_UNSUPPORTED)
        return response_error(r, ERROR_UNSUPPORTED_MEDIA_TYPE,
                              "Send the kernel body as text/plain, or JSON {\"source\": \"...\"} "
                              "as application/json.", NULL, NULL);
    const char *fmt = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "format");
    q->format_text = fmt && !strcmp(fmt, "text");
    enum MHD_Result refused;
    if (body_refused(r, request_too_large_message(r->kind), &refused))
        return refused;
    r->state = REQ_READING;
    return MHD_YES;
}

/*
 * Runs on the reader's thread when this submission's Idempotency-Key was
 * a record's already (its insert wrote nothing): that record, made by an
 * earlier request with the key (on this instance or another sharing the
 * store), is the answer when the body was the same; another body is
 * told 422. Resumes the connection.
 */
static void replay_call(struct store *s, void *arg)
{
    struct request *r = arg;
    struct grade_req *q = r->feature;
    struct store_record rec;
    struct store_error e = { 0 };
    char body[STORE_SHA256_SIZE];
    int64_t since = records_now_ms() - (int64_t)IDEMPOTENCY_WINDOW_S * 1000;
    enum store_status st;
    READ_TWICE(st, store_idempotency_find(s, q->scope, q->key, since, body, &rec, &e));
    if (st == STORE_OK && strcmp(body, q->body_sha256) != 0) {
        q->key_reused = true;
    } else if (st == STORE_OK) {
        char *text = rec.verdict ? malloc(rec.verdict_len + 1) : NULL;
        if (text) {
            memcpy(text, rec.verdict, rec.verdict_len);
            text[rec.verdict_len] = '\0';
            free(q->stored);
            q->stored = text;
            q->stored_len = rec.verdict_len;
            q->replayed = true;
            q->replay_status = rec.status;
            q->record_status = STORE_OK;
            q->record_reason[0] = '\0';
        }
    } else {
        /* gone between the insert and this read (forgotten): unrecorded */
        q->record_status = st == STORE_NOT_FOUND ? STORE_CONFLICT : st;
        snprintf(q->record_reason, sizeof q->record_reason, "%.200s", e.message);
    }
    store_record_clear(&rec);
    MHD_resume_connection(r->conn);
}

/* Runs on the records writer's thread: the record is committed (or not);
 * only now may the answer say so. */
static void on_recorded(const char *id, enum store_status st, const char *reason, void *arg)
{
    struct request *r = arg;
    struct grade_req *q = r->feature;
    (void)id;
    q->record_status = st;
    snprintf(q->record_reason, sizeof q->record_reason, "%s", reason);
    if (q->claimed) {
        /* decided: committed with its key, or the key is another's record */
        idempotency_release(records_keys(r->srv->records), q->scope, q->key);
        q->claimed = false;
    }
    if (st == STORE_CONFLICT && q->key[0] &&
        records_read(r->srv->records, replay_call, r))
        return;   /* replay_call resumes */
    MHD_resume_connection(r->conn);
}

/*
 * Runs on the pool's thread: publish the result, then hand the watch over
 * (conn_watch_handoff: whichever of this and submission_finish comes
 * second stops watching the socket, which is so before libmicrohttpd can
 * close it: it runs submission_finish and the resumed connection on one
 * thread), have it recorded, and wake the connection (after the commit
 * when it is recorded).
 */
static void on_job_done(struct pool_result *res, void *arg)
{
    struct request *r = arg;
    struct grade_req *q = r->feature;
    struct pool_result *copy = malloc(sizeof *copy);
    if (copy)
        *copy = *res;
    else
        pool_result_clear(res);   /* answered 500 below */
    res->verdict = NULL;
    uint64_t job = res->job_id;
    struct store_record *rec = NULL;
    struct verdict_shown facts;
    if (copy && q->id[0] && to_record(copy)) {
        rec = record_of(q->exercise, q->id, &r->who, q->lti_link, q->source, q->source_len,
                        q->received_ms, copy, &q->stored, &q->stored_len, &facts);
        if (rec && q->key[0]) {
            /* the key goes in with the record, in its transaction */
            rec->idem_scope = strdup(q->scope);
            rec->idem_key = strdup(q->key);
            snprintf(rec->idem_body_sha256, sizeof rec->idem_body_sha256, "%s", q->body_sha256);
            if (!rec->idem_scope || !rec->idem_key) {
                store_record_free(rec);
                rec = NULL;
                free(q->stored);
                q->stored = NULL;
            }
        }
        if (!rec) {
            q->record_status = STORE_NO_MEMORY;
            snprintf(q->record_reason, sizeof q->record_reason, "out of memory");
        }
    }
    free(q->source);
    q->source = NULL;
    atomic_store(&q->result, copy);
    conn_watch_handoff(r->srv->watch, &q->watch_handoff, job);
    if (rec)
        records_write(r->srv->records, rec, &facts, trusted(&r->who) ? NULL : &r->client,
                      on_recorded, r);
    else
        MHD_resume_connection(r->conn);
}

static void detached_free(struct detached_job *d)
{
    if (d)
        free(d->source);
    free(d);
}

/* What a detached record's callback needs: the text it stored. */
struct detached_write {
    struct records *rs;
    char *stored;
};

static void on_detached_recorded(const char *id, enum store_status st, const char *reason,
                                 void *arg)
{
    struct detached_write *w = arg;
    char *answer = NULL;
    if (st != STORE_OK)
        answer = response_verdict_text(w->stored, strlen(w->stored), false,
                                     store_status_to_str(st), reason, NULL);
    records_detached_done(w->rs, id, st == STORE_OK, answer);
    free(w->stored);
    free(w);
}

/* Runs on the pool's thread for a ?wait=false job: nobody is waiting. */
static void on_detached_done(struct pool_result *res, void *arg)
{
    struct detached_job *d = arg;
    struct records *rs = d->srv->records;
    char *stored = NULL;
    size_t len = 0;
    struct verdict_shown facts;
    struct store_record *rec = to_record(res)
        ? record_of(d->exercise, d->id, &d->who, d->lti_link, d->source, d->source_len,
                    d->received_ms, res, &stored, &len, &facts)
        : NULL;
    if (!rec) {
        /* not graded (shut down, no worker) or out of memory: the verdict
         * is the answer, unrecorded */
        size_t tl = 0;
        char *text = with_id(res->verdict, res->verdict_len, d->id, &tl);
        char *answer = text ? response_verdict_text(text, tl, false, "not_graded",
                                                  "The submission was not graded.", NULL)
                            : NULL;
        free(text);
        records_detached_done(rs, d->id, false, answer);
    } else {
        struct detached_write *w = malloc(sizeof *w);
        if (w) {
            *w = (struct detached_write){ rs, stored };
            records_write(rs, rec, &facts, trusted(&d->who) ? NULL : &d->client,
                          on_detached_recorded, w);
        } else {
            free(stored);
            store_record_free(rec);
            records_detached_done(rs, d->id, false, NULL);
        }
    }
    pool_result_clear(res);
    detached_free(d);
}

void submission_client_gone(uint64_t id, void *arg)
{
    struct server *s = arg;
    pool_cancel(s->pool, id);
}

/* ?wait=false: queue the job with its own context and answer 202 now. */
static enum MHD_Result submission_detach(struct request *r, const char *src, size_t len)
{
    struct grade_req *q = r->feature;
    if (r->who.kind == PRINCIPAL_NONE)
        return response_error(r, ERROR_UNAUTHORIZED,
                              "Sign in (a cookie or a bearer token) to submit without waiting: "
                              "only you may read the verdict later.", NULL, NULL);
    struct detached_job *d = calloc(1, sizeof *d);
    if (!d || !store_new_id(d->id) || !(d->source = malloc(len + 1))) {
        detached_free(d);
        return response_out_of_memory(r);
    }
    memcpy(d->source, src, len);
    d->source_len = len;
    d->srv = r->srv;
    d->exercise = q->exercise;
    d->who = r->who;
    d->client = r->client;
    d->lti_link = q->lti_link;
    d->received_ms = records_now_ms();
    free(r->body);
    r->body = NULL;
    if (!records_detach(r->srv->records, d->id, &r->who)) {
        detached_free(d);
        return response_error(r, ERROR_QUEUE_FULL,
                              "Too many submissions are waiting; try again shortly.",
                              MHD_HTTP_HEADER_RETRY_AFTER, "5");
    }
    char id[STORE_ID_SIZE];
    snprintf(id, sizeof id, "%s", d->id);
    struct pool_submission sub = { d->source, d->source_len, &r->client, on_detached_done, d,
                                   d->exercise->id };
    uint64_t job = 0;
    q->refused = pool_submit(r->srv->pool, &sub, &job, &q->retry_wait_ms);
    if (q->refused != POOL_SUBMITTED) {
        records_detached_done(r->srv->records, id, true, NULL);   /* drop the entry */
        detached_free(d);
        metrics_count_refusal(r->srv->metrics, q->refused);
        return answer_refusal(r);
    }
    q->refused = POOL_SUBMITTED;
    char location[64];
    route_link(ROUTE_SUBMISSION, id, location, sizeof location);
    json_t *j = json_pack("{s:s, s:s, s:s}", "id", id, "state", "pending", "url", location);
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    struct MHD_Response *resp = text ? response_from_buffer(text, strlen(text),
                                                            MHD_RESPMEM_MUST_FREE) : NULL;
    if (resp)
        response_header(r, resp, MHD_HTTP_HEADER_LOCATION, location);
    return response_queue(r, 202, resp, "application/json", NULL);
}

/*
 * The launch the submitting page came from (LTI_LAUNCH_HEADER, lti_tag.h)
 * into the grade_req's lti_link, for a signed-in student with LTI on;
 * none sent: 0 (the student's latest launch is scored). False with the
 * answer in *answer when the tag is not one of this student's launches: a
 * page of another student's launch left open in this browser, or a forged
 * tag, is refused rather than scored for whoever is signed in now, or on
 * a line item they were not launched from.
 */
static bool launch_of(struct request *r, enum MHD_Result *answer)
{
    struct grade_req *q = r->feature;
    q->lti_link = 0;
    const char *tag = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, LTI_LAUNCH_HEADER);
    if (!tag || !r->srv->lti || !r->srv->records || r->who.kind != PRINCIPAL_STUDENT)
        return true;
    q->lti_link = lti_tag_read(records_session_key(r->srv->records), r->who.id, tag);
    if (q->lti_link > 0)
        return true;
    *answer = response_error(r, ERROR_LAUNCH_NOT_YOURS,
                             "This page was opened by a launch of someone other than the "
                             "student signed in now (or its launch is not valid): open the "
                             "exercise again from your course.", NULL, NULL);
    return false;
}

/*
 * The request's Idempotency-Key into the grade_req (none sent: key "",
 * and the submission is as it always was): checked, scoped to whoever
 * sends it, the body hashed, and claimed in the table of keys in flight.
 * False with the answer in *answer: 400 for a key of the wrong shape or
 * on a ?wait=false submission, 409 while the key's first request is
 * still being graded here (the IETF draft's answer; a client retries
 * after Retry-After and gets the record), 503 when too many are.
 */
static bool key_of(struct request *r, bool detach, enum MHD_Result *answer)
{
    struct grade_req *q = r->feature;
    const char *key = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, IDEMPOTENCY_HEADER);
    if (!key)
        return true;
    if (!idempotency_key_valid(key)) {
        char msg[200];
        snprintf(msg, sizeof msg, "An " IDEMPOTENCY_HEADER " is 1 to %u letters, digits and "
                 "any of " IDEMPOTENCY_KEY_PUNCT " (a UUID will do).", IDEMPOTENCY_KEY_MAX);
        *answer = response_error(r, ERROR_BAD_REQUEST, msg, NULL, NULL);
        return false;
    }
    if (detach) {
        *answer = response_error(r, ERROR_BAD_REQUEST,
                                 "An " IDEMPOTENCY_HEADER " is taken on a submission that waits "
                                 "for its verdict (without ?wait=false).", NULL, NULL);
        return false;
    }
    snprintf(q->key, sizeof q->key, "%s", key);
    idempotency_scope(&r->who, &r->client, q->scope);
    store_sha256_hex(r->body ? r->body : "", r->body ? r->len : 0, q->body_sha256);
    enum idempotency_claim c = idempotency_claim(records_keys(r->srv->records), q->scope,
                                                 q->key);
    if (c == IDEMPOTENCY_CLAIMED) {
        q->claimed = true;
        return true;
    }
    q->key[0] = '\0';
    if (c == IDEMPOTENCY_IN_USE)
        *answer = response_error(r, ERROR_IDEMPOTENCY_KEY_IN_USE,
                                 "A submission with this " IDEMPOTENCY_HEADER " is being graded "
                                 "now: ask again shortly for its answer.", NULL, NULL);
    else
        *answer = response_error(r, ERROR_TOO_BUSY,
                                 "Too many submissions with an " IDEMPOTENCY_HEADER " are being "
                                 "graded; try again shortly.", NULL, NULL);   /* the table's Retry-After */
    return false;
}

enum MHD_Result submission_finish(struct request *r)
{
    struct grade_req *q = r->feature;
    if (r->too_large)
        return response_error(r, ERROR_PAYLOAD_TOO_LARGE, request_too_large_message(r->kind),
                              NULL, NULL);
    const char *src;
    size_t len;
    json_t *owner;
    char msg[300];
    enum MHD_Result refused;
    if (!launch_of(r, &refused))
        return refused;
    if (!request_extract_source(r->kind, r->body, r->len, &src, &len, &owner, msg, sizeof msg))
        return response_error(r, ERROR_BAD_REQUEST, msg, NULL, NULL);
    if (r->srv->records) {
        const char *wait = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "wait");
        bool detach = wait && !strcmp(wait, "false");
        if (!key_of(r, detach, &refused)) {
            json_decref(owner);
            return refused;
        }
        if (detach) {
            json_decref(owner);
            return submission_detach(r, src, len);
        }
        /* the record's id comes before the verdict: a record is told by id */
        bool attributable = !(r->lookup == LOOKUP_BEARER && r->lookup_status != STORE_OK);
        if (attributable && store_new_id(q->id)) {
            q->source = malloc(len + 1);
            if (q->source) {
                memcpy(q->source, src, len);
                q->source_len = len;
            } else {
                q->id[0] = '\0';
            }
        }
        q->received_ms = records_now_ms();
        if (!q->id[0]) {
            q->record_status = STORE_UNAVAILABLE;
            snprintf(q->record_reason, sizeof q->record_reason, "%s", attributable
                     ? "no id could be made" : "the token could not be checked");
        }
    }
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    q->fd = ci ? ci->connect_fd : -1;
    /* Suspend first: the verdict may arrive before pool_submit returns. */
    MHD_suspend_connection(r->conn);
    r->state = REQ_SUSPENDED;
    q->submitted_ms = clock_now_ms();
    struct pool_submission sub = { src, len, &r->client, on_job_done, r, q->exercise->id };
    uint64_t id = 0;
    enum pool_submit_status st = pool_submit(r->srv->pool, &sub, &id, &q->retry_wait_ms);
    json_decref(owner);
    free(r->body);
    r->body = NULL;
    q->refused = st;
    if (st != POOL_SUBMITTED) {
        metrics_count_refusal(r->srv->metrics, st);
        MHD_resume_connection(r->conn);
        return MHD_YES;
    }
    /* The job may be over already: a socket watched now is unwatched at
     * once by the handoff, since the callback arrived first. */
    if (q->fd >= 0 && !atomic_load(&q->result))
        conn_watch_add(r->srv->watch, q->fd, id);
    conn_watch_handoff(r->srv->watch, &q->watch_handoff, id);
    return MHD_YES;
}

static enum MHD_Result answer_refusal(struct request *r)
{
    struct grade_req *q = r->feature;
    char secs[16];
    snprintf(secs, sizeof secs, "%u", wait_retry_after_s(q->retry_wait_ms));
    switch (q->refused) {
    case POOL_CLIENT_BUSY:
        return response_error(r, ERROR_TOO_MANY_REQUESTS,
                              "You have submissions waiting already; wait for their verdicts.",
                              MHD_HTTP_HEADER_RETRY_AFTER, secs);
    case POOL_QUEUE_FULL:
        return response_error(r, ERROR_QUEUE_FULL,
                              "Every grader is busy and the queue is full; try again shortly.",
                              MHD_HTTP_HEADER_RETRY_AFTER, secs);
    case POOL_WAIT_TOO_LONG:
        return response_error(r, ERROR_TOO_BUSY,
                              "Every grader is busy and the wait would be too long; try again "
                              "shortly.", MHD_HTTP_HEADER_RETRY_AFTER, secs);
    case POOL_STOPPING:
        return response_error(r, ERROR_SHUTTING_DOWN, "The grader is shutting down.",
                              NULL, NULL);
    case POOL_UNKNOWN_EXERCISE:   /* served_find said yes: the registry is the pool's too */
        return response_error(r, ERROR_UNKNOWN_EXERCISE, SERVED_UNKNOWN_MESSAGE, NULL, NULL);
    default:
        return response_out_of_memory(r);
    }
}

/* The one place a verdict becomes an HTTP status: every graded outcome,
 * a compile error or a refused body included, is a 200. */
static unsigned http_status_for(enum verdict_status s)
{
    return s == VERDICT_INTERNAL_ERROR ? 500 : 200;
}

/* Counts a graded submission and remembers it for the access log. */
static void count_result(struct request *r, const struct pool_result *res)
{
    struct grade_req *q = r->feature;
    if (res->graded)
        metrics_count_submission(r->srv->metrics, res->head.status,
                                 (clock_now_ms() - q->submitted_ms) / 1000.0);
    snprintf(r->verdict_slug, sizeof r->verdict_slug, "%s",
             res->graded ? verdict_status_slug(res->head.status) : "cancelled");
    r->seed = res->head.seed;
    r->wait_ms = res->wait_ms;
}

/* The first record's answer again, for a key it holds: the same status
 * and bytes (recorded: true, it is in the store), in words for
 * ?format=text, and IDEMPOTENCY_REPLAY_HEADER saying it is a replay. */
static enum MHD_Result replay_answer(struct request *r, unsigned status)
{
    struct grade_req *q = r->feature;
    char *text = NULL;
    size_t n = 0;
    const char *type = "application/json";
    if (q->format_text) {
        struct verdict *v = verdict_from_bytes(q->stored, q->stored_len);
        text = v ? report_to_string(v) : NULL;
        verdict_free(v);
        n = text ? strlen(text) : 0;
        type = "text/plain; charset=utf-8";
    } else {
        text = response_verdict_text(q->stored, q->stored_len, true,
                                     store_status_to_str(STORE_OK), "", &n);
    }
    struct MHD_Response *resp = text ? response_from_buffer(text, n, MHD_RESPMEM_MUST_FREE)
                                     : NULL;
    if (!resp)
        return response_out_of_memory(r);
    response_header(r, resp, IDEMPOTENCY_REPLAY_HEADER, "true");
    return response_queue(r, status, resp, type, NULL);
}

enum MHD_Result submission_answer(struct request *r)
{
    struct grade_req *q = r->feature;
    if (q->refused != POOL_SUBMITTED)
        return answer_refusal(r);
    struct pool_result *res = atomic_exchange(&q->result, NULL);
    if (!res)   /* out of memory in the pool's callback */
        return response_error(r, ERROR_INTERNAL_ERROR, "The job ended without a verdict.",
                              NULL, NULL);
    count_result(r, res);
    unsigned status = http_status_for(q->replayed ? (enum verdict_status)q->replay_status
                                                  : res->head.status);
    enum MHD_Result ret;
    if (res->cancelled) {
        ret = MHD_NO;   /* nobody is there to read it */
    } else if (q->key_reused) {
        ret = response_error(r, ERROR_IDEMPOTENCY_KEY_REUSED,
                             "This " IDEMPOTENCY_HEADER " was sent with another body: a key "
                             "names one submission; send a new key for new code.", NULL, NULL);
    } else if (q->replayed) {
        ret = replay_answer(r, status);
    } else if (q->format_text) {
        /* the one answer that reads the verdict: to put it in words */
        struct verdict *v = verdict_from_bytes(res->verdict, res->verdict_len);
        char *text = v ? report_to_string(v) : NULL;
        verdict_free(v);
        ret = text ? response_queue(r, status,
                                    response_from_buffer(text, strlen(text),
                                                         MHD_RESPMEM_MUST_FREE),
                                    "text/plain; charset=utf-8", NULL)
                   : MHD_NO;
    } else if (q->stored) {
        /* the stored bytes, and whether they are in the store */
        bool ok = q->record_status == STORE_OK;
        size_t n = 0;
        char *text = response_verdict_text(q->stored, q->stored_len, ok,
                                         store_status_to_str(q->record_status),
                                         q->record_reason, &n);
        ret = text ? response_queue(r, status,
                                    response_from_buffer(text, n, MHD_RESPMEM_MUST_FREE),
                                    "application/json", NULL)
                   : MHD_NO;
    } else if (r->srv->records) {
        /* kept no record (not graded, no id, out of memory): say so */
        size_t tl = res->verdict_len, n = 0;
        char *idd = q->id[0] ? with_id(res->verdict, res->verdict_len, q->id, &tl) : NULL;
        char *text = response_verdict_text(idd ? idd : res->verdict, tl, false,
                                         q->record_status ? store_status_to_str(q->record_status)
                                                          : "not_graded",
                                         q->record_reason[0] ? q->record_reason
                                                             : "The submission was not graded.",
                                         &n);
        free(idd);
        ret = text ? response_queue(r, status,
                                    response_from_buffer(text, n, MHD_RESPMEM_MUST_FREE),
                                    "application/json", NULL)
                   : MHD_NO;
    } else {
        /* the worker's bytes, as they are (the response frees them) */
        ret = response_queue(r, status,
                             response_from_buffer(res->verdict, res->verdict_len,
                                                  MHD_RESPMEM_MUST_FREE),
                             "application/json", NULL);
        res->verdict = NULL;
    }
    pool_result_clear(res);
    free(res);
    return ret;
}

void submission_release(struct request *r)
{
    struct grade_req *q = r->feature;
    free(r->body);
    r->body = NULL;
    if (!q)   /* refused before submission_begin */
        return;
    /* A verdict that arrived for a connection that went away (the client
     * hung up as it came) was graded all the same: count it and log it like
     * any other, so that the counters add up. */
    struct pool_result *res = atomic_exchange(&q->result, NULL);
    if (res) {
        count_result(r, res);
        pool_result_clear(res);
        free(res);
    }
    if (q->claimed)   /* never recorded (refused, not graded, cancelled) */
        idempotency_release(records_keys(r->srv->records), q->scope, q->key);
    free(q->source);
    free(q->stored);
    free(q);
    r->feature = NULL;
}
