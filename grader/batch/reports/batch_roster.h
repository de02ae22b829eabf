/*
 * batch_roster.h - a class roster (gradebook/roster.h) read from a file:
 * Canvas's own gradebook export (Student, ID, SIS User ID, SIS Login ID, Section), or
 * any CSV with some of those columns (',' or ';', sniffed), and an
 * optional Email (or E-mail) column. It supplies the names and the ids
 * Canvas matches on, and butterfly-admin's class (`id,name,section,email`).
 */
#ifndef BUTTERFLY_BATCH_ROSTER_H
#define BUTTERFLY_BATCH_ROSTER_H

#include <stdbool.h>
#include <stddef.h>

#include "gradebook/roster.h"

#define BATCH_ROSTER_MAX_ROWS   GRADEBOOK_ROSTER_MAX_ROWS
#define BATCH_ROSTER_MAX_FIELD  1024   /* bytes of a roster cell */
#define BATCH_ROSTER_MAX_FIELDS 4096   /* columns: Canvas's export has one per assignment */

/*
 * Reads the roster at path into *r: a header row naming at least one of
 * ID, SIS User ID, SIS Login ID (any case, blanks around ignored), then
 * one student per record; blank records and Canvas's "Points Possible"
 * row are skipped. Cells are kept as they are, blanks around trimmed; each
 * entry knows its line. The file is UTF-8 (a UTF-8 mark is read past);
 * every cell kept passes gradebook_roster_cell_problem, and no id column
 * holds one id twice. False with the line and the reason in err (no such
 * file, UTF-16 or Latin-1 text, a control character, an id or a name over
 * its bound, an id a spreadsheet would run, an id on two lines, no id
 * column, a cell over BATCH_ROSTER_MAX_FIELD bytes, too many rows): the
 * roster is refused whole, *r is then empty. Release with
 * gradebook_roster_free().
 */
bool batch_roster_load(const char *path, struct gradebook_roster *r, char *err, size_t errsz);

#endif
