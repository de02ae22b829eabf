/*
 * store.c - the store's queries, written once for both backends
 * (store_internal.h): opening and migrating, records, students, the
 * instructor.
 */
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/defaults.h"
#include "store/store_class.h"
#include "store/store_internal.h"
#include "store/store_schema.h"

/* ---- opening ------------------------------------------------------------ */

/* The URL for a log line: "postgresql://user:***@host/db". */
static char *display_url(const char *url)
{
    char *d = strdup(url);
    if (!d)
        return NULL;
    char *scheme = strstr(d, "://");
    if (!scheme)
        return d;
    char *at = strchr(scheme + 3, '@');
    char *colon = memchr(scheme + 3, ':', at ? (size_t)(at - scheme - 3) : 0);
    if (at && colon) {
        char *out = malloc(strlen(d) + 4);
        if (out)
            sprintf(out, "%.*s:***%s", (int)(colon - d), d, at);
        free(d);
        return out;
    }
    char *pw = strstr(d, "password=");
    if (pw) {
        char *end = pw + 9;
        while (*end && *end != '&' && *end != ' ')
            end++;
        char *out = malloc(strlen(d) + 4);
        if (out)
            sprintf(out, "%.*s***%s", (int)(pw + 9 - d), d, end);
        free(d);
        return out;
    }
    return d;
}

enum store_status store_ready(struct store *s, struct store_error *err)
{
    if (!s)
        return store_fail(err, STORE_INVALID, "no store");
    if (s->pid != getpid())
        return store_fail(err, STORE_UNAVAILABLE,
                          "the store was opened by another process (never used across fork)");
    return s->ops->connect(s, err);
}

static bool one_int(const struct store_value *c, size_t n, void *arg)
{
    if (n >= 1 && c[0].type == SV_INT)
        *(int64_t *)arg = c[0].i;
    return false;
}

static enum store_status read_version(struct store *s, int64_t *version, struct store_error *err)
{
    int64_t has = 0;
    struct store_value name = sv_text("schema_version");
    enum store_status st = s->ops->exec(s, s->ops->has_table, false, &name, 1, one_int,
                                        &has, NULL, err);
    *version = 0;
    if (st != STORE_OK || !has)
        return st;
    *version = -1;
    st = s->ops->exec(s, "SELECT version FROM schema_version", false, NULL, 0, one_int, version,
                      NULL, err);
    if (st == STORE_OK && *version < 0)
        return store_fail(err, STORE_CORRUPT, "the store's schema_version table is empty");
    return st;
}

/* Takes the store to STORE_SCHEMA_VERSION, in one transaction. */
static enum store_status migrate(struct store *s, struct store_error *err)
{
    int64_t v;
    enum store_status st = read_version(s, &v, err);
    if (st != STORE_OK)
        return st;
    if (v == STORE_SCHEMA_VERSION)
        goto done;
    if (v > STORE_SCHEMA_VERSION)
        return store_fail(err, STORE_TOO_NEW,
                          "the store's schema is version %lld, newer than this program's %d: "
                          "run a newer butterfly-grader", (long long)v, STORE_SCHEMA_VERSION);
    if ((st = s->ops->begin(s, true, err)) != STORE_OK)
        return st;
    if ((st = s->ops->lock_schema(s, err)) != STORE_OK
        || (st = read_version(s, &v, err)) != STORE_OK)   /* another may have done it */
        goto fail;
    for (int64_t next = v + 1; next <= STORE_SCHEMA_VERSION; next++) {
        struct store_value p = sv_int(next);
        if ((st = s->ops->exec(s, s->ops->migrations[next], true, NULL, 0, NULL, NULL, NULL,
                               err)) != STORE_OK
            || (store_schema_after[next] && (st = store_schema_after[next](s, err)) != STORE_OK)
            || (st = s->ops->exec(s, "UPDATE schema_version SET version = ?1", false, &p, 1,
                                  NULL, NULL, NULL, err)) != STORE_OK) {
            char why[sizeof err->message];
            snprintf(why, sizeof why, "%s", err ? err->message : "");
            store_fail(err, st, "migration to schema version %lld failed: %s",
                       (long long)next, why);
            goto fail;
        }
    }
    if ((st = s->ops->commit(s, err)) != STORE_OK)
        goto fail;
    v = STORE_SCHEMA_VERSION;
done:
    s->version = (int)v;
    return STORE_OK;
fail:
    s->ops->rollback(s);
    return st;
}

enum store_kind store_kind_of_url(const char *url)
{
    if (url && !strncmp(url, "sqlite:", 7))
        return STORE_KIND_SQLITE;
    if (url && (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11)))
        return STORE_KIND_POSTGRES;
    return STORE_KIND_NONE;
}

enum store_status store_open(const char *url, struct store **out, struct store_error *err)
{
    *out = NULL;
    store_ok(err);
    if (!url || !*url)
        return store_fail(err, STORE_INVALID, "no database URL");
    if (!strcmp(url, "none"))
        return STORE_OK;
    if (strlen(url) > 4096)
        return store_fail(err, STORE_INVALID, "the database URL is too long");

    struct store *s = calloc(1, sizeof *s);
    enum store_status st = STORE_NO_MEMORY;
    if (!s || !(s->url = strdup(url)) || !(s->display_url = display_url(url))) {
        store_fail(err, st, "out of memory opening the store");
        goto fail;
    }
    s->pid = getpid();
    s->kind = store_kind_of_url(url);
    if (s->kind == STORE_KIND_SQLITE) {
        s->ops = &store_sqlite_ops;
        st = store_sqlite_open(s, url + 7, err);
    } else if (s->kind == STORE_KIND_POSTGRES) {
        s->ops = &store_pg_ops;
        st = store_pg_open(s, url, err);
    } else {
        st = store_fail(err, STORE_INVALID,
                        "'%s' is no database URL: sqlite:PATH, postgresql://... or none",
                        s->display_url);
        goto fail;
    }
    if (st != STORE_OK || (st = migrate(s, err)) != STORE_OK)
        goto fail;
    *out = s;
    return STORE_OK;
fail:
    store_close(s);
    return st;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    if (s->ops && s->backend)
        s->ops->close(s);
    free(s->url);
    free(s->display_url);
    free(s);
}

enum store_kind store_kind(const struct store *s)
{
    return s ? s->kind : STORE_KIND_NONE;
}

const char *store_display_url(const struct store *s)
{
    return s ? s->display_url : "none";
}

int store_schema_version(const struct store *s)
{
    return s ? s->version : 0;
}

enum store_status store_probe(struct store *s, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    int64_t v = -1;
    st = s->ops->exec(s, "SELECT version FROM schema_version", false, NULL, 0, one_int, &v,
                      NULL, err);
    if (st == STORE_OK)
        store_ok(err);
    return st;
}

enum store_status store_size(struct store *s, uint64_t *bytes, struct store_error *err)
{
    *bytes = 0;
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    int64_t v = -1;
    st = s->ops->exec(s, s->ops->size_bytes, false, NULL, 0, one_int, &v, NULL, err);
    if (st == STORE_OK && v < 0)
        st = store_fail(err, STORE_ERROR, "the store's size could not be read");
    if (st == STORE_OK) {
        *bytes = (uint64_t)v;
        store_ok(err);
    }
    return st;
}

enum store_status store_backup(struct store *s, const char *path, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    if (!path || !*path)
        return store_fail(err, STORE_INVALID, "no backup file named");
    return s->ops->backup(s, path, err);
}

/* ---- transactions ---------------------------------------------------- */

/* Runs fn in one transaction, a write or a read one: committed when fn
 * returns STORE_OK (a read's COMMIT only ends its snapshot), else rolled
 * back. */
