/*
 * entry.h - one student's grade as the learning systems' layouts read it
 * (canvas.h, moodle.h), and what such a file ends up holding.
 */
#ifndef BUTTERFLY_GRADEBOOK_ENTRY_H
#define BUTTERFLY_GRADEBOOK_ENTRY_H

#include <stdbool.h>
#include <stddef.h>

#define GRADEBOOK_LIST_MAX 512   /* bytes of the list of ids named in a message */

/* One student's grade, as a layout writer reads it (nothing owned). */
struct gradebook_entry {
    const char *id;                /* the identifier a learning system matches on (an
                                    * unusable one: its printable form) */
    bool usable;                   /* the id is one a student can have */
    bool gradable;                 /* a usable id and a grade of the student's work
                                    * (not the grader's failure, not a duplicated id) */
    double score;                  /* a whole number but under a late policy's penalty */
    const char *feedback;          /* one line: verdict, points, the main reason */
    const char *unverified_name;   /* an open lab's name, or NULL when verified */
};

/* One exercise's column of a learning system's gradebook (nothing owned). */
struct gradebook_column {
    const char *title;                    /* Canvas's column head; Moodle's grade and
                                           * feedback columns' */
    int points;                           /* Canvas's "Points Possible": the exercise's most */
    const struct gradebook_entry *e;      /* its students' grades, sorted by id (strcmp) */
    size_t n;
};

/* The entry whose usable id is `id`, among n sorted by id (strcmp); the
 * first of a duplicated id. NULL when there is none. */
const struct gradebook_entry *gradebook_entry_find(const struct gradebook_entry *e, size_t n,
                                                   const char *id);

/* What a learning system's gradebook holds, for a printed summary. */
struct gradebook_result {
    size_t rows;                 /* students written */
    size_t with_points;          /* of them, with points */
    size_t left_out;             /* entries with no points there */
    const char *matched_on;      /* canvas: the roster column the ids matched */
    size_t not_in_roster;        /* canvas: graded ids no roster row has */
    char not_in_roster_list[GRADEBOOK_LIST_MAX];   /* the first of them */
    size_t formula_ids;          /* moodle: gradable ids left out, as a spreadsheet would
                                  * run them (csv_is_formula) and Moodle cannot match
                                  * them guarded */
    char formula_list[GRADEBOOK_LIST_MAX];         /* the first of them */
};

/* Appends id to a message's list of ids (size bytes), ", " between,
 * "..." once it is full. */
void gradebook_list_add(char *list, size_t size, const char *id);

#endif
