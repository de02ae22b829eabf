/*
 * supervisor.c - the thread that owns every worker process.
 *
 * Workers are started with posix_spawn (fork+exec: a process that holds a
 * Vulkan device must never be forked) and talk over a socket pair. Each
 * turn of the loop hands queued jobs to idle workers (the fair queue picks
 * the job, the body's last worker is preferred, since it keeps the
 * compiled kernel), sends them, waits in poll() for answers, enforces
 * deadlines by SIGKILL, and reaps dead workers without ever sleeping. The
 * lock is held only to move jobs and publish state (pool_internal.h).
 *
 * Every job leaves through pool_finish_job, so it gets exactly one
 * verdict; a job whose worker failed for reasons of the grader's own is
 * queued again, once, at the head of its client's queue.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "pool/pool_internal.h"

extern char **environ;

/* A dying worker is given this long to be reaped before it is left to init. */
#define REAP_GIVE_UP_MS 1000.0
/* Idle and busy workers are checked for life this often. */
#define SWEEP_MS 250.0
/* A job is graded at most this many times (a retry after the grader's fault). */
#define MAX_ATTEMPTS 2

/* --- processes ------------------------------------------------------------ */

enum process_state { PROC_RUNNING, PROC_STOPPED, PROC_GONE };

/*
 * Whether pid runs, was stopped (by a signal or a debugger), or has ended
 * (a zombie whose end the socket may not have shown yet: its exit status,
 * not this, tells why). Reads /proc/PID/stat; where /proc cannot be read,
 * only existence is checked.
 */
static enum process_state process_state(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || kill(pid, 0) != 0 ? PROC_GONE : PROC_RUNNING;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return PROC_GONE;
    buf[n] = '\0';
    /* "PID (COMM) STATE ...": COMM may hold anything, ')' included */
    const char *close_paren = strrchr(buf, ')');
    if (!close_paren || close_paren[1] != ' ')
        return PROC_RUNNING;
    char state = close_paren[2];
    if (state == 'T' || state == 't')
        return PROC_STOPPED;
    return strchr("ZXx", state) ? PROC_GONE : PROC_RUNNING;
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
        if (waitpid(p->zombies[i], &st, WNOHANG) == 0)
            p->zombies[kept++] = p->zombies[i];
    }
    p->nzombies = kept;
}

static double backoff_ms(unsigned failures)
{
    double d = 100;
    for (unsigned i = 1; i < failures && d < 5000; i++)
        d *= 2;
    return failures ? (d < 5000 ? d : 5000) : 0;
}