static enum store_status in_transaction(struct store *s, bool write,
                                        enum store_status (*fn)(struct store *s, void *arg,
                                                                struct store_error *err),
                                        void *arg, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    if ((st = s->ops->begin(s, write, err)) != STORE_OK)
        return st;
    if ((st = fn(s, arg, err)) != STORE_OK || (st = s->ops->commit(s, err)) != STORE_OK) {
        s->ops->rollback(s);
        return st;
    }
    store_ok(err);
    return STORE_OK;
}

enum store_status store_in_write(struct store *s,
                                enum store_status (*fn)(struct store *s, void *arg,
                                                        struct store_error *err),
                                void *arg, struct store_error *err)
{
    return in_transaction(s, true, fn, arg, err);
}

enum store_status store_in_read(struct store *s,
                                enum store_status (*fn)(struct store *s, void *arg,
                                                        struct store_error *err),
                                void *arg, struct store_error *err)
{
    return in_transaction(s, false, fn, arg, err);
}

/* ---- records ---------------------------------------------------------- */

/* The same, without the bytes a list leaves out. */
#define RECORD_SUMMARY "id, task, student, received_ms, graded_ms, NULL, sha256, status, " \
                       "points, max_points, NULL, seed, device, grader_version, late"

static bool text_ok(const char *s, bool required)
{
    return s ? strlen(s) <= STORE_MAX_TEXT && (*s || !required) : !required;
}

static bool key_ok(const char *s)
{
    return s && *s && strlen(s) <= STORE_MAX_TEXT;
}

static enum store_status check_record(const struct store_record *r, struct store_error *err)
{
    size_t idn = strnlen(r->id, STORE_ID_SIZE);
    if (idn == 0 || idn >= STORE_ID_SIZE)
        return store_fail(err, STORE_INVALID, "a record needs an id of 1 to %d characters",
                          STORE_ID_SIZE - 1);
    if (!text_ok(r->task, true) || !text_ok(r->student, false) || !text_ok(r->device, false)
        || !text_ok(r->grader_version, true))
        return store_fail(err, STORE_INVALID,
                          "record %s: task and grader version are required, and no name "
                          "may be over %d bytes", r->id, STORE_MAX_TEXT);
    if ((!r->source && r->source_len) || r->source_len > STORE_MAX_SOURCE)
        return store_fail(err, STORE_INVALID, "record %s: a source of %zu bytes (at most %d)",
                          r->id, r->source_len, STORE_MAX_SOURCE);
    if (!r->verdict || !r->verdict_len || r->verdict_len > STORE_MAX_VERDICT)
        return store_fail(err, STORE_INVALID, "record %s: a verdict of %zu bytes (1 to %d)",
                          r->id, r->verdict_len, STORE_MAX_VERDICT);
    if (strnlen(r->sha256, STORE_SHA256_SIZE) != STORE_SHA256_SIZE - 1)
        return store_fail(err, STORE_INVALID, "record %s: the SHA-256 is not 64 hex digits",
                          r->id);
    if (r->shown_known && (!memchr(r->shown.key, '\0', sizeof r->shown.key)
                           || !memchr(r->shown.label, '\0', sizeof r->shown.label)))
        return store_fail(err, STORE_INVALID, "record %s: the class view's facts are not text",
                          r->id);
    if (r->idem_key && (!key_ok(r->idem_key) || !key_ok(r->idem_scope) ||
                        strnlen(r->idem_body_sha256, STORE_SHA256_SIZE) != STORE_SHA256_SIZE - 1))
        return store_fail(err, STORE_INVALID, "record %s: an Idempotency-Key needs its scope, "
                          "at most %d bytes each, and its body's SHA-256", r->id, STORE_MAX_TEXT);
    if (r->seed > (uint64_t)INT64_MAX)
        return store_fail(err, STORE_INVALID, "record %s: the seed is out of range", r->id);
    return STORE_OK;
}

/* A key is taken over only when the record it named is past the window;
 * a live one changes no row (0 changes: the caller's conflict). A key
 * whose record is gone (forgotten, past retention) went with it (schema
 * 5's trigger), so the key's row alone says whether it is live: on
 * PostgreSQL a second instance inserting the same key waits for the
 * first's commit and then re-reads that row, whereas a subquery on the
 * records would read the statement's older snapshot, miss the first
 * record and take the key over (two records for one key). Both
 * backends' upsert (SQLite 3.24's, PostgreSQL 9.5's). */
#define IDEMPOTENCY_INSERT                                                            \
    "INSERT INTO idempotency_keys (scope, idem_key, body_sha256, record_id, created_ms)" \
    " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (scope, idem_key) DO UPDATE SET"        \
    " body_sha256 = excluded.body_sha256, record_id = excluded.record_id,"            \
    " created_ms = excluded.created_ms WHERE idempotency_keys.created_ms < ?6"

/* The insert's one row, when it wrote the record: the late mark it made
 * (RECORD_LATE). No row: the record was not written (its student gone). */
struct late_mark {
    bool written, late;
};

static bool take_late(const struct store_value *c, size_t n, void *arg)
{
    struct late_mark *m = arg;
    m->written = true;
    m->late = n >= 1 && c[0].type == SV_INT && c[0].i != 0;
    return false;
}

static enum store_status insert_one(struct store *s, const struct store_record *r,
                                    struct store_error *err)
{
    enum store_status st = check_record(r, err);
    if (st != STORE_OK)
        return st;
    /* the class view's facts: unknown ones as a record with none */
    const struct verdict_shown *f = &r->shown;
    bool known = r->shown_known;
    const struct store_value p[] = {
        sv_text(r->id), sv_text(r->task), sv_text(r->student), sv_int(r->received_ms),
        sv_int(r->graded_ms), sv_bytes(r->source ? r->source : "", r->source_len), sv_text(r->sha256),
        sv_int(r->status), sv_int(r->points), sv_int(r->max_points),
        sv_bytes(r->verdict, r->verdict_len), sv_int(r->seed), sv_text(r->device),
        sv_text(r->grader_version),
        sv_text(known ? f->key : ""), sv_text(known ? f->label : ""),
        sv_int(known ? f->halves[0] : -1), sv_int(known ? f->halves[1] : -1),
        sv_int(known ? f->halves[2] : -1), sv_int(known ? f->halves[3] : -1),
        sv_text(STORE_CLASS_CHANNEL),
    };
    /* the launch the record came from, for LTI's trigger on the records
     * (store_schema.c), which consumes it in this transaction */
    if (r->lti_link > 0) {
        const struct store_value l[] = { sv_text(r->id), sv_int(r->lti_link) };
        st = s->ops->exec(s, "INSERT INTO lti_record_links (record_id, link) VALUES (?1, ?2)",
                          false, l, 2, NULL, NULL, NULL, err);
        if (st != STORE_OK)
            return st;
    }
    if (r->idem_key) {
        /* the key first: held by a live record, nothing of this one is
         * written (the caller answers that record instead) */
        uint64_t changes = 0;
        const struct store_value k[] = {
            sv_text(r->idem_scope), sv_text(r->idem_key), sv_text(r->idem_body_sha256),
            sv_text(r->id), sv_int(r->received_ms),
            sv_int(r->received_ms - (int64_t)IDEMPOTENCY_WINDOW_S * 1000),
        };
        st = s->ops->exec(s, IDEMPOTENCY_INSERT, false, k, 6, NULL, NULL, &changes, err);
        if (st != STORE_OK)
            return st;
        if (changes == 0)
            return store_fail(err, STORE_CONFLICT, "the Idempotency-Key is a record's already");
    }
    size_t np = sizeof p / sizeof p[0] - !s->ops->notifies_class;
    struct late_mark m = { false, false };
    if (s->ops->student_apart) {
        /* one writer, in its transaction: the student's row cannot go
         * between this check and the insert */
        bool there = !r->student;
        if (r->student) {
            struct late_mark seen = { false, false };
            const struct store_value q[] = { sv_text(r->student) };
            st = s->ops->exec(s, "SELECT 1 FROM students WHERE id = ?1", false, q, 1, take_late,
                              &seen, NULL, err);
            if (st != STORE_OK)
                return st;
            there = seen.written;
        }
        if (there) {
            const char *sql = !r->student && s->ops->insert_nobody ? s->ops->insert_nobody
                                                                    : s->ops->insert_record;
            st = s->ops->exec(s, sql, false, p, np, NULL, NULL, NULL, err);
            m.written = st == STORE_OK;
        }
        /* the mark the insert made, read back for a student's record only
         * (nobody's is never late) */
        if (st == STORE_OK && m.written && r->student && r->late_out) {
            const struct store_value q[] = { sv_text(r->id) };
            st = s->ops->exec(s, "SELECT late FROM records WHERE id = ?1", false, q, 1,
                              take_late, &m, NULL, err);
        }
    } else {
        st = s->ops->exec(s, s->ops->insert_record, false, p, np, take_late, &m, NULL, err);
    }
    if (st == STORE_OK && r->late_out)
        *r->late_out = m.late;
    if (st == STORE_CONFLICT)
        store_fail(err, st, "a record with id %s exists already", r->id);
    /* the student's row went while the run was graded: an orphan record
     * would bring them back as "(unknown)" (RECORD_INSERT_CHECKED) */
    if (st == STORE_OK && !m.written)
        st = store_fail(err, STORE_FORGOTTEN, "the student was forgotten (butterfly-admin "
                        "forget) while the run was graded: it is not recorded");
    return st;
}

