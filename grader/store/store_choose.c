/* store_choose.c - one record per student, the policy's choice (store_choose.h). */
#include "store/store_choose.h"

#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"

bool store_policy_from_str(const char *s, enum store_policy *p)
{
    if (!strcmp(s, "best"))
        *p = STORE_POLICY_BEST;
    else if (!strcmp(s, "last"))
        *p = STORE_POLICY_LAST;
    else
        return false;
    return true;
}

const char *store_policy_to_str(enum store_policy p)
{
    return p == STORE_POLICY_LAST ? "last" : "best";
}

/* The walk's state: records come ordered by student, then time. */
struct pick {
    const char *task;                /* the exercise whose records count */
    enum store_policy policy;
    bool with_source;
    struct store_chosen *out;
    struct store_record chosen;      /* the current student's choice so far */
    struct store_lateness lateness;  /* the current student's so far */
    bool have;
    bool oom;
};

/* Whether r beats the current choice under the policy (r is later). */
static bool better(const struct pick *p, const struct store_record *r)
{
    return p->policy == STORE_POLICY_LAST || r->points >= p->chosen.points;
}

/* Moves the current student's choice into the list. */
static bool keep_chosen(struct pick *p)
{
    if (!p->have)
        return true;
    struct store_chosen *c = p->out;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        struct store_record *v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return false;
        c->v = v;
        struct store_lateness *l = realloc(c->lateness, cap * sizeof *l);
        if (!l)
            return false;
        c->lateness = l;
        c->cap = cap;
    }
    c->lateness[c->n] = p->lateness;
    c->v[c->n++] = p->chosen;
    memset(&p->chosen, 0, sizeof p->chosen);
    p->have = false;
    return true;
}

static bool on_record(const struct store_record *r, void *arg)
{
    struct pick *p = arg;
    /* the walk reads every exercise's (one pass, no index needed: every
     * record is read anyway); the others are counted, not chosen */
    if (!r->task || strcmp(r->task, p->task) != 0) {
        p->out->other_tasks++;
        return true;
    }
    p->out->records++;
    if (!r->student) {
        p->out->nobody++;
        return true;
    }
    if (p->have && strcmp(p->chosen.student, r->student) != 0 && !keep_chosen(p))
        goto oom;
    if (!p->have)
        p->lateness = (struct store_lateness){ 0, -1, -1 };
    int *best = r->late ? &p->lateness.best_late : &p->lateness.best_on_time;
    if (r->points > *best)
        *best = r->points;
    p->lateness.late += r->late;
    if (p->have && !better(p, r))
        return true;
    struct store_record shallow = *r;
    if (!p->with_source) {
        shallow.source = NULL;
        shallow.source_len = 0;
    }
    struct store_record *c = store_record_copy(&shallow);
    if (!c)
        goto oom;
    store_record_clear(&p->chosen);
    p->chosen = *c;
    free(c);
    p->have = true;
    return true;
oom:
    p->oom = true;
    return false;
}

enum store_status store_records_choose(struct store *s, const char *task, int64_t until_ms,
                                       enum store_policy p, bool with_source,
                                       struct store_chosen *out, struct store_error *err)
{
    memset(out, 0, sizeof *out);
    struct pick pk = { .task = task, .policy = p, .with_source = with_source, .out = out };
    enum store_status st = store_records_each(s, until_ms, on_record, &pk, err);
    if (st == STORE_OK && (pk.oom || !keep_chosen(&pk)))
        st = store_fail(err, STORE_NO_MEMORY, "out of memory");
    store_record_clear(&pk.chosen);
    if (st != STORE_OK)
        store_chosen_clear(out);
    return st;
}

bool store_task_ok(const char *task)
{
    size_t n = strspn(task, "abcdefghijklmnopqrstuvwxyz0123456789_-");
    return n > 0 && n <= EX_ID_MAX && task[n] == '\0';
}

void store_chosen_clear(struct store_chosen *c)
{
    for (size_t i = 0; i < c->n; i++)
        store_record_clear(&c->v[i]);
    free(c->v);
    free(c->lateness);
    memset(c, 0, sizeof *c);
}
