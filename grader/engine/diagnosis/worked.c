/* worked.c - one output cell worked through, as a student would on paper. */
#include "engine/diagnosis/worked.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/compare.h"
#include "engine/diagnosis/family.h"
#include "engine/diagnosis/runset.h"

/* The sign the cell is due, written as the page writes it. */
static const char due_lower[] = "a + w·b";
static const char due_upper[] = "a − w·b";

/*
 * Simple expressions of a cell's quantities, each a mistake a student can
 * make in the last lines of the kernel, in the order they are tried: the
 * first one that the returned value equals (and the due value does not)
 * is named.
 */
enum expression {
    E_PLUS, E_MINUS, E_REVERSED, E_CONJ_PLUS, E_CONJ_MINUS, E_A_PLUS_B, E_A_MINUS_B,
    E_B_MINUS_A, E_A, E_B, E_WB, E_MINUS_WB, E_CONJ_WB, E_WA, E_OTHER_PLUS, E_OTHER_MINUS,
    E_HALF_PLUS, E_HALF_MINUS, E_DOUBLE_PLUS, E_DOUBLE_MINUS, E_NEG_PLUS, E_NEG_MINUS,
    E_INPUT, E_ZERO, E_COUNT
};

static const char *const expression_names[E_COUNT + 1] = {
    [E_PLUS] = due_lower,
    [E_MINUS] = due_upper,
    [E_REVERSED] = "w·b − a",
    [E_CONJ_PLUS] = "a + conj(w)·b",
    [E_CONJ_MINUS] = "a − conj(w)·b",
    [E_A_PLUS_B] = "a + b",
    [E_A_MINUS_B] = "a − b",
    [E_B_MINUS_A] = "b − a",
    [E_A] = "a",
    [E_B] = "b",
    [E_WB] = "w·b",
    [E_MINUS_WB] = "−w·b",
    [E_CONJ_WB] = "conj(w)·b",
    [E_WA] = "w·a",
    [E_OTHER_PLUS] = "the other plane of a + w·b",
    [E_OTHER_MINUS] = "the other plane of a − w·b",
    [E_HALF_PLUS] = "(a + w·b) / 2",
    [E_HALF_MINUS] = "(a − w·b) / 2",
    [E_DOUBLE_PLUS] = "2·(a + w·b)",
    [E_DOUBLE_MINUS] = "2·(a − w·b)",
    [E_NEG_PLUS] = "−(a + w·b)",
    [E_NEG_MINUS] = "−(a − w·b)",
    [E_INPUT] = "the cell's own input",
    [E_ZERO] = "0",
    [E_COUNT] = NULL,
};

const char *const *worked_expressions(void)
{
    return expression_names;
}

static struct complex_value cadd(struct complex_value x, struct complex_value y)
{
    return (struct complex_value){ x.re + y.re, x.im + y.im };
}

static struct complex_value cscale(double s, struct complex_value x)
{
    return (struct complex_value){ s * x.re, s * x.im };
}

static struct complex_value cmul(struct complex_value x, struct complex_value y)
{
    return (struct complex_value){ x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re };
}

static struct complex_value conj_of(struct complex_value x)
{
    return (struct complex_value){ x.re, -x.im };
}

/* The value of expression e in the cell's plane. */
static double expression_value(enum expression e, const struct worked_cell *w,
                               const float in[TASK_PLANES][TASK_N])
{
    struct complex_value plus = cadd(w->a, w->wb), minus = cadd(w->a, cscale(-1, w->wb));
    struct complex_value cwb = cmul(conj_of(w->w), w->b), z = { 0, 0 };
    bool other = false;
    switch (e) {
    case E_PLUS: z = plus; break;
    case E_MINUS: z = minus; break;
    case E_REVERSED: z = cscale(-1, minus); break;
    case E_CONJ_PLUS: z = cadd(w->a, cwb); break;
    case E_CONJ_MINUS: z = cadd(w->a, cscale(-1, cwb)); break;
    case E_A_PLUS_B: z = cadd(w->a, w->b); break;
    case E_A_MINUS_B: z = cadd(w->a, cscale(-1, w->b)); break;
    case E_B_MINUS_A: z = cadd(w->b, cscale(-1, w->a)); break;
    case E_A: z = w->a; break;
    case E_B: z = w->b; break;
    case E_WB: z = w->wb; break;
    case E_MINUS_WB: z = cscale(-1, w->wb); break;
    case E_CONJ_WB: z = cwb; break;
    case E_WA: z = cmul(w->w, w->a); break;
    case E_OTHER_PLUS: z = plus; other = true; break;
    case E_OTHER_MINUS: z = minus; other = true; break;
    case E_HALF_PLUS: z = cscale(0.5, plus); break;
    case E_HALF_MINUS: z = cscale(0.5, minus); break;
    case E_DOUBLE_PLUS: z = cscale(2, plus); break;
    case E_DOUBLE_MINUS: z = cscale(2, minus); break;
    case E_NEG_PLUS: z = cscale(-1, plus); break;
    case E_NEG_MINUS: z = cscale(-1, minus); break;
    case E_INPUT: return in[w->plane][w->i];
    case E_ZERO:
    case E_COUNT: return 0;
    }
    return (w->plane == 0) != other ? z.re : z.im;
}

