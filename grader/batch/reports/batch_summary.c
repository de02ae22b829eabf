/* batch_summary.c - the class at a glance. */
#include "batch/reports/batch_summary.h"
#include "common/exercise/exercise.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>


enum verdict_status batch_summary_status(size_t i)
{
    return verdict_status_at(i);
}

struct batch_summary *batch_summary_new(const struct exercise *ex)
{
    struct batch_summary *s = calloc(1, sizeof *s);
    if (s)
        s->ex = ex;
    return s;
}

static void tally_clear(struct batch_summary_entry *e)
{
    free(e->key);
    free(e->title);
    free(e->example_id);
    free(e->example_key);
    free(e->example_text);
}

static void tallies_free(struct batch_summary_list *t)
{
    for (size_t i = 0; i < t->n; i++)
        tally_clear(&t->v[i]);
    free(t->v);
}

void batch_summary_free(struct batch_summary *s)
{
    if (!s)
        return;
    tallies_free(&s->errors);
    tallies_free(&s->diagnoses);
    free(s);
}

/* Counts one student under key; the first one is the example. */
static bool tally(struct batch_summary_list *t, const char *key, const char *title,
                  const struct batch_input *e, const char *example)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->v[i].key, key)) {
            t->v[i].count++;
            return true;
        }
    if (t->n == BATCH_SUMMARY_MAX_DISTINCT) {
        t->other++;
        return true;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        struct batch_summary_entry *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return false;
        t->v = v;
        t->cap = cap;
    }
    struct batch_summary_entry *n = &t->v[t->n];
    *n = (struct batch_summary_entry){
        .key = strdup(key), .title = title ? strdup(title) : NULL, .count = 1,
        .example_id = strdup(e->id), .example_key = strdup(e->id_ok ? e->key : ""),
        .example_text = strdup(example ? example : ""),
    };
    if (!n->key || (title && !n->title) || !n->example_id || !n->example_key ||
        !n->example_text) {
        tally_clear(n);
        return false;
    }
    t->n++;
    return true;
}

void batch_summary_normalise(const char *msg, char *out, size_t outsz)
{
    size_t o = 0;
    bool space = false;
    for (const char *p = msg; *p && o + 4 < outsz; p++) {
        if (isspace((unsigned char)*p)) {
            space = o > 0;
            continue;
        }
        if (space)
            out[o++] = ' ';
        space = false;
        const char *close = *p == '\'' ? strchr(p + 1, '\'') : NULL;
        if (close) {
            /* a name or a token of the student's own */
            memcpy(out + o, "'_'", 3);
            o += 3;
            p = close;
        } else if (isdigit((unsigned char)*p)) {
            out[o++] = 'N';
            while (isdigit((unsigned char)p[1]) || p[1] == '.')
                p++;
        } else {
            /* printable ASCII only (glslang's messages are): a cut can then
             * never split a UTF-8 sequence, and no byte reaches a terminal raw */
            unsigned char c = (unsigned char)*p;
            out[o++] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
        }
    }
    out[o] = '\0';
}

bool batch_summary_add(struct batch_summary *s, const struct batch_input *e,
                       const struct verdict *v, const struct score *sc)
{
    bool ok = true;
    s->rows++;
    size_t i = 0;
    while (i < BATCH_SUMMARY_NSTATUS && verdict_status_at(i) != v->status)
        i++;
    if (i < BATCH_SUMMARY_NSTATUS)   /* every status is in the table */
        s->status[i]++;
    s->score_sum += sc->score;
    s->full += sc->score == sc->max_score;
    s->zero += sc->score == 0;
    if (sc->score >= 0 && sc->score <= SCORE_MAX)
        s->points[sc->score]++;
    for (int k = 0; k < (int)s->ex->nsweep; k++) {
        const struct score_test *vis = &sc->tests[2 * k], *hid = &sc->tests[2 * k + 1];
        s->visible_passed[k] += vis->passed;
        s->hidden_passed[k] += hid->passed;
        s->half_passed[k] += vis->passed && hid->passed;
    }
    if (v->status == VERDICT_COMPILATION_ERROR) {
        /* each distinct error once per student: one typo repeated is one mistake */
        char seen[8][160];
        size_t nseen = 0;
        for (size_t d = 0; d < v->ndiags; d++) {
            if (v->diags[d].severity != DIAG_ERROR)
                continue;
            char norm[160];
            /* glslang's own text, where it was put in plain words, names
             * the kind of error in the same words for every student */
            batch_summary_normalise(v->diags[d].original ? v->diags[d].original
                                                         : v->diags[d].message,
                                    norm, sizeof norm);
            bool again = false;
            for (size_t k = 0; k < nseen; k++)
                again |= !strcmp(seen[k], norm);
            if (again)
                continue;
            if (nseen < 8)
                memcpy(seen[nseen++], norm, sizeof norm);
            char example[512];
            snprintf(example, sizeof example, "line %d: %s", v->diags[d].line,
                     v->diags[d].message);
            batch_display_cut(example, sizeof example - 4);
            ok &= tally(&s->errors, norm, NULL, e, example);
        }
    }
    if (v->diagnosis && v->diagnosis->id)
        ok &= tally(&s->diagnoses, v->diagnosis->id,
                    v->diagnosis->title ? v->diagnosis->title : "", e,
                    v->diagnosis->explanation);
    return ok;
}