struct batch {
    const struct store_record *const *r;
    size_t n;
};

static enum store_status insert_batch(struct store *s, void *arg, struct store_error *err)
{
    struct batch *b = arg;
    for (size_t i = 0; i < b->n; i++) {
        enum store_status st = insert_one(s, b->r[i], err);
        if (st != STORE_OK)
            return st;
    }
    return STORE_OK;
}

enum store_status store_records_insert(struct store *s, const struct store_record *const *r,
                                       size_t n, struct store_error *err)
{
    struct batch b = { r, n };
    if (n == 1 && s && s->ops->statement_is_transaction && r[0]->lti_link <= 0 &&
        !r[0]->idem_key) {
        /* one statement, its own transaction: all there or not at all */
        enum store_status st = store_ready(s, err);
        if (st == STORE_OK && (st = insert_one(s, r[0], err)) == STORE_OK)
            store_ok(err);
        return st;
    }
    return store_in_write(s, insert_batch, &b, err);
}

enum store_status store_record_insert(struct store *s, const struct store_record *r,
                                      struct store_error *err)
{
    return store_records_insert(s, &r, 1, err);
}

static char *col_text(const struct store_value *c)
{
    return c->type == SV_NULL ? NULL : store_memdup(c->p, c->len);
}

/* One row of RECORD_READ into *r; false on OOM (r then cleared). */
static bool row_to_record(const struct store_value *c, size_t n, struct store_record *r)
{
    memset(r, 0, sizeof *r);
    if (n < 15)
        return false;
    r->late = c[14].type == SV_INT && c[14].i != 0;
    snprintf(r->id, sizeof r->id, "%.*s", (int)c[0].len, c[0].p ? c[0].p : "");
    snprintf(r->sha256, sizeof r->sha256, "%.*s", (int)c[6].len, c[6].p ? c[6].p : "");
    r->received_ms = c[3].i;
    r->graded_ms = c[4].i;
    r->status = (int)c[7].i;
    r->points = (int)c[8].i;
    r->max_points = (int)c[9].i;
    r->seed = (uint64_t)c[11].i;
    r->task = col_text(&c[1]);
    r->student = col_text(&c[2]);
    r->source = col_text(&c[5]);
    r->source_len = r->source ? c[5].len : 0;
    r->verdict = col_text(&c[10]);
    r->verdict_len = r->verdict ? c[10].len : 0;
    r->device = col_text(&c[12]);
    r->grader_version = col_text(&c[13]);
    if (!r->task || !r->grader_version || (c[2].type != SV_NULL && !r->student)
        || (c[5].type != SV_NULL && !r->source) || (c[10].type != SV_NULL && !r->verdict)
        || (c[12].type != SV_NULL && !r->device)) {
        store_record_clear(r);
        return false;
    }
    return true;
}

struct one_record {
    struct store_record *out;
    bool found, oom;
};

static bool take_record(const struct store_value *c, size_t n, void *arg)
{
    struct one_record *o = arg;
    o->found = true;
    o->oom = !row_to_record(c, n, o->out);
    return false;
}

struct keyed_record {
    struct one_record o;
    char *body_sha256;
};

static bool take_keyed(const struct store_value *c, size_t n, void *arg)
{
    struct keyed_record *k = arg;
    if (n < 1)
        return false;
    snprintf(k->body_sha256, STORE_SHA256_SIZE, "%.*s", (int)c[0].len, c[0].p ? c[0].p : "");
    return take_record(c + 1, n - 1, &k->o);
}

enum store_status store_idempotency_find(struct store *s, const char *scope, const char *key,
                                         int64_t since_ms, char body_sha256[STORE_SHA256_SIZE],
                                         struct store_record *out, struct store_error *err)
{
    memset(out, 0, sizeof *out);
    body_sha256[0] = '\0';
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    if (!key_ok(scope) || !key_ok(key))
        return store_fail(err, STORE_NOT_FOUND, "no such key");
    struct keyed_record k = { { out, false, false }, body_sha256 };
    const struct store_value p[] = { sv_text(scope), sv_text(key), sv_int(since_ms) };
    st = s->ops->exec(s, "SELECT k.body_sha256, " RECORD_READ " FROM idempotency_keys k"
                         " JOIN records ON records.id = k.record_id"
                         " WHERE k.scope = ?1 AND k.idem_key = ?2 AND k.created_ms >= ?3",
                      false, p, 3, take_keyed, &k, NULL, err);
    if (st != STORE_OK)
        return st;
    if (k.o.oom)
        return store_fail(err, STORE_NO_MEMORY, "out of memory reading a keyed record");
    if (!k.o.found)
        return store_fail(err, STORE_NOT_FOUND, "no such key");
    store_ok(err);
    return STORE_OK;
}

enum store_status store_record_get(struct store *s, const char *id, const char *student,
                                   bool instructor, struct store_record *out,
                                   struct store_error *err)
{
    memset(out, 0, sizeof *out);
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    if (!id || strlen(id) >= STORE_ID_SIZE || (!student && !instructor))
        return store_fail(err, STORE_NOT_FOUND, "no such record");
    struct one_record o = { out, false, false };
    if (instructor) {
        struct store_value p[] = { sv_text(id) };
        st = s->ops->exec(s, "SELECT " RECORD_READ " FROM records WHERE id = ?1", false, p, 1,
                          take_record, &o, NULL, err);
    } else {
        struct store_value p[] = { sv_text(id), sv_text(student) };
        st = s->ops->exec(s, "SELECT " RECORD_READ " FROM records "
                             "WHERE id = ?1 AND student = ?2", false, p, 2, take_record, &o,
                          NULL, err);
    }
    if (st != STORE_OK)
        return st;
    if (o.oom)
        return store_fail(err, STORE_NO_MEMORY, "out of memory reading record %s", id);
    if (!o.found)
        return store_fail(err, STORE_NOT_FOUND, "no such record");
    store_ok(err);
    return STORE_OK;
}

struct page {
    struct store_record_list *l;
    size_t limit;
    bool oom;
};

