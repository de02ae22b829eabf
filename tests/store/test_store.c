/*
 * test_store.c - the store suite, the same tests on both backends.
 *
 *   test_store sqlite FIXTURES          each test on a fresh file in a temporary folder
 *   test_store postgresql://... FIXTURES  each test on an emptied database
 *                                      (tests/support/postgres.py starts the cluster;
 *                                      STORE_TEST_PG_STOP / _START stop and start it)
 *
 * Run as root, it first becomes nobody: file permissions are part of
 * what is tested (a read-only store), and root ignores them.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <pwd.h>
#include <setjmp.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "common/defaults.h"
#include "store/store.h"
#include "store/store_choose.h"
#include "store/store_class.h"
#include "store/store_lti.h"
#include "store/store_writer.h"

static const char *backend;        /* "sqlite" or the PostgreSQL URL */
static const char *fixtures;
static char tmpdir[256];
static char url[1024];
static int serial;

static bool is_pg(void)
{
    return strcmp(backend, "sqlite") != 0;
}

/* Runs a list of statements on the PostgreSQL test database directly. */
static void pg_run(const char *sql)
{
    PGconn *c = PQconnectdb(backend);
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

/* The rows a query answers on the PostgreSQL test database. */
static int pg_count(const char *sql)
{
    PGconn *c = PQconnectdb(backend);
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    int n = PQntuples(r);
    PQclear(r);
    PQfinish(c);
    return n;
}

/* A URL for an empty store. */
static const char *fresh(const char *options)
{
    if (is_pg()) {
        pg_run("SET client_min_messages = warning; DROP TABLE IF EXISTS records, students, "
               "instructor, secrets, schema_version, lti_schema, lti_keys, lti_states, "
               "lti_nonces, lti_users, lti_classes, lti_members, lti_resource_links, "
               "lti_launches, lti_record_links, lti_outbox, lti_sent, lti_links, identity_changes, "
               "idempotency_keys, lti_registration_tokens, lti_platforms, lti_rosters, "
               "lti_roster_members; "
               "DROP FUNCTION IF EXISTS lti_outbox_on_record, lti_forget, "
               "idempotency_keys_on_delete, lti_roster_forget CASCADE");
        snprintf(url, sizeof url, "%s", backend);
    } else {
        snprintf(url, sizeof url, "sqlite:%s/s%d.sqlite%s", tmpdir, ++serial,
                 options ? options : "");
    }
    return url;
}

static const char *sqlite_path(void)
{
    static char p[1024];
    snprintf(p, sizeof p, "%s", url + 7);
    char *q = strchr(p, '?');
    if (q)
        *q = '\0';
    return p;
}

/* Sets the mode of the SQLite store and of the files SQLite keeps beside it. */
static void chmod_store(mode_t mode)
{
    char side[1100];
    assert_int_equal(chmod(sqlite_path(), mode), 0);
    snprintf(side, sizeof side, "%s-wal", sqlite_path());
    chmod(side, mode);
    snprintf(side, sizeof side, "%s-shm", sqlite_path());
    chmod(side, mode);
}

static struct store *open_ok(const char *u)
{
    struct store *s = NULL;
    struct store_error err;
    enum store_status st = store_open(u, &s, &err);
    if (st != STORE_OK)
        fail_msg("store_open(%s): %s", u, err.message);
    assert_non_null(s);
    return s;
}

/* A complete record of student (may be NULL) received at ms. */
static void make_record(struct store_record *r, const char *student, int64_t ms, int points)
{
    static const char source[] = "void main() {\n  x = y;\n}\0\xff tail";
    static const char verdict[] = "{\"status\": {\"id\": 4, \"description\": \"Wrong Answer\"},"
                                  " \"message\": \"caf\xc3\xa9\"}";
    memset(r, 0, sizeof *r);
    assert_true(store_new_id(r->id));
    r->task = strdup("butterfly");
    r->student = student ? strdup(student) : NULL;
    r->received_ms = ms;
    r->graded_ms = ms + 17;
    r->source = malloc(sizeof source);
    memcpy(r->source, source, sizeof source);
    r->source_len = sizeof source;     /* the NUL and the 0xff byte included */
    store_sha256_hex(r->source, r->source_len, r->sha256);
    r->status = points == 9 ? 3 : 4;
    r->points = points;
    r->max_points = 9;
    r->verdict = strdup(verdict);
    r->verdict_len = strlen(verdict);
    r->seed = (1ull << 53) - 1;
    r->device = strdup("llvmpipe (LLVM 15.0.6, 256 bits)");
    r->grader_version = strdup("0.1.0");
}

static void assert_same_record(const struct store_record *a, const struct store_record *b)
{
    assert_string_equal(a->id, b->id);
    assert_string_equal(a->task, b->task);
    if (a->student)
        assert_string_equal(a->student, b->student);
    else
        assert_null(b->student);
    assert_int_equal(a->received_ms, b->received_ms);
    assert_int_equal(a->graded_ms, b->graded_ms);
    assert_int_equal(a->source_len, b->source_len);
    assert_memory_equal(a->source, b->source, a->source_len);
    assert_string_equal(a->sha256, b->sha256);
    assert_int_equal(a->status, b->status);
    assert_int_equal(a->points, b->points);
    assert_int_equal(a->max_points, b->max_points);
    assert_int_equal(a->verdict_len, b->verdict_len);
    assert_memory_equal(a->verdict, b->verdict, a->verdict_len);
    assert_true(a->seed == b->seed);
    assert_string_equal(a->device, b->device);
    assert_string_equal(a->grader_version, b->grader_version);
}

static void insert_ok(struct store *s, const struct store_record *r)
{
    struct store_error err;
    if (store_record_insert(s, r, &err) != STORE_OK)
        fail_msg("insert: %s", err.message);
}

static void add_student(struct store *s, const char *id, const char *name, bool verified)
{
    struct store_student st = { .id = (char *)id, .name = (char *)name,
                                .section = (char *)"A", .email = (char *)"",
                                .verified = verified };
    struct store_error err;
    if (store_student_put(s, &st, NULL, &err) != STORE_OK)
        fail_msg("student_put: %s", err.message);
}

/* The students the records of these tests name, on no roster (a record's
 * student must have a row: RECORD_INSERT_CHECKED); one there already stays. */
static void students_of_records(struct store *s)
{
    static const char *const ids[] = { "s1", "s2", "alice", "bob", "x", "zed", "amy", "bo" };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        struct store_student got = { 0 };
        struct store_error err;
        if (store_student_get(s, ids[i], &got, &err) == STORE_NOT_FOUND)
            add_student(s, ids[i], ids[i], false);
        store_student_clear(&got);
    }
}

/* ---- the tests ------------------------------------------------------------ */

static void test_open_and_reopen(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
    assert_int_equal(store_kind(s), is_pg() ? STORE_KIND_POSTGRES : STORE_KIND_SQLITE);
    struct store_error err;
    assert_int_equal(store_probe(s, &err), STORE_OK);
    store_close(s);
    s = open_ok(url);   /* a second open migrates nothing and keeps working */
    assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
    store_close(s);

    struct store *none = (struct store *)1;
    assert_int_equal(store_open("none", &none, &err), STORE_OK);
    assert_null(none);
    assert_int_equal(store_open("mysql://x", &none, &err), STORE_INVALID);
    assert_non_null(strstr(err.message, "sqlite:PATH"));
    assert_int_equal(store_open("sqlite:/tmp/x?nonsense=1", &none, &err), STORE_INVALID);
}

static void test_record_round_trip(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    struct store_record r, got, nobody;
    struct store_error err;
    make_record(&r, "s1", 1764547200123, 6);
    insert_ok(s, &r);
    assert_int_equal(store_record_get(s, r.id, NULL, true, &got, &err), STORE_OK);
    assert_same_record(&r, &got);
    store_record_clear(&got);
    assert_int_equal(store_record_insert(s, &r, &err), STORE_CONFLICT);
    assert_non_null(strstr(err.message, r.id));

    make_record(&nobody, NULL, 1764547200999, 9);   /* nobody signed in */
    insert_ok(s, &nobody);
    assert_int_equal(store_record_get(s, nobody.id, NULL, true, &got, &err), STORE_OK);
    assert_same_record(&nobody, &got);
    store_record_clear(&got);
    store_record_clear(&r);
    store_record_clear(&nobody);
    store_close(s);
}

static void test_scoping(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    struct store_record a, got;
    struct store_error err;
    make_record(&a, "alice", 1000, 9);
    insert_ok(s, &a);
    assert_int_equal(store_record_get(s, a.id, "alice", false, &got, &err), STORE_OK);
    store_record_clear(&got);
    /* another student's id answers as one that does not exist */
    assert_int_equal(store_record_get(s, a.id, "bob", false, &got, &err), STORE_NOT_FOUND);
    assert_int_equal(store_record_get(s, a.id, NULL, false, &got, &err), STORE_NOT_FOUND);
    assert_int_equal(store_record_get(s, "00000000000000000000000000000000", NULL, true, &got,
                                      &err), STORE_NOT_FOUND);
    assert_int_equal(store_record_get(s, "x' OR '1'='1", "alice", false, &got, &err),
                     STORE_NOT_FOUND);
    assert_int_equal(store_record_get(s, a.id, "alice' OR 'x'='x", false, &got, &err),
                     STORE_NOT_FOUND);
    store_record_clear(&a);
    store_close(s);
}

static void test_pages_newest_first(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    struct store_error err;
    enum { N = 25 };
    char ids[N][STORE_ID_SIZE];
    for (int i = 0; i < N; i++) {
        struct store_record r;
        /* pairs share a millisecond: the id orders them */
        make_record(&r, "alice", 5000 + i / 2, i % 10);
        snprintf(ids[i], sizeof ids[i], "%s", r.id);
        insert_ok(s, &r);
        store_record_clear(&r);
        make_record(&r, "bob", 5000 + i, 1);
        insert_ok(s, &r);
        store_record_clear(&r);
    }
    struct store_record_list l;
    int64_t before_ms = 0;
    char before_id[STORE_ID_SIZE] = "";
    int seen = 0, pages = 0;
    int64_t last_ms = INT64_MAX;
    char last_id[STORE_ID_SIZE] = "~";
    for (;;) {
        assert_int_equal(store_student_records(s, "alice", before_ms,
                                               pages ? before_id : NULL, 10, &l, &err),
                         STORE_OK);
        pages++;
        for (size_t i = 0; i < l.n; i++) {
            const struct store_record *r = &l.v[i];
            assert_string_equal(r->student, "alice");
            assert_null(r->source);          /* a page holds no bytes */
            assert_null(r->verdict);
            assert_true(r->received_ms < last_ms
                        || (r->received_ms == last_ms && strcmp(r->id, last_id) < 0));
            last_ms = r->received_ms;
            snprintf(last_id, sizeof last_id, "%s", r->id);
            seen++;
        }
        bool more = l.more;
        if (l.n) {
            before_ms = l.v[l.n - 1].received_ms;
            snprintf(before_id, sizeof before_id, "%s", l.v[l.n - 1].id);
        }
        store_record_list_clear(&l);
        if (!more)
            break;
    }
    assert_int_equal(seen, N);
    assert_int_equal(pages, 3);
    assert_int_equal(store_student_records(s, "alice", 0, NULL, STORE_MAX_PAGE + 1, &l, &err),
                     STORE_INVALID);
    assert_int_equal(store_student_records(s, "carol", 0, NULL, 5, &l, &err), STORE_OK);
    assert_int_equal(l.n, 0);
    assert_false(l.more);
    store_record_list_clear(&l);
    store_close(s);
}

