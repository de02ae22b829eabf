/* lti_http.h - the LTI routes: /lti/login, /lti/launch, /lti/jwks.json. */
#ifndef BUTTERFLY_LTI_HTTP_H
#define BUTTERFLY_LTI_HTTP_H

#include "server/core/http.h"

/* The LTI routes: headers in (begin), a piece of the form (body), the
 * request complete (finish), the LTI thread done (answer), the request
 * over (release, also for any other route). */
enum MHD_Result lti_http_begin(struct request *r);
enum MHD_Result lti_http_body(struct request *r, const char *data, size_t *size);
enum MHD_Result lti_http_finish(struct request *r);
enum MHD_Result lti_http_answer(struct request *r);
void lti_http_release(struct request *r);

#endif
