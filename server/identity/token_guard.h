/* token_guard.h - a per-client bound on events in a window. */
#ifndef BUTTERFLY_TOKEN_GUARD_H
#define BUTTERFLY_TOKEN_GUARD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "common/client_id.h"

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

/* Counts an event from client: a wrong token, or a sign-in made. */
void token_guard_count(struct token_guard *g, const struct client_id *client, time_t now);

/* Wrong tokens seen, and tries refused for being past the bound. */
void token_guard_counts(struct token_guard *g, uint64_t *failures, uint64_t *refused);

/* The counters of the wrong-token guard (guard) and of the sign-in guard
 * (sign_ins) for GET /metrics; either may be NULL (then not written). */
void token_guard_render_metrics(struct token_guard *guard, struct token_guard *sign_ins, FILE *f);

#endif
