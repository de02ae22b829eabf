/* token_guard.c - the per-client bound on wrong tokens and on sign-ins. */
#include "server/identity/token_guard.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"

#define GUARD_SLOTS 4096

struct guard_slot {
    struct client_id client;
    time_t window_start;
    unsigned failures;
};

struct token_guard {
    pthread_mutex_t lock;
    unsigned per_window, window_s;
    struct guard_slot slots[GUARD_SLOTS];
    uint64_t failures, refused;
};

struct token_guard *token_guard_new(unsigned per_window, unsigned window_s)
{
    struct token_guard *g = calloc(1, sizeof *g);
    if (g) {
        pthread_mutex_init(&g->lock, NULL);
        g->per_window = per_window;
        g->window_s = window_s;
    }
    return g;
}

void token_guard_free(struct token_guard *g)
{
    if (!g)
        return;
    pthread_mutex_destroy(&g->lock);
    free(g);
}

/* The client's slot. A table of fixed size: a client that shares a slot
 * with another shares its budget, which errs on the side of refusing;
 * an attacker cycling addresses is bounded per address all the same. */
static struct guard_slot *slot_of(struct token_guard *g, const struct client_id *client,
                                  time_t now)
{
    struct guard_slot *s = &g->slots[client_id_hash(client) % GUARD_SLOTS];
    bool same = client_id_equal(&s->client, client);
    if (!same || now - s->window_start >= (time_t)g->window_s) {
        if (!same && s->failures >= g->per_window && now - s->window_start < (time_t)g->window_s)
            return s;   /* an exhausted budget is not freed by a colliding client */
        s->client = *client;
        s->window_start = now;
        s->failures = 0;
    }
    return s;
}

bool token_guard_allow(struct token_guard *g, const struct client_id *client, time_t now,
                       unsigned *retry_s)
{
    pthread_mutex_lock(&g->lock);
    struct guard_slot *s = slot_of(g, client, now);
    bool ok = s->failures < g->per_window;
    if (!ok) {
        g->refused++;
        *retry_s = (unsigned)((time_t)g->window_s - (now - s->window_start));
    }
    pthread_mutex_unlock(&g->lock);
    return ok;
}

void token_guard_count(struct token_guard *g, const struct client_id *client, time_t now)
{
    pthread_mutex_lock(&g->lock);
    slot_of(g, client, now)->failures++;
    g->failures++;
    pthread_mutex_unlock(&g->lock);
}

void token_guard_counts(struct token_guard *g, uint64_t *failures, uint64_t *refused)
{
    pthread_mutex_lock(&g->lock);
    *failures = g->failures;
    *refused = g->refused;
    pthread_mutex_unlock(&g->lock);
}

void token_guard_render_metrics(struct token_guard *guard, struct token_guard *sign_ins, FILE *f)
{
    if (guard) {
        uint64_t failures, refused;
        token_guard_counts(guard, &failures, &refused);
        fprintf(f, "# HELP butterfly_token_failures_total Wrong tokens (links, bearer, instructor) received.\n"
                   "# TYPE butterfly_token_failures_total counter\nbutterfly_token_failures_total %llu\n"
                   "# HELP butterfly_token_refusals_total Tries refused because their client sent too many wrong tokens.\n"
                   "# TYPE butterfly_token_refusals_total counter\nbutterfly_token_refusals_total %llu\n",
                (unsigned long long)failures, (unsigned long long)refused);
    }
    if (sign_ins) {
        uint64_t made, refused;
        token_guard_counts(sign_ins, &made, &refused);
        (void)made;
        fprintf(f, "# HELP butterfly_sign_in_refusals_total Guest sessions and LTI logins refused because their client started too many.\n"
                   "# TYPE butterfly_sign_in_refusals_total counter\nbutterfly_sign_in_refusals_total %llu\n",
                (unsigned long long)refused);
    }
}
