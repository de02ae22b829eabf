/*
 * pool.c - the supervisor: one thread that owns every worker process.
 *
 * Workers are started with posix_spawn (fork+exec: a process that holds a
 * Vulkan device must never be forked) and talk over a socket pair. The
 * supervisor thread polls their sockets, hands queued jobs to idle
 * workers, and enforces each job's deadline by SIGKILL. Every job leaves
 * the pool through finish(), which is the only place a verdict is handed
 * back, so every job gets exactly one verdict.
 */
#include "pool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "frame.h"

extern char **environ;

struct job {
    char *body;
    size_t len;
    pool_done_fn done;
    void *arg;
    struct verdict *verdict;     /* set by finish() */
    double started_ms;           /* when a worker took it */
    struct job *next;
};

enum worker_state { W_EMPTY, W_STARTING, W_IDLE, W_BUSY };

struct worker {
    enum worker_state state;
    pid_t pid;
    int fd;
    struct frame_reader rd;
    struct job *job;
    char stage[16];              /* what the job was doing: "compile", "run" */
    double deadline_ms;          /* of the job, or of the start */
    double respawn_at_ms;        /* for an empty slot: not before */
    unsigned jobs_done;
};

struct pool {
    struct pool_options opts;
    char worker_path[512];
    char seed_arg[32], deadline_arg[32], memory_arg[32];
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;      /* a worker became ready, or the queue moved */
    int wake[2];                 /* a byte here wakes the supervisor */

    struct job *queue_head, *queue_tail;
    unsigned queued;
    struct worker workers[POOL_MAX_WORKERS];
    pid_t zombies[POOL_MAX_WORKERS * 4];
    unsigned nzombies;
    unsigned start_failures;     /* in a row, with no worker ready */
    char last_failure[768];

    bool stopping;
    double drain_until_ms;
    struct pool_stats stats;
    double job_ms_sum;
};

static double now_ms(void)
{
    return clock_now_ms();
}

void pool_options_init(struct pool_options *o)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    memset(o, 0, sizeof *o);
    o->workers = cores > 0 ? (unsigned)cores : 1;
    o->queue_length = DEFAULT_QUEUE_LENGTH;
    o->deadline_ms = DEFAULT_DEADLINE_MS;
    o->max_jobs_per_worker = DEFAULT_RECYCLE_AFTER;
    o->start_timeout_ms = DEFAULT_START_TIMEOUT_MS;
    o->seed = TASK_DEFAULT_SEED;
    o->cpu_memory_mb = DEFAULT_CPU_MEMORY_MB;
}

static void wake(struct pool *p)
{
    char c = 1;
    /* the pipe is non-blocking: when full, the supervisor is awake anyway */
    if (write(p->wake[1], &c, 1) < 0 && errno != EAGAIN)
        perror("pool: wake");
}

/* --- jobs ------------------------------------------------------------ */

/* Gives `job` its verdict and moves it to `done` for the callback. */
static void finish(struct pool *p, struct job *job, struct verdict *v, struct job **done)
{
    if (!v)   /* out of memory: the job still gets an answer */
        v = verdict_new(VERDICT_INTERNAL_ERROR, NULL);
    job->verdict = v;
    job->next = *done;
    *done = job;
    p->stats.completed++;
}

static struct verdict *internal_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return verdict_new(VERDICT_INTERNAL_ERROR, msg);
}

/* Calls the callbacks, outside the lock: they may submit again. */
static void deliver(struct job *done)
{
    while (done) {
        struct job *next = done->next;
        done->done(done->verdict, done->arg);
        free(done->body);
        free(done);
        done = next;
    }
}

/* --- workers --------------------------------------------------------- */

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGXCPU: return "SIGXCPU";
    case SIGILL: return "SIGILL";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
    }
}

