/* diagnose.c - a Wrong Answer's outputs in words: the member of the family
 * that explains them, or where they fail; and the worked cells. */
#include "engine/diagnosis/diagnose.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/diagnosis/cues.h"
#include "engine/diagnosis/decompile.h"
#include "engine/diagnosis/describe.h"
#include "engine/diagnosis/literal.h"
#include "engine/diagnosis/solved.h"
#include "engine/diagnosis/summary.h"
#include "engine/diagnosis/worked.h"

/* The worked cell and every visible cell, worked through, each with its
 * sentence told in the diagnosis's step (d may be NULL). */
static void work_cells(struct verdict *v, const struct comparison *c, const struct diagnosis *d)
{
    struct worked_cell *one = malloc(sizeof *one);
    struct worked_cell *all = malloc(WORKED_CELLS * sizeof *all);
    const char *step = d ? d->step : NULL;
    if (one && worked_pick(c, step, one)) {
        free(v->worked_cell);
        v->worked_cell = one;
        one = NULL;
    }
    if (all && worked_all(c, step, all)) {
        free(v->worked_cells);
        v->worked_cells = all;
        all = NULL;
    }
    free(one);
    free(all);
}

/* Words in s[0..n): runs of characters other than blanks. */
static size_t words_in(const char *s, size_t n)
{
    size_t count = 0;
    for (size_t k = 0; k < n; k++)
        count += s[k] != ' ' && (k == 0 || s[k - 1] == ' ');
    return count;
}

/* Where s's first sentence ends (just after its '.'), or strlen(s). */
static size_t sentence_end(const char *s, size_t from)
{
    for (size_t k = from; s[k]; k++)
        if (s[k] == '.' && (s[k + 1] == '\0' ||
                            (s[k + 1] == ' ' && s[k + 2] >= 'A' && s[k + 2] <= 'Z')))
            return k + 1;
    return strlen(s);
}

/*
 * Cuts the sentence s[0..end) to `budget` words at its "; " clauses: the
 * first clause stays, and so does a last one that says where it shows,
 * while they fit; middle clauses go from the end. Writes the result, with
 * the rest of s after it, into a new string; NULL when nothing is cut.
 */
