/*
 * batch.c - a batch run: inputs in, a result per student as it comes,
 * then the gradebook and the summary rebuilt from those results.
 *
 * Threads: this one reads inputs, submits them, and writes every file;
 * the pool's supervisor hands verdicts back through on_verdict(), which
 * only queues them (the pool asks its callbacks not to block, and a write
 * with fsync does); a signal thread turns SIGINT, SIGTERM and SIGHUP into
 * a flag. Those signals are blocked in every thread before the pool
 * starts, so its workers inherit the mask through exec: a Ctrl-C on the
 * terminal, sent to the whole process group, stops the batch cleanly
 * instead of killing a worker mid-job, which would be recorded as the
 * student's Runtime Error.
 */
#include "batch/batch.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch/batch_all.h"
#include "batch/batch_output.h"
#include "batch/batch_progress.h"
#include "batch/batch_record.h"
#include "common/exercise/exercise.h"
#include "common/score.h"
#include "batch/batch_seed.h"
#include "batch/batch_sha256.h"
#include "batch/reports/batch_class_report.h"
#include "batch/reports/batch_gradebook.h"
#include "batch/reports/batch_lms.h"
#include "batch/reports/batch_roster.h"
#include "batch/reports/batch_row.h"
#include "batch/reports/batch_student_report.h"
#include "batch/reports/batch_summary.h"
#include "common/clock.h"
#include "common/defaults.h"
#include "batch/batch_task.h"
#include "common/task.h"
#include "gradebook/default_layout.h"
#include "pool/pool.h"

/* One input on its way through the pool; its verdict comes back here. */
struct slot {
    struct run *run;
    size_t index;
    struct pool_result result;           /* the verdict's bytes, until written */
    struct slot *next;
};

struct run {
    const struct batch_options *o;
    uint64_t seed;                       /* of this run (batch_seed.h) */
    enum batch_seed_origin seed_origin;
    struct batch_inputs in;
    struct batch_output out;
    struct gradebook_roster roster;          /* --roster, or the store's students, for Canvas */
    struct batch_db_result db;           /* --from-database: what the records held */
    struct batch_task task;              /* --task: what is graded, as reports name it */
    struct pool *pool;
    unsigned window;                     /* jobs in the pool at once */
    char (*sha)[BATCH_SHA256_HEX];       /* per input: the source graded, or "" */
    struct slot *slots;                  /* per input */

    pthread_mutex_t lock;
    pthread_cond_t cond;                 /* a verdict came, or a signal */
    struct slot *done;                   /* verdicts not yet written */
    atomic_int signals, last_signal;
    atomic_bool ending;                  /* the signal thread may go */

    size_t in_flight, refused, write_failures;
    struct batch_progress progress;
};

void batch_options_init(struct batch_options *o)
{
    memset(o, 0, sizeof *o);
    o->format = BATCH_FORMAT_AUTO;
    o->deadline_ms = DEFAULT_DEADLINE_MS;
    o->gradebook = GRADEBOOK_LAYOUT_DEFAULT;
    o->until_ms = INT64_MAX;
    o->policy = STORE_POLICY_BEST;
}

const char *batch_options_problem(const struct batch_options *o)
{
    if (!o->from_database && (o->regrade || o->until_ms != INT64_MAX
                              || o->policy != STORE_POLICY_BEST || o->late_policy_given))
        return "--regrade, --until, --policy and --late-policy are for --from-database";
    if (o->from_database && o->input)
        return "--from-database reads the records: give no INPUT";
    if (o->from_database && (o->force || o->format != BATCH_FORMAT_AUTO || o->id_column
                             || o->source_column))
        return "--force, --format, --id-column and --source-column are for an INPUT "
               "(with --from-database, --regrade grades again)";
    if (o->from_database && o->seed_given && !o->regrade)
        return "--seed is for --regrade: without it every record keeps the seed it was "
               "graded with";
    /* from the records, the store's students are the roster unless one is given */
    if (o->gradebook == GRADEBOOK_LAYOUT_CANVAS && !o->roster && !o->from_database)
        return "--gradebook canvas needs --roster ROSTER.csv: Canvas matches rows on its own "
               "ids, and the roster holds them (export the gradebook from Canvas)";
    if (o->gradebook != GRADEBOOK_LAYOUT_CANVAS && o->roster)
        return "--roster is for --gradebook canvas";
    if (o->gradebook != GRADEBOOK_LAYOUT_CANVAS && o->assignment)
        return "--assignment is for --gradebook canvas";
    if (o->task && !strcmp(o->task, EX_ID_ALL)
        && (!o->from_database || o->regrade || o->gradebook == GRADEBOOK_LAYOUT_DEFAULT
            || o->assignment))
        return "--task " EX_ID_ALL " (a column per exercise) is for --from-database with "
               "--gradebook canvas or moodle, without --regrade or --assignment (each "
               "column is headed by its exercise's title)";
    return NULL;
}