/* Starts a worker in an empty slot. Outside the lock. */
static void spawn_worker(struct pool *p, struct worker *w)
{
    int sv[2];
    char why[768] = "";
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        snprintf(why, sizeof why, "socketpair: %s", strerror(errno));
        goto failed;
    }
    /* dup2 onto itself would keep close-on-exec set: keep the child's end
     * away from fd 3 */
    if (sv[1] == 3) {
        int moved = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
        close(sv[1]);
        if (moved < 0) {
            close(sv[0]);
            snprintf(why, sizeof why, "fcntl: %s", strerror(errno));
            goto failed;
        }
        sv[1] = moved;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
    char *argv[] = {
        p->worker_path, "--deadline-ms", p->deadline_arg, "--memory-mb", p->memory_arg,
        p->opts.device ? "--device" : NULL, (char *)p->opts.device, NULL,
    };
    pid_t pid;
    int rc = posix_spawn(&pid, p->worker_path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    if (rc != 0) {
        close(sv[0]);
        snprintf(why, sizeof why, "cannot start %s: %s", p->worker_path, strerror(rc));
        goto failed;
    }
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    /* a whole job frame (64 KiB of body at most) fits at once, so sending
     * one to an idle worker never blocks */
    int sndbuf = 256 * 1024;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    w->fd = sv[0];
    memset(&w->rd, 0, sizeof w->rd);
    w->stage = STAGE_NONE;
    w->jobs_done = 0;
    w->nheld = 0;
    w->spawned_ms = clock_now_ms();
    w->deadline_ms = w->spawned_ms + p->opts.start_timeout_ms;
    pthread_mutex_lock(&p->lock);
    w->pid = pid;
    w->state = W_STARTING;
    p->stats.worker_starts++;
    pthread_mutex_unlock(&p->lock);
    return;
failed:
    pthread_mutex_lock(&p->lock);
    p->start_failures++;
    snprintf(p->last_failure, sizeof p->last_failure, "%s", why);
    w->respawn_at_ms = clock_now_ms() + backoff_ms(p->start_failures);
    pthread_mutex_unlock(&p->lock);
}

/*
 * The worker is lost (or retired): it is killed unless it is leaving by
 * itself, its socket closed, and it waits in W_DYING, job still attached,
 * until reap_dying() knows how it ended. Outside the lock.
 */
static void lose_worker(struct pool *p, struct worker *w, enum worker_loss cause, bool kill_it)
{
    if (kill_it && w->pid > 0)
        kill(w->pid, SIGKILL);
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    frame_reader_clear(&w->rd);
    w->loss = cause;
    w->dying_since_ms = clock_now_ms();
    pthread_mutex_lock(&p->lock);
    if (w->state == W_STARTING) {
        p->start_failures++;
        snprintf(p->last_failure, sizeof p->last_failure, cause == LOSS_STOPPED
                 ? "a worker did not get ready within %u ms"
                 : "a worker ended while starting (no Vulkan device?)", p->opts.start_timeout_ms);
        w->respawn_at_ms = clock_now_ms() + backoff_ms(p->start_failures);
    } else {
        w->respawn_at_ms = clock_now_ms();
    }
    w->state = W_DYING;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
}

/* --- jobs ------------------------------------------------------------------ */

/* Ends or retries the job of a worker that failed. Lock held. */
static void settle_lost_job(struct pool *p, struct worker *w, struct job *j, bool have_status,
                            int status)
{
    j->result.run_ms = clock_now_ms() - j->started_ms;
    if (j->abandoned) {
        /* counted here, not where the supervisor stops it: the deadline
         * may stop an abandoned job first (when a worker's start takes
         * longer than the deadline, the kill is due after it) */
        p->stats.cancelled_running++;
        pool_finish_verdict(p, j, verdict_new(VERDICT_INTERNAL_ERROR, POOL_CANCELLED_MESSAGE),
                            false);
        return;
    }
    bool fault;
    struct verdict *v = worker_loss_verdict(w->loss, w->stage, have_status, status,
                                            p->opts.deadline_ms, &fault);
    if (w->loss == LOSS_DEADLINE)
        p->stats.timeouts++;
    else if (!fault)
        p->stats.crashes++;
    if (fault && j->attempts < MAX_ATTEMPTS && !p->stopping &&
        fair_queue_push(p->queue, j, true)) {
        p->stats.retries++;
        verdict_free(v);
        return;
    }
    pool_finish_verdict(p, j, v, true);
}

/* Reaps dying workers, settles their jobs and empties their slots. */
static void reap_dying(struct pool *p)
{
    double t = clock_now_ms();
    for (unsigned i = 0; i < p->opts.workers; i++) {
        struct worker *w = &p->workers[i];
        if (w->state != W_DYING)
            continue;
        int status = 0;
        pid_t r = waitpid(w->pid, &status, WNOHANG);
        bool have_status = r == w->pid;
        if (r == 0 && t - w->dying_since_ms < REAP_GIVE_UP_MS)
            continue;
        if (r == 0) {
            kill(w->pid, SIGKILL);
            remember_zombie(p, w->pid);
        }
        pthread_mutex_lock(&p->lock);
        if (w->job) {
            struct job *j = w->job;
            w->job = NULL;
            settle_lost_job(p, w, j, have_status, status);
        }
        w->state = W_EMPTY;
        w->pid = 0;
        w->stage = STAGE_NONE;
        /* a recycle and a cancelled job have counters of their own */
        if (!w->planned)
            p->stats.worker_restarts++;
        w->planned = false;
        pthread_cond_broadcast(&p->changed);
        pthread_mutex_unlock(&p->lock);
    }
}

/* The idle worker for job j: one that says it keeps the body's kernel if
 * one is free, else the first. NULL when none is idle. Lock held. */
static struct worker *pick_worker(struct pool *p, const struct job *j)
{
    struct worker *first = NULL;
    for (unsigned i = 0; i < p->opts.workers; i++) {
        struct worker *w = &p->workers[i];
        if (w->state != W_IDLE)
            continue;
        if (!first)
            first = w;
        for (unsigned k = 0; k < w->nheld; k++)
            if (w->held[k] == j->affinity)
                return w;
    }
    return first;
}

/* Hands queued jobs to idle workers (their frames go out after the lock
 * is released). Returns how many were assigned into `assigned`. Lock held. */
static unsigned assign_jobs(struct pool *p, struct worker **assigned)
{
    unsigned n = 0;
    unsigned idle = pool_count_state(p, W_IDLE);
    while (idle > 0 && fair_queue_total(p->queue) > 0) {
        struct job *j = fair_queue_pop(p->queue);
        struct worker *w = pick_worker(p, j);
        idle--;
        j->attempts++;
        j->started_ms = clock_now_ms();
        j->result.wait_ms = j->started_ms - j->submitted_ms;
        w->job = j;
        w->state = W_BUSY;
        w->stage = STAGE_NONE;
        w->job_sent = false;
        w->deadline_ms = j->started_ms + p->opts.deadline_ms;
        assigned[n++] = w;
        pthread_cond_broadcast(&p->changed);
    }
    return n;
}

/* Sends assigned jobs. Outside the lock: a worker whose socket will not
 * take the frame is lost, and its job retried elsewhere. */
static void send_jobs(struct pool *p, struct worker **assigned, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        struct worker *w = assigned[i];
        struct job *j = w->job;
        if (frame_write_job(w->fd, j->seed, j->exercise->id, j->body, j->len))
            w->job_sent = true;
        else
            lose_worker(p, w, LOSS_STOPPED, true);
    }
}

