/* batch_gradebook.c - gradebook.csv rows. */
#include "batch/reports/batch_gradebook.h"

#include <stdlib.h>
#include <string.h>

#include "batch/input/csv.h"

static const char *const columns[BATCH_GRADEBOOK_COLUMNS] = {
    "id", "verdict", "score", "max_score", "halves_passed", "hidden_passed",
    "diagnosis_id", "diagnosis_title", "message", "input", "grading_ms",
};

/* Columns that hold text from outside (ids, file names, compiler
 * messages): guarded against formula injection. */
#define TEXT_COLUMNS (1ul << 0 | 1ul << 7 | 1ul << 8 | 1ul << 9)

void batch_gradebook_header(FILE *f)
{
    csv_write_row(f, columns, BATCH_GRADEBOOK_COLUMNS, 0);
}

/* The message column; malloc'd, NULL on OOM. */
static char *message_of(const struct verdict *v)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&buf, &size);
    if (!m)
        return NULL;
    if (v->status == VERDICT_COMPILATION_ERROR && v->ndiags) {
        /* every error, one per line: the first alone often hides the cause */
        int shown = 0;
        for (size_t i = 0; i < v->ndiags && shown < 5; i++) {
            const struct diagnostic *d = &v->diags[i];
            if (d->severity != DIAG_ERROR)
                continue;
            fprintf(m, "%sline %d: %s", shown++ ? "\n" : "", d->line, d->message);
        }
        if (!shown && v->message)
            fputs(v->message, m);
    } else {
        if (v->message)
            fputs(v->message, m);
        if (!v->diagnosis && v->summary)
            fprintf(m, "%sWhere it fails: %s", v->message ? " " : "", v->summary);
    }
    if (fclose(m) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

void batch_gradebook_row(FILE *f, const struct batch_input *e, const struct verdict *v,
                         const struct score *sc)
{
    char score[16], max[16], halves[16], hidden[16], ms[32] = "";
    snprintf(score, sizeof score, "%d", sc->score);
    snprintf(max, sizeof max, "%d", sc->max_score);
    snprintf(halves, sizeof halves, "%d", sc->halves_passed);
    snprintf(hidden, sizeof hidden, "%d", sc->hidden_passed);
    if (v->timings.total_ms >= 0)
        snprintf(ms, sizeof ms, "%.1f", v->timings.total_ms);
    char *message = message_of(v);
    const char *row[BATCH_GRADEBOOK_COLUMNS] = {
        e->id, verdict_status_to_str(v->status), score, max, halves, hidden,
        v->diagnosis ? v->diagnosis->id : "", v->diagnosis ? v->diagnosis->title : "",
        message ? message : (v->message ? v->message : ""), e->location, ms,
    };
    csv_write_row(f, row, BATCH_GRADEBOOK_COLUMNS, TEXT_COLUMNS);
    free(message);
}

long batch_gradebook_count_rows(FILE *f)
{
    struct csv_reader *r = csv_reader_new(f, ',', 1024 * 1024, BATCH_GRADEBOOK_COLUMNS + 1);
    if (!r)
        return -1;
    const struct csv_field *fields;
    size_t n;
    unsigned long line;
    bool dropped;
    long rows = -1;
    enum csv_status st = csv_reader_next(r, &fields, &n, &line, &dropped);
    if (st == CSV_RECORD && n == BATCH_GRADEBOOK_COLUMNS) {
        rows = 0;
        for (size_t i = 0; i < n && rows == 0; i++)
            if (strcmp(fields[i].data, columns[i]))
                rows = -1;
    }
    while (rows >= 0 && (st = csv_reader_next(r, &fields, &n, &line, &dropped)) != CSV_EOF) {
        if (st != CSV_RECORD || n != BATCH_GRADEBOOK_COLUMNS)
            rows = -1;
        else
            rows++;
    }
    csv_reader_free(r);
    return rows;
}
