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

#include "common/score.h"
#include "batch/input/batch_input.h"
#include "common/verdict.h"

#define BATCH_SUMMARY_TOP          10     /* compile errors and diagnoses listed */
#define BATCH_SUMMARY_MAX_DISTINCT 1000   /* distinct ones kept; beyond, counted as "other" */
#define BATCH_SUMMARY_NSTATUS      VERDICT_NSTATUSES   /* in batch_summary_status order */

/* One kind of mistake, and the first student (by id) who made it. */
struct batch_summary_entry {
    char *key;              /* normalised compile error, or diagnosis id */
    char *title;            /* a diagnosis's title; NULL for compile errors */
    size_t count;           /* students */
    char *example_id;       /* the student's id (printable) */
    char *example_key;      /* their name on disk; "" when the id is unusable */
    char *example_text;     /* the compiler's own words ("line 3: ..."), or the
                             * diagnosis's explanation */
};

struct batch_summary_list {
    struct batch_summary_entry *v;
    size_t n, cap, other;
};

/* Read-only for writers of reports; built by batch_summary_add. */
struct batch_summary {
    size_t rows, status[BATCH_SUMMARY_NSTATUS];
    long score_sum;
    size_t full, zero;
    const struct exercise *ex;         /* the exercise the rows were graded as */
    size_t points[SCORE_MAX + 1];      /* rows with each score, up to score_max_of(ex) */
    size_t half_passed[EX_MAX_SWEEP], visible_passed[EX_MAX_SWEEP], hidden_passed[EX_MAX_SWEEP];
    struct batch_summary_list errors, diagnoses;
};

/* The status counted in s->status[i]. */
enum verdict_status batch_summary_status(size_t i);

/* An empty summary of rows graded as exercise ex; NULL on OOM. */
struct batch_summary *batch_summary_new(const struct exercise *ex);

/* Frees it. Accepts NULL. */
void batch_summary_free(struct batch_summary *s);

/* Counts the row of input e. Returns false on OOM (the row is then
 * partly counted). Rows added in id order make the first student of each
 * mistake its example, the same on every run. */
bool batch_summary_add(struct batch_summary *s, const struct batch_input *e,
                       const struct verdict *v, const struct score *sc);

/* Sorts the tallies most common first (ties by key) and returns how many
 * of them to show: at most BATCH_SUMMARY_TOP. */
size_t batch_summary_top(const struct batch_summary_list *t);

/* summary.json for `inputs` inputs graded with `seed`: a new reference,
 * NULL on OOM. */
json_t *batch_summary_to_json(const struct batch_summary *s, const char *task, uint64_t seed,
                              size_t inputs);

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
