/*
 * idempotency.h - Idempotency-Key on a submission (issue 31 item 6): the
 * key's shape, whose it is (its scope), and the keys this instance is
 * grading now. The keys answered are in the store, beside their records
 * (store.h, store_idempotency_find); this table only knows which first
 * requests are still being graded here, so that a retry meanwhile is told
 * 409 instead of being graded twice. Memory only, thread-safe.
 */
#ifndef BUTTERFLY_IDEMPOTENCY_H
#define BUTTERFLY_IDEMPOTENCY_H

#include <stdbool.h>
#include <stddef.h>

#include "common/client_id.h"
#include "server/core/principal.h"

/* The longest scope idempotency_scope writes, with its NUL. */
#define IDEMPOTENCY_SCOPE_MAX (16 + PRINCIPAL_ID_MAX + CLIENT_ID_TEXT_MAX)

/* Whether key (NUL-terminated) is one a client may send: 1 to
 * IDEMPOTENCY_KEY_MAX bytes, each a letter, a digit or one of
 * IDEMPOTENCY_KEY_PUNCT (defaults.h). Pure. */
bool idempotency_key_valid(const char *key);

/* Whose a key is, into out (IDEMPOTENCY_SCOPE_MAX bytes): the principal's
 * kind and id ("student:ID", "guest:ID", "instructor:ID"); a client signed
 * in as nobody has the scope of its address ("none:ADDRESS"), since it
 * has no other name. So a key another student sends is never their
 * record. Pure. */
void idempotency_scope(const struct principal *who, const struct client_id *client, char *out);

struct idempotency;

/* A table of at most max keys in flight; NULL on OOM. */
struct idempotency *idempotency_new(unsigned max);

/* Frees t. Accepts NULL. */
void idempotency_free(struct idempotency *t);

enum idempotency_claim {
    IDEMPOTENCY_CLAIMED,     /* the caller's now, until idempotency_release */
    IDEMPOTENCY_IN_USE,      /* a request with this scope and key is being graded */
    IDEMPOTENCY_FULL,        /* max keys are in flight */
    IDEMPOTENCY_NO_MEMORY,
};

/* "claimed", "in_use", "full", "no_memory"; never NULL. */
const char *idempotency_claim_to_str(enum idempotency_claim c);

/* Claims (scope, key) for a request about to be graded. */
enum idempotency_claim idempotency_claim(struct idempotency *t, const char *scope,
                                         const char *key);

/* Gives back a claim made by idempotency_claim (nothing when none is held). */
void idempotency_release(struct idempotency *t, const char *scope, const char *key);

#endif
