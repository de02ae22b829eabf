/*
 * pool.c - the callers' side of the pool: options, admission, cancelling,
 * stats and the lifetime. The supervisor thread that owns the workers is
 * in supervisor.c; what both share, and the locking rules, in
 * pool_internal.h.
 */
#include "pool/pool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/install_paths.h"
#include "common/seed.h"
#include "pool/pool_internal.h"

void pool_options_init(struct pool_options *o)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    memset(o, 0, sizeof *o);
    o->workers = cores > 0 ? (unsigned)cores : 1;
    o->queue_length = DEFAULT_QUEUE_LENGTH;
    o->per_client_queue = 0;
    o->max_wait_ms = 0;
    o->deadline_ms = DEFAULT_DEADLINE_MS;
    o->max_jobs_per_worker = DEFAULT_RECYCLE_AFTER;
    o->start_timeout_ms = DEFAULT_START_TIMEOUT_MS;
    o->cpu_memory_mb = DEFAULT_CPU_MEMORY_MB;
}

const char *pool_submit_status_to_str(enum pool_submit_status s)
{
    switch (s) {
    case POOL_SUBMITTED: return "submitted";
    case POOL_QUEUE_FULL: return "queue_full";
    case POOL_CLIENT_BUSY: return "client_busy";
    case POOL_WAIT_TOO_LONG: return "wait_too_long";
    case POOL_STOPPING: return "stopping";
    case POOL_UNKNOWN_EXERCISE: return "unknown_exercise";
    case POOL_NO_MEMORY: return "no_memory";
    }
    return "unknown";
}

bool pool_find_worker(const char *given, char *path, size_t pathsz, char *err, size_t errsz)
{
    const char *env = getenv("BUTTERFLY_WORKER");
    const char *chosen = given && *given ? given : env && *env ? env : NULL;
    if (chosen) {
        /* a path the operator set is taken as it is, never silently
         * replaced by another worker from elsewhere */
        if (access(chosen, X_OK) != 0) {
            snprintf(err, errsz, "the worker %s%s cannot be run (%s)", chosen,
                     chosen == given ? "" : " (from BUTTERFLY_WORKER)", strerror(errno));
            return false;
        }
        snprintf(path, pathsz, "%s", chosen);
        return true;
    }
    if (!install_paths_find(INSTALL_WORKER, path, pathsz) || access(path, X_OK) != 0) {
        snprintf(err, errsz, "cannot find butterfly-worker (looked for %s; set BUTTERFLY_WORKER)",
                 path);
        return false;
    }
    return true;
}

void pool_wake(struct pool *p)
{
    char c = 1;
    /* the pipe is non-blocking: when full, the supervisor is awake anyway */
    if (write(p->wake[1], &c, 1) < 0 && errno != EAGAIN)
        perror("pool: wake");
}

unsigned pool_count_ready(const struct pool *p)
{
    unsigned n = 0;
    for (unsigned i = 0; i < p->opts.workers; i++) {
        const struct worker *w = &p->workers[i];
        n += w->state == W_IDLE || w->state == W_BUSY;
    }
    return n;
}

unsigned pool_count_state(const struct pool *p, enum worker_state st)
{
    unsigned n = 0;
    for (unsigned i = 0; i < p->opts.workers; i++)
        n += p->workers[i].state == st;
    return n;
}

double pool_expected_wait_ms(const struct pool *p)
{
    unsigned ready = pool_count_ready(p);
    /* while workers start, count them: they will take jobs within seconds */
    unsigned workers = ready ? ready : p->opts.workers;
    return wait_estimate_ms(&p->job_time, fair_queue_total(p->queue),
                            pool_count_state(p, W_BUSY), workers);
}

void pool_finish_job(struct pool *p, struct job *j, const struct frame_verdict *h, char *json,
                     size_t len, bool graded)
{
    /* without json (out of memory) the job answers with its reserved verdict */
    if (json) {
        free(j->result.verdict);
        j->result.verdict = json;
        j->result.verdict_len = len;
        j->result.head = *h;
    }
    j->result.cancelled = j->abandoned;
    j->result.graded = graded && json != NULL;
    j->result.job_id = j->id;
    j->result.attempts = j->attempts;
    j->next = p->to_deliver;
    p->to_deliver = j;
    p->stats.completed++;
}