/* The one place a worker's death becomes a verdict. */
static struct verdict *death_verdict(const char *stage, bool have_status, int status)
{
    enum verdict_status st = VERDICT_RUNTIME_OTHER;
    char how[64];
    if (!have_status) {
        snprintf(how, sizeof how, "ended unexpectedly");
    } else if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        st = sig == SIGSEGV ? VERDICT_RUNTIME_SIGSEGV
           : sig == SIGXFSZ ? VERDICT_RUNTIME_SIGXFSZ
           : sig == SIGFPE ? VERDICT_RUNTIME_SIGFPE
           : sig == SIGABRT ? VERDICT_RUNTIME_SIGABRT
           : VERDICT_RUNTIME_OTHER;
        snprintf(how, sizeof how, "was killed by %s (signal %d)", signal_name(sig), sig);
    } else {
        st = VERDICT_RUNTIME_NZEC;
        snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
    }
    struct verdict *v = verdict_new(st, NULL);
    if (!v)
        return NULL;
    if (!strcmp(stage, "compile"))
        verdict_set_message(v, "The compiler crashed on this body: its process %s. "
                            "Very long expressions, very deep nesting or huge macro "
                            "expansions do this; simplify the code.", how);
    else
        verdict_set_message(v, "The process running your kernel %s while it %s.", how,
                            !strcmp(stage, "run") ? "ran" : "was graded");
    return v;
}

/* Waits briefly for pid to be reaped; false if it is still running. */
static bool reap(pid_t pid, int *status, int tries)
{
    for (int i = 0; i < tries; i++) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD))
            return r == pid;
        struct timespec ts = { 0, 2 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    return false;
}

static void remember_zombie(struct pool *p, pid_t pid)
{
    if (p->nzombies < sizeof p->zombies / sizeof p->zombies[0])
        p->zombies[p->nzombies++] = pid;
}

static void reap_zombies(struct pool *p)
{
    unsigned kept = 0;
    for (unsigned i = 0; i < p->nzombies; i++) {
        int st;
        pid_t r = waitpid(p->zombies[i], &st, WNOHANG);
        if (r == 0)
            p->zombies[kept++] = p->zombies[i];
    }
    p->nzombies = kept;
}

/* Empties a slot whose process is gone or going; schedules its successor. */
static void clear_slot(struct pool *p, struct worker *w, double respawn_delay_ms)
{
    if (w->fd >= 0)
        close(w->fd);
    frame_reader_clear(&w->rd);
    w->fd = -1;
    w->pid = 0;
    w->job = NULL;
    w->state = W_EMPTY;
    w->stage[0] = '\0';
    w->jobs_done = 0;
    w->respawn_at_ms = now_ms() + respawn_delay_ms;
    pthread_cond_broadcast(&p->changed);
}

static double backoff_ms(unsigned failures)
{
    double d = 100;
    for (unsigned i = 1; i < failures && d < 5000; i++)
        d *= 2;
    return failures ? (d < 5000 ? d : 5000) : 0;
}

/* The worker is dead or must die: kill, reap, answer its job, empty it. */
static void worker_lost(struct pool *p, struct worker *w, bool timed_out, struct job **done)
{
    int status = 0;
    bool have_status;
    if (timed_out)
        kill(w->pid, SIGKILL);
    have_status = reap(w->pid, &status, timed_out ? 250 : 250);
    if (!have_status) {
        kill(w->pid, SIGKILL);
        remember_zombie(p, w->pid);
    }
    if (w->job) {
        struct verdict *v;
        if (timed_out) {
            p->stats.timeouts++;
            v = verdict_new(VERDICT_TIME_LIMIT, NULL);
            if (v && !strcmp(w->stage, "compile"))
                verdict_set_message(v, "Compiling took longer than the %u ms limit: look for "
                                    "macros that expand to huge code.", p->opts.deadline_ms);
            else if (v)
                /* on lavapipe the driver compiles at the first dispatch, so
                 * a huge unrolled program ends here as well as a runaway loop */
                verdict_set_message(v, "The kernel did not finish within %u ms, its compile by "
                                    "the driver included. Look for a loop that never ends, or "
                                    "code that expands into a huge program.", p->opts.deadline_ms);
        } else {
            p->stats.crashes++;
            v = death_verdict(w->stage, have_status, status);
        }
        finish(p, w->job, v, done);
        w->job = NULL;
        p->start_failures = 0;   /* it was warm: not a start failure */
        clear_slot(p, w, 0);
    } else {
        /* died while starting (or idle): back off before the next try */
        if (w->state == W_STARTING) {
            p->start_failures++;
            if (timed_out)
                snprintf(p->last_failure, sizeof p->last_failure,
                         "a worker did not get ready within %u ms", p->opts.start_timeout_ms);
            else if (have_status && WIFEXITED(status))
                snprintf(p->last_failure, sizeof p->last_failure,
                         "a worker exited with status %d while starting (no Vulkan device?)",
                         WEXITSTATUS(status));
            else
                snprintf(p->last_failure, sizeof p->last_failure,
                         "a worker died while starting");
        }
        clear_slot(p, w, backoff_ms(p->start_failures));
    }
    p->stats.worker_restarts++;
}

