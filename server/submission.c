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

#include "common/clock.h"
#include "common/report.h"
#include "pool/wait_estimate.h"
#include "server/http_internal.h"

enum MHD_Result submission_begin(struct request *r)
{
    const char *type = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                   MHD_HTTP_HEADER_CONTENT_TYPE);
    r->kind = request_body_kind(type);
    if (r->kind == BODY_UNSUPPORTED)
        return response_error(r, 415, "unsupported_media_type",
                              "Send the kernel body as text/plain, or JSON {\"source\": \"...\"} "
                              "as application/json.", NULL, NULL);
    r->limit = request_body_limit(r->kind);
    const char *fmt = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "format");
    r->format_text = fmt && !strcmp(fmt, "text");
    const char *cl = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_LENGTH);
    const char *te = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_TRANSFER_ENCODING);
    switch (request_check_length(cl, te, r->limit)) {
    case LENGTH_OK:
        break;
    case LENGTH_TOO_LARGE:
        /* refused from the headers: a 10 MB body is never read */
        return response_error(r, 413, "payload_too_large", request_too_large_message(r->kind),
                              NULL, NULL);
    case LENGTH_MALFORMED:
        return response_error(r, 400, "bad_request", "The Content-Length is not a number.",
                              NULL, NULL);
    case LENGTH_REQUIRED:
        return response_error(r, 411, "length_required",
                              "Send a Content-Length (or a chunked body).", NULL, NULL);
    }
    r->state = REQ_READING;
    return MHD_YES;
}

enum MHD_Result submission_body(struct request *r, const char *data, size_t *size)
{
    /* Counted for chunked bodies too, whose length is not declared.
     * libmicrohttpd cannot answer in the middle of a body, so the rest is
     * read and dropped, up to 1 MiB more; past that the connection is
     * simply closed. */
    if (r->too_large || r->len + *size > r->limit) {
        r->too_large = true;
        r->len += *size;
        *size = 0;
        return r->len > r->limit + (1u << 20) ? MHD_NO : MHD_YES;
    }
    char *grown = realloc(r->body, r->len + *size + 1);
    if (!grown)
        return MHD_NO;
    memcpy(grown + r->len, data, *size);
    r->body = grown;
    r->len += *size;
    *size = 0;
    return MHD_YES;
}

/*
 * Runs on the pool's thread: publish the result, then hand the watch over
 * (conn_watch_handoff: whichever of this and submission_finish comes
 * second stops watching the socket, which is so before libmicrohttpd can
 * close it: it runs submission_finish and the resumed connection on one
 * thread), then wake the connection.
 */
static void on_job_done(struct pool_result *res, void *arg)
{
    struct request *r = arg;
    struct pool_result *copy = malloc(sizeof *copy);
    if (copy)
        *copy = *res;
    else
        pool_result_clear(res);   /* answered 500 below */
    res->verdict = NULL;
    uint64_t id = res->job_id;
    atomic_store(&r->result, copy);
    conn_watch_handoff(r->srv->watch, &r->watch_handoff, id);
    MHD_resume_connection(r->conn);
}

void submission_client_gone(uint64_t id, void *arg)
{
    struct server *s = arg;
    pool_cancel(s->pool, id);
}

enum MHD_Result submission_finish(struct request *r)
{
    if (r->too_large)
        return response_error(r, 413, "payload_too_large", request_too_large_message(r->kind),
                              NULL, NULL);
    const char *src;
    size_t len;
    json_t *owner;
    char msg[300];
    if (!request_extract_source(r->kind, r->body, r->len, &src, &len, &owner, msg, sizeof msg))
        return response_error(r, 400, "bad_request", msg, NULL, NULL);
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    r->fd = ci ? ci->connect_fd : -1;
    /* Suspend first: the verdict may arrive before pool_submit_ex returns. */
    MHD_suspend_connection(r->conn);
    r->state = REQ_WAITING;
    r->submitted_ms = clock_now_ms();
    struct pool_submission sub = { src, len, r->client, on_job_done, r };
    uint64_t id = 0;
    enum pool_submit_status st = pool_submit(r->srv->pool, &sub, &id, &r->retry_wait_ms);
    json_decref(owner);
    free(r->body);
    r->body = NULL;
    r->refused = st;
    if (st != POOL_SUBMITTED) {
        metrics_count_refusal(r->srv->metrics, st);
        MHD_resume_connection(r->conn);
        return MHD_YES;
    }
    /* The job may be over already: a socket watched now is unwatched at
     * once by the handoff, since the callback arrived first. */
    if (r->fd >= 0 && !atomic_load(&r->result))
        conn_watch_add(r->srv->watch, r->fd, id);
    conn_watch_handoff(r->srv->watch, &r->watch_handoff, id);
    return MHD_YES;
}

