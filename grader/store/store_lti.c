/*
 * store_lti.c - LTI 1.3's tables (store_lti.h), on both backends through
 * the same SQL as store.c (store_internal.h); the tables are the
 * migrations' (store_schema.c).
 */
#include "store/store_lti.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/exercise/exercise.h"
#include "store/store_internal.h"

/* The tables are made by the store's migrations (store_schema.c,
 * version 3), in the same versions as the records'. */

static enum store_status exec(struct store *s, const char *sql, const struct store_value *p,
                              size_t n, store_row_fn row, void *arg, uint64_t *changes,
                              struct store_error *err)
{
    return s->ops->exec(s, sql, false, p, n, row, arg, changes, err);
}

static bool one_int(const struct store_value *c, size_t n, void *arg)
{
    if (n >= 1 && c[0].type == SV_INT)
        *(int64_t *)arg = c[0].i;
    return false;
}

/* ---- keys ------------------------------------------------------------------ */

struct key_walk {
    bool (*fn)(const struct store_lti_key *k, void *arg);
    void *arg;
};

static bool key_row(const struct store_value *c, size_t n, void *arg)
{
    struct key_walk *w = arg;
    if (n < 4)
        return false;
    char *kid = store_memdup(c[0].p ? c[0].p : "", c[0].len);
    char *jwk = store_memdup(c[1].p ? c[1].p : "", c[1].len);
    bool more = false;
    if (kid && jwk)
        more = w->fn(&(struct store_lti_key){ kid, jwk, c[2].i, c[3].i }, w->arg);
    free(kid);
    free(jwk);
    return more;
}

enum store_status store_lti_keys_each(struct store *s,
                                      bool (*fn)(const struct store_lti_key *k, void *arg),
                                      void *arg, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct key_walk w = { fn, arg };
    return exec(s, "SELECT kid, jwk, created_ms, retired_ms FROM lti_keys "
                   "ORDER BY created_ms DESC, kid DESC", NULL, 0, key_row, &w, NULL, err);
}

struct key_add {
    const char *kid, *jwk;
    bool only_if_none, added;
};

static enum store_status add_key(struct store *s, void *arg, struct store_error *err)
{
    struct key_add *a = arg;
    enum store_status st = s->ops->lock_schema(s, err);
    int64_t count = 0;
    if (st == STORE_OK && a->only_if_none)
        st = exec(s, "SELECT COUNT(*) FROM lti_keys", NULL, 0, one_int, &count, NULL, err);
    if (st != STORE_OK || count > 0)
        return st;
    int64_t now = store_now_ms();
    struct store_value p[] = { sv_text(a->kid), sv_text(a->jwk), sv_int(now) };
    /* PostgreSQL types every parameter of a statement: pass only those used */
    st = exec(s, "UPDATE lti_keys SET retired_ms = ?1 WHERE retired_ms = 0", &p[2], 1, NULL,
              NULL, NULL, err);
    if (st == STORE_OK)
        st = exec(s, "INSERT INTO lti_keys (kid, jwk, created_ms) VALUES (?1, ?2, ?3)", p, 3,
                  NULL, NULL, NULL, err);
    a->added = st == STORE_OK;
    return st;
}

enum store_status store_lti_key_add(struct store *s, const char *kid, const char *jwk,
                                    bool only_if_none, bool *added, struct store_error *err)
{
    struct key_add a = { kid, jwk, only_if_none, false };
    enum store_status st = store_in_write(s, add_key, &a, err);
    if (added)
        *added = st == STORE_OK && a.added;
    return st;
}

static enum store_status prune_keys(struct store *s, void *arg, struct store_error *err)
{
    struct store_value p = sv_int(*(int64_t *)arg);
    return exec(s, "DELETE FROM lti_keys WHERE retired_ms > 0 AND retired_ms < ?1", &p, 1,
                NULL, NULL, NULL, err);
}

enum store_status store_lti_keys_prune(struct store *s, int64_t cutoff_ms,
                                       struct store_error *err)
{
    return store_in_write(s, prune_keys, &cutoff_ms, err);
}

/* ---- states and nonces -------------------------------------------------------- */

void store_lti_state_clear(struct store_lti_state *st)
{
    free(st->issuer);
    free(st->client_id);
    free(st->target_link_uri);
    free(st->relaunch);
    memset(st, 0, sizeof *st);
}

