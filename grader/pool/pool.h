/* pool.h - warm, isolated, replaceable worker processes behind a queue. */
#ifndef BUTTERFLY_POOL_H
#define BUTTERFLY_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "defaults.h"
#include "verdict.h"

#define POOL_MAX_WORKERS MAX_WORKERS

struct pool_options {
    unsigned workers;              /* default: the number of cores */
    unsigned queue_length;         /* jobs waiting for a worker */
    uint32_t deadline_ms;          /* per job: compile, first dispatch, run */
    unsigned max_jobs_per_worker;  /* then the worker is replaced; 0: never */
    uint32_t start_timeout_ms;     /* a new worker must be warm by then */
    const char *device;            /* selector, see gpu_context_new */
    uint64_t seed;
    size_t cpu_memory_mb;          /* address-space cap on a CPU device */
    const char *worker_path;       /* NULL: BUTTERFLY_WORKER, then the build's */
};

/* Fills *o with the defaults. */
void pool_options_init(struct pool_options *o);

/*
 * Finds the worker program: `given` (may be NULL), else $BUTTERFLY_WORKER,
 * else the build tree's, else the installed one; the first that can be
 * executed is copied into path. False with a reason in err when none can.
 */
bool pool_find_worker(const char *given, char *path, size_t pathsz, char *err, size_t errsz);

/* Receives the verdict of a job, and owns it. Called on the pool's own
 * thread, without its lock held: do little, and do not block. */
typedef void (*pool_done_fn)(struct verdict *v, void *arg);

enum pool_submit_status {
    POOL_SUBMITTED,
    POOL_QUEUE_FULL,   /* try again later (HTTP 503) */
    POOL_STOPPING,     /* the pool is shutting down */
    POOL_NO_MEMORY,
};

struct pool_stats {
    unsigned workers;              /* configured */
    unsigned ready;                /* warm and idle or busy */
    unsigned busy;
    unsigned queued;
    unsigned queue_length;
    uint64_t submitted, completed, refused_full;
    uint64_t worker_starts, worker_restarts, timeouts, crashes, recycles;
    double mean_job_ms;            /* over completed jobs that ran on a worker */
    char device_name[256];         /* as the last worker to get ready said; "" before */
    char device_type[16];
};

struct pool;

/*
 * Starts the supervisor thread and the workers (which warm up in the
 * background: see pool_wait_ready). NULL with a reason in err on failure.
 */
struct pool *pool_new(const struct pool_options *o, char *err, size_t errsz);

/*
 * Waits up to timeout_ms for at least `n` workers to be ready. Returns the
 * number ready; 0 with the last start failure in err when none is.
 */
unsigned pool_wait_ready(struct pool *p, unsigned n, uint32_t timeout_ms,
                         char *err, size_t errsz);

/*
 * Queues a copy of `body` (len bytes). On POOL_SUBMITTED `done` is called
 * exactly once, later, with the verdict; otherwise never.
 */
enum pool_submit_status pool_submit(struct pool *p, const char *body, size_t len,
                                    pool_done_fn done, void *arg);

/*
 * Grades `body` and waits for the verdict (for the command-line tools).
 * When the queue is full it waits for room rather than failing. Never
 * returns NULL: a pool that cannot grade answers Internal Error.
 */
struct verdict *pool_grade(struct pool *p, const char *body, size_t len);

/* A snapshot of the counters. */
void pool_get_stats(struct pool *p, struct pool_stats *s);

/*
 * Fills pids (up to max) with the workers' process ids and busy[] with
 * whether each is running a job (busy may be NULL). Returns the count.
 * For tests and operators.
 */
unsigned pool_worker_pids(struct pool *p, pid_t *pids, bool *busy, unsigned max);

/*
 * Stops taking jobs, lets queued and running jobs finish for up to
 * drain_ms (each still bound by its own deadline), answers whatever is
 * left with Internal Error, stops the workers and frees the pool.
 * Accepts NULL.
 */
void pool_free(struct pool *p, uint32_t drain_ms);

#endif
