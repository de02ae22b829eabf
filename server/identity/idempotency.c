/* idempotency.c - a key's shape and scope, and the keys in flight (idempotency.h). */
#include "server/identity/idempotency.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"

bool idempotency_key_valid(const char *key)
{
    size_t n = 0;
    for (; key[n]; n++) {
        unsigned char c = (unsigned char)key[n];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (n >= IDEMPOTENCY_KEY_MAX || (!alnum && !strchr(IDEMPOTENCY_KEY_PUNCT, c)))
            return false;
    }
    return n > 0;
}

void idempotency_scope(const struct principal *who, const struct client_id *client, char *out)
{
    if (who->kind == PRINCIPAL_NONE) {
        char addr[CLIENT_ID_TEXT_MAX];
        snprintf(out, IDEMPOTENCY_SCOPE_MAX, "none:%s",
                 client_id_format(client, addr, sizeof addr));
    } else {
        snprintf(out, IDEMPOTENCY_SCOPE_MAX, "%s:%s", principal_kind_to_str(who->kind), who->id);
    }
}

/* One key in flight: its scope and key joined by a NUL. */
struct flight {
    char *name;
    size_t len;
};

struct idempotency {
    pthread_mutex_t lock;
    struct flight *v;
    unsigned n, max;
};

struct idempotency *idempotency_new(unsigned max)
{
    struct idempotency *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->v = calloc(max ? max : 1, sizeof *t->v);
    if (!t->v) {
        free(t);
        return NULL;
    }
    t->max = max;
    pthread_mutex_init(&t->lock, NULL);
    return t;
}

void idempotency_free(struct idempotency *t)
{
    if (!t)
        return;
    for (unsigned i = 0; i < t->n; i++)
        free(t->v[i].name);
    free(t->v);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

const char *idempotency_claim_to_str(enum idempotency_claim c)
{
    switch (c) {
    case IDEMPOTENCY_CLAIMED: return "claimed";
    case IDEMPOTENCY_IN_USE: return "in_use";
    case IDEMPOTENCY_FULL: return "full";
    case IDEMPOTENCY_NO_MEMORY: return "no_memory";
    }
    return "no_memory";
}

/* scope, a NUL, then key, in a new buffer (*len bytes); NULL on OOM. */
static char *joined(const char *scope, const char *key, size_t *len)
{
    size_t a = strlen(scope), b = strlen(key);
    char *p = malloc(a + b + 2);
    if (!p)
        return NULL;
    memcpy(p, scope, a + 1);
    memcpy(p + a + 1, key, b + 1);
    *len = a + b + 1;
    return p;
}

/* The index of (scope, key) in t, or t->n; under the lock. No
 * allocation, so that a release always finds its claim. */
static unsigned find(const struct idempotency *t, const char *scope, const char *key)
{
    size_t a = strlen(scope), b = strlen(key);
    for (unsigned i = 0; i < t->n; i++) {
        const struct flight *f = &t->v[i];
        if (f->len == a + b + 1 && !memcmp(f->name, scope, a + 1) &&
            !memcmp(f->name + a + 1, key, b))
            return i;
    }
    return t->n;
}

enum idempotency_claim idempotency_claim(struct idempotency *t, const char *scope,
                                         const char *key)
{
    size_t len = 0;
    char *name = joined(scope, key, &len);
    if (!name)
        return IDEMPOTENCY_NO_MEMORY;
    enum idempotency_claim c = IDEMPOTENCY_CLAIMED;
    pthread_mutex_lock(&t->lock);
    if (find(t, scope, key) < t->n)
        c = IDEMPOTENCY_IN_USE;
    else if (t->n >= t->max)
        c = IDEMPOTENCY_FULL;
    else
        t->v[t->n++] = (struct flight){ name, len };
    pthread_mutex_unlock(&t->lock);
    if (c != IDEMPOTENCY_CLAIMED)
        free(name);
    return c;
}

void idempotency_release(struct idempotency *t, const char *scope, const char *key)
{
    pthread_mutex_lock(&t->lock);
    unsigned i = find(t, scope, key);
    if (i < t->n) {
        free(t->v[i].name);
        t->v[i] = t->v[--t->n];
    }
    pthread_mutex_unlock(&t->lock);
}