/* --- signals ---------------------------------------------------------- */

static void stop_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGUSR2);   /* from batch_run: the signal thread's end */
}

static void *signal_main(void *arg)
{
    struct run *r = arg;
    sigset_t set;
    stop_signals(&set);
    for (;;) {
        int sig;
        if (sigwait(&set, &sig) != 0)
            continue;
        if (sig == SIGUSR2) {
            /* only batch_run's own SIGUSR2 ends the thread */
            if (atomic_load(&r->ending))
                return NULL;
            continue;
        }
        pthread_mutex_lock(&r->lock);
        atomic_store(&r->last_signal, sig);
        atomic_fetch_add(&r->signals, 1);
        pthread_cond_broadcast(&r->cond);
        pthread_mutex_unlock(&r->lock);
    }
}

/* --- results ---------------------------------------------------------- */

/* Called on the pool's thread: only queues the result (read in drain). */
static void on_verdict(struct pool_result *res, void *arg)
{
    struct slot *s = arg;
    struct run *r = s->run;
    pthread_mutex_lock(&r->lock);
    s->result = *res;
    s->next = r->done;
    r->done = s;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
}

/* Whether input i is written from its stored verdict, ungraded. */
static bool from_record(const struct run *r, size_t i)
{
    return r->in.v[i].stored && !r->o->regrade;
}

/* The seed input i was graded with: the run's, or its stored record's. */
static uint64_t seed_of(const struct run *r, size_t i)
{
    return from_record(r, i) ? r->in.v[i].stored->seed : r->seed;
}

/* Writes the results.json of input i; a failure is counted and said. */
static void write_record(struct run *r, size_t i, const char *sha, const struct verdict *v)
{
    const struct batch_input *e = &r->in.v[i];
    char err[512];
    json_t *j = batch_record_to_json(e, r->task.id, sha, seed_of(r, i), v);
    char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(9)) : NULL;
    json_decref(j);
    bool ok = text && batch_output_write_student(&r->out, e->key, text, strlen(text),
                                                 err, sizeof err);
    if (!ok) {
        r->write_failures++;
        fprintf(stderr, "\nbutterfly-batch: cannot record the result of %s: %s\n", e->id,
                text ? err : "out of memory");
    }
    free(text);
}

/* Whether input i shares its record (and report page) with the input
 * before it: the inputs of a duplicated id, sorted side by side, have one,
 * written for the first. */
static bool shares_previous_record(const struct run *r, size_t i)
{
    const struct batch_input *e = &r->in.v[i], *prev = i > 0 ? &r->in.v[i - 1] : NULL;
    return prev && e->id_ok && prev->id_ok && !strcmp(prev->key, e->key);
}

/*
 * Reads input i's record from an earlier run or this one into *rec (the
 * caller clears it) when it fits the input: the same id and exercise and,
 * for a graded input, the same source (SHA-256) and seed; for a refused
 * one, a refusal.
 */