static bool take_page_row(const struct store_value *c, size_t n, void *arg)
{
    struct page *pg = arg;
    if (pg->l->n == pg->limit) {     /* the one asked for beyond the page */
        pg->l->more = true;
        return false;
    }
    if (!row_to_record(c, n, &pg->l->v[pg->l->n])) {
        pg->oom = true;
        return false;
    }
    pg->l->n++;
    return true;
}

enum store_status store_student_records(struct store *s, const char *student,
                                        int64_t before_ms, const char *before_id,
                                        unsigned limit, struct store_record_list *out,
                                        struct store_error *err)
{
    memset(out, 0, sizeof *out);
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    if (!student || limit == 0 || limit > STORE_MAX_PAGE
        || (before_id && strlen(before_id) >= STORE_ID_SIZE))
        return store_fail(err, STORE_INVALID, "a page is 1 to %d records of one student",
                          STORE_MAX_PAGE);
    if (!(out->v = calloc(limit, sizeof *out->v)))
        return store_fail(err, STORE_NO_MEMORY, "out of memory for a page");
    struct page pg = { out, limit, false };
    /* one more than the page, to know whether more follow */
    if (before_id) {
        struct store_value p[] = { sv_text(student), sv_int(before_ms), sv_text(before_id),
                                   sv_int(limit + 1) };
        st = s->ops->exec(s, "SELECT " RECORD_SUMMARY " FROM records WHERE student = ?1 AND "
                             "(received_ms < ?2 OR (received_ms = ?2 AND id < ?3)) "
                             "ORDER BY received_ms DESC, id DESC LIMIT ?4",
                          false, p, 4, take_page_row, &pg, NULL, err);
    } else {
        struct store_value p[] = { sv_text(student), sv_int(limit + 1) };
        st = s->ops->exec(s, "SELECT " RECORD_SUMMARY " FROM records WHERE student = ?1 "
                             "ORDER BY received_ms DESC, id DESC LIMIT ?2",
                          false, p, 2, take_page_row, &pg, NULL, err);
    }
    if (st == STORE_OK && pg.oom)
        st = store_fail(err, STORE_NO_MEMORY, "out of memory reading a page");
    if (st != STORE_OK) {
        store_record_list_clear(out);
        return st;
    }
    store_ok(err);
    return STORE_OK;
}

struct walk {
    bool (*fn)(const struct store_record *r, void *arg);
    void *arg;
    bool oom;
    bool stopped;   /* fn said so */
};

static bool walk_row(const struct store_value *c, size_t n, void *arg)
{
    struct walk *w = arg;
    struct store_record r;
    if (!row_to_record(c, n, &r)) {
        w->oom = true;
        return false;
    }
    bool go_on = w->fn(&r, w->arg);
    store_record_clear(&r);
    w->stopped = !go_on;
    return go_on;
}

struct walk_sql {
    const char *sql, *sql2;
    const struct store_value *p;
    size_t n;
    struct walk *w;
};

static enum store_status walk_read(struct store *s, void *arg, struct store_error *err)
{
    struct walk_sql *q = arg;
    enum store_status st = s->ops->exec(s, q->sql, false, q->p, q->n, walk_row, q->w, NULL, err);
    if (st == STORE_OK && !q->w->oom && !q->w->stopped && q->sql2)
        st = s->ops->exec(s, q->sql2, false, q->p, q->n, walk_row, q->w, NULL, err);
    if (st == STORE_OK && q->w->oom)
        st = store_fail(err, STORE_NO_MEMORY, "out of memory reading the records");
    return st;
}

/* Runs queries of RECORD_READ (sql, then sql2 unless NULL or fn
 * stopped) in one read transaction, calling fn per record. */
static enum store_status walk_records(struct store *s, const char *sql, const char *sql2,
                                      const struct store_value *p, size_t n,
                                      bool (*fn)(const struct store_record *r, void *arg),
                                      void *arg, struct store_error *err)
{
    struct walk w = { fn, arg, false, false };
    struct walk_sql q = { sql, sql2, p, n, &w };
    return store_in_read(s, walk_read, &q, err);
}

enum store_status store_records_each(struct store *s, int64_t until_ms,
                                     bool (*fn)(const struct store_record *r, void *arg),
                                     void *arg, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct store_value p[] = { sv_int(until_ms) };
    /* NULL students first on both backends (PostgreSQL sorts NULL last),
     * in a query of their own: one ORDER BY student IS NOT NULL, ... sorts
     * the whole table, verdicts and sources, through temporary files,
     * where this walks records_by_student in its order */
    return walk_records(s, "SELECT " RECORD_READ " FROM records WHERE student IS NULL "
                           "AND received_ms <= ?1 ORDER BY received_ms, id",
                        "SELECT " RECORD_READ " FROM records WHERE student IS NOT NULL "
                           "AND received_ms <= ?1 ORDER BY student, received_ms, id",
                        p, 1, fn, arg, err);
}

struct cutoff {
    int64_t ms;
    uint64_t deleted;
};

static enum store_status delete_before(struct store *s, void *arg, struct store_error *err)
{
    struct cutoff *c = arg;
    struct store_value p[] = { sv_int(c->ms) };
    return s->ops->exec(s, "DELETE FROM records WHERE received_ms < ?1", false, p, 1, NULL, NULL,
                        &c->deleted, err);
}

enum store_status store_records_delete_before(struct store *s, int64_t cutoff_ms,
                                              uint64_t *deleted, struct store_error *err)
{
    struct cutoff c = { cutoff_ms, 0 };
    enum store_status st = store_in_write(s, delete_before, &c, err);
    if (deleted)
        *deleted = st == STORE_OK ? c.deleted : 0;
    return st;
}

enum store_status store_retention_purge(struct store *s, unsigned days, uint64_t *deleted,
                                        struct store_error *err)
{
    if (days == 0) {
        if (deleted)
            *deleted = 0;
        store_ok(err);
        return STORE_OK;
    }
    return store_records_delete_before(s, store_retention_cutoff(store_now_ms(), days), deleted,
                                       err);
}

/* ---- students ------------------------------------------------------------ */

#define STUDENT_COLUMNS "id, name, section, email, verified, token_sha256 IS NOT NULL, created_ms"

static bool row_to_student(const struct store_value *c, size_t n, struct store_student *st)
{
    memset(st, 0, sizeof *st);
    if (n < 7)
        return false;
    st->id = col_text(&c[0]);
    st->name = col_text(&c[1]);
    st->section = col_text(&c[2]);
    st->email = col_text(&c[3]);
    st->verified = c[4].i != 0;
    /* PostgreSQL answers a boolean as text ("t"/"f") */
    st->has_token = c[5].type == SV_INT ? c[5].i != 0 : (c[5].len && c[5].p[0] == 't');
    st->created_ms = c[6].i;
    if (!st->id || !st->name || !st->section || !st->email) {
        store_student_clear(st);
        return false;
    }
    return true;
}

struct put {
    const struct store_student *st;
    bool created;
};

static enum store_status put_student(struct store *s, void *arg, struct store_error *err)
{
    struct put *pu = arg;
    const struct store_student *st = pu->st;
    struct store_value p[] = { sv_text(st->id) };
    int64_t n = 0;
    enum store_status r = s->ops->exec(s, "SELECT count(*) FROM students WHERE id = ?1", false, p,
                                       1, one_int, &n, NULL, err);
    if (r != STORE_OK)
        return r;
    pu->created = n == 0;
    struct store_value q[] = { sv_text(st->id), sv_text(st->name), sv_text(st->section ? st->section : ""),
                               sv_text(st->email ? st->email : ""), sv_int(st->verified ? 1 : 0),
                               sv_int(store_now_ms()) };
    return s->ops->exec(s, "INSERT INTO students (id, name, section, email, verified, created_ms) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (id) DO UPDATE SET "
                           "name = excluded.name, section = excluded.section, "
                           "email = excluded.email, verified = excluded.verified",
                        false, q, 6, NULL, NULL, NULL, err);
}