static bool spawn_worker(struct pool *p, struct worker *w)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return false;
    /* dup2 onto itself would keep close-on-exec set: keep the child's end
     * away from fd 3 */
    if (sv[1] == 3) {
        int moved = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
        close(sv[1]);
        if (moved < 0) {
            close(sv[0]);
            return false;
        }
        sv[1] = moved;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
    char *argv[] = {
        p->worker_path, "--seed", p->seed_arg, "--deadline-ms", p->deadline_arg,
        "--memory-mb", p->memory_arg, p->opts.device ? "--device" : NULL,
        (char *)p->opts.device, NULL,
    };
    pid_t pid;
    int rc = posix_spawn(&pid, p->worker_path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    if (rc != 0) {
        close(sv[0]);
        snprintf(p->last_failure, sizeof p->last_failure, "cannot start %s: %s",
                 p->worker_path, strerror(rc));
        return false;
    }
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    w->pid = pid;
    w->fd = sv[0];
    w->state = W_STARTING;
    w->deadline_ms = now_ms() + p->opts.start_timeout_ms;
    w->jobs_done = 0;
    memset(&w->rd, 0, sizeof w->rd);
    p->stats.worker_starts++;
    return true;
}

/* Hands the job to an idle worker; false (worker lost) when the write fails. */
static bool dispatch(struct pool *p, struct worker *w, struct job *job)
{
    w->job = job;
    w->state = W_BUSY;
    w->stage[0] = '\0';
    job->started_ms = now_ms();
    w->deadline_ms = job->started_ms + p->opts.deadline_ms;
    /* The worker is idle, so it waits in read() and the socket buffer
     * takes the whole frame (at most 64 KiB of body) at once. */
    int flags = fcntl(w->fd, F_GETFL);
    fcntl(w->fd, F_SETFL, flags & ~O_NONBLOCK);
    struct timeval tv = { 2, 0 };
    setsockopt(w->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    bool ok = frame_write(w->fd, FRAME_JOB, job->body, job->len);
    fcntl(w->fd, F_SETFL, flags | O_NONBLOCK);
    return ok;
}

static void on_verdict(struct pool *p, struct worker *w, const char *payload, struct job **done)
{
    json_error_t jerr;
    json_t *j = json_loads(payload, 0, &jerr);
    struct verdict *v = j ? verdict_from_json(j) : NULL;
    json_decref(j);
    if (!v)
        v = internal_error("the worker sent a verdict that could not be read");
    p->job_ms_sum += now_ms() - w->job->started_ms;
    finish(p, w->job, v, done);
    w->job = NULL;
    w->jobs_done++;
    if (p->opts.max_jobs_per_worker && w->jobs_done >= p->opts.max_jobs_per_worker) {
        /* recycle: closing the socket ends the worker's read loop */
        remember_zombie(p, w->pid);
        p->stats.recycles++;
        clear_slot(p, w, 0);
        return;
    }
    w->state = W_IDLE;
    pthread_cond_broadcast(&p->changed);
}

/* Reads what a worker sent; handles its frames and its end. */
static void on_worker_readable(struct pool *p, struct worker *w, struct job **done)
{
    for (;;) {
        enum frame_type type;
        char *payload;
        size_t len;
        enum frame_read_status st = frame_reader_poll(&w->rd, w->fd, &type, &payload, &len);
        if (st == FRAME_READ_MORE)
            return;
        if (st != FRAME_READ_DONE) {
            worker_lost(p, w, false, done);
            return;
        }
        bool bad = false;
        if (type == FRAME_READY && w->state == W_STARTING) {
            json_t *ready = json_loads(payload, 0, NULL);
            json_t *dev = json_object_get(ready, "device");
            snprintf(p->stats.device_name, sizeof p->stats.device_name, "%s",
                     json_string_value(json_object_get(dev, "name")) ?: "");
            snprintf(p->stats.device_type, sizeof p->stats.device_type, "%s",
                     json_string_value(json_object_get(dev, "type")) ?: "");
            json_decref(ready);
            w->state = W_IDLE;
            p->start_failures = 0;
            pthread_cond_broadcast(&p->changed);
        } else if (type == FRAME_STAGE && w->state == W_BUSY) {
            snprintf(w->stage, sizeof w->stage, "%s", payload);
        } else if (type == FRAME_VERDICT && w->state == W_BUSY) {
            on_verdict(p, w, payload, done);
        } else {
            bad = true;   /* a frame out of turn: the worker is not sane */
        }
        free(payload);
        if (bad) {
            worker_lost(p, w, true, done);
            return;
        }
        if (w->state == W_EMPTY)
            return;
    }
}

/* --- the supervisor thread ------------------------------------------- */

static unsigned count_ready(const struct pool *p)
{
    unsigned n = 0;
    for (unsigned i = 0; i < p->opts.workers; i++)
        n += p->workers[i].state == W_IDLE || p->workers[i].state == W_BUSY;
    return n;
}

static struct job *pop_job(struct pool *p)
{
    struct job *j = p->queue_head;
    if (j) {
        p->queue_head = j->next;
        if (!p->queue_head)
            p->queue_tail = NULL;
        j->next = NULL;
        p->queued--;
        pthread_cond_broadcast(&p->changed);
    }
    return j;
}

/* With no worker able to start, queued jobs would wait forever. */
static void fail_queue_if_hopeless(struct pool *p, struct job **done)
{
    if (p->start_failures < 3 || count_ready(p) > 0)
        return;
    struct job *j;
    while ((j = pop_job(p)))
        finish(p, j, internal_error("No grading worker could start: %s.", p->last_failure), done);
}

static void schedule(struct pool *p, struct job **done)
{
    double t = now_ms();
    for (unsigned i = 0; i < p->opts.workers; i++) {
        struct worker *w = &p->workers[i];
        if (w->state == W_EMPTY && !p->stopping && t >= w->respawn_at_ms) {
            if (!spawn_worker(p, w)) {
                p->start_failures++;
                w->respawn_at_ms = t + backoff_ms(p->start_failures);
            }
        }
        if (w->state == W_IDLE && p->queue_head) {
            struct job *j = pop_job(p);
            if (!dispatch(p, w, j))
                worker_lost(p, w, true, done);
        }
    }
    fail_queue_if_hopeless(p, done);
}

static void check_deadlines(struct pool *p, struct job **done)
{
    double t = now_ms();
    for (unsigned i = 0; i < p->opts.workers; i++) {
        struct worker *w = &p->workers[i];
        if ((w->state == W_BUSY || w->state == W_STARTING) && t >= w->deadline_ms)
            worker_lost(p, w, true, done);
    }
}

static int poll_timeout(const struct pool *p)
{
    double t = now_ms(), next = t + 1000;
    for (unsigned i = 0; i < p->opts.workers; i++) {
        const struct worker *w = &p->workers[i];
        if ((w->state == W_BUSY || w->state == W_STARTING) && w->deadline_ms < next)
            next = w->deadline_ms;
        if (w->state == W_EMPTY && !p->stopping && w->respawn_at_ms < next)
            next = w->respawn_at_ms;
    }
    if (p->stopping && p->drain_until_ms < next)
        next = p->drain_until_ms;
    double ms = next - t;
    return ms <= 0 ? 0 : (int)ms + 1;
}

static bool drained(const struct pool *p)
{
    if (!p->stopping)
        return false;
    if (now_ms() >= p->drain_until_ms)
        return true;
    if (p->queue_head)
        return count_ready(p) == 0 && p->start_failures >= 3;
    for (unsigned i = 0; i < p->opts.workers; i++)
        if (p->workers[i].state == W_BUSY)
            return false;
    return true;
}

static void *supervise(void *arg)
{
    struct pool *p = arg;
    struct pollfd fds[POOL_MAX_WORKERS + 1];
    int slot[POOL_MAX_WORKERS + 1];

    pthread_mutex_lock(&p->lock);
    for (;;) {
        struct job *done = NULL;
        schedule(p, &done);
        if (drained(p)) {
            pthread_mutex_unlock(&p->lock);
            deliver(done);
            pthread_mutex_lock(&p->lock);
            break;
        }
        nfds_t n = 0;
        fds[n] = (struct pollfd){ .fd = p->wake[0], .events = POLLIN };
        slot[n++] = -1;
        for (unsigned i = 0; i < p->opts.workers; i++) {
            if (p->workers[i].state != W_EMPTY) {
                fds[n] = (struct pollfd){ .fd = p->workers[i].fd, .events = POLLIN };
                slot[n++] = (int)i;
            }
        }
        int timeout = poll_timeout(p);
        pthread_mutex_unlock(&p->lock);
        deliver(done);
        done = NULL;
        int rc = poll(fds, n, timeout);
        pthread_mutex_lock(&p->lock);
        if (rc < 0 && errno != EINTR)
            perror("pool: poll");
        if (rc > 0 && (fds[0].revents & POLLIN)) {
            char buf[64];
            while (read(p->wake[0], buf, sizeof buf) > 0)
                ;
        }
        for (nfds_t k = 1; rc > 0 && k < n; k++) {
            struct worker *w = &p->workers[slot[k]];
            if (fds[k].revents && w->state != W_EMPTY && w->fd == fds[k].fd)
                on_worker_readable(p, w, &done);
        }
        check_deadlines(p, &done);
        reap_zombies(p);
        pthread_mutex_unlock(&p->lock);
        deliver(done);
        pthread_mutex_lock(&p->lock);
    }

    /* shutting down: whatever is left gets an answer, then the workers go */
    struct job *done = NULL, *j;
    while ((j = pop_job(p)))
        finish(p, j, internal_error("The grader is shutting down; submit again."), &done);
    for (unsigned i = 0; i < p->opts.workers; i++) {
        struct worker *w = &p->workers[i];
        if (w->state == W_EMPTY)
            continue;
        if (w->job)
            finish(p, w->job, internal_error("The grader shut down while grading this; submit again."), &done);
        w->job = NULL;
        kill(w->pid, SIGKILL);
        if (!reap(w->pid, &(int){0}, 500))
            remember_zombie(p, w->pid);
        clear_slot(p, w, 0);
    }
    reap_zombies(p);
    pthread_mutex_unlock(&p->lock);
    deliver(done);
    return NULL;
}

/* --- public ---------------------------------------------------------- */

bool pool_find_worker(const char *given, char *path, size_t pathsz, char *err, size_t errsz)
{
    const char *candidates[] = {
        given, getenv("BUTTERFLY_WORKER"),
        BUTTERFLY_WORKER_BUILD_PATH, BUTTERFLY_WORKER_INSTALL_PATH,
    };
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        if (candidates[i] && *candidates[i] && access(candidates[i], X_OK) == 0) {
            snprintf(path, pathsz, "%s", candidates[i]);
            return true;
        }
    }
    snprintf(err, errsz, "cannot find butterfly-worker (set BUTTERFLY_WORKER)");
    return false;
}

struct pool *pool_new(const struct pool_options *o, char *err, size_t errsz)
{
    if (o->workers < 1 || o->workers > POOL_MAX_WORKERS || o->deadline_ms < 1) {
        snprintf(err, errsz, "workers must be 1..%d and the deadline positive", POOL_MAX_WORKERS);
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
    if (!pool_find_worker(o->worker_path, p->worker_path, sizeof p->worker_path, err, errsz))
        goto fail;
    snprintf(p->seed_arg, sizeof p->seed_arg, "%llu", (unsigned long long)o->seed);
    /* The worker's own device wait is the job's deadline plus a margin:
     * the supervisor's kill is what enforces the deadline. */
    snprintf(p->deadline_arg, sizeof p->deadline_arg, "%u", o->deadline_ms + 1000);
    snprintf(p->memory_arg, sizeof p->memory_arg, "%zu", o->cpu_memory_mb);
    for (unsigned i = 0; i < POOL_MAX_WORKERS; i++)
        p->workers[i].fd = -1;
    p->stats.workers = o->workers;
    p->stats.queue_length = o->queue_length;
    if (pipe2(p->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        snprintf(err, errsz, "pipe: %s", strerror(errno));
        goto fail;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->changed, NULL);
    if (pthread_create(&p->thread, NULL, supervise, p) != 0) {
        snprintf(err, errsz, "cannot start the supervisor thread");
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->changed);
        goto fail;
    }
    return p;
fail:
    if (p->wake[0] >= 0) {
        close(p->wake[0]);
        close(p->wake[1]);
    }
    free((char *)p->opts.device);
    free(p);
    return NULL;
}

unsigned pool_wait_ready(struct pool *p, unsigned n, uint32_t timeout_ms, char *err, size_t errsz)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&p->lock);
    unsigned ready;
    while ((ready = count_ready(p)) < n && p->start_failures < 3)
        if (pthread_cond_timedwait(&p->changed, &p->lock, &until) == ETIMEDOUT)
            break;
    ready = count_ready(p);
    if (ready == 0)
        snprintf(err, errsz, "%s", p->last_failure[0] ? p->last_failure
                                                      : "no worker got ready in time");
    pthread_mutex_unlock(&p->lock);
    return ready;
}

