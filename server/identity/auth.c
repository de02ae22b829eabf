/* auth.c - bearer tokens, the same-origin rule, the wrong-token bound. */
#include "server/identity/auth.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/defaults.h"

bool auth_token_shape(const char *token)
{
    size_t n = token ? strnlen(token, AUTH_TOKEN_MAX + 1) : 0;
    if (n == 0 || n > AUTH_TOKEN_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((token[i] >= '0' && token[i] <= '9') || (token[i] >= 'a' && token[i] <= 'f')))
            return false;
    return true;
}

bool auth_bearer(const char *authorization, char *token, size_t tokensz)
{
    if (!authorization || strncasecmp(authorization, "Bearer ", 7) != 0)
        return false;
    const char *t = authorization + 7;
    while (*t == ' ')
        t++;
    size_t n = strcspn(t, " ");
    if (t[n] != '\0' || n >= tokensz || n > AUTH_TOKEN_MAX || n == 0)
        return false;
    memcpy(token, t, n);
    token[n] = '\0';
    return true;
}

/* The "scheme://host[:port]" prefix of a URL, into out; false if none. */
static bool origin_of(const char *url, char *out, size_t outsz)
{
    const char *sep = strstr(url, "://");
    if (!sep)
        return false;
    size_t n = (size_t)(sep + 3 - url) + strcspn(sep + 3, "/?#");
    if (n >= outsz)
        return false;
    memcpy(out, url, n);
    out[n] = '\0';
    return true;
}

bool auth_same_origin(const char *origin, const char *host, const char *public_url,
                      bool custom_header)
{
    if (custom_header)
        return true;
    if (!origin)
        return false;
    char want[512];
    if (public_url && *public_url) {
        return origin_of(public_url, want, sizeof want) && !strcasecmp(origin, want);
    }
    if (!host)
        return false;
    /* "null" (a sandboxed or file page) and other hosts fail here */
    const char *sep = strstr(origin, "://");
    return sep && (!strncmp(origin, "http://", 7) || !strncmp(origin, "https://", 8)) &&
           !strcasecmp(sep + 3, host);
}

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

void token_guard_fail(struct token_guard *g, const struct client_id *client, time_t now)
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
