/* credentials.c - the table of current tokens, read from the store. */
#include "server/identity/credentials.h"

#include <nettle/sha2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/defaults.h"

enum slot_state { SLOT_EMPTY, SLOT_NO_TOKEN, SLOT_TOKEN };

/* A student: the first bytes of the SHA-256 of their id (ids are the
 * roster's or random, never an attacker's choice, and 64 bits keep an
 * accidental collision out of reach of any class), and their token's
 * fingerprint. */
struct slot {
    uint64_t key;
    uint8_t cred[SESSION_CRED_BYTES];
    uint8_t state;
};

struct table {
    struct slot *slots;
    size_t cap, n;            /* cap: a power of two, at least twice n */
    bool incomplete;          /* the store holds more than CREDENTIALS_MAX_STUDENTS */
    bool has_instructor;
    uint8_t instructor[SESSION_CRED_BYTES];
    time_t read_at;           /* when the read began */
    int64_t read_at_ms;       /* the same in ms */
};

struct credentials {
    pthread_mutex_t lock;
    struct table *cur;        /* NULL until the first read */
    uint64_t failures;
    /* credentials_carry_instructor: sessions of the token `from` stay
     * current while the store's token is `to` (read by the next load) */
    enum { CARRY_NONE, CARRY_PENDING, CARRY_SET } carry;
    uint8_t carry_from[SESSION_CRED_BYTES];
    uint8_t carry_to[SESSION_CRED_BYTES];
    /* credentials_changed: students whose sessions issued up to `until`
     * (ms) are judged by the table however new they are (sorted by key) */
    struct strict { uint64_t key; int64_t until; } *strict;
    size_t nstrict, capstrict;
    int64_t instructor_until;   /* the same for the instructor's; 0: none */
};

static uint64_t key_of(const char *id)
{
    struct sha256_ctx ctx;
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_init(&ctx);
    sha256_update(&ctx, strlen(id), (const uint8_t *)id);
    sha256_digest(&ctx, sizeof d, d);
    uint64_t k = 0;
    for (int i = 0; i < 8; i++)
        k = k << 8 | d[i];
    return k;
}

static void table_free(struct table *t)
{
    if (t)
        free(t->slots);
    free(t);
}

/* The slot of key: its own, or the empty one where it would go. */
static struct slot *probe(const struct table *t, uint64_t key)
{
    size_t mask = t->cap - 1;
    for (size_t i = (size_t)key & mask;; i = (i + 1) & mask)
        if (t->slots[i].state == SLOT_EMPTY || t->slots[i].key == key)
            return &t->slots[i];
}

static bool table_grow(struct table *t)
{
    size_t cap = t->cap ? 2 * t->cap : 1024;
    struct slot *old = t->slots;
    size_t oldcap = t->cap;
    t->slots = calloc(cap, sizeof *t->slots);
    if (!t->slots) {
        t->slots = old;
        return false;
    }
    t->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].state != SLOT_EMPTY)
            *probe(t, old[i].key) = old[i];
    free(old);
    return true;
}

struct load {
    struct table *t;
    bool oom;
};

static bool add_credential(const struct store_credential *c, void *arg)
{
    struct load *l = arg;
    struct table *t = l->t;
    uint8_t cred[SESSION_CRED_BYTES] = { 0 };
    /* a hash of another shape matches no cookie: the session ends */
    bool has = c->token_sha256 && session_fingerprint_hex(c->token_sha256, cred);
    if (c->instructor) {
        t->has_instructor = has;
        memcpy(t->instructor, cred, sizeof cred);
        return true;
    }
    if (t->n >= CREDENTIALS_MAX_STUDENTS) {
        t->incomplete = true;
        return true;   /* the instructor's row may still come */
    }
    if (2 * (t->n + 1) > t->cap && !table_grow(t)) {
        l->oom = true;
        return false;
    }
    struct slot *s = probe(t, key_of(c->id));
    if (s->state == SLOT_EMPTY)
        t->n++;
    s->key = key_of(c->id);
    s->state = c->token_sha256 ? SLOT_TOKEN : SLOT_NO_TOKEN;
    memcpy(s->cred, cred, sizeof cred);
    return true;
}

