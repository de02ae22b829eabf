/* canvas.c - Canvas's gradebook import file (canvas.h). */
#include "gradebook/canvas.h"

#include <stdlib.h>
#include <string.h>

#include "gradebook/csv_write.h"

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether roster row r's cell in column c names a student of any column. */
static bool row_matches(const struct gradebook_roster_entry *r, enum gradebook_roster_column c,
                        const struct gradebook_column *cols, size_t ncols)
{
    const char *id = r->cell[c];
    for (size_t k = 0; id[0] && k < ncols; k++)
        if (gradebook_entry_find(cols[k].e, cols[k].n, id))
            return true;
    return false;
}

/* How many roster rows' cells in column c name a student of the columns. */
static size_t count_matches(const struct gradebook_column *cols, size_t ncols,
                            const struct gradebook_roster *roster,
                            enum gradebook_roster_column c)
{
    size_t count = 0;
    for (size_t i = 0; i < roster->n; i++)
        count += row_matches(&roster->v[i], c, cols, ncols);
    return count;
}

/* The roster column the ids match best (ROSTER_COLUMNS: the roster has none). */
static enum gradebook_roster_column match_key(const struct gradebook_column *cols, size_t ncols,
                                              const struct gradebook_roster *roster)
{
    static const enum gradebook_roster_column keys[] = {
        ROSTER_SIS_LOGIN, ROSTER_SIS_USER, ROSTER_ID,
    };
    enum gradebook_roster_column key = ROSTER_COLUMNS;
    size_t best = 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        if (!roster->has[keys[k]])
            continue;
        size_t m = count_matches(cols, ncols, roster, keys[k]);
        if (key == ROSTER_COLUMNS || m > best) {
            key = keys[k];
            best = m;
        }
    }
    return key;
}

/* The header and Canvas's own second row, as its export writes them. */
static bool write_heads(FILE *f, const struct gradebook_column *cols, size_t ncols)
{
    size_t width = ROSTER_COLUMNS + ncols;
    const char **header = calloc(width, sizeof *header);
    const char **possible = calloc(width, sizeof *possible);
    char (*points)[16] = calloc(ncols ? ncols : 1, sizeof *points);
    bool ok = header && possible && points;
    for (int c = 0; ok && c < ROSTER_COLUMNS; c++)
        header[c] = gradebook_roster_column_to_str((enum gradebook_roster_column)c);
    for (size_t k = 0; ok && k < ncols; k++) {
        snprintf(points[k], sizeof points[k], "%d", cols[k].points);
        header[ROSTER_COLUMNS + k] = cols[k].title;
        possible[ROSTER_COLUMNS + k] = points[k];
    }
    if (ok) {
        possible[ROSTER_STUDENT] = "    Points Possible";
        csv_write_row(f, header, width, CSV_GUARD_ALL);
        csv_write_row(f, possible, width, CSV_GUARD_ALL);
    }
    free(header);
    free(possible);
    free(points);
    return ok;
}

/* Writes roster row r: its cells, then each column's points (blank: none
 * there); true when it has points in some column. */
static bool write_student(FILE *f, const struct gradebook_roster_entry *r,
                          enum gradebook_roster_column key, const struct gradebook_column *cols,
                          size_t ncols, const char **cells, char (*scores)[32])
{
    bool any = false;
    for (int c = 0; c < ROSTER_COLUMNS; c++)
        cells[c] = r->cell[c];
    for (size_t k = 0; k < ncols; k++) {
        const struct gradebook_entry *x = key < ROSTER_COLUMNS && r->cell[key][0]
            ? gradebook_entry_find(cols[k].e, cols[k].n, r->cell[key]) : NULL;
        scores[k][0] = '\0';
        if (x && x->gradable) {
            snprintf(scores[k], sizeof scores[k], "%.10g", x->score);
            any = true;
        }
        cells[ROSTER_COLUMNS + k] = scores[k];
    }
    /* every cell guarded, the ids too: a roster read from a file has no id
     * that needs it (refused when read: Canvas matches ids exactly), and
     * the class view's comes from the store, checked on import; one from a
     * store older than the checks is written harmless */
    csv_write_row(f, cells, ROSTER_COLUMNS + ncols, CSV_GUARD_ALL);
    return any;
}