/* With no worker able to start, queued jobs would wait forever. Lock held. */
static void fail_queue_if_hopeless(struct pool *p)
{
    if (p->start_failures < POOL_START_FAILURES_HOPELESS || pool_count_ready(p) > 0)
        return;
    struct job *j;
    char msg[900];
    snprintf(msg, sizeof msg, "No grading worker could start: %s.", p->last_failure);
    while ((j = fair_queue_pop(p->queue)))
        pool_finish_verdict(p, j, verdict_new(VERDICT_INTERNAL_ERROR, msg), false);
}

/* --- answers from workers -------------------------------------------------- */

static void on_ready(struct pool *p, struct worker *w, const char *payload)
{
    json_t *ready = json_loads(payload, 0, NULL);
    json_t *dev = json_object_get(ready, "device");
    pthread_mutex_lock(&p->lock);
    snprintf(p->stats.device_name, sizeof p->stats.device_name, "%s",
             json_string_value(json_object_get(dev, "name")) ?: "");
    p->stats.device_type = device_type_from_str(json_string_value(json_object_get(dev, "type")));
    w->state = W_IDLE;
    p->start_failures = 0;
    p->ever_ready = true;
    job_time_add(&p->start_time, clock_now_ms() - w->spawned_ms);
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    json_decref(ready);
}

/* What the worker keeps now, as its verdict says: the body it lets go
 * leaves the record, the one it keeps joins it. Lock held. */
static void follow_cache(struct worker *w, const struct frame_verdict *h, uint64_t affinity)
{
    for (unsigned k = 0; h->dropped && k < w->nheld; k++) {
        if (w->held[k] == h->dropped) {
            w->held[k] = w->held[--w->nheld];
            break;
        }
    }
    if (!h->kept)
        return;
    for (unsigned k = 0; k < w->nheld; k++)
        if (w->held[k] == affinity)
            return;
    /* full only if the worker forgot to say what it let go: forget the
     * oldest guess rather than grow */
    if (w->nheld == KERNEL_CACHE_ENTRIES)
        memmove(w->held, w->held + 1, --w->nheld * sizeof *w->held);
    w->held[w->nheld++] = affinity;
}

/*
 * A verdict came back: its header is checked and its JSON relayed as it
 * is (*payload's ownership moves to the job; the JSON is moved to its
 * start). An Internal Error is the worker's own failure: the job is graded
 * again elsewhere (once) and this worker replaced. Returns false when the
 * worker must go (recycled, failed, or a header that is not sane).
 */
static bool on_verdict(struct pool *p, struct worker *w, char **payload, size_t len)
{
    struct frame_verdict h;
    const char *json;
    size_t json_len;
    if (!frame_parse_verdict(*payload, len, &h, &json, &json_len))
        return false;   /* the caller treats it as a protocol loss */
    char *bytes = *payload;
    memmove(bytes, json, json_len);
    bytes[json_len] = '\0';
    *payload = NULL;
    bool keep = true;
    pthread_mutex_lock(&p->lock);
    struct job *job = w->job;
    w->job = NULL;
    double ran = clock_now_ms() - job->started_ms;
    job->result.run_ms = ran;
    job_time_add(&p->job_time, ran);
    follow_cache(w, &h, job->affinity);
    w->jobs_done++;
    if (h.status == VERDICT_INTERNAL_ERROR) {
        keep = false;
        if (job->attempts < MAX_ATTEMPTS && !job->abandoned && !p->stopping &&
            fair_queue_push(p->queue, job, true)) {
            p->stats.retries++;
            free(bytes);
            job = NULL;
        }
    }
    if (job)
        pool_finish_job(p, job, &h, bytes, json_len, true);
    if (keep && p->opts.max_jobs_per_worker && w->jobs_done >= p->opts.max_jobs_per_worker) {
        p->stats.recycles++;
        w->planned = true;
        keep = false;
    }
    if (keep)
        w->state = W_IDLE;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    return keep;
}

