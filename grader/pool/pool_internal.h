/*
 * pool_internal.h - the pool's state, shared by pool.c (the callers' side)
 * and supervisor.c (the supervisor thread).
 *
 * Locking: `lock` guards the queue, the stats, the lists of jobs to deliver
 * and the fields marked (L) below. Only the supervisor thread changes a
 * worker, and it takes the lock to change an (L) field; its other fields
 * are its own. Nothing that can wait runs under the lock: no write to a
 * worker, no waitpid that blocks, no spawn, no callback. So a caller
 * (the HTTP thread) never waits on grading.
 */
#ifndef BUTTERFLY_POOL_INTERNAL_H
#define BUTTERFLY_POOL_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "common/io/frame.h"
#include "pool/fair_queue.h"
#include "pool/job.h"
#include "pool/pool.h"
#include "pool/wait_estimate.h"
#include "pool/worker_loss.h"

/* Failed starts in a row after which the pool stops hoping: /healthz says
 * unhealthy, waiting for warm workers ends, queued jobs are answered. */
#define POOL_START_FAILURES_HOPELESS 3

/* The verdict of a job whose client went away (no one reads it; the
 * access log and the callbacks do). */
#define POOL_CANCELLED_MESSAGE "Cancelled: the client went away."

enum worker_state { W_EMPTY, W_STARTING, W_IDLE, W_BUSY, W_DYING };

struct worker {
    enum worker_state state;     /* (L) */
    pid_t pid;                   /* (L) */
    struct job *job;             /* (L) the job it runs, or ran when it died */
    int fd;
    struct frame_reader rd;
    enum grade_stage stage;      /* what its job is doing, as it last said */
    double deadline_ms;          /* of its job, or of its start */
    double respawn_at_ms;        /* for an empty slot: not before */
    double spawned_ms;
    double dying_since_ms;
    enum worker_loss loss;       /* why it is dying */
    bool planned;                /* its end was chosen, not a fault: a recycle
                                    after its job quota, or its job cancelled */
    bool job_sent;               /* the job's frame went out */
    unsigned jobs_done;
    /* The bodies whose kernels it says it keeps (job_affinity), as its
     * verdicts report them kept and let go: its kernel cache, not a guess. */
    uint64_t held[KERNEL_CACHE_ENTRIES];
    unsigned nheld;
};

struct pool {
    struct pool_options opts;
    char worker_path[512];
    char deadline_arg[32], memory_arg[32];
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;      /* a worker became ready, or the queue moved */
    int wake[2];                 /* a byte here wakes the supervisor */

    struct fair_queue *queue;    /* (L) */
    struct job *to_deliver;      /* (L) ended jobs whose callbacks are due */
    uint64_t next_job_id;        /* (L) */
    struct worker workers[POOL_MAX_WORKERS];
    pid_t zombies[POOL_MAX_WORKERS * 4];
    unsigned nzombies;
    unsigned start_failures;     /* (L) in a row, with no worker ready */
    bool ever_ready;             /* (L) a worker got warm once */
    char last_failure[768];      /* (L) */
    double last_sweep_ms;

    bool stopping;               /* (L) */
    double drain_until_ms;       /* (L) */
    struct pool_stats stats;     /* (L) */
    struct job_time job_time;    /* (L) */
    struct job_time start_time;  /* (L) spawn to ready: what a replacement costs */
};

/* Wakes the supervisor thread. Never blocks. */
void pool_wake(struct pool *p);

/* Workers alive and warm (idle or busy). Lock held. */
unsigned pool_count_ready(const struct pool *p);

/* Workers in state st. Lock held. */
unsigned pool_count_state(const struct pool *p, enum worker_state st);

/* The expected wait of a job submitted now. Lock held. */
double pool_expected_wait_ms(const struct pool *p);

/*
 * Ends a job: records its verdict, `len` bytes of JSON `json` (the
 * ownership moves here; NULL: its reserved Internal Error) with header h,
 * and queues it for delivery. `graded`: the verdict is about the kernel
 * (from a worker, or a worker lost to the kernel). Lock held.
 */
void pool_finish_job(struct pool *p, struct job *j, const struct frame_verdict *h, char *json,
                     size_t len, bool graded);

/* pool_finish_job with a verdict the pool made itself (a stand-in, a lost
 * worker's): v is consumed; NULL (out of memory) means the reserved one. */
void pool_finish_verdict(struct pool *p, struct job *j, struct verdict *v, bool graded);

/* Calls the callbacks of ended jobs and frees them. Lock NOT held. */
void pool_deliver(struct job *list);

/* The supervisor thread (supervisor.c). */
void *pool_supervise(void *arg);

#endif
