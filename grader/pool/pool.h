/* pool.h - warm, isolated, replaceable worker processes behind fair queues. */
#ifndef BUTTERFLY_POOL_H
#define BUTTERFLY_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/client_id.h"
#include "common/defaults.h"
#include "common/exercise/exercise.h"
#include "common/io/frame.h"
#include "common/verdict.h"

#define POOL_MAX_WORKERS MAX_WORKERS

struct pool_options {
    unsigned workers;              /* default: the number of cores */
    unsigned queue_length;         /* jobs waiting, all clients together: a memory bound */
    unsigned per_client_queue;     /* jobs one client may have waiting; 0: no bound */
    uint32_t max_wait_ms;          /* refuse a job whose expected wait is longer; 0: never */
    uint32_t deadline_ms;          /* per job: compile, first dispatch, run */
    unsigned max_jobs_per_worker;  /* then the worker is replaced; 0: never */
    uint32_t start_timeout_ms;     /* a new worker must be warm by then */
    const char *device;            /* selector, see gpu_context_new */
    uint64_t seed;                 /* of the hidden spectra, for every job */
    bool seed_per_job;             /* draw a fresh seed for every job instead */
    size_t cpu_memory_mb;          /* address-space cap on a CPU device */
    const char *worker_path;       /* NULL: see pool_find_worker */
};

/*
 * Fills *o with the defaults. The seed is 0: a caller sets one (from
 * seed_fresh, or one given to reproduce a grading) or sets seed_per_job.
 */
void pool_options_init(struct pool_options *o);

/*
 * Finds the worker program: `given` (may be NULL), else $BUTTERFLY_WORKER,
 * else the one beside this program (install_paths.h: the build tree's in
 * the build tree, else PREFIX/LIBEXECDIR/butterfly-worker of the prefix
 * this program runs from). A path given or set in the environment is the
 * only one tried. Its path is copied into path; false with a reason in
 * err when it cannot be executed.
 */
bool pool_find_worker(const char *given, char *path, size_t pathsz, char *err, size_t errsz);

/* How a job ended. */
struct pool_result {
    /* The verdict as every program answers and stores it: JSON, exactly
     * the worker's bytes (or the pool's stand-in's), verdict_len bytes and
     * a NUL after them. Never NULL; whoever receives the result owns it
     * (free(), or pool_result_clear). Parse it (verdict_from_bytes) only
     * to print it in words or build reports from it. */
    char *verdict;
    size_t verdict_len;
    struct frame_verdict head;     /* status, score, seed, cache hit, stage */
    bool cancelled;                /* its client went away (pool_cancel) */
    bool graded;                   /* the verdict is the kernel's, not a stand-in
                                      (cancelled unrun, shut down, no worker) */
    uint64_t job_id;
    unsigned attempts;             /* workers that took it: 2 after a retry */
    double wait_ms;                /* queued before a worker took it */
    double run_ms;                 /* on the worker; < 0 when it never ran */
};

/*
 * Receives how a job ended; r->verdict is the callee's. Called on the
 * pool's own thread without its lock held: do little, and do not block.
 */
typedef void (*pool_result_fn)(struct pool_result *r, void *arg);

/* Frees r->verdict and sets it to NULL. Accepts NULL. */
void pool_result_clear(struct pool_result *r);

enum pool_submit_status {
    POOL_SUBMITTED,
    POOL_QUEUE_FULL,     /* the hard bound on waiting jobs (HTTP 503) */
    POOL_CLIENT_BUSY,    /* this client has its share queued already (HTTP 429) */
    POOL_WAIT_TOO_LONG,  /* the expected wait is over max_wait_ms (HTTP 503) */
    POOL_STOPPING,       /* the pool is shutting down */
    POOL_UNKNOWN_EXERCISE,   /* the submission names no built-in exercise */
    POOL_NO_MEMORY,
};
#define POOL_NSUBMIT_STATUSES (POOL_NO_MEMORY + 1)

/* "submitted", "queue_full", ...; never NULL. */
const char *pool_submit_status_to_str(enum pool_submit_status s);

struct pool_stats {
    unsigned workers;              /* configured */
    unsigned ready;                /* warm, alive, and idle or busy */
    unsigned starting;             /* alive and warming up */
    bool healthy;                  /* can grade now, or within a worker's start: a
                                      worker is ready, or workers are being replaced
                                      after one was warm (and starts do not fail) */
    unsigned busy;
    unsigned queued;
    unsigned queued_clients;       /* clients with a job waiting */
    unsigned queue_length;
    uint64_t submitted, completed;
    uint64_t refused_full, refused_client, refused_wait;
    uint64_t cancelled_queued;     /* left the queue: their client went away */
    uint64_t cancelled_running;    /* their worker was stopped: their client went away */
    uint64_t retries;              /* graded again after a failure of the grader's */
    uint64_t worker_starts;
    uint64_t worker_restarts;      /* replaced after a fault: a timeout, a crash, a bad
                                      frame, an Internal Error, a failed start; not a
                                      recycle, not a cancelled job's stop */
    uint64_t timeouts, crashes;
    uint64_t recycles;             /* replaced by plan after max_jobs_per_worker jobs */
    double mean_job_ms;            /* recent mean time of a job on a worker */
    double expected_wait_ms;       /* of a job submitted now */
    char device_name[256];         /* as the last worker to get ready said; "" before */
    enum device_type device_type;  /* meaningful once device_name is set */
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

/* A job from a client that shares the pool with others. */
struct pool_submission {
    const char *body;
    size_t len;
    const struct client_id *client; /* fair-share key (an address); NULL: local */
    pool_result_fn done;
    void *arg;
    /* The exercise's id (exercise_find); NULL: exercise_default(). An id
     * rather than the registry's pointer: it is what crosses to the worker
     * and what a record keeps, and a caller reading it from a request or
     * a command line need not look it up first (the pool does, once). */
    const char *exercise;
};

/*
 * Admits and queues a copy of s->body: refused when s->exercise is no
 * built-in exercise's id, when the queue is full,
 * when the client has per_client_queue jobs waiting already, or when the
 * expected wait is over max_wait_ms (a pool without those bounds, as the
 * batch's, refuses only when full). *wait_ms (may be NULL) gets the
 * expected wait, which on a refusal says when to try again. On
 * POOL_SUBMITTED *job_id (may be NULL) names the job for pool_cancel and
 * s->done is called exactly once, later; otherwise never.
 */
enum pool_submit_status pool_submit(struct pool *p, const struct pool_submission *s,
                                    uint64_t *job_id, double *wait_ms);

/*
 * The job's client went away. A queued job leaves the queue; a running one
 * has its worker stopped and replaced, unless it will finish before a
 * replacement could be ready. Either way its callback still comes, with
 * cancelled set. A job that has ended already is left alone. Thread-safe;
 * never blocks.
 */
void pool_cancel(struct pool *p, uint64_t job_id);

/*
 * Grades `body` and waits for how it ended (for the command-line tools),
 * into *r, whose verdict the caller then owns (pool_result_clear). When
 * the queue is full it waits for room rather than failing. A pool that
 * cannot grade answers Internal Error; r->verdict is NULL only when even
 * that could not be made (out of memory).
 */
void pool_grade(struct pool *p, const char *body, size_t len, struct pool_result *r);

/* pool_grade of exercise e, which must be one the registry holds (the job
 * carries its id to the worker); NULL is the default exercise. */
void pool_grade_exercise(struct pool *p, const struct exercise *e, const char *body, size_t len,
                         struct pool_result *r);

/* A snapshot of the counters. Never waits on grading. */
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
