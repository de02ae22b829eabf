/*
 * default_layout.h - the default layout, gradebook.csv: one row per
 * student (or input), RFC 4180.
 *
 * Columns: id, verdict, score, max_score, halves_passed (0-3),
 * hidden_passed (hidden spectra right, 0-24), diagnosis_id,
 * diagnosis_title, message (the reason of a Rejected row, the compiler's
 * errors one per line, what a Wrong Answer gets wrong), input (where the
 * submission came from), grading_ms (the only column that changes from
 * run to run). The id, the title, the message and the input are guarded
 * against spreadsheet formulas (csv_write.h).
 */
#ifndef BUTTERFLY_GRADEBOOK_DEFAULT_LAYOUT_H
#define BUTTERFLY_GRADEBOOK_DEFAULT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/score.h"
#include "common/verdict.h"

#define GRADEBOOK_DEFAULT_COLUMNS 11

/* The header of column i ("verdict"); "" past the last. */
const char *gradebook_default_column(size_t i);

/* Writes the header row. */
void gradebook_default_header(FILE *f);

/* Writes the row of student (or input) `id`, whose submission came from
 * `input` and was graded to v, scored as sc. */
void gradebook_default_row(FILE *f, const char *id, const char *input, const struct verdict *v,
                           const struct score *sc);

/* The row of a stored verdict that does not parse (never expected). */
#define GRADEBOOK_UNREADABLE_VERDICT \
    "The stored verdict of this record cannot be read; grade it again with --regrade."

/*
 * The input column of a row from a server's records: "record ID, NAME",
 * with GRADEBOOK_UNVERIFIED_MARK after an unverified name. A new string,
 * NULL on OOM.
 */
char *gradebook_record_location(const char *record_id, const char *name, bool unverified);

#endif