static bool read_fitting_record(struct run *r, size_t i, struct batch_record *rec)
{
    const struct batch_input *e = &r->in.v[i];
    size_t len;
    char *text = batch_output_read_student(&r->out, e->key, &len);
    bool ok = text && batch_record_parse(text, len, rec);
    free(text);
    if (!ok)
        return false;
    bool fits = !strcmp(rec->id, e->id) && !strcmp(rec->task, r->task.id) &&
                (e->refusal ? rec->kind == BATCH_RECORD_REFUSED
                            : rec->kind == BATCH_RECORD_GRADED && !strcmp(rec->sha, r->sha[i]) &&
                              rec->seed == seed_of(r, i));
    if (!fits)
        batch_record_clear(rec);
    return fits;
}

/* An input Rejected without grading: its record, if its id can have one. */
static void record_refusal(struct run *r, size_t i)
{
    const struct batch_input *e = &r->in.v[i];
    r->refused++;
    batch_progress_count(&r->progress, VERDICT_REJECTED, false);
    if (!e->id_ok || shares_previous_record(r, i))
        return;
    struct verdict *v = verdict_new(VERDICT_REJECTED, e->refusal);
    if (!v) {
        r->write_failures++;
        return;
    }
    write_record(r, i, NULL, v);
    verdict_free(v);
}

/*
 * Whether an earlier run's record of input i can stand: the same id, the
 * same source (SHA-256) and seed, and a verdict that is not an Internal
 * Error (the grader's own failure says nothing about the student).
 */
static bool reuse(struct run *r, size_t i)
{
    struct batch_record rec;
    if (!read_fitting_record(r, i, &rec))
        return false;
    bool ok = rec.kind == BATCH_RECORD_GRADED && rec.verdict->status != VERDICT_INTERNAL_ERROR;
    if (ok)
        batch_progress_count(&r->progress, rec.verdict->status, true);
    batch_record_clear(&rec);
    return ok;
}

/*
 * Writes input i's results.json from the verdict its student was
 * answered, as the server stored it: nothing is graded. A stored verdict
 * that does not parse (never expected) is an Internal Error row.
 */
static void record_stored(struct run *r, size_t i)
{
    const struct batch_stored *st = r->in.v[i].stored;
    struct verdict *v = gradebook_stored_verdict(st->verdict, st->verdict_len);
    snprintf(r->sha[i], sizeof r->sha[i], "%s", st->sha);
    if (v)
        write_record(r, i, r->sha[i], v);
    else
        r->write_failures++;
    batch_progress_count(&r->progress, v ? v->status : VERDICT_INTERNAL_ERROR, true);
    verdict_free(v);
}

static bool ensure_pool(struct run *r)
{
    if (r->pool)
        return true;
    struct pool_options po;
    char err[768];
    pool_options_init(&po);
    if (r->o->jobs)
        po.workers = r->o->jobs;
    if (po.workers > POOL_MAX_WORKERS)
        po.workers = POOL_MAX_WORKERS;
    /* the queue holds the whole window: a submission never finds it full */
    r->window = 2 * po.workers + 2;
    po.queue_length = r->window;
    po.device = r->o->device;
    po.seed = r->seed;
    po.deadline_ms = r->o->deadline_ms;
    r->pool = pool_new(&po, err, sizeof err);
    if (!r->pool || !pool_wait_ready(r->pool, 1, po.start_timeout_ms, err, sizeof err)) {
        fprintf(stderr, "\nbutterfly-batch: cannot start the graders: %s\n", err);
        pool_free(r->pool, 0);
        r->pool = NULL;
        return false;
    }
    return true;
}

enum start { START_DONE, START_SUBMITTED, START_FATAL };