static int by_count(const void *a, const void *b)
{
    const struct batch_summary_entry *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->key, y->key);
}

/* The top entries, most common first, ties by key: the same on every run. */
size_t batch_summary_top(const struct batch_summary_list *t)
{
    if (t->n)
        qsort(t->v, t->n, sizeof *t->v, by_count);
    return t->n < BATCH_SUMMARY_TOP ? t->n : BATCH_SUMMARY_TOP;
}

static json_t *tallies_json(const struct batch_summary_list *t, bool diagnoses)
{
    json_t *a = json_array();
    size_t top = batch_summary_top(t);
    for (size_t i = 0; a && i < top; i++) {
        json_t *e = diagnoses
            ? json_pack("{s:s, s:s, s:I}", "id", t->v[i].key, "title", t->v[i].title,
                        "count", (json_int_t)t->v[i].count)
            : json_pack("{s:s, s:I}", "message", t->v[i].key, "count", (json_int_t)t->v[i].count);
        json_array_append_new(a, e);
    }
    return a;
}

static double rate(size_t n, size_t of)
{
    /* three decimals, so the JSON reads 0.617 rather than 0.61666666666666670 */
    return of ? (double)(long)((double)n / (double)of * 1000.0 + 0.5) / 1000.0 : 0.0;
}

json_t *batch_summary_to_json(const struct batch_summary *s, const char *task, uint64_t seed,
                              size_t inputs)
{
    json_t *verdicts = json_array(), *halves = json_array();
    for (size_t i = 0; verdicts && i < BATCH_SUMMARY_NSTATUS; i++)
        if (s->status[i])
            json_array_append_new(verdicts, json_pack("{s:i, s:s, s:I}", "id", (int)verdict_status_at(i),
                                                      "status", verdict_status_to_str(verdict_status_at(i)),
                                                      "count", (json_int_t)s->status[i]));
    for (int k = 0; halves && k < (int)s->ex->nsweep; k++)
        json_array_append_new(halves, json_pack("{s:i, s:I, s:I, s:I, s:f}",
                                                "half", s->ex->sweep[k],
                                                "passed", (json_int_t)s->half_passed[k],
                                                "visible_passed", (json_int_t)s->visible_passed[k],
                                                "hidden_passed", (json_int_t)s->hidden_passed[k],
                                                "pass_rate", rate(s->half_passed[k], s->rows)));
    json_t *points = json_array();
    for (int k = 0; points && k <= score_max_of(s->ex); k++)
        json_array_append_new(points, json_integer((json_int_t)s->points[k]));
    return json_pack("{s:i, s:s, s:I, s:I, s:I, s:i, s:f, s:I, s:I, s:o, s:o, s:o, s:o, s:I, s:o, s:I}",
                     "schema", 1,
                     "task", task,
                     "seed", (json_int_t)seed,
                     "inputs", (json_int_t)inputs,
                     "rows", (json_int_t)s->rows,
                     "max_score", score_max_of(s->ex),
                     "mean_score", s->rows ? rate((size_t)s->score_sum, s->rows) : 0.0,
                     "full_score", (json_int_t)s->full,
                     "zero_score", (json_int_t)s->zero,
                     "points", points,
                     "verdicts", verdicts,
                     "halves", halves,
                     "compile_errors", tallies_json(&s->errors, false),
                     "compile_errors_other", (json_int_t)s->errors.other,
                     "diagnoses", tallies_json(&s->diagnoses, true),
                     "diagnoses_other", (json_int_t)s->diagnoses.other);
}

void batch_summary_print(FILE *out, const struct batch_summary *s)
{
    fprintf(out, "Verdicts (%zu rows):\n", s->rows);
    for (size_t i = 0; i < BATCH_SUMMARY_NSTATUS; i++)
        if (s->status[i])
            fprintf(out, "  %-26s %5zu  %5.1f%%\n", verdict_status_to_str(verdict_status_at(i)), s->status[i],
                    100.0 * (double)s->status[i] / (double)s->rows);
    fprintf(out, "Points: mean %.2f of %d; %zu with full points, %zu with none\n",
            s->rows ? (double)s->score_sum / (double)s->rows : 0.0, score_max_of(s->ex), s->full,
            s->zero);
    fprintf(out, "Pass rate per half (every visible and hidden cell right):\n");
    for (int k = 0; k < (int)s->ex->nsweep; k++)
        fprintf(out, "  half = %d: %5.1f%% (%zu of %zu; visible %zu, hidden %zu)\n",
                s->ex->sweep[k],
                s->rows ? 100.0 * (double)s->half_passed[k] / (double)s->rows : 0.0,
                s->half_passed[k], s->rows, s->visible_passed[k], s->hidden_passed[k]);
    size_t top_errors = batch_summary_top(&s->errors);
    size_t top_diagnoses = batch_summary_top(&s->diagnoses);
    if (s->errors.n) {
        fprintf(out, "Most common compile errors (students):\n");
        for (size_t i = 0; i < top_errors; i++)
            fprintf(out, "  %5zu  %s\n", s->errors.v[i].count, s->errors.v[i].key);
    }
    if (s->diagnoses.n) {
        fprintf(out, "Most common diagnoses (students):\n");
        for (size_t i = 0; i < top_diagnoses; i++)
            fprintf(out, "  %5zu  %s: %s\n", s->diagnoses.v[i].count, s->diagnoses.v[i].key,
                    s->diagnoses.v[i].title);
    }
}