static char *cut_clauses(const char *s, size_t end, size_t budget)
{
    if (words_in(s, end) <= budget)
        return NULL;
    size_t marks[64], nmarks = 0;
    for (size_t k = 0; k + 1 < end && nmarks < 64; k++)
        if (s[k] == ';' && s[k + 1] == ' ')
            marks[nmarks++] = k;
    if (nmarks == 0)
        return NULL;
    const char *tail = s + marks[nmarks - 1] + 2;
    bool where = !strncmp(tail, "it shows at", 11);
    size_t tail_len = where ? end - (marks[nmarks - 1] + 2) : 0;
    /* the leading clauses kept: marks[keep - 1] ends the last of them */
    size_t keep = where ? nmarks - 1 : nmarks;
    while (keep > 1 && words_in(s, marks[keep - 1]) + words_in(tail, tail_len) > budget)
        keep--;
    size_t head = keep > 0 ? marks[keep - 1] : marks[0];
    if (words_in(s, head) + words_in(tail, tail_len) > budget)
        tail_len = 0;
    size_t rest = strlen(s + end);
    char *out = malloc(head + 2 + tail_len + 1 + rest + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    memcpy(out, s, head);
    o = head;
    if (tail_len) {
        memcpy(out + o, "; ", 2);
        o += 2;
        memcpy(out + o, tail, tail_len);
        o += tail_len;
    } else {
        out[o++] = '.';
    }
    memcpy(out + o, s + end, rest);
    o += rest;
    out[o] = '\0';
    return out;
}

/*
 * One story, short (issue 32): the title and the explanation's first
 * sentence in at most DIAGNOSIS_LEAD_WORDS words, "more" in at most
 * DIAGNOSIS_MORE_WORDS, cut where a clause or a sentence ends, so that
 * what stays is still true.
 */
static void keep_short(struct diagnosis *d)
{
    size_t title = words_in(d->title, strlen(d->title));
    size_t budget = title < DIAGNOSIS_LEAD_WORDS ? DIAGNOSIS_LEAD_WORDS - title : 0;
    char *cut = cut_clauses(d->explanation, sentence_end(d->explanation, 0), budget);
    if (cut) {
        free(d->explanation);
        d->explanation = cut;
    }
    if (!d->more)
        return;
    size_t end = 0, len = strlen(d->more);
    while (end < len) {
        size_t next = sentence_end(d->more, end);
        if (words_in(d->more, next) > DIAGNOSIS_MORE_WORDS)
            break;
        end = next;
    }
    if (end == 0) {
        /* one long sentence: its clauses, then nothing */
        char *one = cut_clauses(d->more, sentence_end(d->more, 0), DIAGNOSIS_MORE_WORDS);
        if (one && words_in(one, strlen(one)) <= DIAGNOSIS_MORE_WORDS) {
            free(d->more);
            d->more = one;
        } else {
            free(one);
            free(d->more);
            d->more = NULL;
        }
    } else if (end < len) {
        d->more[end] = '\0';
    }
}

void diagnose_verdict(struct verdict *v, const struct comparison *c, const char *body,
                      size_t len)
{
    const struct exercise *t = c->ex;
    const struct gpu_run *runs = c->runs;
    size_t nruns = c->nruns;
    const float *out = c->out;
    struct failure_map m;
    if (!summary_map(c, &m))
        return;
    struct search_result *res = malloc(sizeof *res);
    struct diagnosis *d = NULL;
    char *compact = cues_compact(body, len);
    unsigned literal = literal_steps(compact);
    bool weak = true;   /* no formula of the family, or one on a line written right */
    if (res && search_outputs(t, runs, nruns, out, res)) {
        d = describe_member(c, res, compact);
        weak = !d || res->found[0].tables || literal_contradicts(literal, d->step);
    }
    free(compact);
    free(res);
    /* mistakes with no row in the family, proven on every cell: a and b
     * or their planes swapped always (a formula may give the same numbers
     * through steps the code wrote right), a half never read where no
     * formula of the family is sure */
    struct diagnosis *s = solved_structure(c, weak, !(literal & LITERAL_READ));
    if (s) {
        diagnosis_free(d);
        d = s;
    }
    /* no member with a formula: each value read back as one */
    struct cell_formula (*formulas)[BF_PLANES][BF_N] =
        d ? NULL : malloc(BF_NHALVES * sizeof *formulas);
    if (formulas && decompile_outputs(t, runs, nruns, out, formulas))
        d = describe_formulas(c, formulas, literal);
    free(formulas);
    /* nothing named, or named on a line the student wrote as the recipe
     * does: the kernel's own twiddle, solved from the two planes */
    if ((!d || literal_contradicts(literal, d->step)) && !(literal & LITERAL_W)) {
        struct diagnosis *w = solved_twiddle(c, literal);
        if (w) {
            diagnosis_free(d);
            d = w;
        }
    }
    /* never a diagnosis that contradicts a line: the summary says where */
    if (d && literal_contradicts(literal, d->step)) {
        diagnosis_free(d);
        d = NULL;
    }
    if (d)
        keep_short(d);
    work_cells(v, c, d);
    if (d) {
        diagnosis_free(v->diagnosis);
        v->diagnosis = d;
        free(v->summary);
        v->summary = NULL;
        return;
    }
    char *summary = summary_text(c);
    if (summary) {
        diagnosis_free(v->diagnosis);
        v->diagnosis = NULL;
        free(v->summary);
        v->summary = summary;
    }
}

/* The diagnosis name an exercise.json gives to ask for this diagnosis. */
#define BF_DIAGNOSIS "butterfly"

_Static_assert(WORKED_CELLS == BF_NHALVES * BF_CELLS,
               "the verdict's worked cells are every visible cell of every half");


bool bf_shape_fits(const struct exercise *e, char *why, size_t whysz)
{
    static const int halves[BF_NHALVES] = { 1, 2, 4 };
    char none[1];
    if (!why) {
        why = none;
        whysz = sizeof none;
    }
    snprintf(why, whysz, "%s", "");
    if (!e->diagnosis || strcmp(e->diagnosis, BF_DIAGNOSIS) != 0)
        return false;
    bool fits = e->in_n == BF_N && e->out_n == BF_N && e->in_planes == BF_PLANES &&
                e->out_planes == BF_PLANES && e->nsweep == BF_NHALVES &&
                e->hidden == BF_HIDDEN;
    for (size_t h = 0; fits && h < BF_NHALVES; h++)
        fits = e->sweep[h] == halves[h];
    if (!fits)
        snprintf(why, whysz, "the \"%s\" diagnosis needs the butterfly's shape: input and "
                 "output %d x %d, the parameter 1, 2, 4, %d hidden inputs each",
                 BF_DIAGNOSIS, BF_PLANES, BF_N, BF_HIDDEN);
    return fits;
}