struct walked {
    int n;
    int nulls;
    char last_student[64];
    int64_t last_ms;
};

static bool walk_one(const struct store_record *r, void *arg)
{
    struct walked *w = arg;
    const char *st = r->student ? r->student : "";
    if (!r->student) {
        assert_int_equal(w->n, w->nulls);   /* nobody's records come first */
        w->nulls++;
    } else if (!strcmp(st, w->last_student)) {
        assert_true(r->received_ms >= w->last_ms);
    } else {
        assert_true(strcmp(st, w->last_student) > 0);
    }
    assert_non_null(r->verdict);
    assert_non_null(r->source);
    snprintf(w->last_student, sizeof w->last_student, "%s", st);
    w->last_ms = r->received_ms;
    w->n++;
    return true;
}

static void test_each_until(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    struct store_error err;
    const char *who[] = { "zed", NULL, "amy", "bo", "amy", NULL };
    for (int i = 0; i < 6; i++) {
        struct store_record r;
        make_record(&r, who[i], 100 * (6 - i), 3);
        insert_ok(s, &r);
        store_record_clear(&r);
    }
    struct walked w = { 0 };
    assert_int_equal(store_records_each(s, INT64_MAX, walk_one, &w, &err), STORE_OK);
    assert_int_equal(w.n, 6);
    assert_int_equal(w.nulls, 2);
    memset(&w, 0, sizeof w);
    assert_int_equal(store_records_each(s, 300, walk_one, &w, &err), STORE_OK);
    assert_int_equal(w.n, 3);    /* received at 100, 200, 300 */
    store_close(s);
}

static void test_batch_all_or_none(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    struct store_error err;
    struct store_record a, b;
    make_record(&a, "x", 1, 1);
    make_record(&b, "x", 2, 1);
    insert_ok(s, &a);
    const struct store_record *both[] = { &b, &a };   /* a is a duplicate */
    assert_int_equal(store_records_insert(s, both, 2, &err), STORE_CONFLICT);
    struct store_record got;
    assert_int_equal(store_record_get(s, b.id, NULL, true, &got, &err), STORE_NOT_FOUND);
    /* the store goes on after the failed transaction */
    insert_ok(s, &b);
    store_record_clear(&a);
    store_record_clear(&b);
    store_close(s);
}

static void test_invalid_records(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    struct store_error err;
    struct store_record r;
    make_record(&r, "x", 1, 1);
    char *big = calloc(1, STORE_MAX_TEXT + 2);
    memset(big, 'n', STORE_MAX_TEXT + 1);
    char *keep = r.student;
    r.student = big;
    assert_int_equal(store_record_insert(s, &r, &err), STORE_INVALID);
    r.student = keep;
    size_t len = r.verdict_len;
    r.verdict_len = 0;
    assert_int_equal(store_record_insert(s, &r, &err), STORE_INVALID);
    r.verdict_len = len;
    r.source_len = STORE_MAX_SOURCE + 1;
    assert_int_equal(store_record_insert(s, &r, &err), STORE_INVALID);
    r.source_len = 1;
    r.sha256[10] = '\0';
    assert_int_equal(store_record_insert(s, &r, &err), STORE_INVALID);
    free(big);
    store_record_clear(&r);
    store_close(s);
}

static void test_students_and_tokens(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    struct store_error err;
    struct store_student got;
    bool created = false;
    struct store_student st = { .id = (char *)"s1", .name = (char *)"Ada",
                                .section = (char *)"A", .email = (char *)"ada@example.org",
                                .verified = true };
    assert_int_equal(store_student_put(s, &st, &created, &err), STORE_OK);
    assert_true(created);
    char t1[STORE_TOKEN_SIZE], t2[STORE_TOKEN_SIZE];
    assert_int_equal(store_student_new_token(s, "s1", t1, &err), STORE_OK);
    assert_int_equal(strlen(t1), 2 * STORE_TOKEN_BYTES);
    /* a roster imported again updates the name and keeps the token */
    st.name = (char *)"Ada Lovelace";
    assert_int_equal(store_student_put(s, &st, &created, &err), STORE_OK);
    assert_false(created);
    assert_int_equal(store_student_by_token(s, t1, &got, &err), STORE_OK);
    assert_string_equal(got.id, "s1");
    assert_string_equal(got.name, "Ada Lovelace");
    assert_string_equal(got.email, "ada@example.org");
    assert_true(got.verified);
    assert_true(got.has_token);
    store_student_clear(&got);
    /* a renewed token ends the old one */
    assert_int_equal(store_student_new_token(s, "s1", t2, &err), STORE_OK);
    assert_string_not_equal(t1, t2);
    assert_int_equal(store_student_by_token(s, t1, &got, &err), STORE_NOT_FOUND);
    assert_int_equal(store_student_by_token(s, t2, &got, &err), STORE_OK);
    store_student_clear(&got);
    assert_int_equal(store_student_by_token(s, "", &got, &err), STORE_NOT_FOUND);
    assert_int_equal(store_student_by_token(s, NULL, &got, &err), STORE_NOT_FOUND);
    assert_int_equal(store_student_new_token(s, "nobody", t1, &err), STORE_NOT_FOUND);

    add_student(s, "open-1", "<script>alert(1)</script>", false);
    assert_int_equal(store_student_get(s, "open-1", &got, &err), STORE_OK);
    assert_false(got.verified);
    assert_false(got.has_token);
    assert_string_equal(got.name, "<script>alert(1)</script>");
    store_student_clear(&got);
    assert_int_equal(store_student_get(s, "nobody", &got, &err), STORE_NOT_FOUND);
    store_close(s);
}

/* A roster's students go in together or not at all (butterfly-admin's
 * class import): a refused one names itself and nothing is written. */
