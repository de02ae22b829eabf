/*
 * batch_input_csv.c - a CSV export: a header row naming an id column and
 * a source column, then one record per submission.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/input/batch_input.h"
#include "batch/input/csv.h"
#include "common/task.h"

#define CSV_MAX_FIELDS 256

/* Which header field names the column: the best-ranked match, or -1. */
static long find_column(const struct csv_field *h, size_t n, const char *want,
                        int (*match)(const char *, size_t, const char *))
{
    long best = -1;
    int best_rank = 0;
    for (size_t i = 0; i < n; i++) {
        int rank = match(h[i].data, h[i].len, want);
        if (rank >= 0 && (best < 0 || rank < best_rank)) {
            best = (long)i;
            best_rank = rank;
        }
    }
    return best;
}

static void header_list(const struct csv_field *h, size_t n, char *out, size_t outsz)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && i < 8 && len < outsz; i++) {
        char *shown = batch_display(h[i].data, h[i].len < 40 ? h[i].len : 40);
        len += (size_t)snprintf(out + len, outsz - len, "%s%s", i ? ", " : "", shown ? shown : "?");
        free(shown);
    }
}

static bool blank_record(const struct csv_field *f, size_t n)
{
    return n == 1 && f[0].len == 0;
}

bool batch_input_csv_load(const struct batch_input_options *o, FILE *f, const char *name,
                          const char *path, struct batch_inputs *in, char *err, size_t errsz)
{
    bool ok = false;
    struct csv_reader *r = NULL;
    /* a source cell keeps one byte over the limit, to be seen as too long */
    /* a spreadsheet set to a language with a decimal comma writes ';' */
    if (!(r = csv_reader_new(f, csv_sniff_file(f), TASK_MAX_SOURCE + 1, CSV_MAX_FIELDS))) {
        snprintf(err, errsz, "out of memory");
        goto out;
    }
    const struct csv_field *fields;
    size_t n;
    unsigned long line;
    bool dropped;
    enum csv_status st = csv_reader_next(r, &fields, &n, &line, &dropped);
    if (st == CSV_EOF) {
        snprintf(err, errsz, "%s is empty: a CSV export needs a header row", path);
        goto out;
    }
    if (st == CSV_IO_ERROR) {
        snprintf(err, errsz, "cannot read %s", path);
        goto out;
    }
    long id_col = find_column(fields, n, o->id_column, batch_input_match_id);
    long src_col = find_column(fields, n, o->source_column, batch_input_match_source);
    if (id_col < 0 || src_col < 0) {
        char list[512];
        header_list(fields, n, list, sizeof list);
        snprintf(err, errsz, "%s: no %s column in the header (%s); name it with %s",
                 path, id_col < 0 ? "id" : "source", list,
                 id_col < 0 ? "--id-column (default: id, student_id or student)"
                            : "--source-column (default: source, code or submission)");
        goto out;
    }
    while ((st = csv_reader_next(r, &fields, &n, &line, &dropped)) == CSV_RECORD ||
           st == CSV_UNCLOSED) {
        if (st == CSV_RECORD && blank_record(fields, n))
            continue;
        char location[4096];
        snprintf(location, sizeof location, "%s:%lu", name, line);
        size_t id_len = (size_t)id_col < n ? fields[id_col].len : 0;
        const char *id = (size_t)id_col < n ? csv_trim(fields[id_col].data, &id_len) : NULL;
        struct batch_input *e = batch_inputs_add(in, id, id_len, location, err, errsz);
        if (!e)
            goto out;
        bool refused = e->refusal != NULL;
        if (st == CSV_UNCLOSED) {
            if (!batch_input_refuse(e, "a quoted field of this record is not closed before the "
                                       "end of the file"))
                goto oom;
        } else if ((size_t)src_col >= n) {
            if (!refused && !batch_input_refuse(e, "the record has no source cell"))
                goto oom;
        } else {
            const struct csv_field *src = &fields[src_col];
            in->held += src->len;
            if (in->held > BATCH_MAX_TABLE_SOURCES) {
                snprintf(err, errsz, "%s holds more than %u MiB of sources: split it", path,
                         BATCH_MAX_TABLE_SOURCES >> 20);
                goto out;
            }
            if (!(e->source = malloc(src->len + 1)))
                goto oom;
            memcpy(e->source, src->data, src->len + 1);
            e->source_len = src->len;
        }
    }
    if (st == CSV_IO_ERROR) {
        snprintf(err, errsz, "cannot read %s", path);
        goto out;
    }
    ok = true;
    goto out;
oom:
    snprintf(err, errsz, "out of memory");
out:
    csv_reader_free(r);
    return ok;
}