/* Reads what a worker sent; handles its frames and its end. */
static void on_worker_readable(struct pool *p, struct worker *w)
{
    for (;;) {
        enum frame_type type;
        char *payload;
        size_t len;
        enum frame_read_status st = frame_reader_poll(&w->rd, w->fd, &type, &payload, &len);
        if (st == FRAME_READ_MORE)
            return;
        if (st != FRAME_READ_DONE) {
            lose_worker(p, w, st == FRAME_READ_EOF ? LOSS_EXITED : LOSS_PROTOCOL, true);
            return;
        }
        enum worker_loss loss = LOSS_PROTOCOL;
        bool ok = true;
        if (type == FRAME_READY && w->state == W_STARTING) {
            on_ready(p, w, payload);
        } else if (type == FRAME_STAGE && w->state == W_BUSY && len == 1 &&
                   (unsigned char)payload[0] < STAGE_NSTAGES) {
            w->stage = (enum grade_stage)(unsigned char)payload[0];
        } else if (type == FRAME_VERDICT && w->state == W_BUSY && w->job_sent) {
            ok = on_verdict(p, w, &payload, len);
            /* a worker that goes after its verdict leaves by itself when its
             * socket closes: it is reaped, not killed */
            loss = LOSS_EXITED;
            if (!ok && w->job)
                loss = LOSS_PROTOCOL;   /* the verdict could not be read */
        } else {
            ok = false;   /* a frame out of turn: the worker is not sane */
        }
        free(payload);
        if (!ok) {
            lose_worker(p, w, loss, loss != LOSS_EXITED);
            return;
        }
    }
}

/* --- timers ------------------------------------------------------------------ */

static void check_timers(struct pool *p)
{
    double t = clock_now_ms();
    bool sweep = t - p->last_sweep_ms >= SWEEP_MS;
    if (sweep)
        p->last_sweep_ms = t;
    for (unsigned i = 0; i < p->opts.workers; i++) {
        struct worker *w = &p->workers[i];
        if (w->state == W_EMPTY || w->state == W_DYING)
            continue;
        /* pool_cancel marks jobs from other threads, under the lock */
        pthread_mutex_lock(&p->lock);
        bool stop_abandoned = w->state == W_BUSY && w->job && w->job->abandoned &&
                              t >= w->job->kill_at_ms;
        if (stop_abandoned)
            w->planned = true;
        pthread_mutex_unlock(&p->lock);
        if (stop_abandoned) {
            lose_worker(p, w, LOSS_DEADLINE, true);
        } else if ((w->state == W_BUSY || w->state == W_STARTING) && t >= w->deadline_ms) {
            /* a worker stopped from outside did not run out of time: it
             * never ran, and its job deserves a second worker */
            enum process_state ps = process_state(w->pid);
            lose_worker(p, w, ps == PROC_GONE ? LOSS_EXITED
                              : ps == PROC_RUNNING && w->state == W_BUSY ? LOSS_DEADLINE
                              : LOSS_STOPPED, true);
        } else if (sweep) {
            /* a worker that ended is left to its socket's end of file,
             * which comes with its exit status */
            if (process_state(w->pid) == PROC_STOPPED)
                lose_worker(p, w, LOSS_STOPPED, true);
        }
    }
}

/* Milliseconds until the next timer. Lock held (it reads jobs). */
static int poll_timeout(const struct pool *p)
{
    double t = clock_now_ms(), next = t + SWEEP_MS;
    for (unsigned i = 0; i < p->opts.workers; i++) {
        const struct worker *w = &p->workers[i];
        if ((w->state == W_BUSY || w->state == W_STARTING) && w->deadline_ms < next)
            next = w->deadline_ms;
        if (w->state == W_BUSY && w->job && w->job->abandoned && w->job->kill_at_ms < next)
            next = w->job->kill_at_ms;
        if (w->state == W_EMPTY && w->respawn_at_ms < next)
            next = w->respawn_at_ms;
        if (w->state == W_DYING)
            next = t + 5;   /* reaped by polling: it has no descriptor to wake us */
    }
    if (p->stopping && p->drain_until_ms < next)
        next = p->drain_until_ms;
    double ms = next - t;
    return ms <= 0 ? 0 : (int)ms + 1;
}