static void test_students_put_all_or_none(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    struct store_error err;
    struct store_student got;
    char long_id[STORE_MAX_STUDENT_ID + 2];
    memset(long_id, 'x', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = '\0';
    struct store_student v[3] = {
        { .id = (char *)"r1", .name = (char *)"One", .verified = true },
        { .id = long_id, .name = (char *)"Too long", .verified = true },
        { .id = (char *)"r3", .name = (char *)"Three", .verified = true },
    };
    size_t added = 9, updated = 9, at = 9;
    assert_int_equal(store_students_put(s, v, 3, &added, &updated, &at, &err), STORE_INVALID);
    assert_int_equal(at, 1);
    assert_int_equal(added, 0);
    assert_int_equal(store_student_get(s, "r1", &got, &err), STORE_NOT_FOUND);
    /* once every row may be: all of them, counted */
    v[1].id = (char *)"r2";
    assert_int_equal(store_students_put(s, v, 3, &added, &updated, &at, &err), STORE_OK);
    assert_int_equal(added, 3);
    assert_int_equal(updated, 0);
    assert_int_equal(at, 3);
    v[0].name = (char *)"One again";
    assert_int_equal(store_students_put(s, v, 1, &added, &updated, &at, &err), STORE_OK);
    assert_int_equal(added, 0);
    assert_int_equal(updated, 1);
    assert_int_equal(store_student_get(s, "r1", &got, &err), STORE_OK);
    assert_string_equal(got.name, "One again");
    store_student_clear(&got);
    assert_int_equal(store_students_put(s, NULL, 0, &added, &updated, &at, &err), STORE_OK);
    store_close(s);
}

static void test_tokens_are_hashed(void **state)
{
    /* No column of the store holds a token: a copy of it lets no one in. */
    struct store *s = open_ok(fresh(NULL));
    struct store_error err;
    char t[STORE_TOKEN_SIZE], it[STORE_TOKEN_SIZE];
    add_student(s, "s1", "Ada", true);
    assert_int_equal(store_student_new_token(s, "s1", t, &err), STORE_OK);
    assert_int_equal(store_instructor_new_token(s, it, &err), STORE_OK);
    store_close(s);
    if (is_pg())
        return;   /* the same SQL on both; the file is SQLite's to read */
    FILE *f = fopen(sqlite_path(), "rb");
    assert_non_null(f);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_null(memmem(buf, n, t, strlen(t)));
    assert_null(memmem(buf, n, it, strlen(it)));
}

static void test_instructor(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    struct store_error err;
    char t[STORE_TOKEN_SIZE], again[STORE_TOKEN_SIZE], t2[STORE_TOKEN_SIZE];
    bool created = false;
    assert_int_equal(store_instructor_check(s, "x", &err), STORE_NOT_FOUND);
    assert_int_equal(store_instructor_ensure(s, t, &created, &err), STORE_OK);
    assert_true(created);
    assert_int_equal(store_instructor_check(s, t, &err), STORE_OK);
    assert_int_equal(store_instructor_ensure(s, again, &created, &err), STORE_OK);
    assert_false(created);
    assert_string_equal(again, "");
    assert_int_equal(store_instructor_check(s, t, &err), STORE_OK);
    assert_int_equal(store_instructor_new_token(s, t2, &err), STORE_OK);
    assert_int_equal(store_instructor_check(s, t, &err), STORE_NOT_FOUND);
    assert_int_equal(store_instructor_check(s, t2, &err), STORE_OK);
    /* a student's token is not the instructor's */
    char st[STORE_TOKEN_SIZE];
    add_student(s, "s1", "Ada", true);
    assert_int_equal(store_student_new_token(s, "s1", st, &err), STORE_OK);
    assert_int_equal(store_instructor_check(s, st, &err), STORE_NOT_FOUND);
    store_close(s);
}

struct seen_credentials {
    int students, instructors, tokenless;
    char s1_hash[STORE_SHA256_SIZE], instructor_hash[STORE_SHA256_SIZE];
    bool s2_seen;
};

static bool note_credential(const struct store_credential *c, void *arg)
{
    struct seen_credentials *w = arg;
    if (c->instructor) {
        w->instructors++;
        assert_null(c->id);
        assert_non_null(c->token_sha256);
        snprintf(w->instructor_hash, sizeof w->instructor_hash, "%s", c->token_sha256);
        return true;
    }
    w->students++;
    if (!c->token_sha256)
        w->tokenless++;
    if (!strcmp(c->id, "s1") && c->token_sha256)
        snprintf(w->s1_hash, sizeof w->s1_hash, "%s", c->token_sha256);
    if (!strcmp(c->id, "s2"))
        w->s2_seen = true;
    return true;
}

/* What the server's table of current credentials is made from: every
 * student with the hash of the token they have now (or none), the
 * instructor's hash; a renewal or a forget shows at the next walk. */
static void test_credentials(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    struct store_error err;
    struct seen_credentials w = { 0 };
    assert_int_equal(store_credentials_each(s, note_credential, &w, &err), STORE_OK);
    assert_int_equal(w.students + w.instructors, 0);
    add_student(s, "s1", "Ada", true);
    add_student(s, "s2", "Guest", false);
    char t1[STORE_TOKEN_SIZE], t2[STORE_TOKEN_SIZE], it[STORE_TOKEN_SIZE];
    bool created;
    assert_int_equal(store_student_new_token(s, "s1", t1, &err), STORE_OK);
    assert_int_equal(store_instructor_ensure(s, it, &created, &err), STORE_OK);
    assert_int_equal(store_credentials_each(s, note_credential, &w, &err), STORE_OK);
    char h[STORE_SHA256_SIZE];
    store_sha256_hex(t1, strlen(t1), h);
    assert_int_equal(w.students, 2);
    assert_int_equal(w.tokenless, 1);
    assert_int_equal(w.instructors, 1);
    assert_string_equal(w.s1_hash, h);
    store_sha256_hex(it, strlen(it), h);
    assert_string_equal(w.instructor_hash, h);
    /* renewed and forgotten: the walk shows the new hash and no s2 */
    assert_int_equal(store_student_new_token(s, "s1", t2, &err), STORE_OK);
    assert_int_equal(store_instructor_new_token(s, it, &err), STORE_OK);
    assert_int_equal(store_student_forget(s, "s2", NULL, &err), STORE_OK);
    memset(&w, 0, sizeof w);
    assert_int_equal(store_credentials_each(s, note_credential, &w, &err), STORE_OK);
    store_sha256_hex(t2, strlen(t2), h);
    assert_string_equal(w.s1_hash, h);
    store_sha256_hex(it, strlen(it), h);
    assert_string_equal(w.instructor_hash, h);
    assert_false(w.s2_seen);
    assert_int_equal(w.students, 1);
    store_close(s);
}

static void test_export_and_forget(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    struct store_error err;
    add_student(s, "s1", "Ada", true);
    add_student(s, "s2", "Bob", true);
    for (int i = 0; i < 3; i++) {
        struct store_record r;
        make_record(&r, "s1", 1000 + i, i);
        insert_ok(s, &r);
        store_record_clear(&r);
        make_record(&r, "s2", 1000 + i, i);
        insert_ok(s, &r);
        store_record_clear(&r);
    }
    json_t *j = NULL;
    assert_int_equal(store_student_export(s, "s1", &j, &err), STORE_OK);
    json_t *recs = json_object_get(j, "records");
    assert_int_equal(json_array_size(recs), 3);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "student"), "name")),
                        "Ada");
    json_t *first = json_array_get(recs, 0);
    assert_int_equal(json_integer_value(json_object_get(first, "received_ms")), 1000);
    assert_string_equal(json_string_value(json_object_get(first, "student")), "s1");
    /* the verdict comes back as JSON, not as a string of it */
    assert_true(json_is_object(json_object_get(first, "verdict")));
    assert_string_equal(json_string_value(json_object_get(first, "received")),
                        "1970-01-01T00:00:01.000Z");
    json_decref(j);

    uint64_t deleted = 0;
    assert_int_equal(store_student_forget(s, "s1", &deleted, &err), STORE_OK);
    assert_int_equal(deleted, 3);
    assert_int_equal(store_student_export(s, "s1", &j, &err), STORE_NOT_FOUND);
    struct store_student got;
    assert_int_equal(store_student_get(s, "s1", &got, &err), STORE_NOT_FOUND);
    assert_int_equal(store_student_forget(s, "s1", &deleted, &err), STORE_NOT_FOUND);
    /* the other student is untouched */
    assert_int_equal(store_student_export(s, "s2", &j, &err), STORE_OK);
    assert_int_equal(json_array_size(json_object_get(j, "records")), 3);
    json_decref(j);
    store_close(s);
}

struct changes_seen {
    int n;
    int64_t seq[8];
    char student[8][16];   /* "" for the instructor */
    bool forgotten[8];
};

static bool see_change(const struct store_identity_change *c, void *arg)
{
    struct changes_seen *w = arg;
    if (w->n < 8) {
        w->seq[w->n] = c->seq;
        snprintf(w->student[w->n], sizeof w->student[w->n], "%s", c->student ? c->student : "");
        w->forgotten[w->n++] = c->forgotten;
    }
    return true;
}

/* Every forget and renewal leaves a change, in its own transaction, in
 * the order they committed: what the running servers poll (issue 31). */
static void test_identity_changes(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    struct store_error err;
    int64_t last = -1;
    assert_int_equal(store_identity_last(s, &last, &err), STORE_OK);
    assert_int_equal(last, 0);
    add_student(s, "s1", "Ada", true);
    add_student(s, "s2", "Bob", true);
    char token[STORE_TOKEN_SIZE];
    bool created = false;
    /* the first instructor token is no change (no session had the old) */
    assert_int_equal(store_instructor_ensure(s, token, &created, &err), STORE_OK);
    assert_true(created);
    assert_int_equal(store_identity_last(s, &last, &err), STORE_OK);
    assert_int_equal(last, 0);
    assert_int_equal(store_student_new_token(s, "s1", token, &err), STORE_OK);
    assert_int_equal(store_instructor_new_token(s, token, &err), STORE_OK);
    assert_int_equal(store_student_forget(s, "s2", NULL, &err), STORE_OK);
    /* nothing changed: no change */
    assert_int_equal(store_student_new_token(s, "nobody", token, &err), STORE_NOT_FOUND);
    assert_int_equal(store_student_forget(s, "nobody", NULL, &err), STORE_NOT_FOUND);
    struct changes_seen w = { 0 };
    assert_int_equal(store_identity_changes(s, 0, 100, see_change, &w, &err), STORE_OK);
    assert_int_equal(w.n, 3);
    assert_string_equal(w.student[0], "s1");
    assert_false(w.forgotten[0]);
    assert_string_equal(w.student[1], "");
    assert_false(w.forgotten[1]);
    assert_string_equal(w.student[2], "s2");
    assert_true(w.forgotten[2]);
    assert_true(w.seq[0] < w.seq[1] && w.seq[1] < w.seq[2]);
    assert_int_equal(store_identity_last(s, &last, &err), STORE_OK);
    assert_int_equal(last, w.seq[2]);
    /* read after a seq, and at most max of them */
    struct changes_seen after = { 0 };
    assert_int_equal(store_identity_changes(s, w.seq[0], 1, see_change, &after, &err), STORE_OK);
    assert_int_equal(after.n, 1);
    assert_int_equal(after.seq[0], w.seq[1]);
    store_close(s);
}

static void test_retention(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    struct store_error err;
    int64_t now = store_now_ms();
    int64_t day = 86400000;
    for (int age = 0; age < 10; age++) {
        struct store_record r;
        make_record(&r, "s1", now - age * day - 1000, 1);
        insert_ok(s, &r);
        store_record_clear(&r);
    }
    uint64_t deleted = 0;
    assert_int_equal(store_records_delete_before(s, store_retention_cutoff(now, 7), &deleted,
                                                 &err), STORE_OK);
    assert_int_equal(deleted, 3);   /* 7, 8 and 9 days and a second old */
    struct store_record_list l;
    assert_int_equal(store_student_records(s, "s1", 0, NULL, 100, &l, &err), STORE_OK);
    assert_int_equal(l.n, 7);
    store_record_list_clear(&l);
    assert_int_equal(store_retention_cutoff(5, 1), 0);
    store_close(s);
}

/* Issue 31 item 9: two open-lab students who give one name are two
 * names ("Zo\u00eb", "Zo\u00eb (2)"), on either backend; a second instance
 * sees the first's names; past GUEST_NAME_SUFFIX_MAX the name is refused. */
static void test_guest_names(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    struct store *other = open_ok(url);
    struct store_error err;
    char name[STORE_MAX_TEXT + 16], id[16];
    const char *want[] = { "Zo\xc3\xab", "Zo\xc3\xab (2)", "Zo\xc3\xab (3)" };
    for (int i = 0; i < 3; i++) {
        snprintf(id, sizeof id, "g%d", i);
        struct store_student g = { .id = id, .name = "Zo\xc3\xab", .verified = false };
        assert_int_equal(store_guest_put(i == 1 ? other : s, &g, name, sizeof name, &err),
                         STORE_OK);
        assert_string_equal(name, want[i]);
    }
    struct store_student got;
    assert_int_equal(store_student_get(s, "g1", &got, &err), STORE_OK);
    assert_string_equal(got.name, "Zo\xc3\xab (2)");
    store_student_clear(&got);
    /* a name that only starts alike, or a look-alike suffix, takes nothing */
    struct store_student z = { .id = "z", .name = "Zo\xc3\xab (2) b", .verified = false };
    assert_int_equal(store_guest_put(s, &z, name, sizeof name, &err), STORE_OK);
    assert_string_equal(name, "Zo\xc3\xab (2) b");
    /* the first free number is taken again once its owner is forgotten */
    uint64_t n = 0;
    assert_int_equal(store_student_forget(s, "g1", &n, &err), STORE_OK);
    struct store_student g = { .id = "g9", .name = "Zo\xc3\xab", .verified = false };
    assert_int_equal(store_guest_put(s, &g, name, sizeof name, &err), STORE_OK);
    assert_string_equal(name, "Zo\xc3\xab (2)");
    /* every suffix taken: refused, nothing written */
    for (unsigned k = 1; k <= GUEST_NAME_SUFFIX_MAX; k++) {
        snprintf(id, sizeof id, "a%u", k);
        struct store_student a = { .id = id, .name = "Al", .verified = false };
        assert_int_equal(store_guest_put(s, &a, name, sizeof name, &err), STORE_OK);
    }
    struct store_student last = { .id = "a-last", .name = "Al", .verified = false };
    assert_int_equal(store_guest_put(s, &last, name, sizeof name, &err), STORE_CONFLICT);
    assert_int_equal(store_student_get(s, "a-last", &got, &err), STORE_NOT_FOUND);
    /* a buffer with no room for a suffix is refused before any write */
    char small[4];
    assert_int_equal(store_guest_put(s, &last, small, sizeof small, &err), STORE_INVALID);
    store_close(other);
    store_close(s);
}