/* STORE_OK when st may be put; else STORE_INVALID with the reason. */
static enum store_status student_check(const struct store_student *st, struct store_error *err)
{
    if (!st || !text_ok(st->id, true) || !text_ok(st->name, true)
        || !text_ok(st->section, false) || !text_ok(st->email, false))
        return store_fail(err, STORE_INVALID,
                          "a student needs an id and a name, each of 1 to %d bytes",
                          STORE_MAX_TEXT);
    if (strlen(st->id) > STORE_MAX_STUDENT_ID)
        return store_fail(err, STORE_INVALID, "a student's id is at most %u bytes",
                          STORE_MAX_STUDENT_ID);
    return STORE_OK;
}

enum store_status store_student_put(struct store *s, const struct store_student *st,
                                    bool *created, struct store_error *err)
{
    enum store_status r0 = student_check(st, err);
    if (r0 != STORE_OK)
        return r0;
    struct put pu = { st, false };
    enum store_status r = store_in_write(s, put_student, &pu, err);
    if (created)
        *created = r == STORE_OK && pu.created;
    return r;
}

/* " (N)" with N at most GUEST_NAME_SUFFIX_MAX, and the NUL */
#define GUEST_SUFFIX_ROOM 16u

struct guest_put {
    const struct store_student *st;
    char *name;
    size_t n;
    bool taken[GUEST_NAME_SUFFIX_MAX + 1];   /* taken[k]: "NAME (k)" is someone's; 1: NAME */
};

/* A name of the class that is the name asked for, or it with a suffix:
 * its number marked taken. Text or bytes, as each backend answers. */
static bool take_name(const struct store_value *c, size_t n, void *arg)
{
    struct guest_put *g = arg;
    size_t base = strlen(g->st->name);
    if (n < 1 || (c[0].type != SV_TEXT && c[0].type != SV_BLOB) || c[0].len < base
        || memcmp(c[0].p, g->st->name, base) != 0)
        return true;
    const char *rest = c[0].p + base;
    size_t left = c[0].len - base;
    if (left == 0) {
        g->taken[1] = true;
        return true;
    }
    /* " (K)" with K a number 2..GUEST_NAME_SUFFIX_MAX, nothing after */
    if (left < 4 || left > 6 || rest[0] != ' ' || rest[1] != '(' || rest[left - 1] != ')')
        return true;
    unsigned k = 0;
    for (size_t i = 2; i < left - 1; i++) {
        if (rest[i] < '0' || rest[i] > '9')
            return true;
        k = k * 10 + (unsigned)(rest[i] - '0');
    }
    if (k >= 2 && k <= GUEST_NAME_SUFFIX_MAX && rest[2] != '0')
        g->taken[k] = true;
    return true;
}

/* The characters (not bytes) of UTF-8 text s: what substr() counts on
 * both backends. */
static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static enum store_status put_guest(struct store *s, void *arg, struct store_error *err)
{
    struct guest_put *g = arg;
    enum store_status r = STORE_OK;
    /* READ COMMITTED would let two instances see the name free at once:
     * the transaction's lock orders them (released at its end) */
    if (s->ops->lock_guest_names)
        r = s->ops->exec(s, s->ops->lock_guest_names, false, NULL, 0, NULL, NULL, NULL, err);
    if (r != STORE_OK)
        return r;
    /* one pass over the students (the name has no index, and a guest's
     * sign-in must not cost a scan per suffix tried) */
    char prefix[STORE_MAX_TEXT + 8];
    snprintf(prefix, sizeof prefix, "%s (", g->st->name);
    struct store_value p[] = { sv_text(g->st->name), sv_text(prefix),
                               sv_int((int64_t)utf8_chars(prefix)) };
    memset(g->taken, 0, sizeof g->taken);
    /* one text for every name: the backends keep statements by their text */
    r = s->ops->exec(s, "SELECT name FROM students WHERE name = ?1 OR substr(name, 1, ?3) = ?2",
                     false, p, 3, take_name, g, NULL, err);
    if (r != STORE_OK)
        return r;
    for (unsigned k = 1; k <= GUEST_NAME_SUFFIX_MAX; k++) {
        if (g->taken[k])
            continue;
        if (k == 1)
            snprintf(g->name, g->n, "%s", g->st->name);
        else
            snprintf(g->name, g->n, "%s (%u)", g->st->name, k);
        struct store_student named = *g->st;
        named.name = g->name;
        struct put pu = { &named, false };
        return put_student(s, &pu, err);
    }
    return store_fail(err, STORE_CONFLICT, "%u people in this lab gave that name already: "
                      "add an initial or a second name", GUEST_NAME_SUFFIX_MAX);
}

enum store_status store_guest_put(struct store *s, const struct store_student *st, char *name,
                                  size_t n, struct store_error *err)
{
    enum store_status r0 = student_check(st, err);
    if (r0 != STORE_OK)
        return r0;
    /* room for the longest suffix, so that no name is cut into another's */
    if (st->verified || n < strlen(st->name) + GUEST_SUFFIX_ROOM
        || strlen(st->name) + GUEST_SUFFIX_ROOM > STORE_MAX_TEXT)
        return store_fail(err, STORE_INVALID, "an open lab's name, unverified, with room for "
                          "a suffix");
    struct guest_put g = { .st = st, .name = name, .n = n };
    return store_in_write(s, put_guest, &g, err);
}

struct put_many {
    const struct store_student *st;
    size_t n, added, updated, at;
};

static enum store_status put_students(struct store *s, void *arg, struct store_error *err)
{
    struct put_many *pm = arg;
    pm->added = pm->updated = 0;
    for (pm->at = 0; pm->at < pm->n; pm->at++) {
        struct put pu = { &pm->st[pm->at], false };
        enum store_status r = put_student(s, &pu, err);
        if (r != STORE_OK)
            return r;
        if (pu.created)
            pm->added++;
        else
            pm->updated++;
    }
    return STORE_OK;
}

enum store_status store_students_put(struct store *s, const struct store_student *st, size_t n,
                                     size_t *added, size_t *updated, size_t *failed_at,
                                     struct store_error *err)
{
    struct put_many pm = { st, n, 0, 0, n };
    enum store_status r = STORE_OK;
    /* every row is checked before the transaction begins: a refused one
     * names itself and nothing is written */
    for (size_t i = 0; i < n && r == STORE_OK; i++) {
        r = student_check(&st[i], err);
        if (r != STORE_OK)
            pm.at = i;
    }
    if (r == STORE_OK)
        r = store_in_write(s, put_students, &pm, err);
    if (added)
        *added = r == STORE_OK ? pm.added : 0;
    if (updated)
        *updated = r == STORE_OK ? pm.updated : 0;
    if (failed_at)
        *failed_at = r == STORE_OK ? n : pm.at;
    return r;
}

struct one_student {
    struct store_student *out;
    bool found, oom;
};

static bool take_student(const struct store_value *c, size_t n, void *arg)
{
    struct one_student *o = arg;
    o->found = true;
    o->oom = !row_to_student(c, n, o->out);
    return false;
}

static enum store_status find_student(struct store *s, const char *sql, const char *key,
                                      struct store_student *out, struct store_error *err)
{
    memset(out, 0, sizeof *out);
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct one_student o = { out, false, false };
    struct store_value p[] = { sv_text(key) };
    if ((st = s->ops->exec(s, sql, false, p, 1, take_student, &o, NULL, err)) != STORE_OK)
        return st;
    if (o.oom)
        return store_fail(err, STORE_NO_MEMORY, "out of memory reading a student");
    if (!o.found)
        return store_fail(err, STORE_NOT_FOUND, "no such student");
    store_ok(err);
    return STORE_OK;
}

