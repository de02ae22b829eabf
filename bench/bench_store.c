/*
 * bench_store: what keeping the records costs, on each backend.
 *
 *   size     N records (default 10,000) of real verdicts (an Accepted, a
 *            Wrong Answer and a Compilation Error, graded once through a
 *            worker) and distinct sources (bench_submission), 50 per
 *            student; the store's size on disk after, per 10,000 records
 *            (SQLite: the file after a checkpoint; PostgreSQL: the records
 *            table with its indexes and TOAST).
 *   writer   M records (default 2,000) submitted at once by 4 threads to
 *            the writer thread, timed until every callback has come: one
 *            commit per record (max_batch 1, the baseline) against the
 *            default batching, in the same run.
 *   burst    500 records at once into a default writer: all committed?
 *
 * usage: bench_store [--count N] [--writer M] [--pg URL]
 * (the PostgreSQL figures only with --pg: tests/support/postgres.py -- bench_store --pg @URL@)
 */
#include <libpq-fe.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/score.h"
#include "bench/bench_util.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/defaults.h"
#include "pool/pool.h"
#include "store/store.h"
#include "store/store_writer.h"

#define KINDS 3

struct kind {
    char *verdict;
    size_t len;
    int status, points;
};

static struct kind kinds[KINDS];

/* The three verdicts, graded for real, as the server answers them. */
static int real_verdicts(void)
{
    static const char compile_error[] = "float x = ;\n";
    struct pool_options o;
    char err[512], body[2048];
    pool_options_init(&o);
    o.workers = 1;
    o.device = getenv("BUTTERFLY_DEVICE");
    struct pool *p = pool_new(&o, err, sizeof err);
    if (!p || pool_wait_ready(p, 1, 60000, err, sizeof err) != 1) {
        fprintf(stderr, "bench_store: %s\n", err);
        return -1;
    }
    for (int k = 0; k < KINDS; k++) {
        size_t len = k < 2 ? bench_submission((unsigned)k, body, sizeof body)
                           : (size_t)snprintf(body, sizeof body, "%s", compile_error);
        struct pool_result res;
        pool_grade(p, body, len, &res);
        struct verdict *v = res.verdict ? verdict_from_bytes(res.verdict, res.verdict_len) : NULL;
        if (!v) {
            fprintf(stderr, "bench_store: no verdict\n");
            pool_result_clear(&res);
            pool_free(p, 1000);
            return -1;
        }
        struct score sc;
        score_verdict(v, &sc);
        kinds[k].verdict = res.verdict;   /* the bytes the server answers */
        kinds[k].len = res.verdict_len;
        res.verdict = NULL;
        kinds[k].status = v->status;
        kinds[k].points = sc.score;
        verdict_free(v);
    }
    pool_free(p, 1000);
    return 0;
}

enum { BENCH_STUDENTS = 2000 };   /* the roster open_fresh imports */

/* Record k: a distinct source, one of the verdicts, student k / 50 (of
 * the roster's). */
static struct store_record *make(unsigned k)
{
    char body[2048], student[32];
    struct store_record *r = calloc(1, sizeof *r);
    size_t len = bench_submission(k, body, sizeof body);
    const struct kind *kd = &kinds[k % KINDS];
    snprintf(student, sizeof student, "s%05u", (k / 50) % BENCH_STUDENTS);
    store_new_id(r->id);
    r->task = strdup("butterfly");
    r->student = strdup(student);
    r->received_ms = store_now_ms();
    r->graded_ms = r->received_ms + 20;
    r->source = malloc(len);
    memcpy(r->source, body, len);
    r->source_len = len;
    store_sha256_hex(body, len, r->sha256);
    r->status = kd->status;
    r->points = kd->points;
    r->max_points = SCORE_MAX;
    r->verdict = malloc(kd->len);
    memcpy(r->verdict, kd->verdict, kd->len);
    r->verdict_len = kd->len;
    r->seed = 1234567 + k;
    r->device = strdup("llvmpipe (LLVM 15.0.6, 256 bits)");
    r->grader_version = strdup(BUTTERFLY_VERSION);
    return r;
}

