/*
 * batch_summary.h - the class at a glance: verdicts, points, the pass
 * rate of each half, the most common compile errors and diagnoses.
 * Built row by row; the same rows give the same summary.json.
 */
#ifndef BUTTERFLY_BATCH_SUMMARY_H
#define BUTTERFLY_BATCH_SUMMARY_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "batch_score.h"
#include "verdict.h"

#define BATCH_SUMMARY_TOP 10   /* compile errors and diagnoses listed */

struct batch_summary;

/* An empty summary; NULL on OOM. */
struct batch_summary *batch_summary_new(void);

/* Frees it. Accepts NULL. */
void batch_summary_free(struct batch_summary *s);

/* Counts one row. Returns false on OOM (the row is then partly counted). */
bool batch_summary_add(struct batch_summary *s, const struct verdict *v,
                       const struct batch_score *sc);

/* summary.json for `inputs` inputs graded with `seed`: a new reference,
 * NULL on OOM. */
json_t *batch_summary_to_json(const struct batch_summary *s, uint64_t seed, size_t inputs);

/* The summary for a person. */
void batch_summary_print(FILE *out, const struct batch_summary *s);

/*
 * A compiler message with its particulars taken out, so that the same
 * mistake counts once across students: quoted names become '_', numbers
 * N, runs of blanks one space; at most outsz - 1 bytes of printable
 * ASCII.
 */
void batch_summary_normalise(const char *msg, char *out, size_t outsz);

#endif
