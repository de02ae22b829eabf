/*
 * test_store_lti.c - LTI's tables (grader/store/store_lti.h) on a SQLite
 * store: keys retired and pruned, a login's state used once, nonces,
 * who a launch makes, and the outbox the records' trigger fills: a score
 * per record of a launched student, in the record's own transaction,
 * the newest per pair carrying the best so far, sent in order; each
 * resource link's line item, scored from the launch a record names
 * (issue 29 item 6), version 1's one line item per student migrated, and a
 * course's roster (NRPS: asked, claimed once, kept, shown, forgotten).
 * (On PostgreSQL the lti_pg suite runs the whole flow.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "store/store.h"
#include "store/store_lti.h"
#include "store/store_schema.h"

static char tmpdir[] = "/tmp/test_store_lti.XXXXXX";
static int serial;

static struct store *fresh(void)
{
    char url[300];
    snprintf(url, sizeof url, "sqlite:%s/s%d.sqlite", tmpdir, ++serial);
    struct store *s = NULL;
    struct store_error e;
    assert_int_equal(store_open(url, &s, &e), STORE_OK);   /* LTI's tables are the migrations' */
    return s;
}

/* Rows of table whose sub is sub, read straight from the store made last
 * by fresh() (what a copy of the file would show). */
static int rows_with_sub(const char *table, const char *sub)
{
    char path[300], q[200];
    snprintf(path, sizeof path, "%s/s%d.sqlite", tmpdir, serial);
    snprintf(q, sizeof q, "SELECT COUNT(*) FROM %s WHERE sub = ?1", table);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int n = -1;
    if (sqlite3_open(path, &db) == SQLITE_OK && sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_bind_text(st, 1, sub, -1, SQLITE_STATIC) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

static bool count_key(const struct store_lti_key *k, void *arg)
{
    int *n = arg;
    if (k->retired_ms == 0)
        n[1]++;
    n[0]++;
    return true;
}

static void test_keys(void **state)
{
    (void)state;
    struct store *s = fresh();
    struct store_error e;
    char kid[STORE_LTI_KID_SIZE];
    assert_int_equal(store_lti_key_make(s, true, kid, &e), STORE_OK);
    assert_int_equal(strlen(kid), 16);
    assert_int_equal(store_lti_key_make(s, true, kid, &e), STORE_OK);
    assert_string_equal(kid, "");   /* a key exists: a second start makes none */
    assert_int_equal(store_lti_key_make(s, false, kid, &e), STORE_OK);   /* rotate */
    int n[2] = { 0, 0 };
    assert_int_equal(store_lti_keys_each(s, count_key, n, &e), STORE_OK);
    assert_int_equal(n[0], 2);
    assert_int_equal(n[1], 1);   /* one in use, the other retired */
    assert_int_equal(store_lti_keys_prune(s, store_now_ms() + 1000, &e), STORE_OK);
    n[0] = n[1] = 0;
    assert_int_equal(store_lti_keys_each(s, count_key, n, &e), STORE_OK);
    assert_int_equal(n[0], 1);   /* the retired one is gone, the one in use stays */
    assert_int_equal(n[1], 1);
    store_close(s);
}

static void test_state_once_and_nonces(void **state)
{
    (void)state;
    struct store *s = fresh();
    struct store_error e;
    struct store_lti_state st = { .issuer = "https://p", .client_id = "c",
                                  .target_link_uri = "https://t/lti/launch" };
    assert_true(store_new_token(st.state));
    assert_true(store_new_token(st.nonce));
    int64_t now = store_now_ms();
    st.expires_ms = now + 600000;
    assert_int_equal(store_lti_state_put(s, &st, &e), STORE_OK);
    struct store_lti_state got;
    assert_int_equal(store_lti_state_take(s, st.state, now, &got, &e), STORE_OK);
    assert_string_equal(got.nonce, st.nonce);
    assert_string_equal(got.target_link_uri, "https://t/lti/launch");
    store_lti_state_clear(&got);
    assert_int_equal(store_lti_state_take(s, st.state, now, &got, &e), STORE_NOT_FOUND);
    /* an expired one is not found, and gone */
    assert_true(store_new_token(st.state));
    st.expires_ms = now - 1;
    assert_int_equal(store_lti_state_put(s, &st, &e), STORE_OK);
    assert_int_equal(store_lti_state_take(s, st.state, now, &got, &e), STORE_NOT_FOUND);
    assert_int_equal(store_lti_nonce_use(s, "https://p", "n1", now + 1000, &e), STORE_OK);
    assert_int_equal(store_lti_nonce_use(s, "https://p", "n1", now + 1000, &e), STORE_CONFLICT);
    assert_int_equal(store_lti_nonce_use(s, "https://q", "n1", now + 1000, &e), STORE_OK);
    store_close(s);
}

/* A record of student with points (of 9), graded at ms. */
static struct store_record *record(const char *student, int points, int64_t ms)
{
    struct store_record *r = calloc(1, sizeof *r);
    assert_true(store_new_id(r->id));
    r->task = strdup("butterfly");
    r->student = student ? strdup(student) : NULL;
    r->received_ms = ms;
    r->graded_ms = ms + 1;
    r->source = strdup("return 0.0;");
    r->source_len = strlen(r->source);
    store_sha256_hex(r->source, r->source_len, r->sha256);
    r->status = points == 9 ? 3 : 4;
    r->points = points;
    r->max_points = 9;
    r->verdict = strdup("{}");
    r->verdict_len = 2;
    r->grader_version = strdup("0.1.0");
    return r;
}

struct seen {
    struct store_lti_score v[8];
    char sub[8][32];
    char lineitem[8][64];   /* v[i].lineitem is valid during the callback only */
    size_t n;
};

static bool take(const struct store_lti_score *sc, void *arg)
{
    struct seen *x = arg;
    if (x->n < 8) {
        x->v[x->n] = *sc;
        snprintf(x->sub[x->n], sizeof x->sub[x->n], "%s", sc->sub);
        snprintf(x->lineitem[x->n], sizeof x->lineitem[x->n], "%s", sc->lineitem);
        x->n++;
    }
    return true;
}

static bool take_unsent(const struct store_lti_unsent *u, void *arg)
{
    int *n = arg;
    n[0]++;
    n[1] += u->failed;
    assert_non_null(strstr(u->error, "unknown user"));
    return true;
}

static void test_launch_and_outbox(void **state)
{
    (void)state;
    struct store *s = fresh();
    struct store_error e;
    char ada[STORE_ID_SIZE], klass[STORE_ID_SIZE], k2[STORE_ID_SIZE], bob[STORE_ID_SIZE],
        again[STORE_ID_SIZE], name[64];
    struct store_lti_launch l = { .issuer = "https://p", .client_id = "c", .sub = "s-ada",
                                  .name = "Ada", .email = "", .context_id = "course-1",
                                  .context_title = "FFT", .deployment_id = "d",
                                  .resource_link = "rl-1", .lineitem = "https://p/li/1" };
    assert_int_equal(store_lti_launch(s, &l, ada, klass, NULL, name, sizeof name, &e), STORE_OK);
    assert_string_equal(name, "Ada");
    /* a later launch naming no one keeps the name; the same (issuer, sub) is the same student */
    l.name = "";
    assert_int_equal(store_lti_launch(s, &l, again, k2, NULL, name, sizeof name, &e), STORE_OK);
    assert_string_equal(again, ada);
    assert_string_equal(k2, klass);
    assert_string_equal(name, "Ada");
    /* another context is another class; no personal data at all still works */
    struct store_lti_launch b = { .issuer = "https://p", .client_id = "c", .sub = "s-bob",
                                  .name = "", .email = "", .context_id = "course-2",
                                  .context_title = "", .deployment_id = "d",
                                  .resource_link = "rl-2", .lineitem = NULL };
    assert_int_equal(store_lti_launch(s, &b, bob, k2, NULL, name, sizeof name, &e), STORE_OK);
    assert_string_not_equal(k2, klass);
    assert_int_equal(strncmp(name, "Learner ", 8), 0);

    /* records: Ada's fill the outbox (in the records' own commit), Bob's
     * (no line item) and nobody's do not */
    int64_t t = store_now_ms();
    struct store_record *r[4] = { record(ada, 4, t), record(ada, 9, t + 10),
                                  record(ada, 2, t + 20), record(bob, 9, t + 30) };
    assert_int_equal(store_records_insert(s, (const struct store_record *const *)r, 4, &e),
                     STORE_OK);
    struct store_record *nobody = record(NULL, 9, t + 40);
    assert_int_equal(store_record_insert(s, nobody, &e), STORE_OK);
    int64_t waiting, sent, failed;
    assert_int_equal(store_lti_outbox_counts(s, &waiting, &sent, &failed, &e), STORE_OK);
    assert_int_equal(waiting, 3);
    /* due: only the newest of the pair, with the best so far */
    struct seen x = { .n = 0 };
    assert_int_equal(store_lti_outbox_due(s, store_now_ms(), 16, take, &x, &e), STORE_OK);
    assert_int_equal(x.n, 1);
    assert_string_equal(x.sub[0], "s-ada");
    assert_int_equal(x.v[0].points, 2);
    assert_int_equal(x.v[0].best_points, 9);
    assert_int_equal(x.v[0].last_timestamp_ms, 0);
    /* one sender takes it; a second (another instance) finds it taken */
    bool mine = false;
    assert_int_equal(store_lti_outbox_claim(s, x.v[0].seq, x.v[0].next_ms, store_now_ms() + 30000,
                                            &mine, &e), STORE_OK);
    assert_true(mine);
    assert_int_equal(store_lti_outbox_claim(s, x.v[0].seq, x.v[0].next_ms, store_now_ms() + 30000,
                                            &mine, &e), STORE_OK);
    assert_false(mine);
    /* a failure waits for its next try, then sending supersedes the older ones */
    assert_int_equal(store_lti_outbox_retry(s, x.v[0].seq, store_now_ms() + 60000, false,
                                            "down", &e), STORE_OK);
    struct seen y = { .n = 0 };
    assert_int_equal(store_lti_outbox_due(s, store_now_ms(), 16, take, &y, &e), STORE_OK);
    assert_int_equal(y.n, 0);
    assert_int_equal(store_lti_outbox_sent(s, x.v[0].seq, t + 99, &e), STORE_OK);
    assert_int_equal(store_lti_outbox_counts(s, &waiting, &sent, &failed, &e), STORE_OK);
    assert_int_equal(waiting, 0);
    assert_int_equal(sent, 3);
    /* the next score knows the last timestamp sent */
    struct store_record *later = record(ada, 5, t + 200);
    assert_int_equal(store_record_insert(s, later, &e), STORE_OK);
    struct seen z = { .n = 0 };
    assert_int_equal(store_lti_outbox_due(s, store_now_ms(), 16, take, &z, &e), STORE_OK);
    assert_int_equal(z.n, 1);
    assert_int_equal(z.v[0].last_timestamp_ms, t + 99);
    assert_int_equal(z.v[0].best_points, 9);
    assert_int_equal(store_lti_outbox_retry(s, z.v[0].seq, 0, true, "unknown user", &e),
                     STORE_OK);
    assert_int_equal(store_lti_outbox_counts(s, &waiting, &sent, &failed, &e), STORE_OK);
    assert_int_equal(failed, 1);
    int unsent[2] = { 0, 0 };
    assert_int_equal(store_lti_unsent_each(s, take_unsent, unsent, &e), STORE_OK);
    assert_int_equal(unsent[0], 1);   /* Ada, whose newest score failed */
    assert_int_equal(unsent[1], 1);
    /* forgotten: the LTI rows go too (what was last sent of their scores
     * included: it names their platform id), and a new launch is a new
     * student */
    assert_true(rows_with_sub("lti_sent", "s-ada") > 0);
    assert_int_equal(store_student_forget(s, ada, NULL, &e), STORE_OK);
    assert_int_equal(rows_with_sub("lti_sent", "s-ada"), 0);
    assert_int_equal(rows_with_sub("lti_users", "s-ada"), 0);
    unsent[0] = 0;
    assert_int_equal(store_lti_unsent_each(s, take_unsent, unsent, &e), STORE_OK);
    assert_int_equal(unsent[0], 0);
    l.name = "Ada";
    assert_int_equal(store_lti_launch(s, &l, again, k2, NULL, name, sizeof name, &e), STORE_OK);
    assert_string_not_equal(again, ada);
    for (int i = 0; i < 4; i++)
        store_record_free(r[i]);
    store_record_free(nobody);
    store_record_free(later);
    store_close(s);
}

struct lineitems {
    char v[8][64];
    size_t n;
};

static bool take_lineitem(const struct store_lti_score *sc, void *arg)
{
    struct lineitems *x = arg;
    if (x->n < 8)
        snprintf(x->v[x->n++], sizeof x->v[0], "%s", sc->lineitem);
    return true;
}

/* The line items of the scores waiting now, oldest first; marks them sent. */
static size_t waiting_lineitems(struct store *s, struct lineitems *x)
{
    struct store_error e;
    struct seen all = { .n = 0 };
    x->n = 0;
    assert_int_equal(store_lti_outbox_due(s, store_now_ms(), 16, take_lineitem, x, &e),
                     STORE_OK);
    assert_int_equal(store_lti_outbox_due(s, store_now_ms(), 16, take, &all, &e), STORE_OK);
    for (size_t i = 0; i < all.n; i++)
        assert_int_equal(store_lti_outbox_sent(s, all.v[i].seq, store_now_ms(), &e), STORE_OK);
    return x->n;
}

static void insert_linked(struct store *s, const char *student, int points, int64_t link)
{
    struct store_error e;
    struct store_record *r = record(student, points, store_now_ms());
    r->lti_link = link;
    if (store_record_insert(s, r, &e) != STORE_OK)
        fail_msg("insert of %s's record: %s", student, e.message);
    store_record_free(r);
}

/* Inserts a record of student at ms; whether the insert marked it late. */
static bool inserted_late(struct store *s, const char *student, int64_t ms)
{
    struct store_error e;
    struct store_record *r = record(student, 5, ms);
    bool late = false;
    r->late_out = &late;
    assert_int_equal(store_record_insert(s, r, &e), STORE_OK);
    store_record_free(r);
    return late;
}

/* A class's due date (butterfly-admin class due) beside LTI's: the
 * student's link's due date wins where its launch gave one; a link
 * without one, and a student of no link, are late after the class's. */
static void test_class_due_beside_links(void **state)
{
    (void)state;
    struct store *s = fresh();
    struct store_error e;
    char ada[STORE_ID_SIZE], bob[STORE_ID_SIZE], klass[STORE_ID_SIZE], name[64];
    struct store_lti_launch l = { .issuer = "https://p", .client_id = "c", .sub = "s-ada",
                                  .name = "Ada", .email = "", .context_id = "course-1",
                                  .context_title = "FFT", .deployment_id = "d",
                                  .resource_link = "rl-1", .lineitem = "https://p/li/1",
                                  .due_ms = 20000 };
    assert_int_equal(store_lti_launch(s, &l, ada, klass, NULL, name, sizeof name, &e), STORE_OK);
    struct store_lti_launch b = l;
    b.sub = "s-bob";
    b.name = "Bob";
    b.resource_link = "rl-2";
    b.due_ms = 0;
    assert_int_equal(store_lti_launch(s, &b, bob, klass, NULL, name, sizeof name, &e), STORE_OK);
    assert_int_equal(store_class_due_set(s, 10000, &e), STORE_OK);
    /* a roster student, never launched (a record's student has a row) */
    struct store_student carl = { .id = (char *)"roster-carl", .name = (char *)"Carl",
                                  .section = (char *)"", .email = (char *)"", .verified = true };
    assert_int_equal(store_student_put(s, &carl, NULL, &e), STORE_OK);
    assert_false(inserted_late(s, ada, 15000));   /* her link's date, not the class's */
    assert_true(inserted_late(s, ada, 25000));
    assert_true(inserted_late(s, bob, 15000));    /* his link has none: the class's */
    assert_false(inserted_late(s, bob, 9000));
    assert_true(inserted_late(s, "roster-carl", 15000));   /* no link at all */
    assert_false(inserted_late(s, "roster-carl", 5000));
    assert_false(inserted_late(s, NULL, 15000));   /* nobody signed in: nobody's due date */
    store_close(s);
}

/* A record after its link's due date for that student is late, in the
 * outbox too (LTI's trigger on the records, on SQLite through the view
 * lti_record_scores since version 9): the score sent is the late one's,
 * with the best on-time and late points beside it. */
static void test_late_records(void **state)
{
    (void)state;
    struct store *s = fresh();
    struct store_error e;
    char cy[STORE_ID_SIZE], klass[STORE_ID_SIZE], name[64];
    int64_t t = store_now_ms();
    struct store_lti_launch l = { .issuer = "https://p", .client_id = "c", .sub = "s-cy",
                                  .name = "Cy", .email = "", .context_id = "course-3",
                                  .context_title = "", .deployment_id = "d",
                                  .resource_link = "rl-3", .lineitem = "https://p/li/3",
                                  .due_ms = t + 15 };
    assert_int_equal(store_lti_launch(s, &l, cy, klass, NULL, name, sizeof name, &e), STORE_OK);
    struct store_record *r[2] = { record(cy, 4, t), record(cy, 7, t + 20) };
    assert_int_equal(store_records_insert(s, (const struct store_record *const *)r, 2, &e),
                     STORE_OK);
    struct seen x = { .n = 0 };
    assert_int_equal(store_lti_outbox_due(s, store_now_ms(), 16, take, &x, &e), STORE_OK);
    assert_int_equal(x.n, 1);
    assert_string_equal(x.sub[0], "s-cy");
    assert_true(x.v[0].late);
    assert_int_equal(x.v[0].points, 7);
    assert_int_equal(x.v[0].best_points, 4);
    assert_int_equal(x.v[0].best_late_points, 7);
    store_record_free(r[0]);
    store_record_free(r[1]);
    store_close(s);
}

/* Two resource links of one course naming two exercises (custom
 * exercise), one student launched from both: each record scores on its
 * own exercise's line item only, whichever link its page carried; a
 * record of an exercise no link names scores nowhere; the late mark is
 * the own link's due date's. */
static void test_scores_per_exercise(void **state)
{
    (void)state;
    struct store *s = fresh();
    struct store_error e;
    char dee[STORE_ID_SIZE], klass[STORE_ID_SIZE], name[64];
    int64_t t = store_now_ms(), fly = 0, bits = 0;
    struct store_lti_launch l = { .issuer = "https://p", .client_id = "c", .sub = "s-dee",
                                  .name = "Dee", .email = "", .context_id = "course-4",
                                  .context_title = "", .deployment_id = "d",
                                  .resource_link = "rl-fly", .lineitem = "https://p/li/fly" };
    assert_int_equal(store_lti_launch(s, &l, dee, klass, &fly, name, sizeof name, &e), STORE_OK);
    l.resource_link = "rl-bits";
    l.lineitem = "https://p/li/bits";
    l.exercise = "bit_reversal";
    l.due_ms = t - 1000;   /* bit_reversal's was due already; the butterfly's is not */
    assert_int_equal(store_lti_launch(s, &l, dee, klass, &bits, name, sizeof name, &e), STORE_OK);
    assert_true(fly > 0 && bits > 0 && fly != bits);
    /* the latest launch is bit_reversal's: a butterfly record still
     * scores on the butterfly's line item, and is not late */
    struct store_record *r[4] = { record(dee, 5, t), record(dee, 7, t + 1),
                                  record(dee, 9, t + 2), record(dee, 3, t + 3) };
    free(r[1]->task);
    r[1]->task = strdup("bit_reversal");
    r[2]->lti_link = bits;   /* a butterfly record from bit_reversal's page */
    free(r[3]->task);
    r[3]->task = strdup("twiddle");   /* no link names it */
    bool late[4] = { false, false, false, false };
    for (int i = 0; i < 4; i++) {
        r[i]->late_out = &late[i];
        assert_int_equal(store_record_insert(s, r[i], &e), STORE_OK);
    }
    assert_false(late[0]);
    assert_true(late[1]);
    assert_false(late[2]);
    assert_false(late[3]);
    struct seen x = { .n = 0 };
    assert_int_equal(store_lti_outbox_due(s, store_now_ms(), 16, take, &x, &e), STORE_OK);
    int on_fly = 0, on_bits = 0;
    for (size_t i = 0; i < x.n; i++) {
        if (!strcmp(x.lineitem[i], "https://p/li/fly")) {
            on_fly++;
            assert_true(x.v[i].points == 5 || x.v[i].points == 9);
        } else {
            assert_string_equal(x.lineitem[i], "https://p/li/bits");
            assert_int_equal(x.v[i].points, 7);
            assert_true(x.v[i].late);
            on_bits++;
        }
    }
    assert_int_equal(on_bits, 1);
    assert_true(on_fly >= 1);   /* the newest of a line item's is what is due */
    assert_int_equal(rows_with_sub("lti_outbox", "s-dee"), 3);   /* twiddle's: none */
    for (int i = 0; i < 4; i++)
        store_record_free(r[i]);
    store_close(s);
}

static void test_line_item_per_resource_link(void **state)
{
    (void)state;
    struct store *s = fresh();
    struct store_error e;
    char ada[STORE_ID_SIZE], bob[STORE_ID_SIZE], klass[STORE_ID_SIZE], name[64];
    int64_t a1 = 0, a2 = 0, b3 = 0, again = 0;
    /* Ada from course 1's assignment, then from course 2's */
    struct store_lti_launch l = { .issuer = "https://p", .client_id = "c", .sub = "s-ada",
                                  .name = "Ada", .email = "", .context_id = "course-1",
                                  .context_title = "", .deployment_id = "d",
                                  .resource_link = "rl-1", .lineitem = "https://p/li/1" };
    assert_int_equal(store_lti_launch(s, &l, ada, klass, &a1, name, sizeof name, &e), STORE_OK);
    l.context_id = "course-2";
    l.resource_link = "rl-2";
    l.lineitem = "https://p/li/2";
    assert_int_equal(store_lti_launch(s, &l, ada, klass, &a2, name, sizeof name, &e), STORE_OK);
    assert_true(a1 > 0 && a2 > 0 && a1 != a2);
    /* the same link again is the same link */
    l.context_id = "course-1";
    l.resource_link = "rl-1";
    l.lineitem = "https://p/li/1";
    assert_int_equal(store_lti_launch(s, &l, ada, klass, &again, name, sizeof name, &e),
                     STORE_OK);
    assert_int_equal(again, a1);
    /* Bob from a third link */
    struct store_lti_launch b = { .issuer = "https://p", .client_id = "c", .sub = "s-bob",
                                  .name = "Bob", .email = "", .context_id = "course-3",
                                  .context_title = "", .deployment_id = "d",
                                  .resource_link = "rl-3", .lineitem = "https://p/li/3" };
    assert_int_equal(store_lti_launch(s, &b, bob, klass, &b3, name, sizeof name, &e), STORE_OK);
    /* each record to the line item of the link it names */
    struct lineitems x;
    insert_linked(s, ada, 9, a2);
    assert_int_equal(waiting_lineitems(s, &x), 1);
    assert_string_equal(x.v[0], "https://p/li/2");
    insert_linked(s, ada, 3, a1);
    assert_int_equal(waiting_lineitems(s, &x), 1);
    assert_string_equal(x.v[0], "https://p/li/1");
    /* none named: the latest launch (course 1's, launched again last) */
    insert_linked(s, ada, 4, 0);
    assert_int_equal(waiting_lineitems(s, &x), 1);
    assert_string_equal(x.v[0], "https://p/li/1");
    /* a link she was never launched from scores nothing, wherever it came from */
    insert_linked(s, ada, 9, b3);
    assert_int_equal(waiting_lineitems(s, &x), 0);
    /* a later launch of the link without the grades claim: its scores stop */
    l.lineitem = NULL;
    assert_int_equal(store_lti_launch(s, &l, ada, klass, &again, name, sizeof name, &e),
                     STORE_OK);
    insert_linked(s, ada, 9, a1);
    assert_int_equal(waiting_lineitems(s, &x), 0);
    insert_linked(s, ada, 9, a2);   /* course 2's still are */
    assert_int_equal(waiting_lineitems(s, &x), 1);
    assert_string_equal(x.v[0], "https://p/li/2");
    /* forgotten: the launches go with the student */
    assert_int_equal(store_student_forget(s, ada, NULL, &e), STORE_OK);
    /* and a record of hers that comes after (graded while forget ran) is
     * not written at all: nothing to score */
    struct store_record *late = record(ada, 9, store_now_ms());
    late->lti_link = a2;
    assert_int_equal(store_record_insert(s, late, &e), STORE_FORGOTTEN);
    store_record_free(late);
    assert_int_equal(waiting_lineitems(s, &x), 0);
    store_close(s);
}

/* The members of each class as store_lti_members_each lists them, as
 * "class:student" lines sorted (a student listed twice is once). */
struct members_seen {
    char lines[32][80];
    int n;
};

static bool see_member(const char *klass, const char *student, void *arg)
{
    struct members_seen *m = arg;
    if (!student)
        return true;
    char line[80];
    snprintf(line, sizeof line, "%.8s:%s", klass, student);
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->lines[i], line))
            return true;
    if (m->n < 32)
        snprintf(m->lines[m->n++], sizeof m->lines[0], "%s", line);
    return true;
}