enum store_status store_student_get(struct store *s, const char *id, struct store_student *out,
                                    struct store_error *err)
{
    if (!text_ok(id, true)) {
        memset(out, 0, sizeof *out);
        return store_fail(err, STORE_NOT_FOUND, "no such student");
    }
    return find_student(s, "SELECT " STUDENT_COLUMNS " FROM students WHERE id = ?1", id, out,
                        err);
}

enum store_status store_student_by_token(struct store *s, const char *token,
                                         struct store_student *out, struct store_error *err)
{
    char h[STORE_SHA256_SIZE];
    if (!token || strlen(token) != STORE_TOKEN_SIZE - 1) {
        memset(out, 0, sizeof *out);
        return store_fail(err, STORE_NOT_FOUND, "no such token");
    }
    /* The lookup is by the token's hash: an index probe on a value the
     * guesser cannot steer, so its time says nothing about the token. */
    store_sha256_hex(token, strlen(token), h);
    return find_student(s, "SELECT " STUDENT_COLUMNS " FROM students WHERE token_sha256 = ?1", h,
                        out, err);
}

struct each_student {
    bool (*fn)(const struct store_student *st, void *arg);
    void *arg;
    bool oom;
};

static bool each_student_row(const struct store_value *c, size_t n, void *arg)
{
    struct each_student *e = arg;
    struct store_student st;
    if (!row_to_student(c, n, &st)) {
        e->oom = true;
        return false;
    }
    bool go_on = e->fn(&st, e->arg);
    store_student_clear(&st);
    return go_on;
}

enum store_status store_students_each(struct store *s,
                                      bool (*fn)(const struct store_student *st, void *arg),
                                      void *arg, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct each_student e = { fn, arg, false };
    st = s->ops->exec(s, "SELECT " STUDENT_COLUMNS " FROM students ORDER BY id", false, NULL, 0,
                      each_student_row, &e, NULL, err);
    if (st == STORE_OK && e.oom)
        st = store_fail(err, STORE_NO_MEMORY, "out of memory reading the students");
    if (st == STORE_OK)
        store_ok(err);
    return st;
}

/* ---- changes of who may sign in ------------------------------------------- */

/* Writes the change (student NULL: the instructor's token) in the
 * caller's transaction, and drops the rows past IDENTITY_CHANGES_KEEP_MS.
 * On PostgreSQL the table is locked against the other writers of changes
 * first, so that a seq drawn is committed before any later one is drawn:
 * a server reading "after its last seq" can never see 6 before 5
 * commits, and miss 5. (SQLite's writers are one at a time already.) */
static enum store_status note_change(struct store *s, const char *student, bool forgotten,
                                     struct store_error *err)
{
    enum store_status st = STORE_OK;
    if (s->ops->lock_identity_changes)
        st = s->ops->exec(s, s->ops->lock_identity_changes, false, NULL, 0, NULL, NULL, NULL,
                          err);
    int64_t now = store_now_ms();
    struct store_value p[] = { sv_text(student), sv_int(forgotten ? 1 : 0), sv_int(now) };
    if (st == STORE_OK)
        st = s->ops->exec(s, "INSERT INTO identity_changes (student, forgotten, changed_ms) "
                             "VALUES (?1, ?2, ?3)", false, p, 3, NULL, NULL, NULL, err);
    struct store_value old[] = { sv_int(now - (int64_t)IDENTITY_CHANGES_KEEP_MS) };
    if (st == STORE_OK)
        st = s->ops->exec(s, "DELETE FROM identity_changes WHERE changed_ms < ?1", false, old,
                          1, NULL, NULL, NULL, err);
    return st;
}

struct changes {
    bool (*fn)(const struct store_identity_change *c, void *arg);
    void *arg;
    bool oom;
};

static bool change_row(const struct store_value *c, size_t n, void *arg)
{
    struct changes *w = arg;
    if (n != 3 || c[0].type != SV_INT)
        return true;   /* not a row of ours: skipped */
    char *student = col_text(&c[1]);
    if (c[1].type != SV_NULL && !student) {
        w->oom = true;
        return false;
    }
    struct store_identity_change ch = { .seq = c[0].i, .student = student,
                                        .forgotten = c[2].type == SV_INT && c[2].i != 0 };
    bool go_on = w->fn(&ch, w->arg);
    free(student);
    return go_on;
}

enum store_status store_identity_changes(struct store *s, int64_t after, unsigned max,
                                         bool (*fn)(const struct store_identity_change *c,
                                                    void *arg),
                                         void *arg, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct changes w = { fn, arg, false };
    struct store_value p[] = { sv_int(after), sv_int(max) };
    st = s->ops->exec(s, "SELECT seq, student, forgotten FROM identity_changes WHERE seq > ?1 "
                         "ORDER BY seq LIMIT ?2", false, p, 2, change_row, &w, NULL, err);
    if (st == STORE_OK && w.oom)
        st = store_fail(err, STORE_NO_MEMORY, "out of memory reading the changes");
    if (st == STORE_OK)
        store_ok(err);
    return st;
}

enum store_status store_identity_last(struct store *s, int64_t *seq, struct store_error *err)
{
    *seq = 0;
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    st = s->ops->exec(s, "SELECT COALESCE(MAX(seq), 0) FROM identity_changes", false, NULL, 0,
                      one_int, seq, NULL, err);
    if (st == STORE_OK)
        store_ok(err);
    return st;
}

struct new_token {
    const char *id;
    char *token;
};

static enum store_status set_student_token(struct store *s, void *arg, struct store_error *err)
{
    struct new_token *t = arg;
    char h[STORE_SHA256_SIZE];
    uint64_t changed = 0;
    if (!store_new_token(t->token))
        return store_fail(err, STORE_ERROR, "no random bytes from the kernel for a token");
    store_sha256_hex(t->token, strlen(t->token), h);
    struct store_value p[] = { sv_text(h), sv_text(t->id) };
    enum store_status st = s->ops->exec(s, "UPDATE students SET token_sha256 = ?1 WHERE id = ?2",
                                        false, p, 2, NULL, NULL, &changed, err);
    if (st == STORE_OK && changed == 0)
        st = store_fail(err, STORE_NOT_FOUND, "no student with id '%s'", t->id);
    if (st == STORE_OK)
        st = note_change(s, t->id, false, err);   /* their old sessions end everywhere */
    return st;
}

enum store_status store_student_new_token(struct store *s, const char *id,
                                          char token[STORE_TOKEN_SIZE], struct store_error *err)
{
    char t[STORE_TOKEN_SIZE];
    if (!text_ok(id, true))
        return store_fail(err, STORE_NOT_FOUND, "no such student");
    struct new_token nt = { id, t };
    enum store_status st = store_in_write(s, set_student_token, &nt, err);
    if (st == STORE_OK)
        memcpy(token, t, STORE_TOKEN_SIZE);
    return st;
}

struct export {
    json_t *records;
    bool oom;
};

static bool export_row(const struct store_record *r, void *arg)
{
    struct export *e = arg;
    json_t *j = store_record_to_json(r);
    if (!j || json_array_append_new(e->records, j)) {
        e->oom = true;
        return false;
    }
    return true;
}