/* Takes input i as far as it goes now: refused, reused, or submitted. */
static enum start start_input(struct run *r, size_t i)
{
    struct batch_input *e = &r->in.v[i];
    if (e->refusal) {
        record_refusal(r, i);
        return START_DONE;
    }
    if (from_record(r, i)) {
        record_stored(r, i);
        return START_DONE;
    }
    char why[512];
    size_t len;
    char *src = batch_input_take_source(&r->in, i, &len, why, sizeof why);
    if (!src) {
        if (batch_input_refuse(e, "%s", why)) {
            record_refusal(r, i);
        } else {
            /* out of memory: its row will say that no result was recorded */
            r->write_failures++;
            batch_progress_count(&r->progress, VERDICT_INTERNAL_ERROR, false);
        }
        return START_DONE;
    }
    batch_sha256_hex(src, len, r->sha[i]);
    if (!r->o->force && !r->o->regrade && reuse(r, i)) {
        free(src);
        return START_DONE;
    }
    if (!ensure_pool(r)) {
        free(src);
        return START_FATAL;
    }
    struct pool_submission sub = { .body = src, .len = len, .done = on_verdict,
                                   .arg = &r->slots[i], .exercise = r->task.id };
    enum pool_submit_status st = pool_submit(r->pool, &sub, NULL, NULL);
    free(src);   /* the pool keeps its own copy */
    if (st != POOL_SUBMITTED) {
        /* never silence: the row says what happened, and a rerun regrades it */
        struct verdict *v = verdict_new(VERDICT_INTERNAL_ERROR, "The pool refused the job.");
        if (v)
            write_record(r, i, r->sha[i], v);
        batch_progress_count(&r->progress, VERDICT_INTERNAL_ERROR, false);
        verdict_free(v);
        return START_DONE;
    }
    r->in_flight++;
    return START_SUBMITTED;
}

/* Writes what the pool handed back. */
static void drain(struct run *r)
{
    pthread_mutex_lock(&r->lock);
    struct slot *s = r->done;
    r->done = NULL;
    pthread_mutex_unlock(&r->lock);
    while (s) {
        struct slot *next = s->next;
        /* the records and reports are built from the verdict: read it here,
         * off the pool's thread */
        struct verdict *v = verdict_from_bytes(s->result.verdict, s->result.verdict_len);
        pool_result_clear(&s->result);
        if (!v)
            v = verdict_new(VERDICT_INTERNAL_ERROR, "The grader's answer could not be read.");
        s->next = NULL;
        r->in_flight--;
        /* after a stop, an Internal Error is the shutdown's, not a result */
        if (v && !(atomic_load(&r->signals) && v->status == VERDICT_INTERNAL_ERROR)) {
            write_record(r, s->index, r->sha[s->index], v);
            batch_progress_count(&r->progress, v->status, false);
        }
        verdict_free(v);
        s = next;
    }
}

static void wait_for_news(struct run *r, int signals_seen)
{
    /* monotonic: setting the clock must not stretch the wait (cond made so) */
    struct timespec until = clock_after_ms(100);
    pthread_mutex_lock(&r->lock);
    while (!r->done && atomic_load(&r->signals) == signals_seen)
        if (pthread_cond_timedwait(&r->cond, &r->lock, &until) == ETIMEDOUT)
            break;
    pthread_mutex_unlock(&r->lock);
}

/* Grades every input; false when the graders could not start. */
static bool grade_all(struct run *r)
{
    size_t next = 0;
    bool fatal = false, told = false;
    for (;;) {
        drain(r);
        int signals = atomic_load(&r->signals);
        if (signals && !told && !r->o->quiet) {
            fprintf(stderr, "\nbutterfly-batch: stopping: finishing the %zu submissions being "
                    "graded (again to stop now)\n", r->in_flight);
            told = true;
        }
        if (signals >= 2 && r->pool) {
            /* answers every job left with an Internal Error, which drain() drops */
            pool_free(r->pool, 0);
            r->pool = NULL;
            continue;
        }
        while (!signals && !fatal && next < r->in.n && r->in_flight < r->window) {
            if (start_input(r, next++) == START_FATAL)
                fatal = true;
            batch_progress_tick(&r->progress, false);
            signals = atomic_load(&r->signals);
        }
        batch_progress_tick(&r->progress, false);
        if ((next == r->in.n || signals || fatal) && r->in_flight == 0)
            break;
        wait_for_news(r, signals);
    }
    batch_progress_tick(&r->progress, true);
    batch_progress_end(&r->progress);
    return !fatal;
}

/* --- the gradebook ---------------------------------------------------- */

