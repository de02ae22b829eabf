/* body.h - the one body reader: bounds from the headers, then the pieces. */
#ifndef BUTTERFLY_BODY_H
#define BUTTERFLY_BODY_H

#include "server/core/http.h"

/* Whether the Content-Length or Transfer-Encoding refuse the body
 * before any of it is read (against r->limit): then *answer is the 413,
 * 411 or 400 queued, with too_large as the 413's sentence. */
bool body_refused(struct request *r, const char *too_large, enum MHD_Result *answer);

/* Takes one piece of a body into r->body, counting chunked bodies against
 * r->limit (past it r->too_large, and the rest is dropped). */
enum MHD_Result body_take(struct request *r, const char *data, size_t *size);

#endif
