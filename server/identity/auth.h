/*
 * auth.h - the checks on who may do what, as pure functions: the bearer
 * token of an Authorization header, the same-origin rule for requests
 * that change state, and the bound on wrong tokens per client.
 */
#ifndef BUTTERFLY_AUTH_H
#define BUTTERFLY_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/client_id.h"

/* The longest token read from a request; a longer one is wrong at once. */
#define AUTH_TOKEN_MAX 128

/*
 * The token of "Bearer TOKEN" (the scheme case-insensitive) into token.
 * False when the header is absent, of another scheme, or the token is
 * empty, too long or holds characters a token never has.
 */
bool auth_bearer(const char *authorization, char *token, size_t tokensz);

/* Whether a token from a query string has the shape of one (hex digits
 * only, at most AUTH_TOKEN_MAX): anything else is wrong without a look-up. */
bool auth_token_shape(const char *token);

/*
 * Whether a request that changes state comes from the page's own origin.
 * With public_url set (--public-url), origin must be its scheme, host and
 * port; without, origin's host and port must be the Host header's.
 * custom_header: the request carried CSRF_HEADER, which a cross-site page
 * cannot send without a preflight this server never grants.
 */
bool auth_same_origin(const char *origin, const char *host, const char *public_url,
                      bool custom_header);

/* A per-client bound on events (wrong tokens: TOKEN_FAILURES_PER_WINDOW
 * in TOKEN_FAILURE_WINDOW_S; sign-ins that write to the store:
 * SIGN_INS_PER_WINDOW in SIGN_IN_WINDOW_S; grader/common/defaults.h).
 * Thread-safe. */
struct token_guard;

/* A guard allowing per_window events per client in window_s seconds. */
struct token_guard *token_guard_new(unsigned per_window, unsigned window_s);
void token_guard_free(struct token_guard *g);

/* Whether client may try a token (make an event) now; when not, *retry_s
 * says when. */
bool token_guard_allow(struct token_guard *g, const struct client_id *client, time_t now,
                       unsigned *retry_s);

/* Counts a wrong token (an event) from client. */
void token_guard_fail(struct token_guard *g, const struct client_id *client, time_t now);

/* Wrong tokens seen, and tries refused for being past the bound. */
void token_guard_counts(struct token_guard *g, uint64_t *failures, uint64_t *refused);

#endif