struct credentials *credentials_new(void)
{
    struct credentials *c = calloc(1, sizeof *c);
    if (c)
        pthread_mutex_init(&c->lock, NULL);
    return c;
}

void credentials_free(struct credentials *c)
{
    if (!c)
        return;
    table_free(c->cur);
    free(c->strict);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

enum store_status credentials_load(struct credentials *c, struct store *s, time_t now,
                                   struct store_error *err)
{
    struct table *t = calloc(1, sizeof *t);
    struct load l = { t, false };
    enum store_status st = STORE_NO_MEMORY;
    if (t && table_grow(t)) {
        t->read_at = now;
        t->read_at_ms = clock_wall_ms();
        if (t->read_at_ms / 1000 != (int64_t)now)
            t->read_at_ms = (int64_t)now * 1000;   /* a caller's own clock (tests) */
        st = store_credentials_each(s, add_credential, &l, err);
        if (st == STORE_OK && l.oom)
            st = STORE_NO_MEMORY;
    }
    pthread_mutex_lock(&c->lock);
    if (st == STORE_OK) {
        if (c->carry == CARRY_PENDING) {
            c->carry = t->has_instructor ? CARRY_SET : CARRY_NONE;
            memcpy(c->carry_to, t->instructor, sizeof c->carry_to);
        }
        struct table *old = c->cur;
        c->cur = t;
        t = old;
        /* a mark matters while a session it covers is new to the table */
        int64_t horizon = c->cur->read_at_ms - (int64_t)CREDENTIALS_REFRESH_S * 1000;
        size_t kept = 0;
        for (size_t i = 0; i < c->nstrict; i++)
            if (c->strict[i].until >= horizon)
                c->strict[kept++] = c->strict[i];
        c->nstrict = kept;
        if (c->instructor_until < horizon)
            c->instructor_until = 0;
    } else {
        c->failures++;   /* the last table stays: revocations wait, sessions go on */
    }
    pthread_mutex_unlock(&c->lock);
    table_free(t);
    return st;
}

static int strict_cmp(const void *a, const void *b)
{
    const struct strict *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->until < y->until ? -1 : x->until > y->until;
}

/* The latest mark of key, 0 when none. Under c->lock. */
static int64_t strict_until(const struct credentials *c, uint64_t key)
{
    size_t lo = 0, hi = c->nstrict;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->strict[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->nstrict && c->strict[lo].key == key ? c->strict[lo].until : 0;
}

bool credentials_changed(struct credentials *c, const char *const *ids, size_t n,
                         bool instructor)
{
    bool ok = true;
    pthread_mutex_lock(&c->lock);
    /* the table read after the change knows every token committed before
     * its read began: sessions issued before then are judged by it */
    int64_t until = c->cur ? c->cur->read_at_ms : 0;
    if (instructor)
        c->instructor_until = until;
    if (n && c->nstrict + n > c->capstrict) {
        size_t cap = c->capstrict ? c->capstrict : 64;
        while (cap < c->nstrict + n)
            cap *= 2;
        struct strict *v = realloc(c->strict, cap * sizeof *v);
        if (v) {
            c->strict = v;
            c->capstrict = cap;
        } else {
            ok = false;
            n = 0;
        }
    }
    for (size_t i = 0; i < n; i++)
        c->strict[c->nstrict++] = (struct strict){ key_of(ids[i]), until };
    if (n) {
        /* one entry per key, the latest mark: sort, then keep each key's last */
        qsort(c->strict, c->nstrict, sizeof *c->strict, strict_cmp);
        size_t kept = 0;
        for (size_t i = 0; i < c->nstrict; i++) {
            if (kept && c->strict[kept - 1].key == c->strict[i].key)
                kept--;
            c->strict[kept++] = c->strict[i];
        }
        c->nstrict = kept;
    }
    pthread_mutex_unlock(&c->lock);
    return ok;
}

void credentials_carry_instructor(struct credentials *c)
{
    pthread_mutex_lock(&c->lock);
    if (c->cur && c->cur->has_instructor) {
        c->carry = CARRY_PENDING;
        memcpy(c->carry_from, c->cur->instructor, sizeof c->carry_from);
    }
    pthread_mutex_unlock(&c->lock);
}

bool credentials_current(struct credentials *c, const struct principal *p)
{
    if (p->kind == PRINCIPAL_NONE)
        return true;
    uint64_t key = p->kind == PRINCIPAL_INSTRUCTOR ? 0 : key_of(p->id);
    bool ok;
    pthread_mutex_lock(&c->lock);
    const struct table *t = c->cur;
    /* a session newer than the table is not judged by it (a sign-in it
     * cannot know yet), unless a change the table was read after covers
     * it (credentials_changed): then the table knows better. In ms: a
     * renewal and its link's session may fall in the second the table was
     * read, and that session's token is newer than the table */
    bool newer = t && p->issued && p->issued >= t->read_at - (time_t)CREDENTIALS_REFRESH_S;
    if (newer && p->issued_ms < t->read_at_ms &&
        p->issued_ms <= (p->kind == PRINCIPAL_INSTRUCTOR ? c->instructor_until
                                                         : strict_until(c, key)))
        newer = false;
    if (!t || newer) {
        ok = true;   /* no table yet, or a session newer than it */
    } else if (p->kind == PRINCIPAL_INSTRUCTOR &&
               !strncmp(p->id, PRINCIPAL_LTI_PREFIX, strlen(PRINCIPAL_LTI_PREFIX))) {
        /* an LTI launch's instructor (the id is signed): no token of ours
         * made it, so no renewal of one ends it; its cookie's life does */
        ok = !p->has_cred;
    } else if (p->kind == PRINCIPAL_INSTRUCTOR) {
        ok = t->has_instructor && p->has_cred &&
             (session_equal(t->instructor, p->cred, SESSION_CRED_BYTES) ||
              (c->carry == CARRY_SET &&
               session_equal(t->instructor, c->carry_to, SESSION_CRED_BYTES) &&
               session_equal(c->carry_from, p->cred, SESSION_CRED_BYTES)));
    } else {
        const struct slot *s = probe(t, key);
        if (s->state == SLOT_EMPTY)
            ok = t->incomplete;   /* forgotten, or past the table's bound */
        else if (s->state == SLOT_NO_TOKEN)
            ok = !p->has_cred;
        else
            ok = p->has_cred && session_equal(s->cred, p->cred, SESSION_CRED_BYTES);
    }
    pthread_mutex_unlock(&c->lock);
    return ok;
}

void credentials_render_metrics(struct credentials *c, time_t now, FILE *f)
{
    pthread_mutex_lock(&c->lock);
    size_t n = c->cur ? c->cur->n : 0;
    long long age = c->cur ? (long long)(now - c->cur->read_at) : -1;
    unsigned long long failures = (unsigned long long)c->failures;
    pthread_mutex_unlock(&c->lock);
    fprintf(f, "# HELP butterfly_credentials_students Students in the table of current tokens.\n"
               "# TYPE butterfly_credentials_students gauge\nbutterfly_credentials_students %zu\n"
               "# HELP butterfly_credentials_age_seconds Since the table of current tokens was read (-1: never).\n"
               "# TYPE butterfly_credentials_age_seconds gauge\nbutterfly_credentials_age_seconds %lld\n"
               "# HELP butterfly_credentials_read_failures_total Reads of the current tokens that failed.\n"
               "# TYPE butterfly_credentials_read_failures_total counter\n"
               "butterfly_credentials_read_failures_total %llu\n",
            n, age, failures);
}
