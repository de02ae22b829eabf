/*
 * batch_gradebook.h - gradebook.csv: one row per input, RFC 4180.
 *
 * Columns: id, verdict, score, max_score, halves_passed (0-3),
 * hidden_passed (hidden spectra right, 0-24), diagnosis_id,
 * diagnosis_title, message (the reason of a Rejected row, the compiler's
 * errors one per line, what a Wrong Answer gets wrong), input (where the
 * submission came from), grading_ms (the only column that changes from
 * run to run).
 */
#ifndef BUTTERFLY_BATCH_GRADEBOOK_H
#define BUTTERFLY_BATCH_GRADEBOOK_H

#include <stdio.h>

#include "common/score.h"
#include "batch/input/batch_input.h"
#include "common/verdict.h"

#define BATCH_GRADEBOOK_COLUMNS 11

/* Writes the header row. */
void batch_gradebook_header(FILE *f);

/* Writes the row of input e, whose verdict is v, scored as sc. */
void batch_gradebook_row(FILE *f, const struct batch_input *e, const struct verdict *v,
                         const struct score *sc);

/*
 * Reads a gradebook back from f and counts its rows after the header.
 * Returns -1 when it does not parse as this gradebook (a row with another
 * number of columns, a header that differs).
 */
long batch_gradebook_count_rows(FILE *f);

#endif
