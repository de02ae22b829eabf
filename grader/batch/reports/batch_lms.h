/*
 * batch_lms.h - the gradebooks that learning systems import, beside the
 * batch's own gradebook.csv (gradebook/default_layout.h), from the
 * batch's rows: Canvas's (OUT/gradebook-canvas.csv, gradebook/canvas.h)
 * and Moodle's (OUT/gradebook-moodle.csv, gradebook/moodle.h). The
 * writers are gradebook/'s, shared with the server's class view; this
 * only says what each row of the batch is to them.
 */
#ifndef BUTTERFLY_BATCH_LMS_H
#define BUTTERFLY_BATCH_LMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "batch/reports/batch_row.h"
#include "gradebook/entry.h"
#include "gradebook/layout.h"
#include "gradebook/roster.h"

/*
 * Writes the gradebook of layout l (canvas or moodle) of the n rows
 * (sorted by id, as the inputs are) into f; Canvas's with the roster and
 * `assignment` heading its points column, `points` possible. Fills *res.
 * False on OOM.
 */
bool batch_lms_write(FILE *f, enum gradebook_layout l, const struct batch_row *rows, size_t n,
                     const struct gradebook_roster *roster, const char *assignment,
                     int points, struct gradebook_result *res);

/* The learning systems' entries of the n rows (they point into the rows),
 * to free; NULL on OOM. */
struct gradebook_entry *batch_lms_entries(const struct batch_row *rows, size_t n);

/* Prints on stderr what a learning system's file res left out and why:
 * graded ids not in Canvas's roster, ids Moodle's file could not carry. */
void batch_lms_warn(const struct gradebook_result *res);

#endif
