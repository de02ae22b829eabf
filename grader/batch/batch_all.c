/*
 * batch_all.c - butterfly-batch --from-database --task all --gradebook
 * canvas|moodle (batch_all.h): one learning system's file with a column
 * per built-in exercise, from the records alone.
 *
 * Nothing is graded and no student's results.json is written: each
 * exercise's inputs are read as a run with --task ID reads them
 * (batch_input_db_load), each row is its stored verdict (a refused input:
 * Rejected, as its record says), and the writers are the ones the
 * server's ?task=all download uses, so the two files are the same bytes.
 */
#include "batch/batch_all.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/batch_output.h"
#include "batch/reports/batch_lms.h"
#include "batch/reports/batch_row.h"
#include "common/exercise/exercise.h"
#include "common/score.h"
#include "gradebook/canvas.h"
#include "gradebook/default_layout.h"
#include "gradebook/moodle.h"

/* One exercise's column: its inputs and their rows. */
struct column {
    struct batch_inputs in;
    struct batch_row *rows;
    struct batch_db_result db;
};

/* The verdict of input e as its row reads it (to free); NULL on OOM. */
static struct verdict *stored_verdict(const struct batch_input *e)
{
    if (e->refusal || !e->stored)
        return verdict_new(VERDICT_REJECTED, e->refusal ? e->refusal : "");
    return gradebook_stored_verdict(e->stored->verdict, e->stored->verdict_len);
}

/* Fills c->rows from c->in; counts Internal Errors in *internal. False on OOM. */
static bool column_rows(struct column *c, const struct batch_options *o, size_t *internal)
{
    c->rows = calloc(c->in.n ? c->in.n : 1, sizeof *c->rows);
    for (size_t i = 0; c->rows && i < c->in.n; i++) {
        struct verdict *v = stored_verdict(&c->in.v[i]);
        struct score sc;
        if (v)
            score_verdict(v, &sc);
        bool ok = v && batch_row_fill(&c->rows[i], &c->in.v[i], v, &sc,
                                      o->policy == STORE_POLICY_LAST, &o->late_policy);
        *internal += v && v->status == VERDICT_INTERNAL_ERROR;
        verdict_free(v);
        if (!ok)
            return false;
    }
    return c->rows != NULL;
}

/* Reads exercise k's column; the first read's store students become the
 * roster unless one was given. False with the reason in err. */
static bool column_read(struct column *c, size_t k, const struct batch_options *o,
                        struct gradebook_roster *roster, size_t *internal, char *err,
                        size_t errsz)
{
    struct batch_db_options dbo = { o->from_database, exercise_at(k)->id, o->until_ms,
                                    o->policy };
    struct gradebook_roster stored;
    c->in.dir_fd = -1;
    if (!batch_input_db_load(&dbo, &c->in, &stored, &c->db, err, errsz))
        return false;
    if (o->roster || k > 0)
        gradebook_roster_free(&stored);
    else
        *roster = stored;
    if (!column_rows(c, o, internal)) {
        snprintf(err, errsz, "out of memory");
        return false;
    }
    return true;
}

/* Writes the file of the n columns into out; false with the reason in err. */
static bool write_file(struct batch_output *out, const struct batch_options *o,
                       const struct column *cols, size_t n, const struct gradebook_roster *roster,
                       struct gradebook_result *res, char *err, size_t errsz)
{
    struct gradebook_column *gc = calloc(n ? n : 1, sizeof *gc);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = gc ? open_memstream(&buf, &len) : NULL;
    bool ok = m != NULL;
    if (m && o->excel)
        fputs("\xef\xbb\xbf", m);   /* as every CSV file of the batch (--excel) */
    for (size_t k = 0; ok && k < n; k++) {
        const struct exercise *e = exercise_at(k);
        gc[k] = (struct gradebook_column){ e->title, score_max_of(e),
                                           batch_lms_entries(cols[k].rows, cols[k].in.n),
                                           cols[k].in.n };
        ok = gc[k].e != NULL;
    }
    if (ok && o->gradebook == GRADEBOOK_LAYOUT_CANVAS)
        ok = gradebook_canvas_write_columns(m, gc, n, roster, res);
    else if (ok)
        ok = gradebook_moodle_write_columns(m, gc, n, res);
    if (m)
        ok = fclose(m) == 0 && ok;
    if (!ok)
        snprintf(err, errsz, "out of memory");
    ok = ok && batch_output_write(out, gradebook_layout_file(o->gradebook), buf, len, err,
                                  errsz);
    for (size_t k = 0; gc && k < n; k++)
        free((void *)gc[k].e);
    free(gc);
    free(buf);
    return ok;
}

/* The printed summary of a written file. */
static void print_summary(const struct batch_options *o, const struct column *cols, size_t n,
                          const struct gradebook_result *res)
{
    batch_lms_warn(res);
    if (o->quiet)
        return;
    printf("butterfly-batch: from the records (policy %s), a column per exercise:",
           store_policy_to_str(o->policy));
    for (size_t k = 0; k < n; k++)
        printf("%s %s (%zu students)", k ? "," : "", exercise_at(k)->id, cols[k].in.n);
    printf("\n");
    if (o->gradebook == GRADEBOOK_LAYOUT_CANVAS)
        printf("Canvas: %zu roster students, %zu with points (ids matched on %s)\n", res->rows,
               res->with_points, res->matched_on);
    else
        printf("Moodle: %zu students with points\n", res->rows);
    printf("Wrote %s/%s\n", o->output, gradebook_layout_file(o->gradebook));
}

int batch_all_run(const struct batch_options *o)
{
    size_t n = exercise_count(), total = 0, internal = 0;
    struct column *cols = calloc(n ? n : 1, sizeof *cols);
    struct batch_output out = BATCH_OUTPUT_NONE;
    struct gradebook_roster roster = { 0 };
    struct gradebook_result res;
    char err[1024] = "out of memory";
    int rc = BATCH_EXIT_FAILED;
    bool ok = cols != NULL;
    for (size_t k = 0; cols && k < n; k++)
        cols[k].in.dir_fd = -1;
    /* a roster that cannot be used stops it before anything is written */
    ok = ok && (!o->roster || batch_roster_load(o->roster, &roster, err, sizeof err));
    ok = ok && batch_output_open(&out, o->output, err, sizeof err);
    for (size_t k = 0; ok && k < n; k++) {
        ok = column_read(&cols[k], k, o, &roster, &internal, err, sizeof err);
        total += cols[k].in.n;
    }
    if (ok && total == 0) {
        snprintf(err, sizeof err, "no submissions in the records (of a signed-in student, by "
                 "--until) of any exercise");
        ok = false;
    }
    ok = ok && write_file(&out, o, cols, n, &roster, &res, err, sizeof err);
    if (!ok) {
        fprintf(stderr, "butterfly-batch: %s\n", err);
        goto out;
    }
    print_summary(o, cols, n, &res);
    rc = BATCH_EXIT_OK;
    if (internal) {
        fprintf(stderr, "butterfly-batch: %zu rows are Internal Errors (no points in the "
                "file); the records hold the grader's failure, not a grade\n", internal);
        rc = BATCH_EXIT_INCOMPLETE;
    }
out:
    for (size_t k = 0; cols && k < n; k++) {
        batch_rows_free(cols[k].rows, cols[k].in.n);
        batch_inputs_free(&cols[k].in);
    }
    free(cols);
    batch_output_close(&out);
    gradebook_roster_free(&roster);
    return rc;
}
