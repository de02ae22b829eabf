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

/*
 * Writes one row of n NUL-terminated fields, separated by commas, and a
 * CRLF. A field is quoted when it holds a comma, a quote, CR or LF, or
 * starts or ends with a space; quotes inside are doubled. A field whose
 * bit is set in `guard_mask` (bit i for field i) is display text from
 * outside: when csv_is_formula says a spreadsheet would run it, it gets
 * a leading apostrophe. Leave the bit clear for identifiers another
 * program matches on: they are written exactly as they are.
 */
void csv_write_row(FILE *f, const char *const *fields, size_t n, unsigned long guard_mask);

#endif
