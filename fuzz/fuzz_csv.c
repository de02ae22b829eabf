/*
 * fuzz_csv - the batch's CSV reader (grader/batch/input/csv.c), fed any
 * bytes: an export or a roster an instructor hands the batch may come
 * from any spreadsheet, or from a student who chose their own id. The
 * first byte picks the delimiter (',' or ';') and the reader's bounds;
 * the rest is the file.
 *
 * Checked on every record: no field longer than the bound, every field
 * NUL-terminated at its length, no more fields than the bound, line
 * numbers that never go back, EOF for good once reached. And a record
 * read whole with ',' must survive the writer: written with
 * csv_write_row and read again, it gives the same fields (the writer and
 * the reader agree on quoting). The sniffer and the formula test run on
 * the same bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/input/csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const size_t field_bounds[] = { 4, 64, 4096, 70000 };
static const size_t count_bounds[] = { 1, 3, 16, 256 };

struct copy {
    char **fields;
    size_t *lens;
    size_t n;
};

static void copy_free(struct copy *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->fields[i]);
    free(c->fields);
    free(c->lens);
}

/* Writes the record, then reads it back; aborts when it comes back different. */
static void round_trip(const struct csv_field *f, size_t n)
{
    struct copy c = { calloc(n, sizeof(char *)), calloc(n, sizeof(size_t)), 0 };
    if (!c.fields || !c.lens) {
        copy_free(&c);
        return;
    }
    for (; c.n < n; c.n++) {
        c.fields[c.n] = malloc(f[c.n].len + 1);
        if (!c.fields[c.n]) {
            copy_free(&c);
            return;
        }
        memcpy(c.fields[c.n], f[c.n].data, f[c.n].len + 1);
        c.lens[c.n] = f[c.n].len;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *w = open_memstream(&buf, &len);
    if (!w) {
        copy_free(&c);
        return;
    }
    /* a first line, so that a field starting with a byte-order mark is
     * not at the start of the file, where the reader skips one */
    fputs("h\r\n", w);
    csv_write_row(w, (const char *const *)c.fields, n, 0);
    fclose(w);
    FILE *r = fmemopen(buf, len, "rb");
    struct csv_reader *rd = r ? csv_reader_new(r, ',', 1 << 20, n + 1) : NULL;
    if (rd) {
        const struct csv_field *g;
        size_t m;
        unsigned long line;
        bool dropped;
        if (csv_reader_next(rd, &g, &m, &line, &dropped) != CSV_RECORD ||
            csv_reader_next(rd, &g, &m, &line, &dropped) != CSV_RECORD || m != n)
            abort();
        for (size_t i = 0; i < n; i++)
            if (g[i].len != c.lens[i] || memcmp(g[i].data, c.fields[i], c.lens[i]))
                abort();
        csv_reader_free(rd);
    }
    if (r)
        fclose(r);
    free(buf);
    copy_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > 1024 * 1024)
        return 0;
    char delimiter = data[0] & 1 ? ';' : ',';
    size_t max_field = field_bounds[(data[0] >> 1) & 3];
    size_t max_fields = count_bounds[(data[0] >> 3) & 3];
    data++;
    size--;

    char d = csv_sniff_delimiter((const char *)data, size);
    if (d != ',' && d != ';')
        abort();

    FILE *f = fmemopen((void *)data, size, "rb");
    if (!f)
        return 0;
    struct csv_reader *r = csv_reader_new(f, delimiter, max_field, max_fields);
    if (!r) {
        fclose(f);
        return 0;
    }
    const struct csv_field *fields;
    size_t n;
    unsigned long line, last = 0;
    bool dropped;
    enum csv_status st;
    while ((st = csv_reader_next(r, &fields, &n, &line, &dropped)) == CSV_RECORD ||
           st == CSV_UNCLOSED) {
        if (n < 1 || n > max_fields || line < last || line < 1)
            abort();
        last = line;
        bool whole = st == CSV_RECORD && !dropped && delimiter == ',';
        for (size_t i = 0; i < n; i++) {
            if (fields[i].len > max_field || fields[i].data[fields[i].len] != '\0')
                abort();
            (void)csv_is_formula(fields[i].data);
            /* the writer takes C strings: a NUL inside cannot go through it */
            whole = whole && !fields[i].truncated && strlen(fields[i].data) == fields[i].len;
        }
        if (whole)
            round_trip(fields, n);
    }
    if (st == CSV_EOF && csv_reader_next(r, &fields, &n, &line, &dropped) != CSV_EOF)
        abort();
    csv_reader_free(r);
    fclose(f);
    return 0;
}