/* Issue 31 item 7: the address a server announced, for butterfly-admin;
 * the last start wins; not found before any. */
static void test_announced_url(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    struct store_error err;
    char got[STORE_MAX_TEXT + 1];
    int64_t when = 0;
    assert_int_equal(store_announced_url_get(s, got, sizeof got, &when, &err), STORE_NOT_FOUND);
    assert_int_equal(store_announced_url_set(s, "http://127.0.0.1:41000", &err), STORE_OK);
    assert_int_equal(store_announced_url_set(s, "https://lab.example.org", &err), STORE_OK);
    assert_int_equal(store_announced_url_get(s, got, sizeof got, &when, &err), STORE_OK);
    assert_string_equal(got, "https://lab.example.org");
    assert_true(when > 0);
    assert_int_equal(store_announced_url_set(s, "ftp://x", &err), STORE_INVALID);
    /* the session key beside it is untouched */
    unsigned char a[STORE_SECRET_BYTES];
    assert_int_equal(store_secret(s, "session", a, &err), STORE_OK);
    char tiny[8];
    assert_int_equal(store_announced_url_get(s, tiny, sizeof tiny, &when, &err), STORE_NOT_FOUND);
    store_close(s);
}

/* A roster class's due date: set on one instance, every insert on any
 * instance marks against it (the insert answers its mark, every read
 * gives it back); a choice counts the late attempts and the best on
 * time; cleared, the next is on time and the late keep their mark. */
static void test_class_due(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    struct store *other = open_ok(url);   /* a second instance of the class */
    struct store_error err;
    int64_t due = -1;
    assert_int_equal(store_class_due_get(s, &due, &err), STORE_OK);
    assert_int_equal(due, 0);
    struct store_record r[4];
    bool late[4] = { true, false, false, true };
    const int64_t at[4] = { 5000, 9000, 12000, 20000 };
    const int points[4] = { 3, 9, 2, 9 };
    add_student(s, "s-due", "Dee", true);
    for (int i = 0; i < 4; i++) {
        make_record(&r[i], "s-due", at[i], points[i]);
        r[i].late_out = &late[i];
    }
    assert_int_equal(store_record_insert(s, &r[0], &err), STORE_OK);   /* no due date yet */
    assert_int_equal(store_class_due_set(s, 10000, &err), STORE_OK);
    assert_int_equal(store_class_due_get(other, &due, &err), STORE_OK);
    assert_int_equal(due, 10000);
    assert_int_equal(store_record_insert(other, &r[1], &err), STORE_OK);   /* before it */
    assert_int_equal(store_record_insert(other, &r[2], &err), STORE_OK);   /* after it */
    assert_false(late[0]);
    assert_false(late[1]);
    assert_true(late[2]);
    struct store_chosen c;
    assert_int_equal(store_records_choose(s, "butterfly", INT64_MAX, STORE_POLICY_BEST, false, &c,
                                          &err),
                     STORE_OK);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.v[0].points, 9);
    assert_false(c.v[0].late);
    assert_int_equal(c.lateness[0].late, 1);
    assert_int_equal(c.lateness[0].best_on_time, 9);
    assert_int_equal(c.lateness[0].best_late, 2);
    store_chosen_clear(&c);
    struct store_record back;
    assert_int_equal(store_record_get(s, r[2].id, NULL, true, &back, &err), STORE_OK);
    assert_true(back.late);
    store_record_clear(&back);
    /* a submission of nobody signed in after the date is nobody's
     * attempt: never late, as written and as read back */
    struct store_record anon, anon_back;
    bool anon_late = true;
    make_record(&anon, NULL, 15000, 4);
    anon.late_out = &anon_late;
    assert_int_equal(store_record_insert(other, &anon, &err), STORE_OK);
    assert_false(anon_late);
    assert_int_equal(store_record_get(s, anon.id, NULL, true, &anon_back, &err), STORE_OK);
    assert_false(anon_back.late);
    assert_null(anon_back.student);
    assert_int_equal(anon_back.points, 4);
    store_record_clear(&anon_back);
    store_record_clear(&anon);
    assert_int_equal(store_class_due_set(s, 0, &err), STORE_OK);
    assert_int_equal(store_record_insert(s, &r[3], &err), STORE_OK);
    assert_false(late[3]);
    assert_int_equal(store_record_get(s, r[2].id, NULL, true, &back, &err), STORE_OK);
    assert_true(back.late);   /* a mark made stays */
    store_record_clear(&back);
    assert_int_equal(store_class_due_set(s, -5, &err), STORE_INVALID);
    for (int i = 0; i < 4; i++)
        store_record_clear(&r[i]);
    store_close(other);
    store_close(s);
}

/* A student's records of two exercises: each exercise's choice reads its
 * own only, the best of one never standing for the other, and the walk
 * counts what it left out. */
static void test_choose_per_exercise(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    struct store_error err;
    add_student(s, "s-two", "Tess", true);
    struct store_record r[3];
    const char *const task[3] = { "butterfly", "bit_reversal", "bit_reversal" };
    const int points[3] = { 9, 2, 5 };
    for (int i = 0; i < 3; i++) {
        make_record(&r[i], "s-two", 1000 * (i + 1), points[i]);
        free(r[i].task);
        r[i].task = strdup(task[i]);
        assert_int_equal(store_record_insert(s, &r[i], &err), STORE_OK);
    }
    struct store_chosen c;
    assert_int_equal(store_records_choose(s, "bit_reversal", INT64_MAX, STORE_POLICY_BEST,
                                          false, &c, &err), STORE_OK);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.v[0].id, r[2].id);
    assert_string_equal(c.v[0].task, "bit_reversal");
    assert_int_equal(c.v[0].points, 5);
    assert_int_equal(c.lateness[0].best_on_time, 5);
    assert_int_equal(c.records, 2);
    assert_int_equal(c.other_tasks, 1);
    store_chosen_clear(&c);
    assert_int_equal(store_records_choose(s, "butterfly", INT64_MAX, STORE_POLICY_LAST, false,
                                          &c, &err), STORE_OK);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.v[0].id, r[0].id);   /* the latest of its own, not of all */
    assert_int_equal(c.records, 1);
    assert_int_equal(c.other_tasks, 2);
    store_chosen_clear(&c);
    assert_int_equal(store_records_choose(s, "twiddle", INT64_MAX, STORE_POLICY_BEST, false,
                                          &c, &err), STORE_OK);
    assert_int_equal(c.n, 0);
    assert_int_equal(c.other_tasks, 3);
    store_chosen_clear(&c);
    for (int i = 0; i < 3; i++)
        store_record_clear(&r[i]);
    store_close(s);
}

static void test_class_secret_and_roster(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    struct store *other = open_ok(url);   /* a second instance of the class */
    struct store_error err;
    unsigned char a[STORE_SECRET_BYTES], b[STORE_SECRET_BYTES], c[STORE_SECRET_BYTES];
    assert_int_equal(store_secret(s, "session", a, &err), STORE_OK);
    assert_int_equal(store_secret(other, "session", b, &err), STORE_OK);
    assert_memory_equal(a, b, sizeof a);
    assert_int_equal(store_secret(s, "other", c, &err), STORE_OK);
    assert_memory_not_equal(a, c, sizeof a);
    if (!is_pg()) {
        /* a store that cannot be written still gives the secret it has */
        store_close(other);
        store_close(s);
        chmod_store(0400);
        s = open_ok(url);
        assert_int_equal(store_secret(s, "session", b, &err), STORE_OK);
        assert_memory_equal(a, b, sizeof a);
        assert_int_equal(store_secret(s, "new", b, &err), STORE_READ_ONLY);
        chmod_store(0600);
        store_close(s);
        s = open_ok(url);
        other = open_ok(url);
    }
    bool roster = true;
    assert_int_equal(store_has_roster(s, &roster, &err), STORE_OK);
    assert_false(roster);
    add_student(s, "open-1", "Visitor", false);    /* an open lab's name is no roster */
    assert_int_equal(store_has_roster(s, &roster, &err), STORE_OK);
    assert_false(roster);
    add_student(s, "s1", "Ada", true);
    assert_int_equal(store_has_roster(other, &roster, &err), STORE_OK);
    assert_true(roster);
    store_close(other);
    store_close(s);
}

/* ---- the writer ------------------------------------------------------------- */

struct tally {
    pthread_mutex_t lock;
    int ok, failed;
    enum store_status last;
};

static void written(const char *id, enum store_status status, const char *reason, void *arg)
{
    struct tally *t = arg;
    pthread_mutex_lock(&t->lock);
    if (status == STORE_OK)
        t->ok++;
    else
        t->failed++;
    t->last = status;
    pthread_mutex_unlock(&t->lock);
}

struct producer {
    struct store_writer *w;
    struct tally *t;
    int n;
    int refused;
};

static void *produce(void *arg)
{
    struct producer *p = arg;
    for (int i = 0; i < p->n; i++) {
        struct store_record *r = calloc(1, sizeof *r);
        make_record(r, "s1", 1000 + i, 1);
        if (store_writer_submit(p->w, r, written, p->t) != STORE_WRITER_QUEUED) {
            store_record_free(r);
            p->refused++;
        }
    }
    return NULL;
}

