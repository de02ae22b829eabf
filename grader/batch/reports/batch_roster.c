/* batch_roster.c - a class roster, for Canvas's gradebook. */
#include "batch/reports/batch_roster.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "batch/input/csv.h"
#include "gradebook/student_id.h"

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

/* The header of column c as a message names it. */
static const char *column_name(int c)
{
    return c == COLUMN_EMAIL ? "Email"
                             : gradebook_roster_column_to_str((enum gradebook_roster_column)c);
}

/* A cell's text for a message: printable, cut to a few words. Writes to
 * out (size n). */
static void shown(const char *s, size_t len, char *out, size_t n)
{
    char *d = gradebook_display(s, len < 48 ? len : 48);
    snprintf(out, n, "\"%s%s\"", d ? d : "?", len > 48 ? "..." : "");
    free(d);
}

/* Whether every field of the record is UTF-8; else the reason in err. */
static bool record_utf8(const char *path, unsigned long line, const struct csv_field *f,
                        size_t n, char *err, size_t errsz)
{
    for (size_t i = 0; i < n; i++)
        if (!gradebook_is_utf8(f[i].data, f[i].len)) {
            snprintf(err, errsz, "%s:%lu: not UTF-8 text (Latin-1 or UTF-16?): save the roster "
                     "as UTF-8 (\"CSV UTF-8\" in a spreadsheet)",
                     path, line);
            return false;
        }
    return true;
}

/* Whether the record's cells that are kept may be; else the reason in err. */
static bool record_cells_ok(const char *path, unsigned long line, const struct csv_field *f,
                            size_t n, const long col[ROSTER_COLUMNS + 1], char *err,
                            size_t errsz)
{
    for (int c = 0; c <= ROSTER_COLUMNS; c++) {
        if (col[c] < 0 || (size_t)col[c] >= n)
            continue;
        size_t len = f[col[c]].len;
        const char *s = csv_trim(f[col[c]].data, &len);
        const char *why = gradebook_roster_cell_problem((enum gradebook_roster_column)c, s, len);
        if (why) {
            char text[200];
            shown(s, len, text, sizeof text);
            snprintf(err, errsz, "%s:%lu: the %s %s %s", path, line,
                     column_name(c), text, why);
            return false;
        }
    }
    return true;
}

/* Whether an id column holds an id twice; then the reason in err. */
static bool duplicated(const char *path, const struct gradebook_roster *r, char *err,
                       size_t errsz)
{
    static const enum gradebook_roster_column ids[] = { ROSTER_ID, ROSTER_SIS_USER,
                                                        ROSTER_SIS_LOGIN };
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        size_t a = 0, b = 0;
        bool oom = false;
        if (!r->has[ids[k]])
            continue;
        if (gradebook_roster_duplicate(r, ids[k], &a, &b, &oom)) {
            char text[200];
            const char *id = r->v[b].cell[ids[k]];
            shown(id, strlen(id), text, sizeof text);
            snprintf(err, errsz, "%s:%lu: the %s %s is on line %lu too: each student once",
                     path, r->v[b].line, column_name(ids[k]), text,
                     r->v[a].line);
            return true;
        }
        if (oom) {
            snprintf(err, errsz, "out of memory");
            return true;
        }
    }
    return false;
}

/* Appends the record's cells; false on OOM. */
static bool add_entry(struct gradebook_roster *r, const struct csv_field *f, size_t n,
                      const long col[ROSTER_COLUMNS + 1], unsigned long line)
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
    e->line = line;
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
    /* a spreadsheet's "Unicode text" is UTF-16 with its mark: said as such,
     * not as a header without the columns (a UTF-8 mark is read past) */
    unsigned char mark[2];
    size_t got = fread(mark, 1, sizeof mark, f);
    if (got == 2 && ((mark[0] == 0xff && mark[1] == 0xfe) || (mark[0] == 0xfe && mark[1] == 0xff))) {
        snprintf(err, errsz, "the roster %s is UTF-16 text: save it as UTF-8 (\"CSV UTF-8\" in "
                 "a spreadsheet)", path);
        fclose(f);
        return false;
    }
    rewind(f);
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
    if (!record_utf8(path, line, fields, n, err, errsz))
        goto out;
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
        if (!record_utf8(path, line, fields, n, err, errsz))
            goto out;
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
        if (!record_cells_ok(path, line, fields, n, col, err, errsz))
            goto out;
        if (!add_entry(r, fields, n, col, line)) {
            snprintf(err, errsz, "out of memory");
            goto out;
        }
    }
    if (st != CSV_EOF) {
        snprintf(err, errsz, "%s: %s", path, st == CSV_UNCLOSED
                 ? "a quoted cell is not closed before the end of the file" : "cannot read it");
        goto out;
    }
    if (duplicated(path, r, err, errsz))
        goto out;
    ok = true;
out:
    csv_reader_free(rd);
    fclose(f);
    if (!ok)
        gradebook_roster_free(r);
    return ok;
}
