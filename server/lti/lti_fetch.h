/* lti_fetch.h - LTI's outbound calls. */
#ifndef BUTTERFLY_LTI_FETCH_H
#define BUTTERFLY_LTI_FETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "server/lti/lti.h"

/* libcurl, bounded: GET (body NULL) or POST body with content type ctype
 * and optional bearer token, to url only if it is at one of p's origins
 * (lti_config_allows); no redirect followed, a connect and a total
 * timeout; the answer (at most max bytes) into *out (a NUL-terminated
 * string the caller frees), its status into *status. False with a
 * sentence in err when no answer came (or it was too big, or url is not
 * p's). */
bool lti_fetch(const struct lti_platform *p, const char *url, const char *body,
               const char *ctype, const char *bearer, const char *accept, size_t max,
               long timeout_ms, char **out, long *status, char *err, size_t errsz);

/* lti_fetch's GET, and the target of the answer's Link rel="next" into
 * next (nextsz bytes; "" when none): a paged service's next page (NRPS).
 * *next_unread: the answer seems to link a next page that next could not
 * hold (too long, or the Link headers over their bound).
 * The next address is the platform's word only: the caller's next fetch
 * checks it is at p's origins like any other. */
bool lti_fetch_page(const struct lti_platform *p, const char *url, const char *bearer,
                    const char *accept, size_t max, long timeout_ms, char **out, long *status,
                    char *next, size_t nextsz, bool *next_unread, char *err, size_t errsz);

#endif