/*
 * Whether one more job fits. A job handed to an idle worker is not
 * waiting, even if the supervisor thread has not picked it up yet: without
 * counting idle workers, two jobs arriving together at an idle pool with
 * a queue of one would see one of them refused.
 */
static bool has_room(const struct pool *p)
{
    unsigned idle = 0;
    for (unsigned i = 0; i < p->opts.workers; i++)
        idle += p->workers[i].state == W_IDLE;
    return p->queued < p->opts.queue_length + idle;
}

static enum pool_submit_status submit(struct pool *p, const char *body, size_t len,
                                      pool_done_fn done, void *arg, bool wait_for_room)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j || !(j->body = malloc(len ? len : 1))) {
        free(j);
        return POOL_NO_MEMORY;
    }
    memcpy(j->body, body, len);
    j->len = len;
    j->done = done;
    j->arg = arg;
    pthread_mutex_lock(&p->lock);
    while (wait_for_room && !p->stopping && !has_room(p))
        pthread_cond_wait(&p->changed, &p->lock);
    enum pool_submit_status st = POOL_SUBMITTED;
    if (p->stopping)
        st = POOL_STOPPING;
    else if (!has_room(p)) {
        st = POOL_QUEUE_FULL;
        p->stats.refused_full++;
    }
    if (st == POOL_SUBMITTED) {
        if (p->queue_tail)
            p->queue_tail->next = j;
        else
            p->queue_head = j;
        p->queue_tail = j;
        p->queued++;
        p->stats.submitted++;
    }
    pthread_mutex_unlock(&p->lock);
    if (st != POOL_SUBMITTED) {
        free(j->body);
        free(j);
    } else {
        wake(p);
    }
    return st;
}

