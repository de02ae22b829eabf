/*
 * batch_roster.h - a class roster for Canvas's gradebook: Canvas's own
 * gradebook export (Student, ID, SIS User ID, SIS Login ID, Section), or
 * any CSV with some of those columns (',' or ';', sniffed), and an
 * optional Email (or E-mail) column. It supplies the names and the ids
 * Canvas matches on, and butterfly-admin's class (`id,name,section,email`).
 */
#ifndef BUTTERFLY_BATCH_ROSTER_H
#define BUTTERFLY_BATCH_ROSTER_H

#include <stdbool.h>
#include <stddef.h>

#define BATCH_ROSTER_MAX_ROWS   100000
#define BATCH_ROSTER_MAX_FIELD  1024   /* bytes of a roster cell */
#define BATCH_ROSTER_MAX_FIELDS 4096   /* columns: Canvas's export has one per assignment */

/* The roster's columns, in Canvas's order. */
enum batch_roster_column {
    ROSTER_STUDENT,      /* "Student" (or "Name"): the name shown */
    ROSTER_ID,           /* "ID": Canvas's user id */
    ROSTER_SIS_USER,     /* "SIS User ID" */
    ROSTER_SIS_LOGIN,    /* "SIS Login ID" */
    ROSTER_SECTION,      /* "Section" */
    ROSTER_COLUMNS,
};

/* Canvas's header of a column ("SIS Login ID"); never NULL. */
const char *batch_roster_column_to_str(enum batch_roster_column c);

struct batch_roster_entry {
    char *cell[ROSTER_COLUMNS];      /* owned, never NULL ("" when absent) */
    char *email;                     /* owned, never NULL: the "Email" column, for
                                        butterfly-admin's class; no Canvas column */
};

struct batch_roster {
    struct batch_roster_entry *v;
    size_t n, cap;
    bool has[ROSTER_COLUMNS];        /* which columns the file had */
    bool has_email;
};

/*
 * Reads the roster at path into *r: a header row naming at least one of
 * ID, SIS User ID, SIS Login ID (any case, blanks around ignored), then
 * one student per record; blank records and Canvas's "Points Possible"
 * row are skipped. Cells are kept as they are, blanks around trimmed.
 * False with a reason in err (no such file, no id column, a cell over
 * BATCH_ROSTER_MAX_FIELD bytes, too many rows); *r is then empty.
 * Release with batch_roster_free().
 */
bool batch_roster_load(const char *path, struct batch_roster *r, char *err, size_t errsz);

/* Releases what *r holds. Accepts an empty one. */
void batch_roster_free(struct batch_roster *r);

#endif
