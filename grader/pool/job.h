/* job.h - one submission's life in the pool, from queue to callback. */
#ifndef BUTTERFLY_JOB_H
#define BUTTERFLY_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/exercise/exercise.h"
#include "pool/pool.h"

struct job {
    uint64_t id;                 /* unique in its pool, from 1 */
    char *body;                  /* owned copy */
    size_t len;
    const struct exercise *exercise;   /* the registry's (never freed); never NULL */
    uint64_t seed;               /* of this job's hidden spectra */
    uint64_t affinity;           /* job_affinity of the body: a worker that says it
                                    keeps this body's kernel is preferred */
    struct client_id client;     /* fair-share key; CLIENT_LOCAL for local callers */
    pool_result_fn done;
    void *arg;
    unsigned attempts;           /* workers that took it; a second is the retry */
    bool abandoned;              /* its client went away */
    double submitted_ms, started_ms, kill_at_ms;
    struct pool_result result;   /* filled when it ends; from job_new on, its
                                    verdict is a reserved Internal Error's bytes */
    struct job *next;            /* in its client's queue, or in a list to deliver */
};

/*
 * A new job of exercise e (NULL: exercise_default()) holding a copy of
 * body; NULL when out of memory. client may be NULL (local).
 */
struct job *job_new(const struct exercise *e, const char *body, size_t len,
                    const struct client_id *client, uint64_t seed);

/* Frees a job and what it owns, its verdict included. Accepts NULL. */
void job_free(struct job *j);

/*
 * hash_fnv1a64 of the body as the worker's kernel cache keys it (a leading
 * byte-order mark aside), so that it is the hash a worker reports when it
 * lets the kernel go: a routing hint only, never a proof of sameness.
 */
uint64_t job_affinity(const char *body, size_t len);

#endif