/* The verdict of input i's row, from its record on disk; *graded says
 * whether the record is of a source the pool graded (else it was refused
 * before grading, or is missing). */
static struct verdict *row_verdict(struct run *r, size_t i, bool *missing, bool *graded)
{
    const struct batch_input *e = &r->in.v[i];
    *missing = *graded = false;
    if (!e->id_ok)
        return verdict_new(VERDICT_REJECTED, e->refusal);
    struct batch_record rec;
    struct verdict *v = NULL;
    if (read_fitting_record(r, i, &rec)) {
        v = rec.verdict;
        rec.verdict = NULL;
        *graded = rec.kind == BATCH_RECORD_GRADED;
        batch_record_clear(&rec);
    }
    if (!v) {
        *missing = true;
        v = verdict_new(VERDICT_INTERNAL_ERROR, "No result was recorded for this input; run the "
                        "batch again to grade it.");
    }
    return v;
}

/* A CSV file the batch writes: with --excel, a byte-order mark first, so
 * that Excel reads UTF-8 (it guesses a legacy code page otherwise). */
static FILE *csv_begin(const struct batch_options *o, char **buf, size_t *len)
{
    FILE *m = open_memstream(buf, len);
    if (m && o->excel)
        fputs("\xef\xbb\xbf", m);
    return m;
}

/* Closes a memory stream and writes its bytes to OUT/name. */
static bool write_stream(struct run *r, FILE *m, char **buf, size_t *len, const char *name,
                         char *err, size_t errsz)
{
    bool ok = fclose(m) == 0;
    if (!ok)
        snprintf(err, errsz, "out of memory");
    ok = ok && batch_output_write(&r->out, name, *buf, *len, err, errsz);
    free(*buf);
    *buf = NULL;
    return ok;
}

/* Writes the gradebook of a learning system, when one was asked for. */
static bool write_lms(struct run *r, const struct batch_row *rows, struct gradebook_result *res,
                      char *err, size_t errsz)
{
    const struct batch_options *o = r->o;
    if (o->gradebook == GRADEBOOK_LAYOUT_DEFAULT)
        return true;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = csv_begin(o, &buf, &len);
    if (!m) {
        snprintf(err, errsz, "out of memory");
        return false;
    }
    if (!batch_lms_write(m, o->gradebook, rows, r->in.n, &r->roster,
                         o->assignment ? o->assignment : r->task.title,
                         score_max_of(r->task.e ? r->task.e : exercise_default()), res)) {
        fclose(m);
        free(buf);
        snprintf(err, errsz, "out of memory");
        return false;
    }
    return write_stream(r, m, &buf, &len, gradebook_layout_file(o->gradebook), err, errsz);
}

/* Writes input i's report page, once per usable id (a duplicated id's
 * inputs share one record, hence one page). */
static bool write_report(struct run *r, size_t i, const struct verdict *v,
                         const struct score *sc, bool graded, char *err, size_t errsz)
{
    const struct batch_input *e = &r->in.v[i];
    if (!e->id_ok || shares_previous_record(r, i))
        return true;
    char *page = batch_student_report_html(e, r->task.title, v, sc, seed_of(r, i),
                                           graded ? r->sha[i] : NULL);
    bool ok = page && batch_output_write_report(&r->out, e->key, page, strlen(page), err, errsz);
    if (!page)
        snprintf(err, errsz, "out of memory");
    free(page);
    return ok;
}

static void print_lms(const struct run *r, const struct gradebook_result *res)
{
    const struct batch_options *o = r->o;
    if (o->gradebook == GRADEBOOK_LAYOUT_CANVAS) {
        printf("Canvas: %zu roster students, %zu with points (ids matched on %s)\n", res->rows,
               res->with_points, res->matched_on);
    } else if (o->gradebook == GRADEBOOK_LAYOUT_MOODLE) {
        printf("Moodle: %zu students with points", res->rows);
        if (res->left_out)
            printf("; %zu rows left out (Internal Errors, duplicated or unusable ids%s)",
                   res->left_out, res->formula_ids ? ", ids a spreadsheet would run" : "");
        printf("\n");
    }
}