enum pool_submit_status pool_submit(struct pool *p, const char *body, size_t len,
                                    pool_done_fn done, void *arg)
{
    return submit(p, body, len, done, arg, false);
}

struct sync_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct verdict *v;
    bool done;
};

static void sync_done(struct verdict *v, void *arg)
{
    struct sync_wait *s = arg;
    pthread_mutex_lock(&s->lock);
    s->v = v;
    s->done = true;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

struct verdict *pool_grade(struct pool *p, const char *body, size_t len)
{
    struct sync_wait s = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, false };
    enum pool_submit_status st = submit(p, body, len, sync_done, &s, true);
    if (st != POOL_SUBMITTED)
        return internal_error(st == POOL_STOPPING ? "The grader is shutting down."
                                                  : "Out of memory.");
    pthread_mutex_lock(&s.lock);
    while (!s.done)
        pthread_cond_wait(&s.cond, &s.lock);
    pthread_mutex_unlock(&s.lock);
    return s.v ? s.v : internal_error("Out of memory.");
}

void pool_get_stats(struct pool *p, struct pool_stats *s)
{
    pthread_mutex_lock(&p->lock);
    *s = p->stats;
    s->ready = count_ready(p);
    s->busy = 0;
    for (unsigned i = 0; i < p->opts.workers; i++)
        s->busy += p->workers[i].state == W_BUSY;
    s->queued = p->queued;
    uint64_t ran = p->stats.completed;
    s->mean_job_ms = ran ? p->job_ms_sum / (double)ran : 0;
    pthread_mutex_unlock(&p->lock);
}

unsigned pool_worker_pids(struct pool *p, pid_t *pids, bool *busy, unsigned max)
{
    unsigned n = 0;
    pthread_mutex_lock(&p->lock);
    for (unsigned i = 0; i < p->opts.workers && n < max; i++) {
        if (p->workers[i].state == W_EMPTY)
            continue;
        pids[n] = p->workers[i].pid;
        if (busy)
            busy[n] = p->workers[i].state == W_BUSY;
        n++;
    }
    pthread_mutex_unlock(&p->lock);
    return n;
}

void pool_free(struct pool *p, uint32_t drain_ms)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = true;
    p->drain_until_ms = now_ms() + drain_ms;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    wake(p);
    pthread_join(p->thread, NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->changed);
    close(p->wake[0]);
    close(p->wake[1]);
    free((char *)p->opts.device);
    free(p);
}