void pool_finish_verdict(struct pool *p, struct job *j, struct verdict *v, bool graded)
{
    struct frame_verdict h = { 0 };
    size_t len = 0;
    char *json = v ? verdict_to_bytes(v, &len) : NULL;
    if (json)
        frame_verdict_of(v, &h);
    verdict_free(v);
    pool_finish_job(p, j, &h, json, len, graded);
}

void pool_result_clear(struct pool_result *r)
{
    if (!r)
        return;
    free(r->verdict);
    r->verdict = NULL;
    r->verdict_len = 0;
}

void pool_deliver(struct job *list)
{
    while (list) {
        struct job *next = list->next;
        /* never NULL: every job holds a verdict from job_new on */
        list->done(&list->result, list->arg);
        list->result.verdict = NULL;   /* the callback's now */
        job_free(list);
        list = next;
    }
}

/* --- submitting -------------------------------------------------------- */

/* Admission, lock held: whether one more job of `client` may wait. A
 * refusal is counted in the stats when `count` (not for a caller that
 * waits for room and asks again). */
static enum pool_submit_status admit(struct pool *p, const struct client_id *client, bool limits,
                                     bool count, double *wait_ms)
{
    double wait = pool_expected_wait_ms(p);
    if (wait_ms)
        *wait_ms = wait;
    if (p->stopping)
        return POOL_STOPPING;
    unsigned idle = pool_count_state(p, W_IDLE);
    /* A job for an idle worker is not waiting, even if the supervisor has
     * not picked it up yet: without this, two jobs arriving together at an
     * idle pool with a queue of one would see one refused. */
    if (fair_queue_total(p->queue) >= p->opts.queue_length + idle) {
        p->stats.refused_full += count;
        return POOL_QUEUE_FULL;
    }
    if (!limits)
        return POOL_SUBMITTED;
    if (p->opts.per_client_queue &&
        fair_queue_of(p->queue, client) >= p->opts.per_client_queue) {
        p->stats.refused_client += count;
        return POOL_CLIENT_BUSY;
    }
    if (p->opts.max_wait_ms && wait > p->opts.max_wait_ms) {
        p->stats.refused_wait += count;
        return POOL_WAIT_TOO_LONG;
    }
    return POOL_SUBMITTED;
}

/* Queues job unless refused; on refusal the job is freed. */
static enum pool_submit_status enqueue(struct pool *p, struct job *j, bool limits,
                                       bool wait_for_room, uint64_t *job_id, double *wait_ms)
{
    enum pool_submit_status st;
    pthread_mutex_lock(&p->lock);
    while ((st = admit(p, &j->client, limits, !wait_for_room, wait_ms)) != POOL_SUBMITTED &&
           wait_for_room && st != POOL_STOPPING)
        pthread_cond_wait(&p->changed, &p->lock);
    if (st == POOL_SUBMITTED) {
        j->id = ++p->next_job_id;
        j->submitted_ms = clock_now_ms();
        if (!fair_queue_push(p->queue, j, false))
            st = POOL_NO_MEMORY;
    }
    if (st == POOL_SUBMITTED) {
        p->stats.submitted++;
        if (job_id)
            *job_id = j->id;
    }
    pthread_mutex_unlock(&p->lock);
    if (st != POOL_SUBMITTED)
        job_free(j);
    else
        pool_wake(p);
    return st;
}

/* A new job, with its own fresh seed when the pool draws one per job (outside
 * the lock: getrandom is a system call). NULL on OOM, or when there is no
 * random source: never grade with a guessable seed. */
static struct job *make_job(struct pool *p, const struct exercise *e, const char *body,
                            size_t len, const struct client_id *client)
{
    struct job *j = job_new(e, body, len, client, p->opts.seed);
    if (j && p->opts.seed_per_job && !seed_fresh(&j->seed)) {
        job_free(j);
        return NULL;
    }
    return j;
}

enum pool_submit_status pool_submit(struct pool *p, const struct pool_submission *s,
                                    uint64_t *job_id, double *wait_ms)
{
    const struct exercise *e = s->exercise ? exercise_find(s->exercise) : exercise_default();
    if (!e)
        return POOL_UNKNOWN_EXERCISE;
    struct job *j = make_job(p, e, s->body, s->len, s->client);
    if (!j)
        return POOL_NO_MEMORY;
    j->done = s->done;
    j->arg = s->arg;
    return enqueue(p, j, true, false, job_id, wait_ms);
}

