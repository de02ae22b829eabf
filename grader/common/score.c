/* score.c - points for a verdict, as tests (score.h). */
#include "common/score.h"

#include <stdio.h>
#include <string.h>

#include "common/exercise/exercise.h"
#include "common/report.h"

static const struct half_result *find_half(const struct verdict *v, int half)
{
    for (int i = 0; i < v->halves_run && i < EX_MAX_SWEEP; i++)
        if (v->halves[i].half == half)
            return &v->halves[i];
    return NULL;
}

static void describe_cells(const struct verdict *v, const struct half_result *h, char *out,
                           size_t outsz)
{
    int wrong = report_wrong_cells(v, h);
    int cells = v->grid_n * v->grid_planes;
    if (!wrong) {
        snprintf(out, outsz, "All %d cells are right.", cells);
        return;
    }
    size_t len = (size_t)snprintf(out, outsz, "%d of %d cells are wrong:", wrong, cells);
    int shown = 0;
    for (int y = 0; y < v->grid_planes; y++)
        for (int x = 0; x < v->grid_n; x++) {
            const struct cell_result *c = &h->cells[y][x];
            if (c->passed || shown > 6 || len >= outsz)
                continue;
            if (++shown > 6) {
                /* the report in the output has every cell */
                len += (size_t)snprintf(out + len, outsz - len, "\n  ...");
                continue;
            }
            char got[32];
            len += (size_t)snprintf(out + len, outsz - len,
                                    "\n  x = %d, %s: expected %.6g, got %s", x,
                                    y == 0 ? "real" : "imaginary", c->expected,
                                    report_value(c->got, got, sizeof got));
        }
}

/*
 * A hidden test's output: the hidden spectra of this half, then what
 * depends on every run (the verdict, the recognised mistake). Gradescope
 * shows it only once the grades are published.
 */
static void describe_hidden(const struct verdict *v, const struct half_result *h, char *out,
                            size_t outsz)
{
    size_t len = (size_t)snprintf(out, outsz, "%d of %d hidden spectra are right in every cell.\n"
                                  "Verdict over every spectrum and half: %s.",
                                  h->hidden_passed, h->hidden_total,
                                  verdict_status_to_str(v->status));
    if (len < outsz && v->message)
        len += (size_t)snprintf(out + len, outsz - len, " %s", v->message);
    if (len < outsz && v->diagnosis)
        len += (size_t)snprintf(out + len, outsz - len, "\nLikely mistake: %s\n  %s\n  Look at: %s",
                                v->diagnosis->title ? v->diagnosis->title : "",
                                v->diagnosis->explanation ? v->diagnosis->explanation : "",
                                v->diagnosis->hint ? v->diagnosis->hint : "");
    else if (len < outsz && v->summary)
        snprintf(out + len, outsz - len, "\nWhere it fails: %s", v->summary);
}

int score_max_of(const struct exercise *e)
{
    return (int)e->nsweep * SCORE_PER_VALUE;
}

const struct exercise *score_exercise_of(const struct verdict *v)
{
    const struct exercise *e = v->task[0] ? exercise_find(v->task) : NULL;
    return e ? e : exercise_default();
}

void score_verdict(const struct verdict *v, struct score *s)
{
    memset(s, 0, sizeof *s);
    bool ran = v->status == VERDICT_ACCEPTED || v->status == VERDICT_WRONG_ANSWER;
    const struct exercise *e = score_exercise_of(v);
    s->max_score = score_max_of(e);
    s->ntests = 2 * (int)e->nsweep;
    for (int k = 0; k < (int)e->nsweep; k++) {
        int half = e->sweep[k];
        const struct half_result *h = ran ? find_half(v, half) : NULL;
        struct score_test *vis = &s->tests[2 * k], *hid = &s->tests[2 * k + 1];
        snprintf(vis->name, sizeof vis->name, "half = %d, visible spectrum", half);
        snprintf(hid->name, sizeof hid->name, "half = %d, hidden spectra", half);
        vis->max_score = SCORE_VISIBLE_POINTS;
        hid->max_score = SCORE_HIDDEN_POINTS;
        vis->visibility = "visible";
        hid->visibility = "after_published";
        hid->hidden = true;
        if (!h) {
            const char *why = ran ? "This half was not run." : verdict_status_to_str(v->status);
            snprintf(vis->output, sizeof vis->output, "Not run: %s.", why);
            snprintf(hid->output, sizeof hid->output, "Not run: %s.", why);
            continue;
        }
        bool cells_ok = report_wrong_cells(v, h) == 0;
        vis->passed = cells_ok || v->status == VERDICT_ACCEPTED;
        hid->passed = (h->hidden_total > 0 && h->hidden_passed == h->hidden_total) ||
                      v->status == VERDICT_ACCEPTED;
        describe_cells(v, h, vis->output, sizeof vis->output);
        describe_hidden(v, h, hid->output, sizeof hid->output);
        s->halves_passed += h->passed || v->status == VERDICT_ACCEPTED;
        s->hidden_passed += h->hidden_passed;
    }
    for (int i = 0; i < s->ntests; i++) {
        struct score_test *t = &s->tests[i];
        t->score = t->passed ? t->max_score : 0;
        s->score += t->score;
    }
}
