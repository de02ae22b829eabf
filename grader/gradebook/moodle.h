/*
 * moodle.h - Moodle's "Import grades from CSV" file: Identifier, Grade,
 * Feedback; one row per student with points (map Identifier to the user
 * field the ids are, Grade to the grade item, Feedback to its feedback).
 *
 * Every cell a spreadsheet would run as a formula (csv_is_formula) is
 * guarded with a leading apostrophe. Moodle matches the Identifier
 * exactly against the user field it is mapped to, apostrophe and all, so
 * an entry whose id would need the guard gets no row (counted and listed
 * in res->formula_ids): the identifiers written are as they are. A student known by an unverified name gets
 * that name and GRADEBOOK_UNVERIFIED_MARK before the feedback. An entry
 * that is not a grade of the student's work gets no row.
 */
#ifndef BUTTERFLY_GRADEBOOK_MOODLE_H
#define BUTTERFLY_GRADEBOOK_MOODLE_H

#include <stddef.h>
#include <stdio.h>

#include "gradebook/entry.h"

/* Writes Moodle's import file of the n entries into f; fills *res. */
void gradebook_moodle_write(FILE *f, const struct gradebook_entry *e, size_t n,
                            struct gradebook_result *res);

/* Heads a column's feedback, after its title ("Bit reversal (Feedback)"),
 * as Moodle's own export heads one. */
#define MOODLE_FEEDBACK_SUFFIX "(Feedback)"

/*
 * Moodle's import file with a grade and a feedback column per column of
 * cols, in that order: Identifier, then each exercise's title and its
 * title followed by MOODLE_FEEDBACK_SUFFIX (map each grade column to the
 * exercise's grade item, each feedback column to its feedback). One row
 * per student with points in some column, sorted by id; a student with
 * no grade in one exercise has blank cells there, which Moodle's import
 * skips. The rules above hold per cell. res->rows counts the students,
 * res->left_out the entries with no cell, res->formula_ids each id once.
 * False on OOM.
 */
bool gradebook_moodle_write_columns(FILE *f, const struct gradebook_column *cols, size_t ncols,
                                    struct gradebook_result *res);

#endif