/* The graded ids of the columns, each once, sorted; *n of them. Counts
 * the entries with no points in res->left_out. NULL on OOM (or none). */
static const char **graded_ids(const struct gradebook_column *cols, size_t ncols, size_t *n,
                               struct gradebook_result *res)
{
    size_t total = 0;
    for (size_t k = 0; k < ncols; k++)
        total += cols[k].n;
    const char **ids = malloc((total ? total : 1) * sizeof *ids);
    *n = 0;
    for (size_t k = 0; k < ncols; k++) {
        const struct gradebook_entry *e = cols[k].e;
        for (size_t i = 0; i < cols[k].n; i++) {
            if (!e[i].gradable) {
                res->left_out++;
                continue;
            }
            if (ids && !(i > 0 && !strcmp(e[i - 1].id, e[i].id)))
                ids[(*n)++] = e[i].id;
        }
    }
    if (!ids)
        return NULL;
    qsort(ids, *n, sizeof *ids, compare_strings);
    size_t m = 0;
    for (size_t i = 0; i < *n; i++)
        if (!m || strcmp(ids[m - 1], ids[i]))
            ids[m++] = ids[i];
    *n = m;
    return ids;
}

/* Counts and lists in *res the graded ids no roster row has in column key. */
static bool find_not_in_roster(const struct gradebook_column *cols, size_t ncols,
                               const struct gradebook_roster *roster,
                               enum gradebook_roster_column key, struct gradebook_result *res)
{
    size_t ng;
    const char **graded = graded_ids(cols, ncols, &ng, res);
    const char **ids = key < ROSTER_COLUMNS && roster->n
                           ? malloc(roster->n * sizeof *ids) : NULL;
    bool ok = graded && !(key < ROSTER_COLUMNS && roster->n && !ids);
    for (size_t i = 0; ok && ids && i < roster->n; i++)
        ids[i] = roster->v[i].cell[key];
    if (ok && ids)
        qsort(ids, roster->n, sizeof *ids, compare_strings);
    for (size_t i = 0; ok && i < ng; i++) {
        const char *id = graded[i];
        if (!ids || !bsearch(&id, ids, roster->n, sizeof *ids, compare_strings)) {
            res->not_in_roster++;
            gradebook_list_add(res->not_in_roster_list, sizeof res->not_in_roster_list, id);
        }
    }
    free(graded);
    free(ids);
    return ok;
}

bool gradebook_canvas_write_columns(FILE *f, const struct gradebook_column *cols, size_t ncols,
                                    const struct gradebook_roster *roster,
                                    struct gradebook_result *res)
{
    memset(res, 0, sizeof *res);
    enum gradebook_roster_column key = match_key(cols, ncols, roster);
    res->matched_on = gradebook_roster_column_to_str(key);
    const char **cells = calloc(ROSTER_COLUMNS + ncols, sizeof *cells);
    char (*scores)[32] = calloc(ncols ? ncols : 1, sizeof *scores);
    bool ok = cells && scores && write_heads(f, cols, ncols);
    for (size_t i = 0; ok && i < roster->n; i++) {
        res->with_points += write_student(f, &roster->v[i], key, cols, ncols, cells, scores);
        res->rows++;
    }
    free(cells);
    free(scores);
    /* the students Canvas will not hear of */
    return ok && find_not_in_roster(cols, ncols, roster, key, res);
}

bool gradebook_canvas_write(FILE *f, const struct gradebook_entry *e, size_t n,
                            const struct gradebook_roster *roster, const char *assignment,
                            int points_possible, struct gradebook_result *res)
{
    const struct gradebook_column col = { assignment, points_possible, e, n };
    return gradebook_canvas_write_columns(f, &col, 1, roster, res);
}