static void test_writer_batches(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    struct store_writer_options o;
    store_writer_options_init(&o);
    struct store_writer *w = store_writer_start(s, &o);
    assert_non_null(w);
    struct tally t = { PTHREAD_MUTEX_INITIALIZER, 0, 0, STORE_OK };
    enum { THREADS = 4, EACH = 250 };
    pthread_t th[THREADS];
    struct producer p[THREADS];
    for (int i = 0; i < THREADS; i++) {
        p[i] = (struct producer){ w, &t, EACH, 0 };
        pthread_create(&th[i], NULL, produce, &p[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(p[i].refused, 0);
    }
    struct store_writer_stats ws;
    for (int i = 0; i < 3000; i++) {
        store_writer_stats(w, &ws);
        if (ws.committed + ws.failed == THREADS * EACH)
            break;
        usleep(10000);
    }
    store_writer_stop(w);
    assert_int_equal(t.ok, THREADS * EACH);
    assert_int_equal(t.failed, 0);
    assert_int_equal(ws.committed, THREADS * EACH);
    /* records that came while a commit synced shared the next one */
    assert_true(ws.commits < THREADS * EACH);

    s = open_ok(url);
    struct store_record_list l;
    struct store_error err;
    uint64_t n = 0;
    int64_t before = 0;
    char before_id[STORE_ID_SIZE];
    bool first = true;
    do {
        assert_int_equal(store_student_records(s, "s1", before, first ? NULL : before_id,
                                               STORE_MAX_PAGE, &l, &err), STORE_OK);
        n += l.n;
        first = false;
        if (l.n) {
            before = l.v[l.n - 1].received_ms;
            snprintf(before_id, sizeof before_id, "%s", l.v[l.n - 1].id);
        }
        bool more = l.more;
        store_record_list_clear(&l);
        if (!more)
            break;
    } while (1);
    assert_int_equal(n, THREADS * EACH);
    store_close(s);
    printf("# writer: %d records, %llu commits at the snapshot\n", THREADS * EACH,
           (unsigned long long)ws.commits);
}

/* A call that holds the writer's thread until the test opens its gate:
 * the queue fills behind it however slow or busy the machine is. */
struct slow_call {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool started, open;
    int ran;
};

static void slow(struct store *s, void *arg)
{
    (void)s;
    struct slow_call *c = arg;
    pthread_mutex_lock(&c->lock);
    c->started = true;
    pthread_cond_broadcast(&c->cond);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;   /* a bound, should the test never open it */
    while (!c->open && pthread_cond_timedwait(&c->cond, &c->lock, &until) == 0)
        ;
    c->ran++;
    pthread_mutex_unlock(&c->lock);
}

static void test_writer_bounded_queue(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    struct store_writer_options o = { .queue_capacity = 3, .max_batch = 8 };
    struct store_writer *w = store_writer_start(s, &o);
    struct slow_call c = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false, 0 };
    struct tally t = { PTHREAD_MUTEX_INITIALIZER, 0, 0, STORE_OK };
    /* the slow call holds the thread; the queue fills behind it */
    assert_int_equal(store_writer_call(w, slow, &c), STORE_WRITER_QUEUED);
    pthread_mutex_lock(&c.lock);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;
    while (!c.started && pthread_cond_timedwait(&c.cond, &c.lock, &until) == 0)
        ;
    bool started = c.started;
    pthread_mutex_unlock(&c.lock);
    assert_true(started);
    int queued = 0, refused = 0;
    for (int i = 0; i < 6; i++) {
        struct store_record *r = calloc(1, sizeof *r);
        make_record(r, "s1", i, 1);
        enum store_writer_submit sub = store_writer_submit(w, r, written, &t);
        if (sub == STORE_WRITER_QUEUED) {
            queued++;
        } else {
            assert_int_equal(sub, STORE_WRITER_QUEUE_FULL);
            store_record_free(r);
            refused++;
        }
    }
    assert_int_equal(queued, 3);
    assert_int_equal(refused, 3);
    struct store_writer_stats ws;
    store_writer_stats(w, &ws);
    assert_int_equal(ws.refused, 3);
    pthread_mutex_lock(&c.lock);
    c.open = true;
    pthread_cond_broadcast(&c.cond);
    pthread_mutex_unlock(&c.lock);
    store_writer_stop(w);
    assert_int_equal(c.ran, 1);
    assert_int_equal(t.ok, 3);
    assert_string_equal(store_writer_submit_to_str(STORE_WRITER_QUEUE_FULL), "queue_full");
}

/* A bad record fails alone; the rest of its batch is written. */
static void test_writer_isolates_bad_rows(void **state)
{
    char where[1024];
    snprintf(where, sizeof where, "%s", fresh(NULL));
    struct store *s = open_ok(where);
    students_of_records(s);
    struct store_record dup;
    make_record(&dup, "s1", 1, 1);
    insert_ok(s, &dup);
    struct store_writer_options o = { .queue_capacity = 100, .max_batch = 100 };
    struct store_writer *w = store_writer_start(s, &o);
    struct slow_call c = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false, 0 };
    struct tally t = { PTHREAD_MUTEX_INITIALIZER, 0, 0, STORE_OK };
    assert_int_equal(store_writer_call(w, slow, &c), STORE_WRITER_QUEUED);
    for (int i = 0; i < 10; i++) {
        struct store_record *r = i == 5 ? store_record_copy(&dup) : calloc(1, sizeof *r);
        if (i != 5)
            make_record(r, "s1", 10 + i, 1);
        else
            r->sha256[0] = r->sha256[0] == '0' ? '1' : '0';   /* the id of another record */
        assert_int_equal(store_writer_submit(w, r, written, &t), STORE_WRITER_QUEUED);
    }
    /* the same record again (a commit whose answer was lost, written once
     * more) is in: it is told committed, and stays one row */
    assert_int_equal(store_writer_submit(w, store_record_copy(&dup), written, &t),
                     STORE_WRITER_QUEUED);
    pthread_mutex_lock(&c.lock);
    c.open = true;   /* the batch behind it, all of it queued, goes in */
    pthread_cond_broadcast(&c.cond);
    pthread_mutex_unlock(&c.lock);
    store_writer_stop(w);
    assert_int_equal(t.ok, 10);
    assert_int_equal(t.failed, 1);
    struct store_record got = { 0 };
    struct store_error err;
    s = open_ok(where);   /* the writer closed its own */
    assert_int_equal(store_record_get(s, dup.id, NULL, true, &got, &err), STORE_OK);
    assert_same_record(&got, &dup);
    store_record_clear(&got);
    store_record_clear(&dup);
    store_close(s);
}

/* ---- processes --------------------------------------------------------------- */

static void test_never_across_fork(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct store_error err;
        struct store_record r;
        make_record(&r, "s1", 1, 1);
        enum store_status st = store_record_insert(s, &r, &err);
        bool refused = st == STORE_UNAVAILABLE && strstr(err.message, "fork");
        store_record_clear(&r);
        /* a child that closes what it inherited must not end the parent's session */
        store_close(s);
        _exit(refused ? 0 : 1);
    }
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    struct store_error err;
    assert_int_equal(store_probe(s, &err), STORE_OK);   /* the parent's goes on */
    struct store_record r;
    make_record(&r, "s1", 2, 2);
    insert_ok(s, &r);
    store_record_clear(&r);
    store_close(s);
}

/* ---- migrations --------------------------------------------------------------- */

/* The fixtures, read at start: the suite may run as nobody afterwards,
 * and a checkout under /root is not nobody's to read. */
static char *fixture_sql[STORE_SCHEMA_VERSION];

static void read_fixtures(void)
{
    for (int v = 1; v < STORE_SCHEMA_VERSION; v++) {
        char path[512];
        snprintf(path, sizeof path, "%s/v%d.%s.sql", fixtures, v, is_pg() ? "pg" : "sqlite");
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;   /* the test says which is missing */
        fixture_sql[v] = calloc(1, 1 << 16);
        size_t n = fread(fixture_sql[v], 1, (1 << 16) - 1, f);
        fixture_sql[v][n] = '\0';
        fclose(f);
    }
}

struct shown_seen {
    bool accepted, diagnosed;
};

static bool see_shown(const struct store_class_row *r, void *arg)
{
    struct shown_seen *w = arg;
    if (!strcmp(r->id, "00112233445566778899aabbccddeeff")) {
        assert_string_equal(r->shown.key, "");
        assert_int_equal(r->shown.halves[0], -1);
        assert_int_equal(r->shown.halves[2], -1);
        assert_int_equal(r->shown.halves[3], -1);
        w->accepted = true;
    } else if (!strcmp(r->id, "ffeeddccbbaa99887766554433221100")) {
        assert_string_equal(r->shown.key, "mistake:swapped-halves");
        assert_string_equal(r->shown.label, "The halves are swapped");
        assert_int_equal(r->shown.halves[0], 1);
        assert_int_equal(r->shown.halves[1], 0);
        assert_int_equal(r->shown.halves[2], 0);
        assert_int_equal(r->shown.halves[3], -1);   /* before version 11: not run */
        w->diagnosed = true;
    }
    return true;
}

static bool count_lti_key(const struct store_lti_key *k, void *arg)
{
    (void)k;
    (*(int *)arg)++;
    return true;
}

struct outbox_seen {
    int newest_points;
    char lineitem[64];
};

static bool see_outbox(const struct store_lti_score *sc, void *arg)
{
    struct outbox_seen *o = arg;
    o->newest_points = sc->points;
    snprintf(o->lineitem, sizeof o->lineitem, "%s", sc->lineitem);
    return true;
}

/* The class view's facts are the record's as written (what the worker
 * sent), never its verdict's JSON read again: a verdict that says
 * otherwise, or is no JSON at all, changes nothing (issue 30 defect 6). */
struct shown_got {
    char id[STORE_ID_SIZE];
    struct verdict_shown shown;
    int n;
};

static bool take_shown(const struct store_class_row *r, void *arg)
{
    struct shown_got *g = arg;
    if (!strcmp(r->id, g->id)) {
        g->shown = r->shown;
        g->n++;
    }
    return true;
}

static void test_class_facts_from_columns(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    struct store_record r;
    make_record(&r, "s1", 5, 3);
    free(r.verdict);
    r.verdict = strdup("{\"diagnosis\":{\"id\":\"from-json\"},\"halves\":[{\"passed\":false}]}");
    r.verdict_len = strlen(r.verdict);
    r.shown_known = true;
    snprintf(r.shown.key, sizeof r.shown.key, "mistake:swapped-halves");
    snprintf(r.shown.label, sizeof r.shown.label, "The halves are swapped");
    r.shown.halves[0] = 1;
    r.shown.halves[1] = 0;
    r.shown.halves[2] = -1;
    insert_ok(s, &r);
    struct shown_got g = { .n = 0 };
    snprintf(g.id, sizeof g.id, "%s", r.id);
    store_record_clear(&r);
    struct store_error err;
    assert_int_equal(store_class_rows(s, take_shown, &g, &err), STORE_OK);
    assert_int_equal(g.n, 1);
    assert_string_equal(g.shown.key, "mistake:swapped-halves");
    assert_string_equal(g.shown.label, "The halves are swapped");
    assert_int_equal(g.shown.halves[0], 1);
    assert_int_equal(g.shown.halves[1], 0);
    assert_int_equal(g.shown.halves[2], -1);
    /* a record written with no facts is one with no mistake and no half run */
    make_record(&r, "s1", 6, 3);
    insert_ok(s, &r);
    snprintf(g.id, sizeof g.id, "%s", r.id);
    store_record_clear(&r);
    g.n = 0;
    assert_int_equal(store_class_rows(s, take_shown, &g, &err), STORE_OK);
    assert_int_equal(g.n, 1);
    assert_string_equal(g.shown.key, "");
    assert_int_equal(g.shown.halves[0], -1);
    store_close(s);
}

