/* job.c - a job's memory. */
#include "pool/job.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"

uint64_t job_affinity(const char *body, size_t len)
{
    /* grader_grade drops a byte-order mark before the cache sees the text */
    if (len >= 3 && !memcmp(body, "\xef\xbb\xbf", 3)) {
        body += 3;
        len -= 3;
    }
    return hash_fnv1a64(body, len);
}

/* A job's reserved answer: the verdict it answers if memory runs out by
 * the time it ends (its callback is promised a verdict). */
struct reserved {
    char *json;                    /* NULL: not made (out of memory) */
    size_t len;
    struct frame_verdict head;
};

#define RESERVED_MESSAGE "The grader ran out of memory; submit again."

/* Makes e's reserved answer into r; false on OOM. */
static bool reserved_make(const struct exercise *e, struct reserved *r)
{
    struct verdict *v = verdict_new(VERDICT_INTERNAL_ERROR, RESERVED_MESSAGE);
    if (!v)
        return false;
    verdict_set_exercise(v, e);
    r->json = verdict_to_bytes(v, &r->len);
    frame_verdict_of(v, &r->head);
    verdict_free(v);
    return r->json != NULL;
}

/* The reserved answers of the built-in exercises, made once: they are the
 * same bytes for every job of an exercise, and making them (a verdict's
 * JSON) cost about a fifth of a record's instructions over HTTP when each
 * job made its own (bench/bench_record_instructions.py). Kept for the
 * process's life; an entry left NULL (out of memory) is made per job. */
static struct reserved *builtin_reserved;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void builtin_make(void)
{
    size_t n = exercise_count();
    builtin_reserved = calloc(n ? n : 1, sizeof *builtin_reserved);
    for (size_t i = 0; builtin_reserved && i < n; i++)
        reserved_make(exercise_at(i), &builtin_reserved[i]);
}

/* Gives j its own copy of e's reserved answer; false on OOM. */
static bool reserve(struct job *j, const struct exercise *e)
{
    pthread_once(&builtin_once, builtin_make);
    for (size_t i = 0; builtin_reserved && i < exercise_count(); i++) {
        const struct reserved *r = &builtin_reserved[i];
        if (exercise_at(i) != e || !r->json)
            continue;
        if (!(j->result.verdict = malloc(r->len + 1)))
            return false;
        memcpy(j->result.verdict, r->json, r->len + 1);
        j->result.verdict_len = r->len;
        j->result.head = r->head;
        return true;
    }
    /* an exercise read from a folder (--check-exercise), or one whose
     * answer could not be made once */
    struct reserved own = { 0 };
    if (!reserved_make(e, &own))
        return false;
    j->result.verdict = own.json;
    j->result.verdict_len = own.len;
    j->result.head = own.head;
    return true;
}

struct job *job_new(const struct exercise *e, const char *body, size_t len,
                    const struct client_id *client, uint64_t seed)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->exercise = e ? e : exercise_default();
    if (!reserve(j, j->exercise) || !(j->body = malloc(len ? len : 1))) {
        job_free(j);
        return NULL;
    }
    memcpy(j->body, body, len);
    j->len = len;
    j->seed = seed;
    j->affinity = job_affinity(body, len);
    if (client)
        j->client = *client;   /* calloc made it CLIENT_LOCAL otherwise */
    return j;
}

void job_free(struct job *j)
{
    if (!j)
        return;
    free(j->result.verdict);
    free(j->body);
    free(j);
}
