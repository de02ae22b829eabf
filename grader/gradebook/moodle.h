/*
 * moodle.h - Moodle's "Import grades from CSV" file: Identifier, Grade,
 * Feedback; one row per student with points (map Identifier to the user
 * field the ids are, Grade to the grade item, Feedback to its feedback).
 *
 * The identifier is written exactly as it is (Moodle matches on it); the
 * feedback is display text, guarded where a spreadsheet would run it as
 * a formula (csv_is_formula). A student known by an unverified name gets
 * that name and GRADEBOOK_UNVERIFIED_MARK before the feedback.
 */
#ifndef BUTTERFLY_GRADEBOOK_MOODLE_H
#define BUTTERFLY_GRADEBOOK_MOODLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One student's grade, as a layout writer reads it (nothing owned). */
struct gradebook_entry {
    const char *id;                /* the identifier a learning system matches on */
    bool gradable;                 /* a usable id and a grade of the student's work
                                    * (not the grader's failure, not a duplicated id) */
    int score;
    const char *feedback;          /* one line: verdict, points, the main reason */
    const char *unverified_name;   /* an open lab's name, or NULL when verified */
};

/* Writes the header row. */
void gradebook_moodle_header(FILE *f);

/* Writes e's row into f when it is gradable; returns whether it did. */
bool gradebook_moodle_row(FILE *f, const struct gradebook_entry *e);

#endif