static enum store_status put_state(struct store *s, void *arg, struct store_error *err)
{
    const struct store_lti_state *x = arg;
    struct store_value p[] = { sv_text(x->state), sv_text(x->nonce), sv_text(x->issuer),
                               sv_text(x->client_id), sv_text(x->target_link_uri),
                               sv_int(x->expires_ms), sv_int(store_now_ms()),
                               sv_text(x->relaunch ? x->relaunch : "") };
    enum store_status st = exec(s, "DELETE FROM lti_states WHERE expires_ms < ?1", &p[6], 1,
                                NULL, NULL, NULL, err);
    struct store_value q[] = { p[0], p[1], p[2], p[3], p[4], p[5], p[7] };
    if (st == STORE_OK)
        st = exec(s, "INSERT INTO lti_states (state, nonce, issuer, client_id, "
                     "target_link_uri, expires_ms, relaunch) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                  q, 7, NULL, NULL, NULL, err);
    return st;
}

enum store_status store_lti_state_put(struct store *s, const struct store_lti_state *st,
                                      struct store_error *err)
{
    if (!st->issuer || !st->client_id || !st->target_link_uri ||
        strlen(st->target_link_uri) > STORE_MAX_TEXT || strlen(st->issuer) > STORE_MAX_TEXT ||
        strlen(st->client_id) > STORE_MAX_TEXT ||
        (st->relaunch && strlen(st->relaunch) > STORE_LTI_MAX_RELAUNCH))
        return store_fail(err, STORE_INVALID, "a login's issuer, client id or target is "
                          "missing or over %d bytes", STORE_MAX_TEXT);
    return store_in_write(s, put_state, (void *)st, err);
}

struct take {
    const char *state;
    int64_t now;
    struct store_lti_state *out;
    bool found;
};

static bool state_row(const struct store_value *c, size_t n, void *arg)
{
    struct take *t = arg;
    if (n < 6)
        return false;
    snprintf(t->out->nonce, sizeof t->out->nonce, "%.*s", (int)c[0].len, c[0].p ? c[0].p : "");
    t->out->issuer = store_memdup(c[1].p ? c[1].p : "", c[1].len);
    t->out->client_id = store_memdup(c[2].p ? c[2].p : "", c[2].len);
    t->out->target_link_uri = store_memdup(c[3].p ? c[3].p : "", c[3].len);
    t->out->expires_ms = c[4].i;
    t->out->relaunch = store_memdup(c[5].p ? c[5].p : "", c[5].len);
    t->found = t->out->issuer && t->out->client_id && t->out->target_link_uri &&
               t->out->relaunch;
    return false;
}

static enum store_status take_state(struct store *s, void *arg, struct store_error *err)
{
    struct take *t = arg;
    struct store_value p[] = { sv_text(t->state) };
    enum store_status st = exec(s, "SELECT nonce, issuer, client_id, target_link_uri, "
                                   "expires_ms, relaunch FROM lti_states WHERE state = ?1", p, 1,
                                state_row, t, NULL, err);
    if (st == STORE_OK)
        st = exec(s, "DELETE FROM lti_states WHERE state = ?1", p, 1, NULL, NULL, NULL, err);
    return st;
}

enum store_status store_lti_state_take(struct store *s, const char *state, int64_t now_ms,
                                       struct store_lti_state *out, struct store_error *err)
{
    memset(out, 0, sizeof *out);
    struct take t = { state, now_ms, out, false };
    enum store_status st = store_in_write(s, take_state, &t, err);
    if (st == STORE_OK && (!t.found || out->expires_ms < now_ms)) {
        store_lti_state_clear(out);
        return store_fail(err, STORE_NOT_FOUND, "no such login, or it expired");
    }
    if (st == STORE_OK)
        snprintf(out->state, sizeof out->state, "%s", state);
    else
        store_lti_state_clear(out);
    return st;
}

struct nonce {
    const char *issuer, *nonce;
    int64_t expires_ms;
    uint64_t added;
};

static enum store_status use_nonce(struct store *s, void *arg, struct store_error *err)
{
    struct nonce *x = arg;
    struct store_value p[] = { sv_text(x->issuer), sv_text(x->nonce), sv_int(x->expires_ms),
                               sv_int(store_now_ms()) };
    enum store_status st = exec(s, "DELETE FROM lti_nonces WHERE expires_ms < ?1", &p[3], 1,
                                NULL, NULL, NULL, err);
    if (st == STORE_OK)
        st = exec(s, "INSERT INTO lti_nonces (issuer, nonce, expires_ms) VALUES (?1, ?2, ?3) "
                     "ON CONFLICT (issuer, nonce) DO NOTHING", p, 3, NULL, NULL, &x->added,
                  err);
    return st;
}

enum store_status store_lti_nonce_use(struct store *s, const char *issuer, const char *nonce,
                                      int64_t expires_ms, struct store_error *err)
{
    if (!issuer || !nonce || strlen(nonce) > STORE_MAX_TEXT || strlen(issuer) > STORE_MAX_TEXT)
        return store_fail(err, STORE_INVALID, "a nonce is missing or over %d bytes",
                          STORE_MAX_TEXT);
    struct nonce x = { issuer, nonce, expires_ms, 0 };
    enum store_status st = store_in_write(s, use_nonce, &x, err);
    if (st == STORE_OK && x.added == 0)
        return store_fail(err, STORE_CONFLICT, "the nonce was seen before");
    return st;
}

/* ---- launches ------------------------------------------------------------------ */

struct launch {
    const struct store_lti_launch *l;
    char *student, *class_id;
    int64_t *link;
    char *name;
    size_t name_size;
};

static bool name_row(const struct store_value *c, size_t n, void *arg)
{
    struct launch *x = arg;
    if (n >= 1 && c[0].p)
        snprintf(x->name, x->name_size, "%.*s", (int)c[0].len, c[0].p);
    return false;
}

static bool id_row(const struct store_value *c, size_t n, void *arg)
{
    if (n >= 1 && c[0].p && c[0].len < STORE_ID_SIZE)
        snprintf(arg, STORE_ID_SIZE, "%.*s", (int)c[0].len, c[0].p);
    return false;
}

/* A name for a launch that gave none: the platform's sub is no one's
 * business, so a short hash of it. */
static void anonymous_name(const char *issuer, const char *sub, char *out, size_t n)
{
    char text[2 * STORE_MAX_TEXT + 2];
    char hex[STORE_SHA256_SIZE];
    snprintf(text, sizeof text, "%s\n%s", issuer, sub);
    store_sha256_hex(text, strlen(text), hex);
    snprintf(out, n, "Learner %.8s", hex);
}

static enum store_status do_launch(struct store *s, void *arg, struct store_error *err)
{
    struct launch *x = arg;
    const struct store_lti_launch *l = x->l;
    int64_t now = store_now_ms();
    x->student[0] = x->class_id[0] = '\0';
    *x->link = 0;
    struct store_value who[] = { sv_text(l->issuer), sv_text(l->sub) };
    enum store_status st = exec(s, "SELECT student FROM lti_users WHERE issuer = ?1 AND "
                                   "sub = ?2", who, 2, id_row, x->student, NULL, err);
    bool fresh = st == STORE_OK && !x->student[0];
    if (fresh) {
        if (!store_new_id(x->student))
            return store_fail(err, STORE_ERROR, "no random bytes for a student id");
        struct store_value p[] = { sv_text(l->issuer), sv_text(l->sub), sv_text(x->student) };
        /* the same first launch twice at once (two tabs, two instances):
         * the one kept first is the student */
        st = exec(s, "INSERT INTO lti_users (issuer, sub, student) VALUES (?1, ?2, ?3) "
                     "ON CONFLICT (issuer, sub) DO NOTHING", p, 3, NULL, NULL, NULL, err);
        if (st == STORE_OK)
            st = exec(s, "SELECT student FROM lti_users WHERE issuer = ?1 AND sub = ?2", who, 2,
                      id_row, x->student, NULL, err);
    }
    if (st == STORE_OK && !l->instructor) {
        char anon[32];
        const char *name = l->name[0] ? l->name : l->email[0] ? l->email : NULL;
        if (!name)
            anonymous_name(l->issuer, l->sub, anon, sizeof anon);
        /* a launch that names no one keeps the name a former one gave */
        struct store_value p[] = { sv_text(x->student), sv_text(name ? name : anon),
                                   sv_text(l->email), sv_int(now), sv_int(name != NULL) };
        st = exec(s, "INSERT INTO students (id, name, section, email, verified, created_ms) "
                     "VALUES (?1, ?2, '', ?3, 1, ?4) ON CONFLICT (id) DO UPDATE SET "
                     "name = CASE WHEN ?5 = 1 THEN excluded.name ELSE students.name END, "
                     "email = CASE WHEN excluded.email <> '' THEN excluded.email "
                     "ELSE students.email END", p, 5, NULL, NULL, NULL, err);
        if (st == STORE_OK)
            st = exec(s, "SELECT name FROM students WHERE id = ?1", p, 1, name_row, x, NULL,
                      err);
    } else if (st == STORE_OK) {
        snprintf(x->name, x->name_size, "%s", l->name[0] ? l->name : l->email);
    }
    /* the class of (issuer, context) */
    struct store_value c[] = { sv_text(l->issuer), sv_text(l->context_id),
                               sv_text(l->context_title ? l->context_title : "") };
    if (st == STORE_OK)
        st = exec(s, "SELECT class_id FROM lti_classes WHERE issuer = ?1 AND context = ?2", c,
                  2, id_row, x->class_id, NULL, err);
    if (st == STORE_OK && !x->class_id[0]) {
        if (!store_new_id(x->class_id))
            return store_fail(err, STORE_ERROR, "no random bytes for a class id");
        struct store_value p[] = { c[0], c[1], sv_text(x->class_id), c[2] };
        /* two first launches of a course at once (two students, two
         * instances): one class, the one kept first */
        st = exec(s, "INSERT INTO lti_classes (issuer, context, class_id, title) "
                     "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (issuer, context) DO NOTHING", p, 4,
                  NULL, NULL, NULL, err);
        if (st == STORE_OK)
            st = exec(s, "SELECT class_id FROM lti_classes WHERE issuer = ?1 AND context = ?2",
                      c, 2, id_row, x->class_id, NULL, err);
    } else if (st == STORE_OK && l->context_title && l->context_title[0]) {
        st = exec(s, "UPDATE lti_classes SET title = ?3 WHERE issuer = ?1 AND context = ?2",
                  c, 3, NULL, NULL, NULL, err);
    }
    if (st == STORE_OK) {
        struct store_value p[] = { sv_text(x->class_id), sv_text(x->student),
                                   sv_text(l->instructor ? "instructor" : "learner") };
        st = exec(s, "INSERT INTO lti_members (class_id, student, role) VALUES (?1, ?2, ?3) "
                     "ON CONFLICT (class_id, student) DO UPDATE SET role = excluded.role", p, 3,
                  NULL, NULL, NULL, err);
    }
    /* where the scores go: the resource link's line item, as its latest
     * launch named it (none: its scores are not sent), for the records of
     * the exercise its latest launch named; this student was launched
     * from it, now */
    struct store_value k[] = { sv_text(l->issuer), sv_text(l->client_id),
                               sv_text(l->deployment_id), sv_text(l->context_id),
                               sv_text(l->resource_link), sv_text(l->lineitem ? l->lineitem : ""),
                               sv_text(l->lineitems ? l->lineitems : ""),
                               sv_text(l->label ? l->label : ""),
                               sv_text(l->exercise ? l->exercise : exercise_default()->id) };
    /* the link is a row of its own (the unique key): however many
     * launches come first, at once or on several instances, they share
     * it, and the line item made for it (made_lineitem) is never lost */
    if (st == STORE_OK && !l->instructor)
        st = exec(s, "INSERT INTO lti_resource_links (issuer, client_id, deployment, context, "
                     "resource_link, lineitem, lineitems, label, exercise) VALUES (?1, ?2, ?3, ?4, "
                     "?5, ?6, ?7, ?8, ?9) ON CONFLICT (issuer, client_id, deployment, context, "
                     "resource_link) DO UPDATE SET lineitem = excluded.lineitem, "
                     "lineitems = excluded.lineitems, exercise = excluded.exercise, "
                     "label = CASE WHEN excluded.label <> '' THEN excluded.label ELSE "
                     "lti_resource_links.label END", k, 9, NULL, NULL, NULL, err);
    if (st == STORE_OK && !l->instructor)
        st = exec(s, "SELECT link FROM lti_resource_links WHERE issuer = ?1 AND client_id = ?2 "
                     "AND deployment = ?3 AND context = ?4 AND resource_link = ?5", k, 5,
                  one_int, x->link, NULL, err);
    if (st == STORE_OK && !l->instructor && *x->link <= 0)
        return store_fail(err, STORE_ERROR, "the resource link was not kept");
    if (st == STORE_OK && !l->instructor) {
        struct store_value p[] = { sv_text(x->student), sv_int(*x->link), sv_int(now),
                                   sv_int(l->due_ms) };
        /* strictly after the student's former launch, even in the same
         * millisecond: "the latest launch" is always one; the due date is
         * this student's, as this launch gives it */
        st = exec(s, "INSERT INTO lti_launches (student, link, launched_ms, due_ms) VALUES "
                     "(?1, ?2, (SELECT CASE WHEN COALESCE(MAX(b.launched_ms), 0) >= ?3 THEN "
                     "MAX(b.launched_ms) + 1 ELSE ?3 END FROM lti_launches b WHERE "
                     "b.student = ?1), ?4) ON CONFLICT (student, link) DO UPDATE SET "
                     "launched_ms = excluded.launched_ms, due_ms = excluded.due_ms", p, 4, NULL,
                  NULL, NULL, err);
    }
    return st;
}

static bool launch_ok(const char *v, bool required)
{
    return v ? strlen(v) <= STORE_MAX_TEXT && (*v || !required) : !required;
}

enum store_status store_lti_launch(struct store *s, const struct store_lti_launch *l,
                                   char student_id[STORE_ID_SIZE], char class_id[STORE_ID_SIZE],
                                   int64_t *link_out, char *name_out, size_t name_size,
                                   struct store_error *err)
{
    if (!launch_ok(l->issuer, true) || !launch_ok(l->client_id, true) ||
        !launch_ok(l->sub, true) || !launch_ok(l->name, false) || !launch_ok(l->email, false) ||
        !launch_ok(l->context_id, false) || !launch_ok(l->context_title, false) ||
        !launch_ok(l->lineitem, false) || !launch_ok(l->lineitems, false) ||
        !launch_ok(l->label, false) || !launch_ok(l->deployment_id, true) ||
        !launch_ok(l->resource_link, true) || !l->name || !l->email || !l->context_id)
        return store_fail(err, STORE_INVALID, "a launch's field is missing or over %d bytes",
                          STORE_MAX_TEXT);
    int64_t none = 0;
    struct launch x = { l, student_id, class_id, link_out ? link_out : &none, name_out,
                        name_size };
    if (name_size)
        name_out[0] = '\0';
    return store_in_write(s, do_launch, &x, err);
}

/* ---- the outbox ---------------------------------------------------------------- */

struct due_walk {
    bool (*fn)(const struct store_lti_score *sc, void *arg);
    void *arg;
};

static bool due_row(const struct store_value *c, size_t n, void *arg)
{
    struct due_walk *w = arg;
    if (n < 18)
        return false;
    char *t[6];
    bool ok = true;
    for (int i = 0; i < 6; i++) {
        t[i] = store_memdup(c[1 + i].p ? c[1 + i].p : "", c[1 + i].len);
        ok = ok && t[i];
    }
    bool more = false;
    if (ok)
        more = w->fn(&(struct store_lti_score){
            .seq = c[0].i, .record_id = t[0], .student = t[1], .issuer = t[2],
            .client_id = t[3], .sub = t[4], .lineitem = t[5], .points = (int)c[7].i,
            .max_points = (int)c[8].i, .status = (int)c[9].i, .graded_ms = c[10].i,
            .attempts = (int)c[11].i, .best_points = c[12].i, .last_timestamp_ms = c[13].i,
            .next_ms = c[14].i, .received_ms = c[15].i, .late = c[16].i != 0,
            .best_late_points = c[17].type == SV_INT ? c[17].i : -1,
        }, w->arg);
    for (int i = 0; i < 6; i++)
        free(t[i]);
    return more;
}

enum store_status store_lti_outbox_due(struct store *s, int64_t now_ms, unsigned limit,
                                       bool (*fn)(const struct store_lti_score *sc, void *arg),
                                       void *arg, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct due_walk w = { fn, arg };
    struct store_value p[] = { sv_int(now_ms), sv_int(limit) };
    return exec(s,
        "SELECT o.seq, o.record_id, o.student, o.issuer, o.client_id, o.sub, o.lineitem, "
        "o.points, o.max_points, o.status, o.graded_ms, o.attempts, "
        "COALESCE((SELECT MAX(b.points) FROM lti_outbox b WHERE b.issuer = o.issuer AND "
        " b.lineitem = o.lineitem AND b.sub = o.sub AND b.seq <= o.seq AND b.late = 0), 0), "
        "COALESCE((SELECT t.last_ms FROM lti_sent t WHERE t.issuer = o.issuer AND "
        " t.lineitem = o.lineitem AND t.sub = o.sub), 0), o.next_ms, o.received_ms, o.late, "
        "(SELECT MAX(b.points) FROM lti_outbox b WHERE b.issuer = o.issuer AND "
        " b.lineitem = o.lineitem AND b.sub = o.sub AND b.seq <= o.seq AND b.late = 1) "
        "FROM lti_outbox o WHERE o.state = 0 AND o.next_ms <= ?1 AND o.lineitem <> '' AND "
        "NOT EXISTS "
        "(SELECT 1 FROM lti_outbox e WHERE e.state = 0 AND e.issuer = o.issuer AND "
        " e.lineitem = o.lineitem AND e.sub = o.sub AND e.seq > o.seq) "
        "ORDER BY o.seq LIMIT ?2", p, 2, due_row, &w, NULL, err);
}

struct claim {
    int64_t seq, was, until;
    uint64_t changes;
};

static enum store_status do_claim(struct store *s, void *arg, struct store_error *err)
{
    struct claim *c = arg;
    struct store_value p[] = { sv_int(c->seq), sv_int(c->was), sv_int(c->until) };
    return exec(s, "UPDATE lti_outbox SET next_ms = ?3 WHERE seq = ?1 AND next_ms = ?2 AND "
                   "state = 0", p, 3, NULL, NULL, &c->changes, err);
}

enum store_status store_lti_outbox_claim(struct store *s, int64_t seq, int64_t was_next_ms,
                                         int64_t lease_until_ms, bool *claimed,
                                         struct store_error *err)
{
    struct claim c = { seq, was_next_ms, lease_until_ms, 0 };
    enum store_status st = store_in_write(s, do_claim, &c, err);
    *claimed = st == STORE_OK && c.changes == 1;
    return st;
}

struct mark {
    int64_t seq, ms;
    bool give_up;
    const char *why;
};

/* The pair of seq as the WHERE of an UPDATE of its waiting scores up to it. */
#define SAME_PAIR_UP_TO                                                              \
    " WHERE state = 0 AND seq <= ?1 AND EXISTS (SELECT 1 FROM lti_outbox x WHERE "   \
    "x.seq = ?1 AND x.issuer = lti_outbox.issuer AND x.lineitem = lti_outbox.lineitem " \
    "AND x.sub = lti_outbox.sub)"

static enum store_status mark_sent(struct store *s, void *arg, struct store_error *err)
{
    struct mark *m = arg;
    struct store_value p[] = { sv_int(m->seq), sv_int(m->ms) };
    enum store_status st = exec(s, "INSERT INTO lti_sent (issuer, lineitem, sub, last_ms) "
                                   "SELECT issuer, lineitem, sub, CAST(?2 AS BIGINT) FROM lti_outbox "
                                   "WHERE seq = ?1 ON CONFLICT (issuer, lineitem, sub) DO "
                                   "UPDATE SET last_ms = excluded.last_ms", p, 2, NULL, NULL,
                                NULL, err);
    if (st == STORE_OK)
        st = exec(s, "UPDATE lti_outbox SET state = 1, error = ''" SAME_PAIR_UP_TO, p, 1, NULL,
                  NULL, NULL, err);
    return st;
}

enum store_status store_lti_outbox_sent(struct store *s, int64_t seq, int64_t timestamp_ms,
                                        struct store_error *err)
{
    struct mark m = { seq, timestamp_ms, false, NULL };
    return store_in_write(s, mark_sent, &m, err);
}

static enum store_status mark_retry(struct store *s, void *arg, struct store_error *err)
{
    struct mark *m = arg;
    struct store_value p[] = { sv_int(m->seq), sv_int(m->ms), sv_text(m->why ? m->why : "") };
    struct store_value q[] = { p[0], p[2] };
    if (m->give_up)
        return exec(s, "UPDATE lti_outbox SET state = 2, attempts = attempts + 1, error = ?2"
                       SAME_PAIR_UP_TO, q, 2, NULL, NULL, NULL, err);
    return exec(s, "UPDATE lti_outbox SET attempts = attempts + 1, next_ms = ?2, error = ?3 "
                   "WHERE seq = ?1", p, 3, NULL, NULL, NULL, err);
}

enum store_status store_lti_outbox_retry(struct store *s, int64_t seq, int64_t next_ms,
                                         bool give_up, const char *why, struct store_error *err)
{
    char cut[STORE_MAX_TEXT];
    snprintf(cut, sizeof cut, "%s", why ? why : "");
    struct mark m = { seq, next_ms, give_up, cut };
    return store_in_write(s, mark_retry, &m, err);
}

struct counts {
    int64_t v[3];
};

static bool count_row(const struct store_value *c, size_t n, void *arg)
{
    struct counts *k = arg;
    if (n >= 2 && c[0].i >= 0 && c[0].i < 3)
        k->v[c[0].i] = c[1].i;
    return true;
}

enum store_status store_lti_outbox_counts(struct store *s, int64_t *waiting, int64_t *sent,
                                          int64_t *failed, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    struct counts k = { { 0, 0, 0 } };
    if (st == STORE_OK)
        st = exec(s, "SELECT state, COUNT(*) FROM lti_outbox GROUP BY state", NULL, 0,
                  count_row, &k, NULL, err);
    *waiting = k.v[0];
    *sent = k.v[1];
    *failed = k.v[2];
    return st;
}

struct unsent_walk {
    bool (*fn)(const struct store_lti_unsent *u, void *arg);
    void *arg;
};

static bool unsent_row(const struct store_value *c, size_t n, void *arg)
{
    struct unsent_walk *w = arg;
    if (n < 5)
        return false;
    char *student = store_memdup(c[0].p ? c[0].p : "", c[0].len);
    char *klass = store_memdup(c[1].p ? c[1].p : "", c[1].len);
    char *error = store_memdup(c[4].p ? c[4].p : "", c[4].len);
    bool more = false;
    if (student && klass && error)
        more = w->fn(&(struct store_lti_unsent){ student, klass, c[2].i == 2, (int)c[3].i,
                                                 error }, w->arg);
    free(student);
    free(klass);
    free(error);
    return more;
}

enum store_status store_lti_unsent_each(struct store *s,
                                        bool (*fn)(const struct store_lti_unsent *u, void *arg),
                                        void *arg, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct unsent_walk w = { fn, arg };
    /* per (student, line item) its newest score: unsent when it failed,
     * or waits after a failed attempt */
    return exec(s,
        "SELECT o.student, COALESCE((SELECT MIN(m.class_id) FROM lti_members m "
        " WHERE m.student = o.student), ''), o.state, o.attempts, o.error "
        "FROM lti_outbox o WHERE o.seq = (SELECT MAX(x.seq) FROM lti_outbox x "
        " WHERE x.student = o.student AND x.lineitem = o.lineitem) "
        "AND (o.state = 2 OR (o.state = 0 AND o.attempts > 0)) ORDER BY o.student, o.seq",
        NULL, 0, unsent_row, &w, NULL, err);
}

struct members_walk {
    bool (*fn)(const char *class_id, const char *student, void *arg);
    void *arg;
};

static bool members_row(const struct store_value *c, size_t n, void *arg)
{
    struct members_walk *w = arg;
    if (n < 2)
        return false;
    char *klass = store_memdup(c[0].p ? c[0].p : "", c[0].len);
    bool none = c[1].type == SV_NULL;
    char *student = none ? NULL : store_memdup(c[1].p ? c[1].p : "", c[1].len);
    bool more = klass && (none || student) && w->fn(klass, student, w->arg);
    free(klass);
    free(student);
    return more;
}

enum store_status store_lti_members_each(struct store *s,
                                         bool (*fn)(const char *class_id, const char *student,
                                                    void *arg),
                                         void *arg, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct members_walk w = { fn, arg };
    /* a class with no learner yet is still a class (its instructor's view is empty) */
    return exec(s,
        "SELECT c.class_id, NULL FROM lti_classes c UNION ALL "
        "SELECT m.class_id, m.student FROM lti_members m WHERE m.role = 'learner' AND "
        "NOT EXISTS (SELECT 1 FROM lti_roster_members r WHERE r.class_id = m.class_id AND "
        "r.student = m.student AND r.learner = 0) UNION ALL "
        "SELECT r.class_id, r.student FROM lti_roster_members r WHERE r.learner = 1",
        NULL, 0, members_row, &w, NULL, err);
}

/* ---- the courses' rosters ------------------------------------------------------ */

struct roster_ask {
    const char *class_id, *issuer, *client_id, *url;
    bool instructor;
};

static enum store_status do_roster_ask(struct store *s, void *arg, struct store_error *err)
{
    struct roster_ask *a = arg;
    struct store_value p[] = { sv_text(a->class_id), sv_text(a->issuer),
                               sv_text(a->client_id), sv_text(a->url),
                               sv_int(a->instructor) };
    /* new: asked for (want's default); known: asked for again only by an
     * instructor's launch, and never before next_ms (the claim's) */
    return exec(s, "INSERT INTO lti_rosters (class_id, issuer, client_id, url) VALUES (?1, ?2, "
                   "?3, ?4) ON CONFLICT (class_id) DO UPDATE SET issuer = excluded.issuer, "
                   "client_id = excluded.client_id, url = excluded.url, want = CASE WHEN "
                   "?5 = 1 THEN 1 ELSE lti_rosters.want END", p, 5, NULL, NULL, NULL, err);
}

enum store_status store_lti_roster_ask(struct store *s, const char *class_id,
                                       const char *issuer, const char *client_id,
                                       const char *url, bool instructor,
                                       struct store_error *err)
{
    if (!launch_ok(class_id, true) || !launch_ok(issuer, true) || !launch_ok(client_id, true) ||
        !launch_ok(url, true))
        return store_fail(err, STORE_INVALID, "a roster's field is missing or over %d bytes",
                          STORE_MAX_TEXT);
    struct roster_ask a = { class_id, issuer, client_id, url, instructor };
    return store_in_write(s, do_roster_ask, &a, err);
}

struct roster_due_walk {
    bool (*fn)(const struct store_lti_roster_due *d, void *arg);
    void *arg;
};

static bool roster_due_row(const struct store_value *c, size_t n, void *arg)
{
    struct roster_due_walk *w = arg;
    if (n < 5)
        return false;
    char *t[4];
    bool ok = true;
    for (int i = 0; i < 4; i++) {
        t[i] = store_memdup(c[i].p ? c[i].p : "", c[i].len);
        ok = ok && t[i];
    }
    bool more = ok && w->fn(&(struct store_lti_roster_due){ t[0], t[1], t[2], t[3], c[4].i },
                            w->arg);
    for (int i = 0; i < 4; i++)
        free(t[i]);
    return more;
}

enum store_status store_lti_roster_due(struct store *s, int64_t now_ms, unsigned limit,
                                       bool (*fn)(const struct store_lti_roster_due *d,
                                                  void *arg),
                                       void *arg, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct roster_due_walk w = { fn, arg };
    struct store_value p[] = { sv_int(now_ms), sv_int(limit) };
    return exec(s, "SELECT class_id, issuer, client_id, url, next_ms FROM lti_rosters "
                   "WHERE want = 1 AND next_ms <= ?1 ORDER BY next_ms, class_id LIMIT ?2", p, 2,
                roster_due_row, &w, NULL, err);
}

struct roster_claim {
    const char *class_id;
    int64_t was, next;
    uint64_t changes;
};

static enum store_status do_roster_claim(struct store *s, void *arg, struct store_error *err)
{
    struct roster_claim *c = arg;
    struct store_value p[] = { sv_text(c->class_id), sv_int(c->was), sv_int(c->next) };
    return exec(s, "UPDATE lti_rosters SET want = 0, next_ms = ?3 WHERE class_id = ?1 AND "
                   "next_ms = ?2 AND want = 1", p, 3, NULL, NULL, &c->changes, err);
}

enum store_status store_lti_roster_claim(struct store *s, const char *class_id,
                                         int64_t was_next_ms, int64_t next_ms, bool *claimed,
                                         struct store_error *err)
{
    struct roster_claim c = { class_id, was_next_ms, next_ms, 0 };
    enum store_status st = store_in_write(s, do_roster_claim, &c, err);
    *claimed = st == STORE_OK && c.changes == 1;
    return st;
}

struct roster_put {
    const char *class_id, *issuer, *message;
    enum store_lti_roster_state state;
    const struct store_lti_roster_member *m;
    size_t n;
};

/* One member of a read: its student (made for an active learner) and its
 * roster row. */
static enum store_status roster_member(struct store *s, const struct roster_put *x,
                                       const struct store_lti_roster_member *m, int64_t now,
                                       struct store_error *err)
{
    char student[STORE_ID_SIZE] = "";
    struct store_value who[] = { sv_text(x->issuer), sv_text(m->sub) };
    enum store_status st = exec(s, "SELECT student FROM lti_users WHERE issuer = ?1 AND "
                                   "sub = ?2", who, 2, id_row, student, NULL, err);
    if (st != STORE_OK || (!student[0] && !m->learner))
        return st;   /* someone never shown: nothing kept of them */
    if (!student[0]) {
        if (!store_new_id(student))
            return store_fail(err, STORE_ERROR, "no random bytes for a student id");
        struct store_value p[] = { sv_text(x->issuer), sv_text(m->sub), sv_text(student) };
        st = exec(s, "INSERT INTO lti_users (issuer, sub, student) VALUES (?1, ?2, ?3)", p, 3,
                  NULL, NULL, NULL, err);
    }
    if (st == STORE_OK && m->learner) {
        char anon[32];
        bool named = m->name && m->name[0];
        if (!named)
            anonymous_name(x->issuer, m->sub, anon, sizeof anon);
        /* the roster's name wins, as a launch's does; none keeps the one known */
        struct store_value p[] = { sv_text(student), sv_text(named ? m->name : anon),
                                   sv_int(now), sv_int(named) };
        st = exec(s, "INSERT INTO students (id, name, section, email, verified, created_ms) "
                     "VALUES (?1, ?2, '', '', 1, ?3) ON CONFLICT (id) DO UPDATE SET "
                     "name = CASE WHEN ?4 = 1 THEN excluded.name ELSE students.name END", p, 4,
                  NULL, NULL, NULL, err);
    }
    if (st == STORE_OK) {
        struct store_value p[] = { sv_text(x->class_id), sv_text(student),
                                   sv_int(m->learner) };
        st = exec(s, "INSERT INTO lti_roster_members (class_id, student, learner) VALUES "
                     "(?1, ?2, ?3) ON CONFLICT (class_id, student) DO UPDATE SET "
                     "learner = excluded.learner", p, 3, NULL, NULL, NULL, err);
    }
    return st;
}

static enum store_status do_roster_put(struct store *s, void *arg, struct store_error *err)
{
    struct roster_put *x = arg;
    int64_t now = store_now_ms();
    struct store_value k[] = { sv_text(x->class_id) };
    enum store_status st = STORE_OK;
    bool members = x->state == STORE_ROSTER_READ || x->state == STORE_ROSTER_PARTIAL;
    if (x->state == STORE_ROSTER_READ)
        st = exec(s, "DELETE FROM lti_roster_members WHERE class_id = ?1", k, 1, NULL, NULL,
                  NULL, err);
    for (size_t i = 0; members && st == STORE_OK && i < x->n; i++)
        st = roster_member(s, x, &x->m[i], now, err);
    if (st == STORE_OK) {
        struct store_value p[] = { sv_text(x->class_id), sv_int(x->state),
                                   sv_text(x->message), sv_int(now) };
        st = exec(s, "UPDATE lti_rosters SET state = ?2, message = ?3, read_ms = ?4 WHERE "
                     "class_id = ?1", p, 4, NULL, NULL, NULL, err);
    }
    return st;
}

enum store_status store_lti_roster_put(struct store *s, const char *class_id,
                                       const char *issuer, enum store_lti_roster_state state,
                                       const char *message,
                                       const struct store_lti_roster_member *members, size_t n,
                                       struct store_error *err)
{
    if (!launch_ok(class_id, true) || !launch_ok(issuer, true) || !message ||
        strlen(message) > STORE_MAX_TEXT)
        return store_fail(err, STORE_INVALID, "a roster's field is missing or over %d bytes",
                          STORE_MAX_TEXT);
    for (size_t i = 0; i < n; i++)
        if (!launch_ok(members[i].sub, true) || !launch_ok(members[i].name, false))
            return store_fail(err, STORE_INVALID, "a roster member's field is missing or over "
                              "%d bytes", STORE_MAX_TEXT);
    struct roster_put x = { class_id, issuer, message, state, members, n };
    return store_in_write(s, do_roster_put, &x, err);
}

struct rosters_walk {
    bool (*fn)(const struct store_lti_roster *r, void *arg);
    void *arg;
};

static bool rosters_row(const struct store_value *c, size_t n, void *arg)
{
    struct rosters_walk *w = arg;
    if (n < 5)
        return false;
    char *klass = store_memdup(c[0].p ? c[0].p : "", c[0].len);
    char *msg = store_memdup(c[2].p ? c[2].p : "", c[2].len);
    bool more = klass && msg &&
                w->fn(&(struct store_lti_roster){ klass, (enum store_lti_roster_state)c[1].i,
                                                  msg, c[3].i, c[4].i }, w->arg);
    free(klass);
    free(msg);
    return more;
}

enum store_status store_lti_rosters_each(struct store *s,
                                         bool (*fn)(const struct store_lti_roster *r,
                                                    void *arg),
                                         void *arg, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct rosters_walk w = { fn, arg };
    return exec(s, "SELECT r.class_id, r.state, r.message, r.read_ms, (SELECT COUNT(*) FROM "
                   "lti_roster_members m WHERE m.class_id = r.class_id AND m.learner = 1) "
                   "FROM lti_rosters r ORDER BY r.class_id", NULL, 0, rosters_row, &w, NULL,
                err);
}

/* ---- line items the tool makes ----------------------------------------------- */

struct make_walk {
    bool (*fn)(const struct store_lti_to_make *m, void *arg);
    void *arg;
};

static bool make_row(const struct store_value *c, size_t n, void *arg)
{
    struct make_walk *w = arg;
    if (n < 8)
        return false;
    char *t[6];
    bool ok = true;
    for (int i = 0; i < 6; i++) {
        int k = i < 5 ? 1 + i : 7;   /* the exercise comes after the lease */
        t[i] = store_memdup(c[k].p ? c[k].p : "", c[k].len);
        ok = ok && t[i];
    }
    bool more = ok && w->fn(&(struct store_lti_to_make){
        .link = c[0].i, .issuer = t[0], .client_id = t[1], .lineitems = t[2],
        .resource_link = t[3], .label = t[4], .exercise = t[5], .claim_ms = c[6].i }, w->arg);
    for (int i = 0; i < 6; i++)
        free(t[i]);
    return more;
}

enum store_status store_lti_to_make_each(struct store *s, int64_t now_ms, unsigned limit,
                                         bool (*fn)(const struct store_lti_to_make *m, void *arg),
                                         void *arg, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct make_walk w = { fn, arg };
    struct store_value p[] = { sv_int(now_ms), sv_int(limit) };
    return exec(s, "SELECT link, issuer, client_id, lineitems, resource_link, label, "
                   "made_claim_ms, exercise FROM lti_resource_links WHERE lineitem = '' AND "
                   "lineitems <> '' AND made_lineitem = '' AND made_claim_ms <= ?1 "
                   "ORDER BY link LIMIT ?2", p, 2, make_row, &w, NULL, err);
}

struct make_claim {
    int64_t link, was, until;
    const char *lineitem;
    uint64_t changes;
};

static enum store_status do_make_claim(struct store *s, void *arg, struct store_error *err)
{
    struct make_claim *c = arg;
    struct store_value p[] = { sv_int(c->link), sv_int(c->was), sv_int(c->until) };
    return exec(s, "UPDATE lti_resource_links SET made_claim_ms = ?3 WHERE link = ?1 AND "
                   "made_claim_ms = ?2 AND made_lineitem = ''", p, 3, NULL, NULL, &c->changes,
                err);
}

enum store_status store_lti_make_claim(struct store *s, int64_t link, int64_t was_claim_ms,
                                       int64_t lease_until_ms, bool *claimed,
                                       struct store_error *err)
{
    struct make_claim c = { link, was_claim_ms, lease_until_ms, NULL, 0 };
    enum store_status st = store_in_write(s, do_make_claim, &c, err);
    *claimed = st == STORE_OK && c.changes == 1;
    return st;
}

static enum store_status do_made(struct store *s, void *arg, struct store_error *err)
{
    struct make_claim *c = arg;
    struct store_value p[] = { sv_int(c->link), sv_text(c->lineitem) };
    enum store_status st = exec(s, "UPDATE lti_resource_links SET made_lineitem = ?2 WHERE "
                                   "link = ?1 AND made_lineitem = ''", p, 2, NULL, NULL, NULL,
                                err);
    /* the scores that waited for it go to it (the one kept, should two
     * have raced: the first) */
    if (st == STORE_OK)
        st = exec(s, "UPDATE lti_outbox SET lineitem = (SELECT k.made_lineitem FROM "
                     "lti_resource_links k WHERE k.link = ?1) WHERE link = ?1 AND "
                     "lineitem = ''", p, 1, NULL, NULL, NULL, err);
    return st;
}

enum store_status store_lti_made(struct store *s, int64_t link, const char *lineitem,
                                 struct store_error *err)
{
    if (!lineitem || !*lineitem || strlen(lineitem) > STORE_MAX_TEXT)
        return store_fail(err, STORE_INVALID, "a line item's address is missing or over %d "
                          "bytes", STORE_MAX_TEXT);
    struct make_claim c = { link, 0, 0, lineitem, 0 };
    return store_in_write(s, do_made, &c, err);
}
