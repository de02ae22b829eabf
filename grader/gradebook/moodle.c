/* moodle.c - Moodle's grade import file (moodle.h). */
#include "gradebook/moodle.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gradebook/csv_write.h"
#include "gradebook/layout.h"

/* Whether e gets a cell of its own: a grade, of an id written bare. */
static bool writable(const struct gradebook_entry *e)
{
    return e->gradable && !csv_is_formula(e->id);
}

/* e's feedback cell, the unverified name marked before it: *marked, to
 * free, or e->feedback. */
static const char *feedback_of(const struct gradebook_entry *e, char **marked)
{
    /* an open lab's name says who it may be: marked as unchecked */
    *marked = NULL;
    if (e->unverified_name
        && asprintf(marked, "%s " GRADEBOOK_UNVERIFIED_MARK ". %s", e->unverified_name,
                    e->feedback) < 0)
        *marked = NULL;
    return *marked ? *marked : e->feedback;
}

/* Writes e's row when it is gradable; returns whether it did. */
static bool moodle_row(FILE *f, const struct gradebook_entry *e, struct gradebook_result *res)
{
    if (!e->gradable)
        return false;
    /* bare, a spreadsheet runs it; guarded, Moodle matches it to nobody
     * (its import compares the Identifier exactly with the user field) */
    if (csv_is_formula(e->id)) {
        res->formula_ids++;
        gradebook_list_add(res->formula_list, sizeof res->formula_list, e->id);
        return false;
    }
    char score[32];
    snprintf(score, sizeof score, "%.10g", e->score);
    char *marked;
    const char *cells[3] = { e->id, score, feedback_of(e, &marked) };
    /* every cell guarded, the id too (none of the ids left needs it) */
    csv_write_row(f, cells, 3, CSV_GUARD_ALL);
    free(marked);
    return true;
}

void gradebook_moodle_write(FILE *f, const struct gradebook_entry *e, size_t n,
                            struct gradebook_result *res)
{
    static const char *const header[] = { "Identifier", "Grade", "Feedback" };
    memset(res, 0, sizeof *res);
    csv_write_row(f, header, 3, CSV_GUARD_ALL);
    for (size_t i = 0; i < n; i++) {
        if (moodle_row(f, &e[i], res)) {
            res->rows++;
            res->with_points++;
        } else {
            res->left_out++;
        }
    }
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The ids of the columns' entries that are grades, each once, sorted:
 * *n of them, of *total entries; those a spreadsheet would run counted
 * and listed in *res, and left out. NULL on OOM. */
static const char **row_ids(const struct gradebook_column *cols, size_t ncols, size_t *n,
                            size_t *total, struct gradebook_result *res)
{
    *total = 0;
    for (size_t k = 0; k < ncols; k++)
        *total += cols[k].n;
    const char **ids = malloc((*total ? *total : 1) * sizeof *ids);
    if (!ids)
        return NULL;
    *n = 0;
    for (size_t k = 0; k < ncols; k++)
        for (size_t i = 0; i < cols[k].n; i++)
            if (cols[k].e[i].gradable)
                ids[(*n)++] = cols[k].e[i].id;
    qsort(ids, *n, sizeof *ids, compare_strings);
    size_t m = 0;
    const char *prev = NULL;
    for (size_t i = 0; i < *n; i++) {
        const char *id = ids[i];
        if (prev && !strcmp(prev, id))
            continue;
        prev = id;
        /* bare, a spreadsheet runs it; guarded, Moodle matches it to nobody */
        if (csv_is_formula(id)) {
            res->formula_ids++;
            gradebook_list_add(res->formula_list, sizeof res->formula_list, id);
            continue;
        }
        ids[m++] = id;
    }
    *n = m;
    return ids;
}

/* Writes the row of student `id`: a grade and a feedback cell per column
 * (blank where the student has no grade there); returns the cells filled. */
static size_t columns_row(FILE *f, const char *id, const struct gradebook_column *cols,
                        size_t ncols, const char **cells, char (*scores)[32], char **marked)
{
    size_t filled = 0;
    cells[0] = id;
    for (size_t k = 0; k < ncols; k++) {
        const struct gradebook_entry *x = gradebook_entry_find(cols[k].e, cols[k].n, id);
        bool graded = x && writable(x);
        scores[k][0] = '\0';
        if (graded)
            snprintf(scores[k], sizeof scores[k], "%.10g", x->score);
        filled += graded;
        marked[k] = NULL;
        cells[1 + 2 * k] = scores[k];
        cells[2 + 2 * k] = graded ? feedback_of(x, &marked[k]) : "";
    }
    csv_write_row(f, cells, 1 + 2 * ncols, CSV_GUARD_ALL);
    for (size_t k = 0; k < ncols; k++)
        free(marked[k]);
    return filled;
}

/* The header: Identifier, then each column's title and its feedback's. */
static bool columns_header(FILE *f, const struct gradebook_column *cols, size_t ncols,
                           const char **cells)
{
    char **feedback = calloc(ncols ? ncols : 1, sizeof *feedback);
    bool ok = feedback != NULL;
    cells[0] = "Identifier";
    for (size_t k = 0; ok && k < ncols; k++) {
        ok = asprintf(&feedback[k], "%s " MOODLE_FEEDBACK_SUFFIX, cols[k].title) >= 0;
        if (!ok)
            feedback[k] = NULL;
        cells[1 + 2 * k] = cols[k].title;
        cells[2 + 2 * k] = feedback[k];
    }
    if (ok)
        csv_write_row(f, cells, 1 + 2 * ncols, CSV_GUARD_ALL);
    for (size_t k = 0; feedback && k < ncols; k++)
        free(feedback[k]);
    free(feedback);
    return ok;
}

bool gradebook_moodle_write_columns(FILE *f, const struct gradebook_column *cols, size_t ncols,
                                    struct gradebook_result *res)
{
    memset(res, 0, sizeof *res);
    size_t n = 0, total = 0, filled = 0;
    const char **ids = row_ids(cols, ncols, &n, &total, res);
    const char **cells = calloc(1 + 2 * ncols, sizeof *cells);
    char (*scores)[32] = calloc(ncols ? ncols : 1, sizeof *scores);
    char **marked = calloc(ncols ? ncols : 1, sizeof *marked);
    bool ok = ids && cells && scores && marked && columns_header(f, cols, ncols, cells);
    for (size_t i = 0; ok && i < n; i++) {
        filled += columns_row(f, ids[i], cols, ncols, cells, scores, marked);
        res->rows++;
        res->with_points++;
    }
    res->left_out = total - filled;
    free(ids);
    free(cells);
    free(scores);
    free(marked);
    return ok;
}