enum store_status store_student_export(struct store *s, const char *id, json_t **out,
                                       struct store_error *err)
{
    *out = NULL;
    struct store_student st;
    enum store_status r = store_student_get(s, id, &st, err);
    bool known = r == STORE_OK;
    if (r != STORE_OK && r != STORE_NOT_FOUND)
        return r;
    struct export e = { json_array(), false };
    struct store_value p[] = { sv_text(id) };
    if (!e.records) {
        r = store_fail(err, STORE_NO_MEMORY, "out of memory exporting");
        goto done;
    }
    r = walk_records(s, "SELECT " RECORD_READ " FROM records WHERE student = ?1 "
                        "ORDER BY received_ms, id", NULL, p, 1, export_row, &e, err);
    if (r == STORE_OK && e.oom)
        r = store_fail(err, STORE_NO_MEMORY, "out of memory exporting");
    if (r != STORE_OK)
        goto done;
    if (!known && json_array_size(e.records) == 0) {
        r = store_fail(err, STORE_NOT_FOUND, "no student '%s' and no record of theirs", id);
        goto done;
    }
    json_t *who = known ? json_pack("{s:s, s:s, s:s, s:s, s:b, s:I}", "id", st.id, "name", st.name,
                                    "section", st.section, "email", st.email,
                                    "verified", st.verified, "created_ms",
                                    (json_int_t)st.created_ms)
                        : json_pack("{s:s}", "id", id);
    *out = json_pack("{s:o, s:o}", "student", who, "records", e.records);
    e.records = NULL;
    if (!*out)
        r = store_fail(err, STORE_NO_MEMORY, "out of memory exporting");
done:
    json_decref(e.records);
    store_student_clear(&st);
    return r;
}

struct forget {
    const char *id;
    uint64_t records, students;
};

static enum store_status forget_student(struct store *s, void *arg, struct store_error *err)
{
    struct forget *f = arg;
    struct store_value p[] = { sv_text(f->id) };
    /* what was last sent of their scores names their platform id: it goes
     * too, before LTI's trigger on the students drops who they were there */
    enum store_status st = s->ops->exec(s, "DELETE FROM lti_sent WHERE EXISTS (SELECT 1 FROM "
                                        "lti_users u WHERE u.student = ?1 AND u.issuer = "
                                        "lti_sent.issuer AND u.sub = lti_sent.sub)", false, p, 1,
                                        NULL, NULL, NULL, err);
    /* then the student's row: on PostgreSQL a record being inserted holds
     * it (RECORD_INSERT_CHECKED) and this waits for that commit, so the
     * records' delete after it sees that record too; an insert after this
     * finds no row and writes nothing */
    if (st == STORE_OK)
        st = s->ops->exec(s, "DELETE FROM students WHERE id = ?1", false, p, 1, NULL, NULL,
                          &f->students, err);
    if (st == STORE_OK)
        st = s->ops->exec(s, "DELETE FROM records WHERE student = ?1", false, p, 1, NULL, NULL,
                          &f->records, err);
    /* every server's sessions and class views drop them */
    if (st == STORE_OK && (f->records || f->students))
        st = note_change(s, f->id, true, err);
    return st;
}

enum store_status store_student_forget(struct store *s, const char *id, uint64_t *deleted,
                                       struct store_error *err)
{
    struct forget f = { id, 0, 0 };
    if (deleted)
        *deleted = 0;
    if (!text_ok(id, true))
        return store_fail(err, STORE_NOT_FOUND, "no such student");
    enum store_status st = store_in_write(s, forget_student, &f, err);
    if (st != STORE_OK)
        return st;
    if (deleted)
        *deleted = f.records;
    if (f.records == 0 && f.students == 0)
        return store_fail(err, STORE_NOT_FOUND, "no student '%s' and no record of theirs", id);
    return STORE_OK;
}

/* ---- the instructor -------------------------------------------------------- */

struct instructor_token {
    char *token;
    bool only_if_none;
    bool created;
};

static enum store_status set_instructor(struct store *s, void *arg, struct store_error *err)
{
    struct instructor_token *t = arg;
    char h[STORE_SHA256_SIZE];
    uint64_t changed = 0;
    if (!store_new_token(t->token))
        return store_fail(err, STORE_ERROR, "no random bytes from the kernel for a token");
    store_sha256_hex(t->token, strlen(t->token), h);
    struct store_value p[] = { sv_text(h), sv_int(store_now_ms()) };
    enum store_status st = s->ops->exec(
        s, t->only_if_none
               ? "INSERT INTO instructor (one, token_sha256, created_ms) VALUES (1, ?1, ?2) "
                 "ON CONFLICT (one) DO NOTHING"
               : "INSERT INTO instructor (one, token_sha256, created_ms) VALUES (1, ?1, ?2) "
                 "ON CONFLICT (one) DO UPDATE SET token_sha256 = excluded.token_sha256, "
                 "created_ms = excluded.created_ms",
        false, p, 2, NULL, NULL, &changed, err);
    t->created = st == STORE_OK && changed > 0;
    if (st == STORE_OK && !t->only_if_none)
        st = note_change(s, NULL, false, err);   /* the old token's sessions end */
    return st;
}

enum store_status store_instructor_new_token(struct store *s, char token[STORE_TOKEN_SIZE],
                                             struct store_error *err)
{
    char tok[STORE_TOKEN_SIZE];
    struct instructor_token t = { tok, false, false };
    enum store_status st = store_in_write(s, set_instructor, &t, err);
    if (st == STORE_OK)
        memcpy(token, tok, STORE_TOKEN_SIZE);
    return st;
}

enum store_status store_instructor_ensure(struct store *s, char token[STORE_TOKEN_SIZE],
                                          bool *created, struct store_error *err)
{
    char tok[STORE_TOKEN_SIZE];
    struct instructor_token t = { tok, true, false };
    enum store_status st = store_in_write(s, set_instructor, &t, err);
    *created = st == STORE_OK && t.created;
    if (*created)
        memcpy(token, tok, STORE_TOKEN_SIZE);
    else
        token[0] = '\0';
    return st;
}

enum store_status store_instructor_check(struct store *s, const char *token,
                                         struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    if (!token || strlen(token) != STORE_TOKEN_SIZE - 1)
        return store_fail(err, STORE_NOT_FOUND, "not the instructor's token");
    char h[STORE_SHA256_SIZE];
    store_sha256_hex(token, strlen(token), h);
    struct store_value p[] = { sv_text(h) };
    int64_t n = 0;
    st = s->ops->exec(s, "SELECT count(*) FROM instructor WHERE token_sha256 = ?1", false, p, 1,
                      one_int, &n, NULL, err);
    if (st != STORE_OK)
        return st;
    if (n == 0)
        return store_fail(err, STORE_NOT_FOUND, "not the instructor's token");
    store_ok(err);
    return STORE_OK;
}

/* ---- credentials ------------------------------------------------------------ */

struct each_credential {
    bool (*fn)(const struct store_credential *c, void *arg);
    void *arg;
    bool oom;
};

static bool each_credential_row(const struct store_value *c, size_t n, void *arg)
{
    struct each_credential *e = arg;
    if (n < 2)
        return false;
    char *id = col_text(&c[0]), *hash = col_text(&c[1]);
    bool go_on = false;
    if ((c[0].type != SV_NULL && !id) || (c[1].type != SV_NULL && !hash)) {
        e->oom = true;
    } else {
        struct store_credential cr = { .instructor = id == NULL, .id = id, .token_sha256 = hash };
        go_on = e->fn(&cr, e->arg);
    }
    free(id);
    free(hash);
    return go_on;
}

enum store_status store_credentials_each(struct store *s,
                                         bool (*fn)(const struct store_credential *c, void *arg),
                                         void *arg, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct each_credential e = { fn, arg, false };
    /* one statement: a renewal is either wholly in the walk or not */
    st = s->ops->exec(s, "SELECT id, token_sha256 FROM students UNION ALL "
                         "SELECT CAST(NULL AS TEXT), token_sha256 FROM instructor",
                      false, NULL, 0, each_credential_row, &e, NULL, err);
    if (st == STORE_OK && e.oom)
        st = store_fail(err, STORE_NO_MEMORY, "out of memory reading the credentials");
    if (st == STORE_OK)
        store_ok(err);
    return st;
}

