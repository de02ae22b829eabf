/*
 * batch_lms.h - gradebooks that learning systems import, beside the
 * batch's own gradebook.csv (batch_gradebook.h), which stays as it is.
 *
 *   canvas  OUT/gradebook-canvas.csv: Student, ID, SIS User ID, SIS Login
 *           ID, Section, then one assignment column holding the points;
 *           one row per roster student, in the roster's order, after
 *           Canvas's "Points Possible" row. Names, sections and Canvas's
 *           ids come from the roster (batch_roster.h).
 *   moodle  OUT/gradebook-moodle.csv, written by gradebook/moodle.h.
 *
 * The layouts' names and files are gradebook/layout.h's.
 *
 * Identifiers a learning system matches on are written exactly as they
 * are, never guarded; display text (names, sections, feedback) is guarded
 * where a spreadsheet would run it as a formula (csv_is_formula). A row
 * that is not a grade of the student's work (an Internal Error, a
 * duplicated id) gets no points: a blank cell in Canvas (which leaves
 * the grade as it was), no row in Moodle.
 */
#ifndef BUTTERFLY_BATCH_LMS_H
#define BUTTERFLY_BATCH_LMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "batch/reports/batch_roster.h"
#include "batch/reports/batch_row.h"
#include "gradebook/layout.h"

#define BATCH_LMS_LIST_MAX 512   /* bytes of the list of ids named in a message */

/* What a learning system's gradebook holds, for the printed summary. */
struct batch_lms_result {
    size_t rows;                 /* students written */
    size_t with_points;          /* of them, with points */
    size_t left_out;             /* rows of the batch with no points there */
    const char *matched_on;      /* canvas: the roster column the ids matched */
    size_t not_in_roster;        /* canvas: graded ids no roster row has */
    char not_in_roster_list[BATCH_LMS_LIST_MAX];   /* the first of them */
};

/*
 * Writes Canvas's gradebook of the n rows (sorted by id, as the inputs
 * are) for the roster into f. Batch ids are matched against the roster's
 * SIS Login ID, SIS User ID or ID column: the one that matches the most
 * (in that order on a tie). `assignment` heads the points column (an
 * existing assignment as Canvas exports it, "Name (123)", or a new one).
 * Fills *res. False on OOM.
 */
bool batch_lms_write_canvas(FILE *f, const struct batch_row *rows, size_t n,
                            const struct batch_roster *roster, const char *assignment,
                            struct batch_lms_result *res);

/* Writes Moodle's import file of the n rows into f; fills *res. */
void batch_lms_write_moodle(FILE *f, const struct batch_row *rows, size_t n,
                            struct batch_lms_result *res);

#endif