static bool has_member(struct store *s, const char *klass, const char *student)
{
    struct members_seen m = { .n = 0 };
    struct store_error e;
    assert_int_equal(store_lti_members_each(s, see_member, &m, &e), STORE_OK);
    char line[80];
    snprintf(line, sizeof line, "%.8s:%s", klass, student);
    for (int i = 0; i < m.n; i++)
        if (!strcmp(m.lines[i], line))
            return true;
    return false;
}

static int count_learners(struct store *s, const char *klass)
{
    struct members_seen m = { .n = 0 };
    struct store_error e;
    assert_int_equal(store_lti_members_each(s, see_member, &m, &e), STORE_OK);
    int n = 0;
    for (int i = 0; i < m.n; i++)
        n += !strncmp(m.lines[i], klass, 8);
    return n;
}

struct due_seen {
    int n;
    char klass[STORE_ID_SIZE];
    int64_t next_ms;
};

static bool see_due(const struct store_lti_roster_due *d, void *arg)
{
    struct due_seen *x = arg;
    x->n++;
    snprintf(x->klass, sizeof x->klass, "%s", d->class_id);
    x->next_ms = d->next_ms;
    return true;
}

struct roster_seen {
    int state;
    int64_t learners;
    char message[200];
};

static bool see_roster(const struct store_lti_roster *r, void *arg)
{
    struct roster_seen *x = arg;
    x->state = (int)r->state;
    x->learners = r->learners;
    snprintf(x->message, sizeof x->message, "%s", r->message);
    return true;
}