/* Writes every output of the run from the results on disk; prints the summary. */
static int rebuild(struct run *r, double seconds)
{
    const struct batch_options *o = r->o;
    char *csv = NULL, *html = NULL;
    size_t csv_len = 0, html_len = 0, missing = 0, internal = 0;
    char err[512] = "out of memory";
    int rc = BATCH_EXIT_FAILED;
    struct gradebook_result lms = { 0 };
    /* an exercise no longer built in is counted as its records score it:
     * over the default's sweep (score_exercise_of) */
    struct batch_summary *sum = batch_summary_new(r->task.e ? r->task.e : exercise_default());
    struct batch_row *rows = calloc(r->in.n, sizeof *rows);
    FILE *m = sum && rows ? csv_begin(o, &csv, &csv_len) : NULL;
    if (!m) {
        fprintf(stderr, "butterfly-batch: out of memory\n");
        goto out;
    }
    bool ok = batch_output_reports_begin(&r->out, err, sizeof err);
    gradebook_default_header(m);
    for (size_t i = 0; ok && i < r->in.n; i++) {
        bool lost, graded;
        struct verdict *v = row_verdict(r, i, &lost, &graded);
        if (!v) {
            snprintf(err, sizeof err, "out of memory");
            ok = false;
            break;
        }
        struct score sc;
        score_verdict(v, &sc);
        const struct batch_stored *kept = r->in.v[i].stored;
        gradebook_default_row(m, r->in.v[i].id, r->in.v[i].location, v, &sc,
                              kept ? &kept->late : NULL);
        ok = batch_summary_add(sum, &r->in.v[i], v, &sc) &&
             batch_row_fill(&rows[i], &r->in.v[i], v, &sc, o->policy == STORE_POLICY_LAST,
                            &o->late_policy) &&
             write_report(r, i, v, &sc, graded, err, sizeof err);
        missing += lost;
        internal += v->status == VERDICT_INTERNAL_ERROR;
        verdict_free(v);
    }
    if (fclose(m) != 0 && ok) {
        snprintf(err, sizeof err, "out of memory");
        ok = false;
    }
    m = NULL;
    json_t *sj = ok ? batch_summary_to_json(sum, r->task.id, r->seed, r->in.n) : NULL;
    char *sjs = sj ? json_dumps(sj, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) : NULL;
    json_decref(sj);
    FILE *hm = ok ? open_memstream(&html, &html_len) : NULL;
    if (hm)
        batch_class_report_write(hm, r->task.title, r->task.subtitle, sum, rows, r->in.n,
                                 r->seed);
    ok = ok && sjs && hm &&
         batch_output_write(&r->out, "gradebook.csv", csv, csv_len, err, sizeof err) &&
         batch_output_write(&r->out, "summary.json", sjs, strlen(sjs), err, sizeof err) &&
         write_lms(r, rows, &lms, err, sizeof err);
    if (hm && ok)
        ok = write_stream(r, hm, &html, &html_len, "summary.html", err, sizeof err);
    else if (hm)
        fclose(hm);
    free(sjs);
    if (!ok) {
        fprintf(stderr, "butterfly-batch: %s\n", err);
        goto out;
    }
    /* the check reads the file back as any CSV reader would */
    long rows_read = -1;
    int fd = openat(r->out.dir_fd, "gradebook.csv", O_RDONLY | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (f) {
        rows_read = batch_gradebook_count_rows(f);
        fclose(f);
    } else if (fd >= 0) {
        close(fd);
    }
    batch_lms_warn(&lms);
    if (!o->quiet) {
        size_t reused = r->progress.reused;
        size_t graded = r->progress.graded - r->refused;
        printf("butterfly-batch: %zu inputs (%s)", r->in.n, batch_format_to_str(r->in.format));
        if (o->from_database)
            printf("; %zu records of %s read (%zu of other exercises left out), %zu of no "
                   "signed-in student left out, %zu students with an unverified name",
                   r->db.records, r->task.id, r->db.other_tasks, r->db.nobody,
                   r->db.unverified);
        if (r->in.hidden)
            printf("; %zu entries left out (hidden files, the output folder)", r->in.hidden);
        printf("\nGraded %zu now, reused %zu from an earlier run, refused %zu before grading; "
               "%.1f s", graded, reused, r->refused, seconds);
        if (graded && seconds > 0)
            printf(" (%.1f submissions/s)", (double)graded / seconds);
        if (o->from_database && !o->regrade)
            printf("\nFrom the records (policy %s): each row keeps the verdict its student was "
                   "answered and the seed it was graded with (in its results.json)\n",
                   store_policy_to_str(o->policy));
        else
            printf("\nSeed %llu, %s: --seed %llu grades the same submissions the same way\n",
                   (unsigned long long)r->seed, batch_seed_origin_to_str(r->seed_origin),
                   (unsigned long long)r->seed);
        batch_summary_print(stdout, sum);
        print_lms(r, &lms);
        printf("Wrote %s/gradebook.csv", o->output);
        if (o->gradebook != GRADEBOOK_LAYOUT_DEFAULT)
            printf(", %s/%s", o->output, gradebook_layout_file(o->gradebook));
        printf(", %s/summary.json, %s/summary.html, %s/%s/*.html and "
               "%s/students/*/results.json\n", o->output, o->output, o->output,
               BATCH_REPORTS_DIR, o->output);
    }
    if (rows_read != (long)r->in.n) {
        fprintf(stderr, "butterfly-batch: gradebook.csv has %ld rows for %zu inputs\n",
                rows_read, r->in.n);
        goto out;
    }
    if (!o->quiet)
        printf("Rows in gradebook.csv: %ld = inputs: %zu\n", rows_read, r->in.n);
    rc = BATCH_EXIT_OK;
    if (missing || internal) {
        fprintf(stderr, "butterfly-batch: %zu rows are Internal Errors (%zu without a recorded "
                "result); run the same command again to grade them\n", internal, missing);
        rc = BATCH_EXIT_INCOMPLETE;
    }
out:
    if (m)
        fclose(m);
    free(csv);
    free(html);
    batch_rows_free(rows, r->in.n);
    batch_summary_free(sum);
    return rc;
}

/* --- the run ---------------------------------------------------------- */

int batch_run(const struct batch_options *o)
{
    if (o->task && !strcmp(o->task, EX_ID_ALL))
        return batch_all_run(o);
    struct run r = { .o = o, .out = BATCH_OUTPUT_NONE };
    char err[1024];
    int rc = BATCH_EXIT_FAILED;
    sigset_t set, old;
    pthread_t sig_thread;
    bool sig_started = false, from_stdin = o->input && !strcmp(o->input, "-");
    FILE *stdin_copy = NULL;
    r.in.dir_fd = -1;
    pthread_mutex_init(&r.lock, NULL);
    clock_cond_init(&r.cond);
    atomic_init(&r.signals, 0);
    atomic_init(&r.last_signal, 0);
    atomic_init(&r.ending, false);

    /* before the signals are blocked: a Ctrl-C while standard input is
     * still coming ends the program as usual, with nothing written yet */
    if (from_stdin && !(stdin_copy = batch_input_spool_stdin(err, sizeof err))) {
        fprintf(stderr, "butterfly-batch: %s\n", err);
        goto out_early;
    }
    /* before any thread: every thread after, and every worker, inherits it */
    stop_signals(&set);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    if (pthread_create(&sig_thread, NULL, signal_main, &r) != 0) {
        fprintf(stderr, "butterfly-batch: cannot start a thread\n");
        goto out;
    }
    sig_started = true;

    /* the exercise first: a --task that names none stops the batch before
     * anything is read or written */
    bool records_only = o->from_database && !o->regrade;
    if (!batch_task_resolve(o->task, records_only, &r.task, err, sizeof err)) {
        fprintf(stderr, "butterfly-batch: %s\n", err);
        goto out;
    }
    /* a roster that cannot be used stops the batch before it grades */
    if (o->roster && !batch_roster_load(o->roster, &r.roster, err, sizeof err)) {
        fprintf(stderr, "butterfly-batch: %s\n", err);
        goto out;
    }
    /* checked before anything is created: results must not land among the inputs */
    struct stat in_st, out_st;
    if (o->input && !from_stdin && stat(o->input, &in_st) == 0 && stat(o->output, &out_st) == 0 &&
        in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
        fprintf(stderr, "butterfly-batch: the output folder cannot be the input folder\n");
        goto out;
    }
    if (!batch_output_open(&r.out, o->output, err, sizeof err)) {
        fprintf(stderr, "butterfly-batch: %s\n", err);
        goto out;
    }
    struct batch_input_options io = {
        .path = o->input, .format = o->format,
        .id_column = o->id_column, .source_column = o->source_column,
        .stream = stdin_copy,
    };
    batch_output_identity(&r.out, &io.skip_dev, &io.skip_ino);
    if (o->from_database) {
        struct batch_db_options dbo = { o->from_database, r.task.id, o->until_ms, o->policy };
        struct gradebook_roster stored;
        if (!batch_input_db_load(&dbo, &r.in, &stored, &r.db, err, sizeof err)) {
            fprintf(stderr, "butterfly-batch: %s\n", err);
            goto out;
        }
        if (o->roster)
            gradebook_roster_free(&stored);
        else
            r.roster = stored;
    } else if (!batch_inputs_load(&io, &r.in, err, sizeof err)) {
        fprintf(stderr, "butterfly-batch: %s\n", err);
        goto out;
    }
    if (r.in.n == 0) {
        fprintf(stderr, "butterfly-batch: no submissions in %s\n",
                o->input ? o->input : "the records (of a signed-in student, by --until)");
        goto out;
    }
    /* chosen once the inputs are known good: a run that stops before
     * grading must not replace the seed the folder's results were graded with;
     * a regrade draws fresh spectra unless --seed is given */
    if (o->from_database && !o->regrade) {
        r.seed = 0;    /* every row keeps its record's own */
    } else if (!batch_seed_choose(&r.out, o->seed_given, o->seed, o->force || o->regrade,
                                  &r.seed, &r.seed_origin, err, sizeof err)) {
        fprintf(stderr, "butterfly-batch: %s\n", err);
        goto out;
    }
    r.sha = calloc(r.in.n, sizeof *r.sha);
    r.slots = calloc(r.in.n, sizeof *r.slots);
    if (!r.sha || !r.slots) {
        fprintf(stderr, "butterfly-batch: out of memory\n");
        goto out;
    }
    for (size_t i = 0; i < r.in.n; i++)
        r.slots[i] = (struct slot){ .run = &r, .index = i };
    r.window = 1;   /* until the pool exists: reuse and refusals need none */
    batch_progress_init(&r.progress, stderr, r.in.n, o->quiet);
    double t0 = clock_now_ms();
    bool started = grade_all(&r);
    pool_free(r.pool, 1000);
    r.pool = NULL;
    drain(&r);
    double seconds = (clock_now_ms() - t0) / 1000.0;
    int sig = atomic_load(&r.last_signal);
    if (sig) {
        fprintf(stderr, "butterfly-batch: interrupted after %zu of %zu inputs; every result "
                "written is whole: run the same command again to go on\n", r.progress.done,
                r.in.n);
        rc = BATCH_EXIT_SIGNAL + sig;
    } else if (started) {
        rc = rebuild(&r, seconds);
    }
out:
    pool_free(r.pool, 0);
    if (sig_started) {
        atomic_store(&r.ending, true);
        pthread_kill(sig_thread, SIGUSR2);
        pthread_join(sig_thread, NULL);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
out_early:
    batch_inputs_free(&r.in);
    batch_output_close(&r.out);
    gradebook_roster_free(&r.roster);
    if (stdin_copy)
        fclose(stdin_copy);
    free(r.sha);
    free(r.slots);
    pthread_mutex_destroy(&r.lock);
    pthread_cond_destroy(&r.cond);
    return rc;
}
