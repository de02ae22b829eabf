/*
 * auth.h - the checks on who may do what, as pure functions: the bearer
 * token of an Authorization header, the same-origin rule for requests
 * that change state (the bound on wrong tokens: token_guard.h).
 */
#ifndef BUTTERFLY_AUTH_H
#define BUTTERFLY_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "server/core/principal.h"

/* The longest token read from a request; a longer one is wrong at once. */
#define AUTH_TOKEN_MAX PRINCIPAL_TOKEN_MAX

/*
 * The token of "Bearer TOKEN" (the scheme case-insensitive) into token.
 * False when the header is absent, of another scheme, or the token is
 * empty, too long or holds characters a token never has.
 */
bool auth_bearer(const char *authorization, char *token, size_t tokensz);

/* Whether a token from a query string has the shape of one (hex digits
 * only, at most AUTH_TOKEN_MAX): anything else is wrong without a look-up. */
bool auth_token_shape(const char *token);

/* The length of a token from a query string without its trailing CRs and
 * LFs: a token cut from a line of a CRLF file (cut, sed) keeps the CR,
 * and is the student's token all the same. */
size_t auth_token_len(const char *token);

/*
 * Whether a request that changes state comes from the page's own origin.
 * With public_url set (--public-url), origin must be its scheme, host and
 * port; without, origin's host and port must be the Host header's.
 * custom_header: the request carried CSRF_HEADER, which a cross-site page
 * cannot send without a preflight this server never grants.
 */
bool auth_same_origin(const char *origin, const char *host, const char *public_url,
                      bool custom_header);

#endif