/* butterfly16 sweeps half = 1, 2, 4, 8: the class view reads back every
 * one of its four marks, the fourth (schema 11's half4) included, as the
 * worker sent them. */
static void test_class_fourth_mark(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    static const int8_t marks[2][EX_MAX_SWEEP] = { { 1, 1, 1, 0 }, { 0, 0, 1, 1 } };
    char ids[2][STORE_ID_SIZE];
    for (int i = 0; i < 2; i++) {
        struct store_record r;
        make_record(&r, "s1", 10 + i, 3);
        free(r.task);
        r.task = strdup("butterfly16");
        r.shown_known = true;
        memcpy(r.shown.halves, marks[i], sizeof r.shown.halves);
        insert_ok(s, &r);
        memcpy(ids[i], r.id, sizeof ids[i]);
        store_record_clear(&r);
    }
    struct store_error err;
    for (int i = 0; i < 2; i++) {
        struct shown_got g = { .n = 0 };
        memcpy(g.id, ids[i], sizeof g.id);
        assert_int_equal(store_class_rows(s, take_shown, &g, &err), STORE_OK);
        assert_int_equal(g.n, 1);
        for (int k = 0; k < EX_MAX_SWEEP; k++)
            assert_int_equal(g.shown.halves[k], marks[i][k]);
    }
    store_close(s);
}

/* ---- Idempotency-Keys (issue 31 item 6) ------------------------------------ */

/* r with the key `key` of `scope`, for a body whose hash is of `body`. */
static void with_key(struct store_record *r, const char *scope, const char *key,
                     const char *body)
{
    r->idem_scope = strdup(scope);
    r->idem_key = strdup(key);
    store_sha256_hex(body, strlen(body), r->idem_body_sha256);
}

static int64_t count_records(struct store *s, const char *student)
{
    struct store_record_list l = { 0 };
    struct store_error err;
    assert_int_equal(store_student_records(s, student, 0, NULL, STORE_MAX_PAGE, &l, &err),
                     STORE_OK);
    int64_t n = (int64_t)l.n;
    store_record_list_clear(&l);
    return n;
}

/* A record whose student has no row (forgotten while the run was graded)
 * is not written: STORE_FORGOTTEN, its key not kept, no orphan; a record
 * of nobody is written as before; in the writer's batch only that record
 * is refused. */
static void test_forgotten_refused(void **state)
{
    char where[1024];
    snprintf(where, sizeof where, "%s", fresh(NULL));
    struct store *s = open_ok(where);
    students_of_records(s);
    struct store_error err;
    struct store_record r, nobody;
    make_record(&r, "s1", 1, 1);
    insert_ok(s, &r);
    store_record_clear(&r);
    assert_int_equal(store_student_forget(s, "s1", NULL, &err), STORE_OK);
    make_record(&r, "s1", 2, 1);
    with_key(&r, "student:s1", "k-late", "body");
    assert_int_equal(store_record_insert(s, &r, &err), STORE_FORGOTTEN);
    assert_int_equal(err.status, STORE_FORGOTTEN);
    assert_string_equal(store_status_to_str(STORE_FORGOTTEN), "student_forgotten");
    assert_int_equal(count_records(s, "s1"), 0);
    struct store_record got = { 0 };
    char body[STORE_SHA256_SIZE];
    assert_int_equal(store_idempotency_find(s, "student:s1", "k-late", 0, body, &got, &err),
                     STORE_NOT_FOUND);
    store_record_clear(&got);
    store_record_clear(&r);
    make_record(&nobody, NULL, 3, 1);
    insert_ok(s, &nobody);
    /* the writer: s2's records go in around s1's refused one */
    struct store_writer_options o = { .queue_capacity = 100, .max_batch = 100 };
    struct store_writer *w = store_writer_start(s, &o);
    struct tally t = { PTHREAD_MUTEX_INITIALIZER, 0, 0, STORE_OK };
    for (int i = 0; i < 3; i++) {
        struct store_record *x = calloc(1, sizeof *x);
        make_record(x, i == 1 ? "s1" : "s2", 10 + i, 1);
        assert_int_equal(store_writer_submit(w, x, written, &t), STORE_WRITER_QUEUED);
    }
    store_writer_stop(w);
    assert_int_equal(t.ok, 2);
    assert_int_equal(t.failed, 1);
    s = open_ok(where);   /* the writer closed its own */
    assert_int_equal(count_records(s, "s1"), 0);
    assert_int_equal(count_records(s, "s2"), 2);
    assert_int_equal(store_record_get(s, nobody.id, NULL, true, &got, &err), STORE_OK);
    store_record_clear(&got);
    store_record_clear(&nobody);
    store_close(s);
}

/* A key is written with its record, in its transaction: a second record
 * with a live key writes nothing (STORE_CONFLICT), and the key names the
 * first; another scope's same key is its own; a key past the window, or
 * whose record is gone, is taken over. */
static void test_idempotency_keys(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    struct store_error err;
    int64_t now = store_now_ms(), day = (int64_t)IDEMPOTENCY_WINDOW_S * 1000;
    struct store_record a, b, got;
    char body[STORE_SHA256_SIZE], want[STORE_SHA256_SIZE];
    make_record(&a, "s1", now, 9);
    with_key(&a, "student:s1", "k-1", "body one");
    insert_ok(s, &a);
    make_record(&b, "s1", now + 1, 2);
    with_key(&b, "student:s1", "k-1", "body one");
    assert_int_equal(store_record_insert(s, &b, &err), STORE_CONFLICT);
    assert_int_equal(count_records(s, "s1"), 1);
    assert_int_equal(store_idempotency_find(s, "student:s1", "k-1", now - day, body, &got, &err),
                     STORE_OK);
    assert_string_equal(got.id, a.id);
    assert_int_equal(got.verdict_len, a.verdict_len);
    store_sha256_hex("body one", 8, want);
    assert_string_equal(body, want);
    store_record_clear(&got);
    store_record_clear(&b);
    /* another student's same key */
    make_record(&b, "s2", now, 9);
    with_key(&b, "student:s2", "k-1", "body one");
    insert_ok(s, &b);
    assert_int_equal(store_idempotency_find(s, "student:s2", "k-1", now - day, body, &got, &err),
                     STORE_OK);
    assert_string_equal(got.id, b.id);
    store_record_clear(&got);
    store_record_clear(&b);
    /* unknown keys and scopes */
    assert_int_equal(store_idempotency_find(s, "student:s3", "k-1", now - day, body, &got, &err),
                     STORE_NOT_FOUND);
    assert_int_equal(store_idempotency_find(s, "student:s1", "k-2", now - day, body, &got, &err),
                     STORE_NOT_FOUND);
    /* past the window: not found, and a new record takes the key */
    assert_int_equal(store_idempotency_find(s, "student:s1", "k-1", now + 1, body, &got, &err),
                     STORE_NOT_FOUND);
    make_record(&b, "s1", now + day + 1, 4);
    with_key(&b, "student:s1", "k-1", "body two");
    insert_ok(s, &b);
    assert_int_equal(store_idempotency_find(s, "student:s1", "k-1", now + 1, body, &got, &err),
                     STORE_OK);
    assert_string_equal(got.id, b.id);
    store_record_clear(&got);
    store_record_clear(&b);
    /* a forgotten student's keys go with their records */
    assert_int_equal(store_student_forget(s, "s2", NULL, &err), STORE_OK);
    assert_int_equal(store_idempotency_find(s, "student:s2", "k-1", now - day, body, &got, &err),
                     STORE_NOT_FOUND);
    /* (a record of theirs now is refused, test_forgotten_refused: back on
     * the roster, their key is free) */
    add_student(s, "s2", "s2", false);
    make_record(&b, "s2", now + 2, 9);
    with_key(&b, "student:s2", "k-1", "body one");
    insert_ok(s, &b);
    store_record_clear(&b);
    /* a record that cannot be written (its id is a record's already)
     * leaves no key behind: the key's row goes with its transaction,
     * which SQLite's insert (OR ROLLBACK) ends itself */
    make_record(&b, "s1", now + 4, 9);
    snprintf(b.id, sizeof b.id, "%s", a.id);
    with_key(&b, "student:s1", "k-9", "body nine");
    assert_int_equal(store_record_insert(s, &b, &err), STORE_CONFLICT);
    assert_int_equal(store_idempotency_find(s, "student:s1", "k-9", now - day, body, &got, &err),
                     STORE_NOT_FOUND);
    store_record_clear(&b);
    make_record(&b, "s1", now + 5, 9);
    with_key(&b, "student:s1", "k-9", "body nine");
    insert_ok(s, &b);   /* and the store goes on */
    store_record_clear(&b);
    /* and a key of no shape is refused */
    make_record(&b, "s1", now + 3, 9);
    with_key(&b, "", "k", "x");
    assert_int_equal(store_record_insert(s, &b, &err), STORE_INVALID);
    store_record_clear(&b);
    store_record_clear(&a);
    store_close(s);
}

/* A store made by every earlier schema version opens, migrated, with its
 * rows: the records', LTI's (as they were kept before they joined the
 * migrations), and the class view's facts of the records already there. */
