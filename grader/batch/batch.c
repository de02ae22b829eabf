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
#include "batch.h"

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

#include "batch_gradebook.h"
#include "batch_output.h"
#include "batch_progress.h"
#include "batch_record.h"
#include "batch_score.h"
#include "batch_sha256.h"
#include "batch_summary.h"
#include "clock.h"
#include "defaults.h"
#include "pool.h"

/* One input on its way through the pool; its verdict comes back here. */
struct slot {
    struct run *run;
    size_t index;
    struct verdict *verdict;
    struct slot *next;
};

struct run {
    const struct batch_options *o;
    struct batch_inputs in;
    struct batch_output out;
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
    o->seed = TASK_DEFAULT_SEED;
    o->deadline_ms = DEFAULT_DEADLINE_MS;
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

/* Called on the pool's thread: only queues the verdict. */
static void on_verdict(struct verdict *v, void *arg)
{
    struct slot *s = arg;
    struct run *r = s->run;
    pthread_mutex_lock(&r->lock);
    s->verdict = v;
    s->next = r->done;
    r->done = s;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
}

/* Writes the results.json of input i; a failure is counted and said. */
static void write_record(struct run *r, size_t i, const char *sha, const struct verdict *v)
{
    const struct batch_input *e = &r->in.v[i];
    char err[512];
    json_t *j = batch_record_to_json(e, sha, r->o->seed, v);
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

/* An input Rejected without grading: its record, if its id can have one. */
static void record_refusal(struct run *r, size_t i)
{
    const struct batch_input *e = &r->in.v[i];
    r->refused++;
    batch_progress_count(&r->progress, VERDICT_REJECTED, false);
    /* the inputs of a duplicated id share one record: written once */
    bool written = i > 0 && e->id_ok && r->in.v[i - 1].id_ok && r->in.v[i - 1].refusal &&
                   !strcmp(r->in.v[i - 1].key, e->key);
    if (!e->id_ok || written)
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
    const struct batch_input *e = &r->in.v[i];
    size_t len;
    char *text = batch_output_read_student(&r->out, e->key, &len);
    struct batch_record rec;
    bool ok = text && batch_record_parse(text, len, &rec);
    free(text);
    if (!ok)
        return false;
    ok = rec.kind == BATCH_RECORD_GRADED && !strcmp(rec.id, e->id) &&
         !strcmp(rec.sha, r->sha[i]) && rec.seed == r->o->seed &&
         rec.verdict->status != VERDICT_INTERNAL_ERROR;
    if (ok)
        batch_progress_count(&r->progress, rec.verdict->status, true);
    batch_record_clear(&rec);
    return ok;
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
    po.seed = r->o->seed;
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
    if (!r->o->force && reuse(r, i)) {
        free(src);
        return START_DONE;
    }
    if (!ensure_pool(r)) {
        free(src);
        return START_FATAL;
    }
    enum pool_submit_status st = pool_submit(r->pool, src, len, on_verdict, &r->slots[i]);
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
        struct verdict *v = s->verdict;
        s->verdict = NULL;
        s->next = NULL;
        r->in_flight--;
        /* after a stop, an Internal Error is the shutdown's, not a result */
        if (!(atomic_load(&r->signals) && v->status == VERDICT_INTERNAL_ERROR)) {
            write_record(r, s->index, r->sha[s->index], v);
            batch_progress_count(&r->progress, v->status, false);
        }
        verdict_free(v);
        s = next;
    }
}

static void wait_for_news(struct run *r, int signals_seen)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 100 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
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

/* The verdict of input i's row, from its record on disk. */
static struct verdict *row_verdict(struct run *r, size_t i, bool *missing)
{
    const struct batch_input *e = &r->in.v[i];
    *missing = false;
    if (!e->id_ok)
        return verdict_new(VERDICT_REJECTED, e->refusal);
    size_t len;
    char *text = batch_output_read_student(&r->out, e->key, &len);
    struct batch_record rec;
    bool ok = text && batch_record_parse(text, len, &rec);
    free(text);
    struct verdict *v = NULL;
    if (ok) {
        bool fits = e->refusal ? rec.kind == BATCH_RECORD_REFUSED
                               : rec.kind == BATCH_RECORD_GRADED && !strcmp(rec.sha, r->sha[i]) &&
                                 rec.seed == r->o->seed;
        if (fits && !strcmp(rec.id, e->id)) {
            v = rec.verdict;
            rec.verdict = NULL;
        }
        batch_record_clear(&rec);
    }
    if (!v) {
        *missing = true;
        v = verdict_new(VERDICT_INTERNAL_ERROR, "No result was recorded for this input; run the "
                        "batch again to grade it.");
    }
    return v;
}

/* Writes gradebook.csv and summary.json; prints the summary. */
static int rebuild(struct run *r, double seconds)
{
    const struct batch_options *o = r->o;
    char *csv = NULL;
    size_t csv_len = 0, missing = 0, internal = 0;
    char err[512];
    int rc = BATCH_EXIT_FAILED;
    struct batch_summary *sum = batch_summary_new();
    FILE *m = sum ? open_memstream(&csv, &csv_len) : NULL;
    if (!m) {
        fprintf(stderr, "butterfly-batch: out of memory\n");
        batch_summary_free(sum);
        return BATCH_EXIT_FAILED;
    }
    batch_gradebook_header(m);
    bool ok = true;
    for (size_t i = 0; i < r->in.n; i++) {
        bool lost;
        struct verdict *v = row_verdict(r, i, &lost);
        if (!v) {
            ok = false;
            break;
        }
        struct batch_score sc;
        batch_score_verdict(v, &sc);
        batch_gradebook_row(m, &r->in.v[i], v, &sc);
        ok &= batch_summary_add(sum, v, &sc);
        missing += lost;
        internal += v->status == VERDICT_INTERNAL_ERROR;
        verdict_free(v);
    }
    if (fclose(m) != 0 || !ok) {
        fprintf(stderr, "butterfly-batch: out of memory\n");
        goto out;
    }
    json_t *sj = batch_summary_to_json(sum, o->seed, r->in.n);
    char *sjs = sj ? json_dumps(sj, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) : NULL;
    json_decref(sj);
    if (!sjs)
        snprintf(err, sizeof err, "out of memory");
    bool written = sjs &&
        batch_output_write(&r->out, "gradebook.csv", csv, csv_len, err, sizeof err) &&
        batch_output_write(&r->out, "summary.json", sjs, strlen(sjs), err, sizeof err);
    free(sjs);
    if (!written) {
        fprintf(stderr, "butterfly-batch: %s\n", err);
        goto out;
    }
    /* the check reads the file back as any CSV reader would */
    long rows = -1;
    int fd = openat(r->out.dir_fd, "gradebook.csv", O_RDONLY | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (f) {
        rows = batch_gradebook_count_rows(f);
        fclose(f);
    } else if (fd >= 0) {
        close(fd);
    }
    if (!o->quiet) {
        size_t reused = r->progress.reused;
        size_t graded = r->progress.graded - r->refused;
        printf("butterfly-batch: %zu inputs (%s)", r->in.n, batch_format_to_str(r->in.format));
        if (r->in.hidden)
            printf("; %zu entries left out (hidden files, the output folder)", r->in.hidden);
        printf("\nGraded %zu now, reused %zu from an earlier run, refused %zu before grading; "
               "%.1f s", graded, reused, r->refused, seconds);
        if (graded && seconds > 0)
            printf(" (%.1f submissions/s)", (double)graded / seconds);
        printf("\n");
        batch_summary_print(stdout, sum);
        printf("Wrote %s/gradebook.csv, %s/summary.json and %s/students/*/results.json\n",
               o->output, o->output, o->output);
    }
    if (rows != (long)r->in.n) {
        fprintf(stderr, "butterfly-batch: gradebook.csv has %ld rows for %zu inputs\n", rows,
                r->in.n);
        goto out;
    }
    if (!o->quiet)
        printf("Rows in gradebook.csv: %ld = inputs: %zu\n", rows, r->in.n);
    rc = BATCH_EXIT_OK;
    if (missing || internal) {
        fprintf(stderr, "butterfly-batch: %zu rows are Internal Errors (%zu without a recorded "
                "result); run the same command again to grade them\n", internal, missing);
        rc = BATCH_EXIT_INCOMPLETE;
    }
out:
    free(csv);
    batch_summary_free(sum);
    return rc;
}

/* --- the run ---------------------------------------------------------- */

int batch_run(const struct batch_options *o)
{
    struct run r = { .o = o, .out = { -1, -1, -1, -1, 0 } };
    char err[1024];
    int rc = BATCH_EXIT_FAILED;
    sigset_t set, old;
    pthread_t sig_thread;
    bool sig_started = false;
    r.in.dir_fd = -1;
    pthread_mutex_init(&r.lock, NULL);
    pthread_cond_init(&r.cond, NULL);
    atomic_init(&r.signals, 0);
    atomic_init(&r.last_signal, 0);
    atomic_init(&r.ending, false);

    /* before any thread: every thread after, and every worker, inherits it */
    stop_signals(&set);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    if (pthread_create(&sig_thread, NULL, signal_main, &r) != 0) {
        fprintf(stderr, "butterfly-batch: cannot start a thread\n");
        goto out;
    }
    sig_started = true;

    /* checked before anything is created: results must not land among the inputs */
    struct stat in_st, out_st;
    if (stat(o->input, &in_st) == 0 && stat(o->output, &out_st) == 0 &&
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
    };
    batch_output_identity(&r.out, &io.skip_dev, &io.skip_ino);
    if (!batch_inputs_load(&io, &r.in, err, sizeof err)) {
        fprintf(stderr, "butterfly-batch: %s\n", err);
        goto out;
    }
    if (r.in.n == 0) {
        fprintf(stderr, "butterfly-batch: no submissions in %s\n", o->input);
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
    batch_inputs_free(&r.in);
    batch_output_close(&r.out);
    free(r.sha);
    free(r.slots);
    pthread_mutex_destroy(&r.lock);
    pthread_cond_destroy(&r.cond);
    return rc;
}