/* The students make() names, as a roster: a record's student must have
 * a row (its insert checks), so the class is imported first, as a lab's is. */
static struct store *open_fresh(const char *url)
{
    struct store *s;
    struct store_error err;
    if (store_open(url, &s, &err) != STORE_OK) {
        fprintf(stderr, "bench_store: %s\n", err.message);
        exit(1);
    }
    static struct store_student roster[BENCH_STUDENTS];
    static char ids[BENCH_STUDENTS][16];
    for (unsigned i = 0; i < BENCH_STUDENTS; i++) {
        snprintf(ids[i], sizeof ids[i], "s%05u", i);
        roster[i] = (struct store_student){ .id = ids[i], .name = ids[i], .section = (char *)"",
                                            .email = (char *)"", .verified = true };
    }
    if (store_students_put(s, roster, BENCH_STUDENTS, NULL, NULL, NULL, &err) != STORE_OK) {
        fprintf(stderr, "bench_store: the roster: %s\n", err.message);
        exit(1);
    }
    return s;
}

static void empty_pg(const char *url)
{
    PGconn *c = PQconnectdb(url);
    PQclear(PQexec(c, "SET client_min_messages = warning; DROP TABLE IF EXISTS records, "
                      "students, instructor, secrets, schema_version"));
    PQfinish(c);
}

