/*
 * batch_record.h - one student's result on disk: a results.json in
 * Gradescope's autograder format (score, execution_time, output, tests),
 * carrying the batch's own record under extra_data.butterfly: the id, the
 * SHA-256 of the source graded, the seed and the whole verdict. The
 * gradebook is rebuilt from these files, and a rerun reuses one only
 * when its source and seed are the same.
 *
 * What a student sees before the grades are published: the top-level
 * `output` (batch_feedback.h: the visible spectrum only) and the visible
 * tests. The hidden tests are `after_published`. The top-level `score`
 * is the true total, hidden results included: Gradescope's specification
 * says students cannot see their total score while some test is hidden
 * from them, so it shows once the hidden tests are published. The
 * autograder's standard output stays the instructor's (`hidden`).
 */
#ifndef BUTTERFLY_BATCH_RECORD_H
#define BUTTERFLY_BATCH_RECORD_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "batch/batch_sha256.h"
#include "batch/input/batch_input.h"
#include "common/exercise/exercise.h"
#include "common/verdict.h"

#define BATCH_RECORD_SCHEMA 1
#define BATCH_RECORD_MAX    (4 * 1024 * 1024)   /* bytes of a results.json read back */
#define BATCH_RECORD_STDOUT_VISIBILITY "hidden"     /* Gradescope's stdout_visibility */

enum batch_record_kind {
    BATCH_RECORD_GRADED,     /* the pool graded the source */
    BATCH_RECORD_REFUSED,    /* Rejected before grading (duplicate id, unreadable, ...) */
};

/* The kind's name in results.json: "graded" or "refused"; never NULL. */
const char *batch_record_kind_to_str(enum batch_record_kind k);

struct batch_record {
    enum batch_record_kind kind;
    char *id;                        /* owned */
    char sha[BATCH_SHA256_HEX];      /* "" for a refused input */
    uint64_t seed;
    struct verdict *verdict;         /* owned */
    char task[EX_ID_MAX + 1];        /* the exercise it was graded as (a record from
                                      * before exercises: the default's) */
};

/*
 * The results.json of input e, graded as exercise `task`: graded from a
 * source with SHA-256 `sha` to verdict v, or (sha NULL) refused before grading, v being its
 * Rejected verdict. Returns a new reference, NULL on OOM.
 */
json_t *batch_record_to_json(const struct batch_input *e, const char *task, const char *sha,
                             uint64_t seed, const struct verdict *v);

/*
 * Reads back a results.json this tool wrote. Returns false when the text
 * is not one (another tool's file, a different schema, damage); *r is
 * then empty. Release *r with batch_record_clear().
 */
bool batch_record_parse(const char *text, size_t len, struct batch_record *r);

/* Releases what *r owns and empties it. */
void batch_record_clear(struct batch_record *r);

#endif