static void test_earlier_versions_open(void **state)
{
    assert_true(STORE_SCHEMA_VERSION > 1);   /* else there is no earlier version to open */
    for (int v = 1; v < STORE_SCHEMA_VERSION; v++) {
        const char *sql = fixture_sql[v];
        if (!sql)
            fail_msg("no fixture v%d.%s.sql in %s", v, is_pg() ? "pg" : "sqlite", fixtures);
        fresh(NULL);
        if (is_pg()) {
            pg_run("SET client_min_messages = warning; DROP TABLE IF EXISTS secrets");
            pg_run(sql);
        } else {
            sqlite3 *db;
            assert_int_equal(sqlite3_open(sqlite_path(), &db), SQLITE_OK);
            char *msg = NULL;
            if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
                fail_msg("fixture v%d: %s", v, msg);
            sqlite3_close(db);
        }
        struct store *s = open_ok(url);
        assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
        struct store_record r;
        struct store_error err;
        assert_int_equal(store_record_get(s, "00112233445566778899aabbccddeeff", "s1", false, &r,
                                          &err), STORE_OK);
        assert_int_equal(r.source_len, 15);
        assert_memory_equal(r.source, "void main(){}\0\xff", 15);
        assert_int_equal(r.verdict_len, strlen("{\"status\":{\"id\":3,\"description\":\"Accepted\"}}"));
        assert_int_equal(r.seed, 42);
        assert_int_equal(r.points, 9);
        store_record_clear(&r);
        char a[STORE_TOKEN_SIZE], b[STORE_TOKEN_SIZE];
        memset(a, 'a', 64);
        a[64] = '\0';
        memset(b, 'b', 64);
        b[64] = '\0';
        struct store_student st;
        assert_int_equal(store_student_by_token(s, a, &st, &err), STORE_OK);
        assert_string_equal(st.name, "Ada Lovelace");
        store_student_clear(&st);
        assert_int_equal(store_instructor_check(s, b, &err), STORE_OK);
        /* and it takes new records, and what later versions added */
        make_record(&r, "s1", 2, 2);
        insert_ok(s, &r);
        store_record_clear(&r);
        unsigned char key[STORE_SECRET_BYTES];
        assert_int_equal(store_secret(s, "session", key, &err), STORE_OK);
        /* the class view's facts of the records made before version 3,
         * read once from their verdicts by the migration */
        struct shown_seen seen = { 0 };
        assert_int_equal(store_class_rows(s, see_shown, &seen, &err), STORE_OK);
        assert_true(seen.accepted);
        if (v >= 2) {
            /* LTI's tables as store_lti.c made them (lti_schema 2): kept,
             * and the trigger made anew still scores the launched student */
            assert_true(seen.diagnosed);
            int keys = 0;
            assert_int_equal(store_lti_keys_each(s, count_lti_key, &keys, &err), STORE_OK);
            assert_int_equal(keys, 1);
            struct outbox_seen ob = { 0 };
            assert_int_equal(store_lti_outbox_due(s, INT64_MAX / 2, 100, see_outbox, &ob, &err),
                             STORE_OK);
            assert_true(ob.newest_points == 2);   /* the record just made, newest of the pair */
            assert_string_equal(ob.lineitem, "https://p/li/1");
        }
        store_close(s);
        /* the old layout's own version table is gone */
        if (is_pg()) {
            assert_int_equal(pg_count("SELECT 1 FROM pg_tables WHERE tablename = 'lti_schema'"), 0);
        } else {
            sqlite3 *db;
            assert_int_equal(sqlite3_open(sqlite_path(), &db), SQLITE_OK);
            sqlite3_stmt *q;
            assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE "
                                                "name = 'lti_schema'", -1, &q, NULL), SQLITE_OK);
            assert_int_equal(sqlite3_step(q), SQLITE_ROW);
            assert_int_equal(sqlite3_column_int(q, 0), 0);
            sqlite3_finalize(q);
            sqlite3_close(db);
        }
    }
}

static void test_newer_schema_refused(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    store_close(s);
    if (is_pg()) {
        pg_run("UPDATE schema_version SET version = 999");
    } else {
        sqlite3 *db;
        assert_int_equal(sqlite3_open(sqlite_path(), &db), SQLITE_OK);
        assert_int_equal(sqlite3_exec(db, "UPDATE schema_version SET version = 999", NULL, NULL,
                                      NULL), SQLITE_OK);
        sqlite3_close(db);
    }
    struct store_error err;
    assert_int_equal(store_open(url, &s, &err), STORE_TOO_NEW);
    assert_null(s);
    assert_non_null(strstr(err.message, "999"));
}

/* ---- failures: SQLite ------------------------------------------------------------ */

static void test_sqlite_full_then_recovers(void **state)
{
    if (is_pg())
        skip();
    struct store *big = open_ok(fresh(NULL));
    students_of_records(big);
    store_close(big);
    char capped[1100];
    snprintf(capped, sizeof capped, "%s?max_page_count=60", url);
    struct store *s = open_ok(capped);
    struct store_error err;
    enum store_status st = STORE_OK;
    int written_n = 0;
    char *bulk = malloc(8000);
    memset(bulk, 'v', 8000);
    while (st == STORE_OK && written_n < 1000) {
        struct store_record r;
        make_record(&r, "s1", written_n, 1);
        free(r.source);
        r.source = malloc(8000);
        memcpy(r.source, bulk, 8000);
        r.source_len = 8000;
        st = store_record_insert(s, &r, &err);
        store_record_clear(&r);
        if (st == STORE_OK)
            written_n++;
    }
    assert_int_equal(st, STORE_FULL);
    assert_int_equal(err.status, STORE_FULL);
    assert_true(written_n > 0);
    /* space is made by another connection (retention): the same store
     * writes again, without being opened again */
    big = open_ok(url);
    uint64_t deleted;
    assert_int_equal(store_records_delete_before(big, 1000000, &deleted, &err), STORE_OK);
    store_close(big);
    struct store_record r;
    make_record(&r, "s1", 1, 1);
    insert_ok(s, &r);
    store_record_clear(&r);
    free(bulk);
    store_close(s);
}

static void test_sqlite_locked_then_recovers(void **state)
{
    if (is_pg())
        skip();
    struct store *s = open_ok(fresh("?busy_timeout_ms=200"));
    students_of_records(s);
    sqlite3 *other;
    assert_int_equal(sqlite3_open(sqlite_path(), &other), SQLITE_OK);
    assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    struct store_error err;
    struct store_record r;
    make_record(&r, "s1", 1, 1);
    assert_int_equal(store_record_insert(s, &r, &err), STORE_LOCKED);
    assert_string_equal(store_status_to_str(err.status), "locked");
    /* readers do not wait for the writer (WAL) */
    struct store_record got;
    assert_int_equal(store_record_get(s, r.id, NULL, true, &got, &err), STORE_NOT_FOUND);
    sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(other);
    insert_ok(s, &r);
    store_record_clear(&r);
    store_close(s);
}

static void test_sqlite_read_only_then_recovers(void **state)
{
    if (is_pg())
        skip();
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    store_close(s);
    assert_int_equal(chmod(sqlite_path(), 0400), 0);
    s = open_ok(url);    /* reads still work: the server starts and grades */
    struct store_error err;
    assert_int_equal(store_probe(s, &err), STORE_OK);
    struct store_record r;
    make_record(&r, "s1", 1, 1);
    assert_int_equal(store_record_insert(s, &r, &err), STORE_READ_ONLY);
    assert_non_null(strstr(err.message, "readonly"));
    /* the cause gone (the files SQLite made beside it, read-only like
     * the store, too), the same store writes */
    chmod_store(0600);
    insert_ok(s, &r);
    store_record_clear(&r);
    store_close(s);
}

/* The server's reader beside its writer (server/records.c, issue 30
 * defect 1): a reader that opened the file while it was read-only holds
 * no connection once its call ends, so the writer's next write after the
 * file is writable again succeeds (the -shm mapping the two share is not
 * left read-only). */
static void test_sqlite_reader_beside_read_only(void **state)
{
    if (is_pg())
        skip();
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    store_close(s);
    assert_int_equal(chmod(sqlite_path(), 0400), 0);
    struct store *w = open_ok(url), *rd = open_ok(url);
    struct store_error err;
    assert_int_equal(store_probe(rd, &err), STORE_OK);
    struct store_record r;
    make_record(&r, "s1", 1, 1);
    assert_int_equal(store_record_insert(w, &r, &err), STORE_READ_ONLY);
    assert_int_equal(store_probe(rd, &err), STORE_OK);   /* the reader read meanwhile */
    chmod_store(0600);
    insert_ok(w, &r);
    assert_int_equal(store_probe(rd, &err), STORE_OK);
    store_record_clear(&r);
    make_record(&r, "s1", 2, 1);
    insert_ok(w, &r);
    store_record_clear(&r);
    store_close(rd);
    store_close(w);
}

/* A commit completes while a long read is open on the reader's connection
 * (server/records.c gives reads a connection of their own on both
 * backends): the read waits, inside its transaction, for the commit of a
 * record queued on the writer. With one connection for both (the server
 * on SQLite before issue 30) the commit would wait for the read. */
struct read_during {
    struct store_writer *writer;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool committed, asked, seen_in_read;
    enum store_status st;
};

static void committed_cb(const char *id, enum store_status status, const char *reason,
                         void *arg)
{
    (void)id;
    (void)reason;
    struct read_during *d = arg;
    pthread_mutex_lock(&d->lock);
    d->committed = true;
    d->st = status;
    pthread_cond_broadcast(&d->cond);
    pthread_mutex_unlock(&d->lock);
}

static bool hold_read(const struct store_record *r, void *arg)
{
    (void)r;
    struct read_during *d = arg;
    if (d->asked)
        return true;
    d->asked = true;
    struct store_record *rec = calloc(1, sizeof *rec);
    make_record(rec, "s2", 99, 9);
    assert_int_equal(store_writer_submit(d->writer, rec, committed_cb, d), STORE_WRITER_QUEUED);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;   /* a bound on a wait that is never long when it holds */
    pthread_mutex_lock(&d->lock);
    while (!d->committed)
        if (pthread_cond_timedwait(&d->cond, &d->lock, &until) != 0)
            break;
    d->seen_in_read = d->committed;
    pthread_mutex_unlock(&d->lock);
    return true;
}

static void read_call(struct store *s, void *arg)
{
    struct store_error err;
    assert_int_equal(store_records_each(s, INT64_MAX, hold_read, arg, &err), STORE_OK);
}

static void test_commit_during_read(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    for (int i = 0; i < 3; i++) {
        struct store_record r;
        make_record(&r, "s1", i + 1, 1);
        insert_ok(s, &r);
        store_record_clear(&r);
    }
    store_close(s);
    struct store_writer_options o;
    store_writer_options_init(&o);
    struct read_during d = { .lock = PTHREAD_MUTEX_INITIALIZER,
                             .cond = PTHREAD_COND_INITIALIZER };
    d.writer = store_writer_start(open_ok(url), &o);
    struct store_writer *reader = store_writer_start(open_ok(url), &o);
    assert_non_null(d.writer);
    assert_non_null(reader);
    assert_int_equal(store_writer_call(reader, read_call, &d), STORE_WRITER_QUEUED);
    store_writer_stop(reader);   /* runs what is queued: the read */
    store_writer_stop(d.writer);
    assert_true(d.asked);
    assert_true(d.seen_in_read);
    assert_int_equal(d.st, STORE_OK);
}