/* The bytes the store holds for its records. */
static double size_on_disk(const char *url)
{
    if (!strncmp(url, "sqlite:", 7)) {
        sqlite3 *db;
        sqlite3_open(url + 7, &db);
        sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
        sqlite3_close(db);
        struct stat st;
        return stat(url + 7, &st) == 0 ? (double)st.st_size : -1;
    }
    PGconn *c = PQconnectdb(url);
    PQclear(PQexec(c, "VACUUM ANALYZE records"));
    PGresult *r = PQexec(c, "SELECT pg_total_relation_size('records')");
    double n = PQresultStatus(r) == PGRES_TUPLES_OK ? atof(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    PQfinish(c);
    return n;
}

static void bench_size(const char *label, const char *url, unsigned n)
{
    struct store *s = open_fresh(url);
    struct store_error err;
    double payload = 0;
    enum { PER_COMMIT = 100 };
    struct store_record *batch[PER_COMMIT];
    for (unsigned k = 0; k < n;) {
        unsigned m = 0;
        for (; m < PER_COMMIT && k < n; m++, k++) {
            batch[m] = make(k);
            payload += (double)(batch[m]->source_len + batch[m]->verdict_len);
        }
        if (store_records_insert(s, (const struct store_record *const *)batch, m, &err)
            != STORE_OK) {
            fprintf(stderr, "bench_store: %s\n", err.message);
            exit(1);
        }
        for (unsigned i = 0; i < m; i++)
            store_record_free(batch[i]);
    }
    store_close(s);
    double bytes = size_on_disk(url);
    printf("%-10s size: %u records, %.1f MiB on disk = %.1f MiB per 10,000 "
           "(%.0f bytes per record, of which source and verdict %.0f)\n", label, n,
           bytes / 1048576, bytes / n * 10000 / 1048576, bytes / n, payload / n);
}

struct tally {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    unsigned ok, failed;
};

static void written(const char *id, enum store_status st, const char *reason, void *arg)
{
    struct tally *t = arg;
    pthread_mutex_lock(&t->lock);
    if (st == STORE_OK)
        t->ok++;
    else
        t->failed++;
    pthread_cond_signal(&t->cond);
    pthread_mutex_unlock(&t->lock);
}

struct producer {
    struct store_writer *w;
    struct tally *t;
    unsigned from, n;
    struct store_record **recs;
};

static void *produce(void *arg)
{
    struct producer *p = arg;
    for (unsigned i = 0; i < p->n; i++)
        if (store_writer_submit(p->w, p->recs[p->from + i], written, p->t)
            != STORE_WRITER_QUEUED) {
            fprintf(stderr, "bench_store: the writer refused a record\n");
            exit(1);
        }
    return NULL;
}

/* Records per second through a writer with max_batch; *commits filled. */
static double writer_rate(const char *url, unsigned n, unsigned max_batch, unsigned base,
                          uint64_t *commits, unsigned *ok)
{
    struct store_writer_options o;
    store_writer_options_init(&o);
    o.max_batch = max_batch;
    o.queue_capacity = n + 1;
    struct store_writer *w = store_writer_start(open_fresh(url), &o);
    struct tally t = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
    struct store_record **recs = calloc(n, sizeof *recs);
    for (unsigned k = 0; k < n; k++)
        recs[k] = make(base + k);   /* made before the clock starts */
    enum { THREADS = 4 };
    pthread_t th[THREADS];
    struct producer p[THREADS];
    double t0 = clock_now_ms();
    for (unsigned i = 0; i < THREADS; i++) {
        p[i] = (struct producer){ w, &t, i * (n / THREADS), n / THREADS, recs };
        if (i == THREADS - 1)
            p[i].n = n - i * (n / THREADS);
        pthread_create(&th[i], NULL, produce, &p[i]);
    }
    for (unsigned i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_lock(&t.lock);
    while (t.ok + t.failed < n)
        pthread_cond_wait(&t.cond, &t.lock);
    pthread_mutex_unlock(&t.lock);
    double ms = clock_now_ms() - t0;
    struct store_writer_stats st;
    store_writer_stats(w, &st);
    *commits = st.commits;
    *ok = t.ok;
    store_writer_stop(w);
    free(recs);
    return n / (ms / 1000);
}

static void bench_writer(const char *label, const char *url, unsigned n, bool pg)
{
    uint64_t c1, cb, cburst;
    unsigned ok1, okb, okburst;
    if (pg)
        empty_pg(url);
    double one = writer_rate(url, n, 1, 1000000, &c1, &ok1);
    double batched = writer_rate(url, n, DEFAULT_STORE_BATCH, 2000000, &cb, &okb);
    double burst = writer_rate(url, 500, DEFAULT_STORE_BATCH, 3000000, &cburst, &okburst);
    printf("%-10s writer: %u records, one commit each %.0f/s (%llu commits); batched (max %u) "
           "%.0f/s (%llu commits): x%.1f\n", label, n, one, (unsigned long long)c1,
           DEFAULT_STORE_BATCH, batched, (unsigned long long)cb, batched / one);
    printf("%-10s burst: 500 records at once, %u committed in %llu commits (%.0f/s)\n", label,
           okburst, (unsigned long long)cburst, burst);
    if (ok1 != n || okb != n || okburst != 500)
        printf("%-10s FAILED: not every record was committed\n", label);
}

int main(int argc, char **argv)
{
    unsigned count = 10000, writer = 2000;
    const char *pg = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--count"))
            count = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--writer"))
            writer = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--pg"))
            pg = argv[i + 1];
    }
    if (count < 1 || writer < 4) {
        fprintf(stderr, "usage: bench_store [--count N] [--writer M] [--pg URL]\n");
        return 2;
    }
    if (real_verdicts() != 0)
        return 1;
    printf("verdicts: Accepted %zu bytes, Wrong Answer %zu, Compilation Error %zu\n",
           kinds[0].len, kinds[1].len, kinds[2].len);
    char dir[] = "/tmp/bench_store.XXXXXX", url[256];
    if (!mkdtemp(dir))
        return 1;
    snprintf(url, sizeof url, "sqlite:%s/size.sqlite", dir);
    bench_size("sqlite", url, count);
    snprintf(url, sizeof url, "sqlite:%s/writer.sqlite", dir);
    bench_writer("sqlite", url, writer, false);
    if (pg) {
        empty_pg(pg);
        bench_size("postgresql", pg, count);
        bench_writer("postgresql", pg, writer, true);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
