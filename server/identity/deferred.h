/* deferred.h - answers the records' reader thread makes (REQ_SUSPENDED). */
#ifndef BUTTERFLY_DEFERRED_H
#define BUTTERFLY_DEFERRED_H

#include "server/core/http.h"
#include "store/store_writer.h"

/* Suspends r until fn, on the reader's thread, has made its answer with
 * the deferred_* fillers and resumed the connection; a reader too busy is
 * a 503 at once. */
enum MHD_Result deferred_begin(struct request *r, store_call_fn fn);

/* Fills the deferred answer: JSON j (consumed; NULL: out of memory) with status. */
void deferred_json(struct request *r, unsigned status, json_t *j);

/* Makes the deferred answer the error e (errors.h) with the sentence msg,
 * and its Retry-After. */
void deferred_error(struct request *r, enum error_kind e, const char *msg);

/* Makes the deferred answer the 503 of a store that failed with e. */
void deferred_store_error(struct request *r, const struct store_error *e);

/* Sends the answer the reader's thread made (REQ_SUSPENDED). */
enum MHD_Result deferred_answer(struct request *r);

#endif