void pool_cancel(struct pool *p, uint64_t job_id)
{
    pthread_mutex_lock(&p->lock);
    struct job *j = fair_queue_remove(p->queue, job_id);
    if (j) {
        j->abandoned = true;
        j->result.run_ms = -1;
        j->result.wait_ms = clock_now_ms() - j->submitted_ms;
        p->stats.cancelled_queued++;
        pool_finish_verdict(p, j, verdict_new(VERDICT_INTERNAL_ERROR, POOL_CANCELLED_MESSAGE),
                            false);
        pthread_cond_broadcast(&p->changed);
    } else {
        for (unsigned i = 0; i < p->opts.workers; i++) {
            struct worker *w = &p->workers[i];
            if (w->state == W_BUSY && w->job && w->job->id == job_id && !w->job->abandoned) {
                /* Stopping a worker costs a restart; a job that will end
                 * sooner than that is left to finish. */
                double restart = p->start_time.samples ? p->start_time.mean_ms
                                                       : JOB_TIME_FIRST_GUESS_MS * 5;
                double keep = 2 * p->job_time.mean_ms > restart ? 2 * p->job_time.mean_ms
                                                                : restart;
                w->job->abandoned = true;
                w->job->kill_at_ms = w->job->started_ms + keep;
            }
        }
    }
    pthread_mutex_unlock(&p->lock);
    pool_wake(p);
}

struct sync_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct pool_result *r;
    bool done;
};

static void sync_done(struct pool_result *r, void *arg)
{
    struct sync_wait *s = arg;
    pthread_mutex_lock(&s->lock);
    *s->r = *r;
    s->done = true;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

/* An Internal Error the caller of pool_grade gets without a job. */
static void grade_refused(struct pool_result *r, const char *why)
{
    struct verdict *v = verdict_new(VERDICT_INTERNAL_ERROR, why);
    *r = (struct pool_result){ .run_ms = -1 };
    if (v) {
        r->verdict = verdict_to_bytes(v, &r->verdict_len);
        frame_verdict_of(v, &r->head);
    }
    verdict_free(v);
}

void pool_grade(struct pool *p, const char *body, size_t len, struct pool_result *r)
{
    pool_grade_exercise(p, NULL, body, len, r);
}

void pool_grade_exercise(struct pool *p, const struct exercise *e, const char *body, size_t len,
                         struct pool_result *r)
{
    struct sync_wait s = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, r, false };
    struct job *j = make_job(p, e ? e : exercise_default(), body, len, NULL);
    if (!j) {
        grade_refused(r, "Out of memory.");
        return;
    }
    j->done = sync_done;
    j->arg = &s;
    enum pool_submit_status st = enqueue(p, j, false, true, NULL, NULL);
    if (st != POOL_SUBMITTED) {
        grade_refused(r, st == POOL_STOPPING ? "The grader is shutting down." : "Out of memory.");
        return;
    }
    pthread_mutex_lock(&s.lock);
    while (!s.done)
        pthread_cond_wait(&s.cond, &s.lock);
    pthread_mutex_unlock(&s.lock);
}

/* --- observing ---------------------------------------------------------- */

void pool_get_stats(struct pool *p, struct pool_stats *s)
{
    pthread_mutex_lock(&p->lock);
    *s = p->stats;
    s->ready = pool_count_ready(p);
    s->starting = pool_count_state(p, W_STARTING);
    /* a worker being replaced after it was stopped (a timeout, a cancelled
     * job), or its replacement warming up, keeps the pool healthy; starts
     * that keep failing do not, nor a pool that never got a worker warm */
    s->healthy = s->ready > 0 || (p->ever_ready && p->start_failures < POOL_START_FAILURES_HOPELESS && !p->stopping);
    s->busy = pool_count_state(p, W_BUSY);
    s->queued = fair_queue_total(p->queue);
    s->queued_clients = fair_queue_clients(p->queue);
    s->mean_job_ms = p->job_time.mean_ms;
    s->expected_wait_ms = pool_expected_wait_ms(p);
    pthread_mutex_unlock(&p->lock);
}

