/* csv.h - a small RFC 4180 reader (streaming, bounded); the writer is
 * gradebook/csv_write.h, included here for the batch's callers. */
#ifndef BUTTERFLY_CSV_H
#define BUTTERFLY_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gradebook/csv_write.h"

#define CSV_SNIFF_BYTES (64 * 1024)   /* read to guess the delimiter */

/* One field of a record; `data` is NUL-terminated but may hold NULs. */
struct csv_field {
    char *data;
    size_t len;
    bool truncated;    /* longer than the reader's max_field: cut there */
};

enum csv_status {
    CSV_RECORD,        /* a record */
    CSV_UNCLOSED,      /* a record whose quoted field runs to the end of the input */
    CSV_EOF,
    CSV_IO_ERROR,
};

/* The name of a status ("record", "unclosed", "eof", "io_error"); never NULL. */
const char *csv_status_to_str(enum csv_status s);

struct csv_reader;

/*
 * A reader of `f` (which the caller keeps and closes), with fields
 * separated by `delimiter` (',' or ';'). Every field keeps at most
 * max_field bytes and a record at most max_fields fields, so a hostile
 * file cannot make the reader hold more than about max_field * max_fields
 * bytes. A UTF-8 byte-order mark at the very start is skipped. NULL on
 * OOM or a delimiter that cannot be one (a quote, CR, LF).
 */
struct csv_reader *csv_reader_new(FILE *f, char delimiter, size_t max_field, size_t max_fields);

/* Frees the reader. Accepts NULL. */
void csv_reader_free(struct csv_reader *r);

/*
 * Reads the next record: fields separated by the delimiter, records by
 * CRLF, LF or a lone CR, quoted fields with "" for a quote (and
 * delimiters and line breaks inside). A quote inside an unquoted field is
 * kept as text, and so is text after a closing quote. On CSV_RECORD and
 * CSV_UNCLOSED, *fields (owned by the reader, valid until the next call)
 * holds *n fields, *line is the 1-based line where the record starts, and
 * *dropped says whether fields beyond max_fields were dropped. After
 * CSV_UNCLOSED the input is used up.
 */
enum csv_status csv_reader_next(struct csv_reader *r, const struct csv_field **fields,
                                size_t *n, unsigned long *line, bool *dropped);

/*
 * The delimiter of a CSV text from its first record (len bytes at head, a
 * byte-order mark allowed): ';' when it holds more semicolons than commas
 * outside quotes (what a spreadsheet writes where the comma is the
 * decimal separator), else ','.
 */
char csv_sniff_delimiter(const char *head, size_t len);

/*
 * The same for a file: reads up to CSV_SNIFF_BYTES of f, then seeks back
 * to where it was. Returns ',' when f cannot be read or sought.
 */
char csv_sniff_file(FILE *f);

/*
 * The cell s[0..*len) without the blanks (spaces, tabs) around it, which
 * values typed into spreadsheets carry: returns the new start and sets
 * *len to the new length.
 */
const char *csv_trim(const char *s, size_t *len);


#endif
