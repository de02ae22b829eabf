/*
 * deferred.c - answers made on the records' reader thread: the request is
 * suspended, the job fills its answer, the connection is resumed and the
 * answer goes out from libmicrohttpd's thread (deferred_answer). One path
 * for every deferred answer.
 */
#include "server/identity/deferred.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/identity/records.h"

/* Fills the deferred answer: JSON j (consumed) with status. */
void deferred_json(struct request *r, unsigned status, json_t *j)
{
    r->deferred_status = status;
    r->deferred_body = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;
    json_decref(j);
}

void deferred_error(struct request *r, enum error_kind e, const char *msg)
{
    const struct error_row *row = errors_row(e);
    deferred_json(r, row->status,
                  json_pack("{s:{s:s, s:s}}", "error", "code", row->code, "message", msg));
    /* the same Retry-After as the answer made on libmicrohttpd's thread */
    for (int i = 0; row->retry_after_s && i < 2; i++) {
        if (!r->deferred_header[i][0]) {
            snprintf(r->deferred_header[i], sizeof r->deferred_header[i], "Retry-After: %u",
                     row->retry_after_s);
            break;
        }
    }
}

void deferred_store_error(struct request *r, const struct store_error *e)
{
    char msg[640];
    snprintf(msg, sizeof msg, "The records cannot be read now (%s).",
             store_status_to_str(e->status));
    deferred_error(r, ERROR_STORE_UNAVAILABLE, msg);
}

enum MHD_Result deferred_answer(struct request *r)
{
    if (!r->deferred_body)
        return response_out_of_memory(r);
    char *body = r->deferred_body;
    r->deferred_body = NULL;
    size_t len = r->deferred_len ? r->deferred_len : strlen(body);
    struct MHD_Response *resp = response_from_buffer(body, len, MHD_RESPMEM_MUST_FREE);
    for (int i = 0; resp && i < 2; i++)
        if (r->deferred_header[i][0])
            response_add_pair(r, resp, r->deferred_header[i]);
    return response_queue(r, r->deferred_status, resp,
                          r->deferred_type ? r->deferred_type : "application/json", NULL);
}

/* Suspends r until fn, on the reader's thread, has made its answer. */
enum MHD_Result deferred_begin(struct request *r, store_call_fn fn)
{
    MHD_suspend_connection(r->conn);
    r->state = REQ_SUSPENDED;
    if (!records_read(r->srv->records, fn, r)) {
        deferred_error(r, ERROR_STORE_UNAVAILABLE, "The records are too busy; try again shortly.");
        MHD_resume_connection(r->conn);
    }
    return MHD_YES;
}
