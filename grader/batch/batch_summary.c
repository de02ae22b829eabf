/* batch_summary.c - the class at a glance. */
#include "batch_summary.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>


#define MAX_DISTINCT 1000   /* distinct messages kept; beyond, counted as "other" */

/* The statuses in the order they are shown. */
static const enum verdict_status shown[] = {
    VERDICT_ACCEPTED, VERDICT_WRONG_ANSWER, VERDICT_COMPILATION_ERROR, VERDICT_TIME_LIMIT,
    VERDICT_RUNTIME_SIGSEGV, VERDICT_RUNTIME_SIGXFSZ, VERDICT_RUNTIME_SIGFPE,
    VERDICT_RUNTIME_SIGABRT, VERDICT_RUNTIME_NZEC, VERDICT_RUNTIME_OTHER,
    VERDICT_REJECTED, VERDICT_INTERNAL_ERROR,
};
#define NSHOWN (sizeof shown / sizeof shown[0])

struct tally {
    char *key, *title;      /* title: a diagnosis's; NULL for compile errors */
    size_t count;
};

struct tallies {
    struct tally *v;
    size_t n, cap, other;
};

struct batch_summary {
    size_t rows, status[NSHOWN], unknown;
    long score_sum;
    size_t full, zero;
    size_t half_passed[TASK_NHALVES], visible_passed[TASK_NHALVES], hidden_passed[TASK_NHALVES];
    struct tallies errors, diagnoses;
};

struct batch_summary *batch_summary_new(void)
{
    return calloc(1, sizeof(struct batch_summary));
}

static void tallies_free(struct tallies *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].key);
        free(t->v[i].title);
    }
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

static bool tally(struct tallies *t, const char *key, const char *title)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->v[i].key, key)) {
            t->v[i].count++;
            return true;
        }
    if (t->n == MAX_DISTINCT) {
        t->other++;
        return true;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        struct tally *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return false;
        t->v = v;
        t->cap = cap;
    }
    struct tally *e = &t->v[t->n];
    e->key = strdup(key);
    e->title = title ? strdup(title) : NULL;
    e->count = 1;
    if (!e->key || (title && !e->title)) {
        free(e->key);
        free(e->title);
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

bool batch_summary_add(struct batch_summary *s, const struct verdict *v,
                       const struct batch_score *sc)
{
    bool ok = true;
    s->rows++;
    size_t i = 0;
    while (i < NSHOWN && shown[i] != v->status)
        i++;
    if (i < NSHOWN)
        s->status[i]++;
    else
        s->unknown++;
    s->score_sum += sc->score;
    s->full += sc->score == sc->max_score;
    s->zero += sc->score == 0;
    for (int k = 0; k < TASK_NHALVES; k++) {
        const struct batch_test *vis = &sc->tests[2 * k], *hid = &sc->tests[2 * k + 1];
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
            ok &= tally(&s->errors, norm, NULL);
        }
    }
    if (v->diagnosis && v->diagnosis->id)
        ok &= tally(&s->diagnoses, v->diagnosis->id, v->diagnosis->title ? v->diagnosis->title : "");
    return ok;
}

static int by_count(const void *a, const void *b)
{
    const struct tally *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->key, y->key);
}

/* The top entries, most common first, ties by key: the same on every run. */
static void sort_tallies(const struct tallies *t)
{
    if (t->n)
        qsort(t->v, t->n, sizeof *t->v, by_count);
}

static json_t *tallies_json(const struct tallies *t, bool diagnoses)
{
    json_t *a = json_array();
    sort_tallies(t);
    for (size_t i = 0; a && i < t->n && i < BATCH_SUMMARY_TOP; i++) {
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

json_t *batch_summary_to_json(const struct batch_summary *s, uint64_t seed, size_t inputs)
{
    json_t *verdicts = json_array(), *halves = json_array();
    for (size_t i = 0; verdicts && i < NSHOWN; i++)
        if (s->status[i])
            json_array_append_new(verdicts, json_pack("{s:i, s:s, s:I}", "id", (int)shown[i],
                                                      "status", verdict_status_to_str(shown[i]),
                                                      "count", (json_int_t)s->status[i]));
    for (int k = 0; halves && k < TASK_NHALVES; k++)
        json_array_append_new(halves, json_pack("{s:i, s:I, s:I, s:I, s:f}",
                                                "half", task_butterfly.halves[k],
                                                "passed", (json_int_t)s->half_passed[k],
                                                "visible_passed", (json_int_t)s->visible_passed[k],
                                                "hidden_passed", (json_int_t)s->hidden_passed[k],
                                                "pass_rate", rate(s->half_passed[k], s->rows)));
    return json_pack("{s:i, s:s, s:I, s:I, s:I, s:i, s:f, s:I, s:I, s:o, s:o, s:o, s:I, s:o, s:I}",
                     "schema", 1,
                     "task", task_butterfly.id,
                     "seed", (json_int_t)seed,
                     "inputs", (json_int_t)inputs,
                     "rows", (json_int_t)s->rows,
                     "max_score", BATCH_MAX_SCORE,
                     "mean_score", s->rows ? rate((size_t)s->score_sum, s->rows) : 0.0,
                     "full_score", (json_int_t)s->full,
                     "zero_score", (json_int_t)s->zero,
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
    for (size_t i = 0; i < NSHOWN; i++)
        if (s->status[i])
            fprintf(out, "  %-26s %5zu  %5.1f%%\n", verdict_status_to_str(shown[i]), s->status[i],
                    100.0 * (double)s->status[i] / (double)s->rows);
    fprintf(out, "Points: mean %.2f of %d; %zu with full points, %zu with none\n",
            s->rows ? (double)s->score_sum / (double)s->rows : 0.0, BATCH_MAX_SCORE, s->full,
            s->zero);
    fprintf(out, "Pass rate per half (every visible and hidden cell right):\n");
    for (int k = 0; k < TASK_NHALVES; k++)
        fprintf(out, "  half = %d: %5.1f%% (%zu of %zu; visible %zu, hidden %zu)\n",
                task_butterfly.halves[k],
                s->rows ? 100.0 * (double)s->half_passed[k] / (double)s->rows : 0.0,
                s->half_passed[k], s->rows, s->visible_passed[k], s->hidden_passed[k]);
    sort_tallies(&s->errors);
    sort_tallies(&s->diagnoses);
    if (s->errors.n) {
        fprintf(out, "Most common compile errors (students):\n");
        for (size_t i = 0; i < s->errors.n && i < BATCH_SUMMARY_TOP; i++)
            fprintf(out, "  %5zu  %s\n", s->errors.v[i].count, s->errors.v[i].key);
    }
    if (s->diagnoses.n) {
        fprintf(out, "Most common diagnoses (students):\n");
        for (size_t i = 0; i < s->diagnoses.n && i < BATCH_SUMMARY_TOP; i++)
            fprintf(out, "  %5zu  %s: %s\n", s->diagnoses.v[i].count, s->diagnoses.v[i].key,
                    s->diagnoses.v[i].title);
    }
}