static void test_sqlite_backup(void **state)
{
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    struct store_error err;
    char path[512];
    snprintf(path, sizeof path, "%s/backup-%d.sqlite", tmpdir, serial);
    if (is_pg()) {
        assert_int_equal(store_backup(s, path, &err), STORE_UNSUPPORTED);
        assert_non_null(strstr(err.message, "pg_dump"));
        store_close(s);
        return;
    }
    struct store_record r;
    make_record(&r, "s1", 1, 1);
    insert_ok(s, &r);
    /* a second connection writes while the backup runs */
    assert_int_equal(store_backup(s, path, &err), STORE_OK);
    assert_int_equal(store_backup(s, path, &err), STORE_CONFLICT);   /* never overwrites */
    store_close(s);
    char copy[600];
    snprintf(copy, sizeof copy, "sqlite:%s", path);
    struct store *b = open_ok(copy);
    struct store_record got;
    assert_int_equal(store_record_get(b, r.id, NULL, true, &got, &err), STORE_OK);
    assert_same_record(&r, &got);
    store_record_clear(&got);
    store_record_clear(&r);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 077, 0);   /* the class's names and code: owner only */
    store_close(b);
}

static void test_sqlite_file_private(void **state)
{
    if (is_pg())
        skip();
    char nested[600];
    snprintf(nested, sizeof nested, "sqlite:%s/state-%d/deeper/records.sqlite", tmpdir, ++serial);
    struct store *s = open_ok(nested);
    store_close(s);
    struct stat sb;
    assert_int_equal(stat(nested + 7, &sb), 0);
    assert_int_equal(sb.st_mode & 077, 0);
}

/* ---- failures: PostgreSQL -------------------------------------------------------- */

static void test_pg_stopped_then_recovers(void **state)
{
    const char *stop = getenv("STORE_TEST_PG_STOP"), *start = getenv("STORE_TEST_PG_START");
    if (!is_pg() || !stop || !start)
        skip();
    struct store *s = open_ok(fresh(NULL));
    students_of_records(s);
    struct store_writer *w = store_writer_start(s, NULL);
    struct tally t = { PTHREAD_MUTEX_INITIALIZER, 0, 0, STORE_OK };
    struct store_record *r = calloc(1, sizeof *r);
    make_record(r, "s1", 1, 1);
    store_writer_submit(w, r, written, &t);
    for (int i = 0; i < 100 && t.ok + t.failed < 1; i++)
        usleep(20000);
    assert_int_equal(t.ok, 1);
    assert_int_equal(system(stop), 0);
    r = calloc(1, sizeof *r);
    make_record(r, "s1", 2, 1);
    store_writer_submit(w, r, written, &t);
    for (int i = 0; i < 500 && t.ok + t.failed < 2; i++)
        usleep(20000);
    assert_int_equal(t.failed, 1);
    assert_int_equal(t.last, STORE_UNAVAILABLE);
    struct store_writer_stats ws;
    store_writer_stats(w, &ws);
    assert_int_equal(ws.last, STORE_UNAVAILABLE);
    assert_int_equal(ws.failed_by[STORE_UNAVAILABLE], 1);
    assert_int_equal(system(start), 0);
    /* recording resumes with no restart, once the store tries to connect
     * again: at most DEFAULT_STORE_CONNECT_S after the last try failed */
    double until = clock_now_ms() + (DEFAULT_STORE_CONNECT_S + 5) * 1000.0;
    for (int k = 3; t.ok < 2 && clock_now_ms() < until; k++) {
        int done = t.ok + t.failed;
        r = calloc(1, sizeof *r);
        make_record(r, "s1", k, 1);
        store_writer_submit(w, r, written, &t);
        for (int i = 0; i < 500 && t.ok + t.failed == done; i++)
            usleep(20000);
        if (t.ok < 2)
            usleep(200000);
    }
    assert_int_equal(t.ok, 2);
    store_writer_stop(w);
}

/* ---- where the store is ---------------------------------------------------------- */

#include "store/store_location.h"

static void test_location(void **state)
{
    struct store_location l;
    char err[256];
    unsetenv("BUTTERFLY_STATE_DIR");
    unsetenv("STATE_DIRECTORY");
    unsetenv("XDG_STATE_HOME");
    setenv("HOME", "/home/u", 1);
    assert_true(store_location_resolve(NULL, NULL, &l, err, sizeof err));
    assert_string_equal(l.url, "sqlite:/home/u/.local/state/butterfly-grader/records.sqlite");
    assert_string_equal(l.from, "HOME");
    setenv("XDG_STATE_HOME", "/x", 1);
    assert_true(store_location_resolve(NULL, NULL, &l, err, sizeof err));
    assert_string_equal(l.url, "sqlite:/x/butterfly-grader/records.sqlite");
    setenv("STATE_DIRECTORY", "/var/lib/butterfly:/var/lib/other", 1);
    assert_true(store_location_resolve(NULL, NULL, &l, err, sizeof err));
    assert_string_equal(l.url, "sqlite:/var/lib/butterfly/records.sqlite");
    assert_string_equal(l.state_dir, "/var/lib/butterfly");
    setenv("BUTTERFLY_STATE_DIR", "/srv/b", 1);
    assert_true(store_location_resolve(NULL, NULL, &l, err, sizeof err));
    assert_string_equal(l.from, "BUTTERFLY_STATE_DIR");
    assert_true(store_location_resolve(NULL, "/opt/s", &l, err, sizeof err));
    assert_string_equal(l.url, "sqlite:/opt/s/records.sqlite");
    assert_string_equal(l.from, "--state-dir");
    assert_true(store_location_resolve("none", "/opt/s", &l, err, sizeof err));
    assert_string_equal(l.url, "none");
    assert_string_equal(l.state_dir, "");
    unsetenv("BUTTERFLY_STATE_DIR");
    unsetenv("STATE_DIRECTORY");
    unsetenv("XDG_STATE_HOME");
    unsetenv("HOME");
    assert_false(store_location_resolve(NULL, NULL, &l, err, sizeof err));
    assert_non_null(strstr(err, "--state-dir"));
}

static void test_names(void **state)
{
    for (int i = 0; i < STORE_NSTATUSES; i++)
        assert_non_null(store_status_to_str((enum store_status)i));
    assert_string_equal(store_status_to_str(STORE_FULL), "full");
    assert_string_equal(store_status_to_str(STORE_READ_ONLY), "read_only");
    assert_string_equal(store_kind_to_str(STORE_KIND_POSTGRES), "postgresql");
    char a[STORE_ID_SIZE], b[STORE_ID_SIZE];
    assert_true(store_new_id(a));
    assert_true(store_new_id(b));
    assert_int_equal(strlen(a), 32);
    assert_string_not_equal(a, b);
    assert_int_equal(strspn(a, "0123456789abcdef"), 32);
}

static void test_display_url_hides_password(void **state)
{
    if (!is_pg())
        skip();
    /* the test cluster's URL carries a password (never checked there) */
    assert_non_null(strstr(backend, ":secret@"));
    struct store *s = open_ok(fresh(NULL));
    assert_null(strstr(store_display_url(s), "secret"));
    assert_non_null(strstr(store_display_url(s), ":***@"));
    store_close(s);
}

/* Root ignores file permissions: the suite runs as nobody. */
static void become_nobody(void)
{
    if (geteuid() != 0)
        return;
    struct passwd *pw = getpwnam("nobody");
    if (!pw || setgroups(0, NULL) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0) {
        fprintf(stderr, "test_store: cannot become nobody\n");
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_store sqlite|postgresql://... FIXTURES\n");
        return 64;
    }
    backend = argv[1];
    fixtures = argv[2];
    read_fixtures();
    if (!is_pg())
        become_nobody();
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_store.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_location),
        cmocka_unit_test(test_open_and_reopen),
        cmocka_unit_test(test_record_round_trip),
        cmocka_unit_test(test_scoping),
        cmocka_unit_test(test_pages_newest_first),
        cmocka_unit_test(test_each_until),
        cmocka_unit_test(test_batch_all_or_none),
        cmocka_unit_test(test_invalid_records),
        cmocka_unit_test(test_students_and_tokens),
        cmocka_unit_test(test_students_put_all_or_none),
        cmocka_unit_test(test_tokens_are_hashed),
        cmocka_unit_test(test_instructor),
        cmocka_unit_test(test_credentials),
        cmocka_unit_test(test_export_and_forget),
        cmocka_unit_test(test_retention),
        cmocka_unit_test(test_class_secret_and_roster),
        cmocka_unit_test(test_guest_names),
        cmocka_unit_test(test_announced_url),
        cmocka_unit_test(test_class_due),
        cmocka_unit_test(test_choose_per_exercise),
        cmocka_unit_test(test_writer_batches),
        cmocka_unit_test(test_writer_bounded_queue),
        cmocka_unit_test(test_writer_isolates_bad_rows),
        cmocka_unit_test(test_never_across_fork),
        cmocka_unit_test(test_class_facts_from_columns),
        cmocka_unit_test(test_class_fourth_mark),
        cmocka_unit_test(test_idempotency_keys),
        cmocka_unit_test(test_forgotten_refused),
        cmocka_unit_test(test_earlier_versions_open),
        cmocka_unit_test(test_newer_schema_refused),
        cmocka_unit_test(test_sqlite_full_then_recovers),
        cmocka_unit_test(test_sqlite_locked_then_recovers),
        cmocka_unit_test(test_sqlite_read_only_then_recovers),
        cmocka_unit_test(test_sqlite_reader_beside_read_only),
        cmocka_unit_test(test_identity_changes),
        cmocka_unit_test(test_commit_during_read),
        cmocka_unit_test(test_sqlite_backup),
        cmocka_unit_test(test_sqlite_file_private),
        cmocka_unit_test(test_pg_stopped_then_recovers),
        cmocka_unit_test(test_display_url_hides_password),
    };
    int failed = cmocka_run_group_tests_name(is_pg() ? "store_pg" : "store", tests, NULL, NULL);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_store: could not remove %s\n", tmpdir);
    return failed ? 1 : 0;
}
