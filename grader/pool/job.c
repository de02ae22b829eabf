/* job.c - a job's memory. */
#include "pool/job.h"

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

struct job *job_new(const struct exercise *e, const char *body, size_t len,
                    const struct client_id *client, uint64_t seed)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    /* Reserved now, so that the job has an answer even if memory runs out
     * by the time it ends: its callback is promised a verdict. */
    struct verdict *reserved = verdict_new(VERDICT_INTERNAL_ERROR,
                                           "The grader ran out of memory; submit again.");
    if (reserved) {
        j->result.verdict = verdict_to_bytes(reserved, &j->result.verdict_len);
        frame_verdict_of(reserved, &j->result.head);
    }
    verdict_free(reserved);
    if (!j->result.verdict || !(j->body = malloc(len ? len : 1))) {
        job_free(j);
        return NULL;
    }
    memcpy(j->body, body, len);
    j->len = len;
    j->exercise = e ? e : exercise_default();
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