static struct due_seen due_now(struct store *s)
{
    struct due_seen d = { 0 };
    struct store_error e;
    assert_int_equal(store_lti_roster_due(s, store_now_ms(), 8, see_due, &d, &e), STORE_OK);
    return d;
}

/* A course's roster: asked for by a launch, claimed by one reader, kept
 * (a whole read replaces it, a partial one adds), shown (active
 * learners in, inactive and teaching members out even when they launched),
 * and forgotten with the student. */
static void test_roster(void **state)
{
    (void)state;
    struct store *s = fresh();
    struct store_error e;
    char ada[STORE_ID_SIZE], ta[STORE_ID_SIZE], klass[STORE_ID_SIZE], name[64];
    struct store_lti_launch l = { .issuer = "https://p", .client_id = "c", .sub = "s-ada",
                                  .name = "Ada", .email = "", .context_id = "course-1",
                                  .context_title = "FFT", .deployment_id = "d",
                                  .resource_link = "rl-1", .lineitem = NULL };
    assert_int_equal(store_lti_launch(s, &l, ada, klass, NULL, name, sizeof name, &e), STORE_OK);
    l.sub = "s-ta";
    l.name = "Tess";
    assert_int_equal(store_lti_launch(s, &l, ta, klass, NULL, name, sizeof name, &e), STORE_OK);
    /* the first launch with the claim asks; a claim takes it once */
    assert_int_equal(due_now(s).n, 0);
    assert_int_equal(store_lti_roster_ask(s, klass, "https://p", "c", "https://p/m", false, &e),
                     STORE_OK);
    struct due_seen d = due_now(s);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.klass, klass);
    bool claimed = false;
    int64_t later = store_now_ms() + 300000;
    assert_int_equal(store_lti_roster_claim(s, klass, d.next_ms, later, &claimed, &e), STORE_OK);
    assert_true(claimed);
    assert_int_equal(store_lti_roster_claim(s, klass, d.next_ms, later, &claimed, &e), STORE_OK);
    assert_false(claimed);   /* another reader's: taken */
    /* a learner's launch asks no more; an instructor's does, due at next_ms */
    assert_int_equal(store_lti_roster_ask(s, klass, "https://p", "c", "https://p/m", false, &e),
                     STORE_OK);
    assert_int_equal(due_now(s).n, 0);
    assert_int_equal(store_lti_roster_ask(s, klass, "https://p", "c", "https://p/m", true, &e),
                     STORE_OK);
    assert_int_equal(due_now(s).n, 0);   /* not before next_ms */
    struct due_seen at = { 0 };
    assert_int_equal(store_lti_roster_due(s, later, 8, see_due, &at, &e), STORE_OK);
    assert_int_equal(at.n, 1);
    /* a whole read: Ada active, Tess teaching, Sil never launched, Gone inactive and new */
    struct store_lti_roster_member m[] = {
        { "s-ada", "Ada Lovelace", true }, { "s-ta", "Tess", false },
        { "s-sil", "", true }, { "s-gone", "Gone", false },
    };
    assert_int_equal(store_lti_roster_put(s, klass, "https://p", STORE_ROSTER_READ, "", m, 4,
                                          &e), STORE_OK);
    assert_true(has_member(s, klass, ada));
    assert_false(has_member(s, klass, ta));   /* launched as a learner, teaching in the roster */
    assert_int_equal(count_learners(s, klass), 2);
    struct roster_seen r = { 0 };
    assert_int_equal(store_lti_rosters_each(s, see_roster, &r, &e), STORE_OK);
    assert_int_equal(r.state, STORE_ROSTER_READ);
    assert_int_equal(r.learners, 2);
    /* the roster's name wins; one with none is a Learner and a hash */
    struct store_student st;
    assert_int_equal(store_student_get(s, ada, &st, &e), STORE_OK);
    assert_string_equal(st.name, "Ada Lovelace");
    store_student_clear(&st);
    /* the never-launched learner, launching, is the same student */
    char sil[STORE_ID_SIZE], k2[STORE_ID_SIZE];
    l.sub = "s-sil";
    l.name = "";
    assert_int_equal(store_lti_launch(s, &l, sil, k2, NULL, name, sizeof name, &e), STORE_OK);
    assert_int_equal(strncmp(name, "Learner ", 8), 0);
    assert_int_equal(count_learners(s, klass), 2);
    /* a partial read adds; a refusal keeps what was; a whole read replaces */
    struct store_lti_roster_member more[] = { { "s-new", "New", true } };
    assert_int_equal(store_lti_roster_put(s, klass, "https://p", STORE_ROSTER_PARTIAL,
                                          "bound", more, 1, &e), STORE_OK);
    assert_int_equal(count_learners(s, klass), 3);
    assert_int_equal(store_lti_roster_put(s, klass, "https://p", STORE_ROSTER_REFUSED,
                                          "403", NULL, 0, &e), STORE_OK);
    assert_int_equal(count_learners(s, klass), 3);
    assert_int_equal(store_lti_rosters_each(s, see_roster, &r, &e), STORE_OK);
    assert_int_equal(r.state, STORE_ROSTER_REFUSED);
    assert_string_equal(r.message, "403");
    assert_int_equal(store_lti_roster_put(s, klass, "https://p", STORE_ROSTER_READ, "", m, 2,
                                          &e), STORE_OK);
    /* Ada; and Sil, who launched as a learner (a roster read before one's
     * enrolment must not hide them); not New, not Tess */
    assert_int_equal(count_learners(s, klass), 2);
    assert_true(has_member(s, klass, sil));
    /* a forgotten student leaves the roster */
    uint64_t gone = 0;
    assert_int_equal(store_student_forget(s, ada, &gone, &e), STORE_OK);
    assert_false(has_member(s, klass, ada));
    assert_int_equal(count_learners(s, klass), 1);
    store_close(s);
}

