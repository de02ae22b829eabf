/*
 * roster.h - a class roster as Canvas's gradebook needs it: one entry per
 * student with Canvas's columns (the name, Canvas's three ids, the
 * section) and an email. The batch reads one from a file
 * (batch/reports/batch_roster.h); the batch from the records and the
 * server's class view make one from the store's students
 * (gradebook_roster_add_student).
 */
#ifndef BUTTERFLY_GRADEBOOK_ROSTER_H
#define BUTTERFLY_GRADEBOOK_ROSTER_H

#include <stdbool.h>
#include <stddef.h>

#define GRADEBOOK_ROSTER_MAX_ROWS 100000   /* students of one roster */

/* The roster's columns, in Canvas's order. */
enum gradebook_roster_column {
    ROSTER_STUDENT,      /* "Student" (or "Name"): the name shown */
    ROSTER_ID,           /* "ID": Canvas's user id */
    ROSTER_SIS_USER,     /* "SIS User ID" */
    ROSTER_SIS_LOGIN,    /* "SIS Login ID" */
    ROSTER_SECTION,      /* "Section" */
    ROSTER_COLUMNS,
};

/* Canvas's header of a column ("SIS Login ID"); never NULL. */
const char *gradebook_roster_column_to_str(enum gradebook_roster_column c);

struct gradebook_roster_entry {
    char *cell[ROSTER_COLUMNS];      /* owned, never NULL ("" when absent) */
    char *email;                     /* owned, never NULL: the "Email" column, for
                                        butterfly-admin's class; no Canvas column */
    unsigned long line;              /* the file's line it starts on; 0: from the records */
};

struct gradebook_roster {
    struct gradebook_roster_entry *v;
    size_t n, cap;
    bool has[ROSTER_COLUMNS];        /* which columns the roster has */
    bool has_email;
};

/*
 * Why cell text s (len bytes) cannot be in a roster's column c, as a
 * phrase after the column's name ("is not UTF-8 text"), or NULL when it
 * can. Every cell: UTF-8 with no control character (gradebook_text_problem:
 * a Latin-1 or UTF-16 file, a TAB, an escape sequence for a terminal).
 * An id (ID, SIS User ID, SIS Login ID): at most ROSTER_ID_MAX bytes and
 * no cell a spreadsheet would run (csv_is_formula: the learning systems
 * match an id exactly, so it could not be guarded). The name: at most
 * ROSTER_NAME_MAX bytes. c == ROSTER_COLUMNS judges the email.
 */
const char *gradebook_roster_cell_problem(enum gradebook_roster_column c, const char *s,
                                          size_t len);

/*
 * Whether two entries of r have the same non-empty cell in column c: then
 * *first and *second are the indexes of the first such pair (by the
 * second's position) and it returns true. False, with neither set, when
 * every id is once; also on OOM, when `oom` is set.
 */
bool gradebook_roster_duplicate(const struct gradebook_roster *r, enum gradebook_roster_column c,
                                size_t *first, size_t *second, bool *oom);

/*
 * Appends a student of the records: `id` as Canvas's ID, the name (an
 * unverified one followed by GRADEBOOK_UNVERIFIED_MARK), the section and
 * the email; the SIS columns empty. Sets the columns it fills in r->has.
 * False on OOM or past GRADEBOOK_ROSTER_MAX_ROWS (nothing appended).
 */
bool gradebook_roster_add_student(struct gradebook_roster *r, const char *id, const char *name,
                                  bool verified, const char *section, const char *email);

/* Releases what *r holds and empties it. Accepts an empty one. */
void gradebook_roster_free(struct gradebook_roster *r);

#endif
