/*
 * canvas.h - Canvas's gradebook import: Student, ID, SIS User ID, SIS
 * Login ID, Section, then an assignment column per exercise holding the
 * points (one, or one per exercise of the course); one row per roster
 * student, in the roster's order, after Canvas's "Points Possible" row,
 * which holds each column's own most. Names, sections and Canvas's ids come from the roster
 * (roster.h).
 *
 * Every cell a spreadsheet would run as a formula (csv_is_formula) is
 * guarded with a leading apostrophe, the ids too. Canvas's import
 * matches a row's ID, SIS User ID or SIS Login ID exactly and keeps an
 * apostrophe, so a guarded id would match nobody: a roster with such an
 * id is refused when it is read (gradebook_roster_cell_problem), and the
 * ids written are Canvas's own, unchanged. An entry
 * that is not a grade of the student's work (an Internal Error, a
 * duplicated id) gets a blank cell, which Canvas's import leaves as it
 * was.
 */
#ifndef BUTTERFLY_GRADEBOOK_CANVAS_H
#define BUTTERFLY_GRADEBOOK_CANVAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gradebook/entry.h"
#include "gradebook/roster.h"

/*
 * Writes Canvas's gradebook of the n entries (sorted by id with strcmp)
 * for the roster into f. The ids are matched against the roster's SIS
 * Login ID, SIS User ID or ID column: the one that matches the most (in
 * that order on a tie). `assignment` heads the points column (an
 * existing assignment as Canvas exports it, "Name (123)", or a new one);
 * `points` is its "Points Possible" (the exercise's most). Fills *res.
 * False on OOM.
 */
bool gradebook_canvas_write(FILE *f, const struct gradebook_entry *e, size_t n,
                            const struct gradebook_roster *roster, const char *assignment,
                            int points, struct gradebook_result *res);

/*
 * The same with an assignment column per column of cols, in that order,
 * each headed by its title, its points possible its own: a student with
 * no grade in one exercise has a blank cell there (Canvas's import leaves
 * it as it was). The ids are matched on the roster column that matches
 * the most students of any column; res->with_points counts the students
 * with points in some column, res->left_out the entries with none, and
 * an id not in the roster is counted once. ncols 1 writes what
 * gradebook_canvas_write does. False on OOM.
 */
bool gradebook_canvas_write_columns(FILE *f, const struct gradebook_column *cols, size_t ncols,
                                    const struct gradebook_roster *roster,
                                    struct gradebook_result *res);

#endif