static void sql(const char *path, const char *text)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    int rc = sqlite3_exec(db, text, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fprintf(stderr, "%s\n", msg ? msg : "?");
    sqlite3_free(msg);
    sqlite3_close(db);
    assert_int_equal(rc, SQLITE_OK);
}

static int count_row(void *arg, int n, char **v, char **names)
{
    (void)n;
    (void)v;
    (void)names;
    (*(int *)arg)++;
    return 0;
}

static int rows(const char *path, const char *query)
{
    sqlite3 *db = NULL;
    int n = 0;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, query, count_row, &n, NULL), SQLITE_OK);
    sqlite3_close(db);
    return n;
}

/* A store of schema version 2 whose LTI tables are LTI's own version 1
 * (one line item per student, the latest launch's), as store_lti.c made
 * them before they joined the migrations, keeps scoring that student
 * there once migrated to version 3. */
static void test_migrate_v1(void **state)
{
    (void)state;
    char path[300], url[310];
    snprintf(path, sizeof path, "%s/v1.sqlite", tmpdir);
    snprintf(url, sizeof url, "sqlite:%s", path);
    struct store *s = NULL;
    struct store_error e;
    /* the records' schema of version 2 */
    sql(path, store_schema_sqlite[1]);
    sql(path, store_schema_sqlite[2]);
    sql(path, "UPDATE schema_version SET version = 2");
    /* LTI's version 1 tables, as far as the migration reads them */
    sql(path, "CREATE TABLE lti_schema (version INTEGER NOT NULL);"
              "INSERT INTO lti_schema VALUES (1);"
              "CREATE TABLE lti_users (issuer TEXT NOT NULL, sub TEXT NOT NULL,"
              " student TEXT NOT NULL UNIQUE, PRIMARY KEY (issuer, sub));"
              "INSERT INTO students (id, name, verified, created_ms) VALUES"
              " ('old-student', 'Old', 1, 1), ('two-student', 'Two', 1, 1);"
              "INSERT INTO lti_users VALUES ('https://p', 's-old', 'old-student');"
              "INSERT INTO lti_users VALUES ('https://p', 's-two', 'two-student');"
              "CREATE TABLE lti_links (student TEXT PRIMARY KEY, issuer TEXT NOT NULL,"
              " client_id TEXT NOT NULL, sub TEXT NOT NULL, lineitem TEXT NOT NULL);"
              "INSERT INTO lti_links VALUES ('old-student', 'https://p', 'c', 's-old',"
              " 'https://p/li/9');"
              "INSERT INTO lti_links VALUES ('two-student', 'https://p', 'c', 's-two',"
              " 'https://p/li/9');"
              "CREATE TRIGGER lti_forget AFTER DELETE ON students FOR EACH ROW BEGIN"
              " DELETE FROM lti_links WHERE student = OLD.id; END;"
              "CREATE TRIGGER lti_outbox_on_record AFTER INSERT ON records FOR EACH ROW"
              " WHEN NEW.student IS NOT NULL BEGIN INSERT INTO lti_outbox (record_id,"
              " student, issuer, client_id, sub, lineitem, points, max_points, status,"
              " graded_ms) SELECT NEW.id, NEW.student, l.issuer, l.client_id, l.sub,"
              " l.lineitem, NEW.points, NEW.max_points, NEW.status, NEW.graded_ms"
              " FROM lti_links l WHERE l.student = NEW.student; END;");
    assert_int_equal(store_open(url, &s, &e), STORE_OK);
    assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
    store_close(s);
    assert_int_equal(store_open(url, &s, &e), STORE_OK);   /* a second open changes nothing */
    struct lineitems x;
    insert_linked(s, "old-student", 9, 0);
    insert_linked(s, "two-student", 5, 0);
    assert_int_equal(waiting_lineitems(s, &x), 2);
    assert_string_equal(x.v[0], "https://p/li/9");
    assert_string_equal(x.v[1], "https://p/li/9");
    store_close(s);
    assert_int_equal(rows(path, "SELECT 1 FROM sqlite_master WHERE name = 'lti_schema'"), 0);
    assert_int_equal(rows(path, "SELECT 1 FROM sqlite_master WHERE name = 'lti_links'"), 0);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_state_once_and_nonces),
        cmocka_unit_test(test_launch_and_outbox),
        cmocka_unit_test(test_late_records),
        cmocka_unit_test(test_scores_per_exercise),
        cmocka_unit_test(test_line_item_per_resource_link),
        cmocka_unit_test(test_class_due_beside_links),
        cmocka_unit_test(test_migrate_v1),
        cmocka_unit_test(test_roster),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return rc;
}