/* The cell's quantities on one run: everything but got and got_matches. */
static void quantities(const struct gpu_run *run, bool hidden, int plane, int i,
                       struct worked_cell *w)
{
    const float (*in)[TASK_N] = runset_input(run);
    int half = run->half;
    memset(w, 0, sizeof *w);
    w->half = half;
    w->hidden = hidden;
    w->i = i;
    w->plane = plane;
    w->j = (i / half) % 2;
    w->base = i - w->j * half;
    w->r = i % half;
    w->partner = w->j == 0 ? w->base + half : w->base;
    w->a = (struct complex_value){ in[0][w->base], in[1][w->base] };
    w->b = (struct complex_value){ in[0][w->base + half], in[1][w->base + half] };
    /* -π·r/half is a whole number of π/8: exact zeros, not 6e-17 */
    int k = -8 * w->r / half;
    w->w = (struct complex_value){ family_cos8(k) + 0.0, family_sin8(k) + 0.0 };
    w->wb = cmul(w->w, w->b);
    const char *due_text = w->j == 0 ? due_lower : due_upper;
    memcpy(w->due, due_text, strlen(due_text) + 1);    /* both fit due[16] */
    struct complex_value due = cadd(w->a, cscale(w->j == 0 ? 1 : -1, w->wb));
    w->expected = plane == 0 ? due.re : due.im;
}

/*
 * Whether expression e gives cell (plane, i) on every run of `half`: a
 * value that equals some expression on one spectrum by chance does not
 * name it, as a diagnosis needs every run. (On a run where the expression
 * happens to equal the due value too, the cell passes there; that is no
 * contradiction.)
 */
static bool holds_on_every_run(const struct task *t, const struct gpu_run *runs, size_t nruns,
                               const float *out, int half, int plane, int i, enum expression e)
{
    for (size_t r = 0; r < nruns; r++) {
        if (runs[r].half != half)
            continue;
        struct worked_cell q;
        quantities(&runs[r], false, plane, i, &q);
        double x = expression_value(e, &q, runset_input(&runs[r]));
        if (!compare_cell(x, out[r * TASK_CELLS + plane * TASK_N + i], t->atol, t->rtol))
            return false;
    }
    return true;
}

void worked_cell_of(const struct comparison *c, size_t run, int plane, int i,
                    struct worked_cell *w)
{
    const struct task *t = c->task;
    const struct gpu_run *runs = c->runs;
    const struct compared_run *cr = &c->run[run];
    quantities(&runs[run], !cr->visible, plane, i, w);
    /* the value due is the reference's, the one the cell is graded by */
    w->expected = cr->expected[plane][i];
    w->got = cr->got[plane * TASK_N + i];
    w->passed = cr->passed[plane][i];
    if (w->passed)
        return;
    for (int e = 0; e < E_COUNT; e++) {
        /* a value the due one also equals here would explain nothing */
        double x = expression_value((enum expression)e, w,
                                    runset_input(&runs[run]));
        if (strcmp(expression_names[e], w->due) &&
            !compare_cell(x, w->expected, t->atol, t->rtol) &&
            holds_on_every_run(t, runs, c->nruns, c->out, w->half, plane, i,
                               (enum expression)e)) {
            snprintf(w->got_matches, sizeof w->got_matches, "%s", expression_names[e]);
            return;
        }
    }
}

/* The first failing cell of a run (real plane first), or -1. */
static int first_failing(const struct compared_run *cr)
{
    for (int p = 0; p < TASK_PLANES; p++)
        for (int i = 0; i < TASK_N; i++)
            if (!cr->passed[p][i])
                return p * TASK_N + i;
    return -1;
}

bool worked_pick(const struct comparison *c, struct worked_cell *w)
{
    const struct task *t = c->task;
    /* the halves from the smallest up, whatever order the task lists them in */
    int order[TASK_NHALVES];
    for (int h = 0; h < TASK_NHALVES; h++) {
        int rank = 0;
        for (int g = 0; g < TASK_NHALVES; g++)
            rank += t->halves[g] < t->halves[h];
        order[rank] = t->halves[h];
    }
    for (int o = 0; o < TASK_NHALVES; o++) {
        for (int pass = 0; pass < 2; pass++) {     /* visible, then hidden */
            for (size_t r = 0; r < c->nruns; r++) {
                const struct compared_run *cr = &c->run[r];
                if (cr->run->half != order[o] || cr->visible != (pass == 0))
                    continue;
                int cell = first_failing(cr);
                if (cell < 0)
                    continue;
                worked_cell_of(c, r, cell / TASK_N, cell % TASK_N, w);
                return true;
            }
        }
    }
    return false;
}

bool worked_all(const struct comparison *c, struct worked_cell cells[WORKED_CELLS])
{
    for (int h = 0; h < TASK_NHALVES; h++) {
        const struct compared_run *vis = c->visible[h];
        if (!vis)
            return false;
        size_t r = (size_t)(vis - c->run);
        for (int k = 0; k < TASK_CELLS; k++)
            worked_cell_of(c, r, k / TASK_N, k % TASK_N, &cells[h * TASK_CELLS + k]);
    }
    return true;
}