static enum MHD_Result answer_refusal(struct request *r)
{
    char secs[16];
    snprintf(secs, sizeof secs, "%u", wait_retry_after_s(r->retry_wait_ms));
    switch (r->refused) {
    case POOL_CLIENT_BUSY:
        return response_error(r, 429, "too_many_requests",
                              "You have submissions waiting already; wait for their verdicts.",
                              MHD_HTTP_HEADER_RETRY_AFTER, secs);
    case POOL_QUEUE_FULL:
        return response_error(r, 503, "queue_full",
                              "Every grader is busy and the queue is full; try again shortly.",
                              MHD_HTTP_HEADER_RETRY_AFTER, secs);
    case POOL_WAIT_TOO_LONG:
        return response_error(r, 503, "too_busy",
                              "Every grader is busy and the wait would be too long; try again "
                              "shortly.", MHD_HTTP_HEADER_RETRY_AFTER, secs);
    case POOL_STOPPING:
        return response_error(r, 503, "shutting_down", "The grader is shutting down.",
                              MHD_HTTP_HEADER_RETRY_AFTER, "5");
    default:
        return response_error(r, 500, "internal_error", "Out of memory.", NULL, NULL);
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
    if (res->graded)
        metrics_count_submission(r->srv->metrics, res->head.status,
                                 (clock_now_ms() - r->submitted_ms) / 1000.0);
    snprintf(r->verdict_slug, sizeof r->verdict_slug, "%s",
             res->graded ? verdict_status_slug(res->head.status) : "cancelled");
    r->seed = res->head.seed;
    r->wait_ms = res->wait_ms;
}

enum MHD_Result submission_answer(struct request *r)
{
    if (r->refused != POOL_SUBMITTED)
        return answer_refusal(r);
    struct pool_result *res = atomic_exchange(&r->result, NULL);
    if (!res)   /* out of memory in the pool's callback */
        return response_error(r, 500, "internal_error", "The job ended without a verdict.",
                              NULL, NULL);
    count_result(r, res);
    unsigned status = http_status_for(res->head.status);
    enum MHD_Result ret;
    if (res->cancelled) {
        ret = MHD_NO;   /* nobody is there to read it */
        pool_result_clear(res);
    } else if (r->format_text) {
        /* the one answer that reads the verdict: to put it in words */
        struct verdict *v = verdict_from_bytes(res->verdict, res->verdict_len);
        char *text = v ? report_to_string(v) : NULL;
        verdict_free(v);
        pool_result_clear(res);
        ret = text ? response_queue(r, status,
                                    response_from_buffer(text, strlen(text),
                                                         MHD_RESPMEM_MUST_FREE),
                                    "text/plain; charset=utf-8", NULL)
                   : MHD_NO;
    } else {
        /* the worker's bytes, as they are (the response frees them) */
        ret = response_queue(r, status,
                             response_from_buffer(res->verdict, res->verdict_len,
                                                  MHD_RESPMEM_MUST_FREE),
                             "application/json", NULL);
        res->verdict = NULL;
    }
    free(res);
    return ret;
}

void submission_release(struct request *r)
{
    /* A verdict that arrived for a connection that went away (the client
     * hung up as it came) was graded all the same: count it and log it like
     * any other, so that the counters add up. */
    struct pool_result *res = atomic_exchange(&r->result, NULL);
    if (res) {
        count_result(r, res);
        pool_result_clear(res);
        free(res);
    }
    free(r->body);
    r->body = NULL;
}