/* ---- the class ---------------------------------------------------------------- */

enum store_status store_has_roster(struct store *s, bool *yes, struct store_error *err)
{
    *yes = false;
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    int64_t n = 0;
    st = s->ops->exec(s, "SELECT count(*) FROM (SELECT 1 FROM students WHERE verified = 1 "
                         "LIMIT 1) AS one", false, NULL, 0, one_int, &n, NULL, err);
    *yes = st == STORE_OK && n > 0;
    return st;
}

struct secret {
    const char *name;
    unsigned char *out;
    bool found;
};

static bool take_secret(const struct store_value *c, size_t n, void *arg)
{
    struct secret *sc = arg;
    if (n >= 1 && c[0].type == SV_BLOB && c[0].len == STORE_SECRET_BYTES) {
        memcpy(sc->out, c[0].p, STORE_SECRET_BYTES);
        sc->found = true;
    }
    return false;
}

static enum store_status get_or_make_secret(struct store *s, void *arg, struct store_error *err)
{
    struct secret *sc = arg;
    unsigned char fresh[STORE_SECRET_BYTES];
    if (!store_random_bytes(fresh, sizeof fresh))
        return store_fail(err, STORE_ERROR, "no random bytes from the kernel for a secret");
    struct store_value p[] = { sv_text(sc->name), sv_bytes((const char *)fresh, sizeof fresh),
                               sv_int(store_now_ms()) };
    /* the first to insert wins; everyone reads the winner's */
    enum store_status st = s->ops->exec(s, "INSERT INTO secrets (name, value, created_ms) "
                                           "VALUES (?1, ?2, ?3) ON CONFLICT (name) DO NOTHING",
                                        false, p, 3, NULL, NULL, NULL, err);
    if (st == STORE_OK)
        st = s->ops->exec(s, "SELECT value FROM secrets WHERE name = ?1", false, p, 1,
                          take_secret, sc, NULL, err);
    if (st == STORE_OK && !sc->found)
        st = store_fail(err, STORE_CORRUPT, "the secret '%s' is not %d bytes", sc->name,
                        STORE_SECRET_BYTES);
    return st;
}

enum store_status store_secret(struct store *s, const char *name,
                               unsigned char out[STORE_SECRET_BYTES], struct store_error *err)
{
    if (!text_ok(name, true))
        return store_fail(err, STORE_INVALID, "a secret needs a name of 1 to %d bytes",
                          STORE_MAX_TEXT);
    unsigned char got[STORE_SECRET_BYTES];
    struct secret sc = { name, got, false };
    /* read first: a store that cannot be written (full, read-only) still
     * gives the secret it has, so sessions outlive a restart there too */
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct store_value p[] = { sv_text(name) };
    st = s->ops->exec(s, "SELECT value FROM secrets WHERE name = ?1", false, p, 1, take_secret,
                      &sc, NULL, err);
    if (st == STORE_OK && !sc.found)
        st = store_in_write(s, get_or_make_secret, &sc, err);
    if (st == STORE_OK)
        memcpy(out, got, STORE_SECRET_BYTES);
    return st;
}

/* ---- the roster class's due date ------------------------------------------------ */

/* A row of the secrets table, as the announced address is (below): its
 * created_ms is the due date, the one integer column, which the insert's
 * RECORD_LATE compares with; its value is empty. No row: no due date. */
static enum store_status put_due(struct store *s, void *arg, struct store_error *err)
{
    const int64_t *due = arg;
    if (*due <= 0) {
        struct store_value p[] = { sv_text(CLASS_DUE_ROW) };
        return s->ops->exec(s, "DELETE FROM secrets WHERE name = ?1", false, p, 1, NULL, NULL,
                            NULL, err);
    }
    struct store_value p[] = { sv_text(CLASS_DUE_ROW), sv_bytes("", 0), sv_int(*due) };
    return s->ops->exec(s, "INSERT INTO secrets (name, value, created_ms) VALUES (?1, ?2, ?3) "
                           "ON CONFLICT (name) DO UPDATE SET value = excluded.value, "
                           "created_ms = excluded.created_ms",
                        false, p, 3, NULL, NULL, NULL, err);
}

enum store_status store_class_due_set(struct store *s, int64_t due_ms, struct store_error *err)
{
    if (due_ms < 0)
        return store_fail(err, STORE_INVALID, "a due date is after 1970");
    return store_in_write(s, put_due, &due_ms, err);
}

static bool take_due(const struct store_value *c, size_t n, void *arg)
{
    int64_t *due = arg;
    if (n >= 1 && c[0].type == SV_INT)
        *due = c[0].i;
    return false;
}

enum store_status store_class_due_get(struct store *s, int64_t *due_ms, struct store_error *err)
{
    *due_ms = 0;
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct store_value p[] = { sv_text(CLASS_DUE_ROW) };
    st = s->ops->exec(s, "SELECT created_ms FROM secrets WHERE name = ?1", false, p, 1, take_due,
                      due_ms, NULL, err);
    if (st == STORE_OK)
        store_ok(err);
    return st;
}

/* ---- the announced address --------------------------------------------------- */

/* A row of the secrets table, the one table of what the instances of a
 * class share by name: no migration for one value. Its value is the
 * address's bytes under a name no secret has (store_secret never reads
 * it). */
#define ANNOUNCED_URL_ROW "announced_url"

static enum store_status put_announced(struct store *s, void *arg, struct store_error *err)
{
    const char *url = arg;
    struct store_value p[] = { sv_text(ANNOUNCED_URL_ROW), sv_bytes(url, strlen(url)),
                               sv_int(store_now_ms()) };
    return s->ops->exec(s, "INSERT INTO secrets (name, value, created_ms) VALUES (?1, ?2, ?3) "
                           "ON CONFLICT (name) DO UPDATE SET value = excluded.value, "
                           "created_ms = excluded.created_ms",
                        false, p, 3, NULL, NULL, NULL, err);
}

enum store_status store_announced_url_set(struct store *s, const char *url,
                                          struct store_error *err)
{
    if (!url || (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
        || !text_ok(url, true))
        return store_fail(err, STORE_INVALID, "an announced address is http:// or https://, "
                          "at most %d bytes", STORE_MAX_TEXT);
    return store_in_write(s, put_announced, (void *)url, err);
}

struct announced {
    char *out;
    size_t n;
    int64_t when_ms;
    bool found;
};

static bool take_announced(const struct store_value *c, size_t n, void *arg)
{
    struct announced *a = arg;
    if (n >= 2 && c[0].type == SV_BLOB && c[0].len < a->n && c[1].type == SV_INT
        && !memchr(c[0].p, '\0', c[0].len)) {
        memcpy(a->out, c[0].p, c[0].len);
        a->out[c[0].len] = '\0';
        a->when_ms = c[1].i;
        a->found = true;
    }
    return false;
}

enum store_status store_announced_url_get(struct store *s, char *out, size_t n,
                                          int64_t *when_ms, struct store_error *err)
{
    if (n)
        out[0] = '\0';
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct announced a = { out, n, 0, false };
    struct store_value p[] = { sv_text(ANNOUNCED_URL_ROW) };
    st = s->ops->exec(s, "SELECT value, created_ms FROM secrets WHERE name = ?1", false, p, 1,
                      take_announced, &a, NULL, err);
    if (st != STORE_OK)
        return st;
    if (!a.found)
        return store_fail(err, STORE_NOT_FOUND, "no server has announced its address here");
    if (when_ms)
        *when_ms = a.when_ms;
    store_ok(err);
    return STORE_OK;
}
