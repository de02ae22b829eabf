/*
 * csv_write.h - writing RFC 4180 rows that a spreadsheet opens safely:
 * the one writer of every gradebook layout (the batch's files, the class
 * view's downloads).
 */
#ifndef BUTTERFLY_GRADEBOOK_CSV_WRITE_H
#define BUTTERFLY_GRADEBOOK_CSV_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Whether a spreadsheet that opens the file would evaluate cell s as a
 * formula: it starts with '=' or '@', or with '+' or '-' and is not a
 * plain number ("-3" and "+1.5" are numbers, "-2+3" and "+cmd|..." are
 * not), or with a TAB or CR (some programs strip those, then see the
 * rest). Those are the cells worth guarding (CSV injection).
 */
bool csv_is_formula(const char *s);

/* Every field of a row guarded: what every gradebook layout writes. */
#define CSV_GUARD_ALL (~0ul)

/*
 * Writes one row of n NUL-terminated fields, separated by commas, and a
 * CRLF. A field is quoted when it holds a comma, a quote, CR or LF, or
 * starts or ends with a space; quotes inside are doubled. A field whose
 * bit is set in `guard_mask` (bit i for field i; every field with
 * CSV_GUARD_ALL) gets a leading apostrophe when csv_is_formula says a
 * spreadsheet would run it. Quoting alone guards nothing: a spreadsheet
 * runs "=1+1" as it runs =1+1. The apostrophe is kept by the learning
 * systems' imports (Canvas's and Moodle's match an id exactly), so an id
 * that would need it is refused in a roster (gradebook_roster_cell_problem)
 * and left out of Moodle's file (moodle.h), and every layout guards every
 * cell.
 * A clear bit writes the field exactly as it is (a file read back).
 */
void csv_write_row(FILE *f, const char *const *fields, size_t n, unsigned long guard_mask);

/*
 * csv_write_row with a LF line end: for what a shell reads line by line
 * (butterfly-admin links: a token cut with cut or sed from a CRLF line
 * keeps the CR). A field that holds a CR is still quoted.
 */
void csv_write_row_lf(FILE *f, const char *const *fields, size_t n, unsigned long guard_mask);

#endif
