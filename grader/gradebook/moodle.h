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

#endif
