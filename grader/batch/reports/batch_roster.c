/* batch_roster.c - a class roster, for Canvas's gradebook. */
#include "batch/reports/batch_roster.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "batch/input/csv.h"

static bool named(const char *s, size_t len, const char *name)
{
    s = csv_trim(s, &len);
    return strlen(name) == len && !strncasecmp(s, name, len);
}

#define COLUMN_EMAIL ROSTER_COLUMNS   /* beside Canvas's columns */

/* Which roster column a header cell names (COLUMN_EMAIL for the email), or -1. */
static int column_of(const struct csv_field *h)
{
    for (int c = 0; c < ROSTER_COLUMNS; c++)
        if (named(h->data, h->len,
                  gradebook_roster_column_to_str((enum gradebook_roster_column)c)))
            return c;
    if (named(h->data, h->len, "Email") || named(h->data, h->len, "E-mail"))
        return COLUMN_EMAIL;
    return named(h->data, h->len, "Name") ? ROSTER_STUDENT : -1;
}

/* Appends the record's cells; false on OOM. */
static bool add_entry(struct gradebook_roster *r, const struct csv_field *f, size_t n,
                      const long col[ROSTER_COLUMNS + 1])
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        struct gradebook_roster_entry *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return false;
        r->v = v;
        r->cap = cap;
    }
    struct gradebook_roster_entry *e = &r->v[r->n];
    bool ok = true;
    char *cells[ROSTER_COLUMNS + 1];
    for (int c = 0; c <= ROSTER_COLUMNS; c++) {
        size_t len = col[c] >= 0 && (size_t)col[c] < n ? f[col[c]].len : 0;
        const char *s = len ? csv_trim(f[col[c]].data, &len) : "";
        cells[c] = strndup(s, len);
        ok &= cells[c] != NULL;
    }
    if (!ok) {
        for (int c = 0; c <= ROSTER_COLUMNS; c++)
            free(cells[c]);
        return false;
    }
    memcpy(e->cell, cells, sizeof e->cell);
    e->email = cells[COLUMN_EMAIL];
    r->n++;
    return true;
}

static bool blank_record(const struct csv_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = f[i].len;
        csv_trim(f[i].data, &len);
        if (len)
            return false;
    }
    return true;
}

bool batch_roster_load(const char *path, struct gradebook_roster *r, char *err, size_t errsz)
{
    memset(r, 0, sizeof *r);
    bool ok = false;
    struct csv_reader *rd = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errsz, "cannot open the roster %s: %s", path, strerror(errno));
        return false;
    }
    if (!(rd = csv_reader_new(f, csv_sniff_file(f), BATCH_ROSTER_MAX_FIELD,
                              BATCH_ROSTER_MAX_FIELDS))) {
        snprintf(err, errsz, "out of memory");
        goto out;
    }
    const struct csv_field *fields;
    size_t n;
    unsigned long line;
    bool dropped;
    enum csv_status st = csv_reader_next(rd, &fields, &n, &line, &dropped);
    if (st != CSV_RECORD) {
        snprintf(err, errsz, "the roster %s has no header row", path);
        goto out;
    }
    long col[ROSTER_COLUMNS + 1];
    for (int c = 0; c <= ROSTER_COLUMNS; c++)
        col[c] = -1;
    for (size_t i = 0; i < n; i++) {
        int c = column_of(&fields[i]);
        if (c >= 0 && col[c] < 0)
            col[c] = (long)i;
    }
    for (int c = 0; c < ROSTER_COLUMNS; c++)
        r->has[c] = col[c] >= 0;
    r->has_email = col[COLUMN_EMAIL] >= 0;
    if (!r->has[ROSTER_ID] && !r->has[ROSTER_SIS_USER] && !r->has[ROSTER_SIS_LOGIN]) {
        snprintf(err, errsz, "the roster %s has none of the columns Canvas matches students on "
                 "(ID, SIS User ID, SIS Login ID): export the gradebook from Canvas and pass "
                 "that file", path);
        goto out;
    }
    while ((st = csv_reader_next(rd, &fields, &n, &line, &dropped)) == CSV_RECORD) {
        if (blank_record(fields, n))
            continue;
        for (size_t i = 0; i < n; i++)
            if (fields[i].truncated) {
                snprintf(err, errsz, "%s:%lu: a cell is over %d bytes", path, line,
                         BATCH_ROSTER_MAX_FIELD);
                goto out;
            }
        /* Canvas's export has this row second: it is not a student */
        size_t len = col[ROSTER_STUDENT] >= 0 && (size_t)col[ROSTER_STUDENT] < n
                         ? fields[col[ROSTER_STUDENT]].len : 0;
        if (len && named(fields[col[ROSTER_STUDENT]].data, len, "Points Possible"))
            continue;
        if (r->n == BATCH_ROSTER_MAX_ROWS) {
            snprintf(err, errsz, "the roster %s has more than %d students", path,
                     BATCH_ROSTER_MAX_ROWS);
            goto out;
        }
        if (!add_entry(r, fields, n, col)) {
            snprintf(err, errsz, "out of memory");
            goto out;
        }
    }
    if (st != CSV_EOF) {
        snprintf(err, errsz, "%s: %s", path, st == CSV_UNCLOSED
                 ? "a quoted cell is not closed before the end of the file" : "cannot read it");
        goto out;
    }
    ok = true;
out:
    csv_reader_free(rd);
    fclose(f);
    if (!ok)
        gradebook_roster_free(r);
    return ok;
}
