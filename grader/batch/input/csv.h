/* csv.h - a small RFC 4180 reader (streaming, bounded) and writer. */
#ifndef BUTTERFLY_CSV_H
#define BUTTERFLY_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
 * A reader of `f` (which the caller keeps and closes). Every field keeps
 * at most max_field bytes and a record at most max_fields fields, so a
 * hostile file cannot make the reader hold more than about
 * max_field * max_fields bytes. NULL on OOM.
 */
struct csv_reader *csv_reader_new(FILE *f, size_t max_field, size_t max_fields);

/* Frees the reader. Accepts NULL. */
void csv_reader_free(struct csv_reader *r);

/*
 * Reads the next record: fields separated by commas, records by CRLF or
 * LF, quoted fields with "" for a quote (and commas and line breaks
 * inside). A quote inside an unquoted field is kept as text. On
 * CSV_RECORD and CSV_UNCLOSED, *fields (owned by the reader, valid until
 * the next call) holds *n fields, *line is the 1-based line where the
 * record starts, and *dropped says whether fields beyond max_fields were
 * dropped. After CSV_UNCLOSED the input is used up.
 */
enum csv_status csv_reader_next(struct csv_reader *r, const struct csv_field **fields,
                                size_t *n, unsigned long *line, bool *dropped);

/*
 * Writes one row of n NUL-terminated fields and a CRLF. A field is quoted
 * when it holds a comma, a quote, CR or LF, or starts or ends with a
 * space; quotes inside are doubled. Fields whose bit is set in
 * `text_mask` (bit i for field i) are text from outside: one that starts
 * with = + - @ TAB or CR gets a leading apostrophe, because spreadsheets
 * run such cells as formulas (CSV injection).
 */
void csv_write_row(FILE *f, const char *const *fields, size_t n, unsigned long text_mask);

#endif