/* Whether a stopping pool is done. Lock held. */
static bool drained(const struct pool *p)
{
    if (!p->stopping)
        return false;
    if (clock_now_ms() >= p->drain_until_ms)
        return true;
    if (fair_queue_total(p->queue) > 0)
        return pool_count_ready(p) == 0 && p->start_failures >= POOL_START_FAILURES_HOPELESS;
    for (unsigned i = 0; i < p->opts.workers; i++)
        if (p->workers[i].job)
            return false;
    return true;
}

/* --- the loop -------------------------------------------------------------- */

static void start_workers(struct pool *p)
{
    double t = clock_now_ms();
    for (unsigned i = 0; i < p->opts.workers; i++) {
        struct worker *w = &p->workers[i];
        /* the state is only ever changed by this thread: no lock to read it */
        if (w->state == W_EMPTY && !p->stopping && t >= w->respawn_at_ms)
            spawn_worker(p, w);
    }
}

static void wait_for_events(struct pool *p, int timeout)
{
    struct pollfd fds[POOL_MAX_WORKERS + 1];
    int slot[POOL_MAX_WORKERS + 1];
    nfds_t n = 0;
    fds[n] = (struct pollfd){ .fd = p->wake[0], .events = POLLIN };
    slot[n++] = -1;
    for (unsigned i = 0; i < p->opts.workers; i++) {
        if (p->workers[i].fd >= 0 && p->workers[i].state != W_DYING) {
            fds[n] = (struct pollfd){ .fd = p->workers[i].fd, .events = POLLIN };
            slot[n++] = (int)i;
        }
    }
    int rc = poll(fds, n, timeout);
    if (rc < 0 && errno != EINTR)
        perror("pool: poll");
    if (rc > 0 && (fds[0].revents & POLLIN)) {
        char buf[64];
        while (read(p->wake[0], buf, sizeof buf) > 0)
            ;
    }
    for (nfds_t k = 1; rc > 0 && k < n; k++) {
        struct worker *w = &p->workers[slot[k]];
        if (fds[k].revents && w->fd == fds[k].fd && w->state != W_DYING)
            on_worker_readable(p, w);
    }
}

/* Whatever is left gets an answer, then the workers go. */
static void shut_down(struct pool *p)
{
    struct job *j;
    pthread_mutex_lock(&p->lock);
    while ((j = fair_queue_pop(p->queue)))
        pool_finish_verdict(p, j, verdict_new(VERDICT_INTERNAL_ERROR,
                                          "The grader is shutting down; submit again."), false);
    for (unsigned i = 0; i < p->opts.workers; i++) {
        struct worker *w = &p->workers[i];
        if (w->job)
            pool_finish_verdict(p, w->job, verdict_new(VERDICT_INTERNAL_ERROR,
                            "The grader shut down while grading this; submit again."), false);
        w->job = NULL;
    }
    struct job *deliver = p->to_deliver;
    p->to_deliver = NULL;
    pthread_mutex_unlock(&p->lock);
    pool_deliver(deliver);
    for (unsigned i = 0; i < p->opts.workers; i++) {
        struct worker *w = &p->workers[i];
        if (w->state == W_EMPTY)
            continue;
        if (w->state != W_DYING)
            lose_worker(p, w, LOSS_EXITED, true);
    }
    /* killed workers die within milliseconds; wait a bounded while */
    double until = clock_now_ms() + 500;
    bool left;
    do {
        reap_dying(p);
        left = false;
        for (unsigned i = 0; i < p->opts.workers; i++)
            left |= p->workers[i].state == W_DYING;
        if (left)
            poll(NULL, 0, 5);
    } while (left && clock_now_ms() < until);
    reap_zombies(p);
}

void *pool_supervise(void *arg)
{
    struct pool *p = arg;
    struct worker *assigned[POOL_MAX_WORKERS];
    for (;;) {
        pthread_mutex_lock(&p->lock);
        fail_queue_if_hopeless(p);
        bool stop = drained(p);
        unsigned n = stop ? 0 : assign_jobs(p, assigned);
        struct job *deliver = p->to_deliver;
        p->to_deliver = NULL;
        int timeout = poll_timeout(p);
        pthread_mutex_unlock(&p->lock);
        /* the next jobs go out before the callbacks run: an idle worker
         * never waits on the front end's work for the last verdict (with
         * records, the verdict's parse and the record's making) */
        send_jobs(p, assigned, n);
        pool_deliver(deliver);
        if (stop)
            break;
        start_workers(p);
        wait_for_events(p, n > 0 ? 0 : timeout);
        check_timers(p);
        reap_dying(p);
        reap_zombies(p);
    }
    shut_down(p);
    return NULL;
}
