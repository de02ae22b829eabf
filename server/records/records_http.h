/* records_http.h - the records' routes: GET /api/me/submissions and
 * GET /api/submissions/{id}, read on the reader's thread. */
#ifndef BUTTERFLY_RECORDS_HTTP_H
#define BUTTERFLY_RECORDS_HTTP_H

#include "server/core/http.h"

/* Answers r (a route of the records) for r->who; a 404 without records. */
enum MHD_Result records_http_get(struct request *r);

/* Frees the state records_http_get made (the rows' release). */
void records_http_release(struct request *r);

#endif
