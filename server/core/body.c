/* body.c - a request body's bounds, checked from its headers, and its
 * pieces taken into the request: one reader for every route with a body. */
#include "server/core/body.h"

#include <stdlib.h>
#include <string.h>

bool body_refused(struct request *r, const char *too_large, enum MHD_Result *answer)
{
    const char *cl = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_LENGTH);
    const char *te = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_TRANSFER_ENCODING);
    switch (request_check_length(cl, te, r->limit)) {
    case LENGTH_OK:
        return false;
    case LENGTH_TOO_LARGE:
        /* refused from the headers: a 10 MB body is never read */
        *answer = response_error(r, ERROR_PAYLOAD_TOO_LARGE, too_large, NULL, NULL);
        return true;
    case LENGTH_MALFORMED:
        *answer = response_error(r, ERROR_BAD_REQUEST, "The Content-Length is not a number.",
                                 NULL, NULL);
        return true;
    case LENGTH_REQUIRED:
        *answer = response_error(r, ERROR_LENGTH_REQUIRED,
                                 "Send a Content-Length (or a chunked body).", NULL, NULL);
        return true;
    }
    return false;
}

enum MHD_Result body_take(struct request *r, const char *data, size_t *size)
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