unsigned pool_worker_pids(struct pool *p, pid_t *pids, bool *busy, unsigned max)
{
    unsigned n = 0;
    pthread_mutex_lock(&p->lock);
    for (unsigned i = 0; i < p->opts.workers && n < max; i++) {
        const struct worker *w = &p->workers[i];
        if (w->state == W_EMPTY || w->state == W_DYING || w->pid <= 0)
            continue;
        pids[n] = w->pid;
        if (busy)
            busy[n] = w->state == W_BUSY;
        n++;
    }
    pthread_mutex_unlock(&p->lock);
    return n;
}

unsigned pool_wait_ready(struct pool *p, unsigned n, uint32_t timeout_ms, char *err, size_t errsz)
{
    struct timespec until = clock_after_ms(timeout_ms);
    pthread_mutex_lock(&p->lock);
    unsigned ready;
    while ((ready = pool_count_ready(p)) < n && p->start_failures < POOL_START_FAILURES_HOPELESS)
        if (pthread_cond_timedwait(&p->changed, &p->lock, &until) == ETIMEDOUT)
            break;
    ready = pool_count_ready(p);
    if (ready == 0)
        snprintf(err, errsz, "%s", p->last_failure[0] ? p->last_failure
                                                      : "no worker got ready in time");
    pthread_mutex_unlock(&p->lock);
    return ready;
}

/* --- lifetime ------------------------------------------------------------ */

struct pool *pool_new(const struct pool_options *o, char *err, size_t errsz)
{
    if (o->workers < 1 || o->workers > POOL_MAX_WORKERS || o->deadline_ms < 1 ||
        o->deadline_ms > MAX_DEADLINE_MS) {
        snprintf(err, errsz, "workers must be 1..%u and the deadline 1..%u ms",
                 POOL_MAX_WORKERS, MAX_DEADLINE_MS);
        return NULL;
    }
    struct pool *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    p->opts = *o;
    p->opts.device = o->device ? strdup(o->device) : NULL;
    p->opts.worker_path = NULL;
    p->wake[0] = p->wake[1] = -1;
    bool lock_made = false;
    if ((o->device && !p->opts.device) || !(p->queue = fair_queue_new())) {
        snprintf(err, errsz, "out of memory");
        goto fail;
    }
    if (!pool_find_worker(o->worker_path, p->worker_path, sizeof p->worker_path, err, errsz))
        goto fail;
    /* The worker's own device wait is the job's deadline plus a margin:
     * the supervisor's kill is what enforces the deadline. The bound on
     * the deadline keeps the sum far from wrapping. */
    snprintf(p->deadline_arg, sizeof p->deadline_arg, "%u", o->deadline_ms + WORKER_DEADLINE_MARGIN_MS);
    snprintf(p->memory_arg, sizeof p->memory_arg, "%zu", o->cpu_memory_mb);
    for (unsigned i = 0; i < POOL_MAX_WORKERS; i++)
        p->workers[i].fd = -1;
    p->stats.workers = o->workers;
    p->stats.queue_length = o->queue_length;
    job_time_init(&p->job_time);
    job_time_init(&p->start_time);
    if (pipe2(p->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        snprintf(err, errsz, "pipe: %s", strerror(errno));
        goto fail;
    }
    pthread_mutex_init(&p->lock, NULL);
    clock_cond_init(&p->changed);
    lock_made = true;
    if (pthread_create(&p->thread, NULL, pool_supervise, p) != 0) {
        snprintf(err, errsz, "cannot start the supervisor thread");
        goto fail;
    }
    return p;
fail:
    if (lock_made) {
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->changed);
    }
    if (p->wake[0] >= 0) {
        close(p->wake[0]);
        close(p->wake[1]);
    }
    fair_queue_free(p->queue);
    free((char *)p->opts.device);
    free(p);
    return NULL;
}

void pool_free(struct pool *p, uint32_t drain_ms)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = true;
    p->drain_until_ms = clock_now_ms() + drain_ms;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    pool_wake(p);
    pthread_join(p->thread, NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->changed);
    close(p->wake[0]);
    close(p->wake[1]);
    fair_queue_free(p->queue);
    free((char *)p->opts.device);
    free(p);
}
