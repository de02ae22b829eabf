/* worked.c - one output cell worked through, as a student would on paper. */
#include "engine/diagnosis/worked.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/compare.h"
#include "engine/diagnosis/family.h"
#include "engine/diagnosis/runset.h"
#include "engine/reference.h"

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

/* The same expressions as slugs, for the page (never parsed prose). */
static const char *const expression_slugs[E_COUNT] = {
    [E_PLUS] = "a_plus_wb", [E_MINUS] = "a_minus_wb", [E_REVERSED] = "wb_minus_a",
    [E_CONJ_PLUS] = "a_plus_conj_wb", [E_CONJ_MINUS] = "a_minus_conj_wb",
    [E_A_PLUS_B] = "a_plus_b", [E_A_MINUS_B] = "a_minus_b", [E_B_MINUS_A] = "b_minus_a",
    [E_A] = "a", [E_B] = "b", [E_WB] = "wb", [E_MINUS_WB] = "minus_wb",
    [E_CONJ_WB] = "conj_wb", [E_WA] = "wa", [E_OTHER_PLUS] = "other_plane_a_plus_wb",
    [E_OTHER_MINUS] = "other_plane_a_minus_wb", [E_HALF_PLUS] = "half_a_plus_wb",
    [E_HALF_MINUS] = "half_a_minus_wb", [E_DOUBLE_PLUS] = "double_a_plus_wb",
    [E_DOUBLE_MINUS] = "double_a_minus_wb", [E_NEG_PLUS] = "minus_a_plus_wb",
    [E_NEG_MINUS] = "minus_a_minus_wb", [E_INPUT] = "input", [E_ZERO] = "zero",
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
                               const float in[BF_PLANES][BF_N])
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
    const float (*in)[BF_N] = runset_input(run);
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
    w->sign = w->j == 0 ? 1 : -1;
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
static bool holds_on_every_run(const struct exercise *t, const struct gpu_run *runs, size_t nruns,
                               const float *out, int half, int plane, int i, enum expression e)
{
    for (size_t r = 0; r < nruns; r++) {
        if (runs[r].half != half)
            continue;
        struct worked_cell q;
        quantities(&runs[r], false, plane, i, &q);
        double x = expression_value(e, &q, runset_input(&runs[r]));
        if (!compare_cell(x, out[r * BF_CELLS + plane * BF_N + i], t->atol, t->rtol))
            return false;
    }
    return true;
}

/*
 * The kernel's own numbers at output i of `half` (issue 32): the elements
 * it read as a and b, its sign and its w, solved from the two planes of
 * the output, w = ±(got − a)/b, on the run of the half where b is largest,
 * and kept only when a ± w·b then gives both planes on every run of the
 * half. The recipe's elements are tried first, then those that differ in
 * one, then in both; a w of size 1 (a twiddle) is taken over one of
 * another size; the sign due is tried first, the other first when the
 * diagnosis is about the sign or j (a + w·b = a − (−w)·b: the outputs
 * cannot tell, the step says which reading to tell).
 */
static void solve_kernel(const struct comparison *c, const char *step, struct worked_cell *w)
{
    const struct exercise *t = c->ex;
    int half = w->half, i = w->i, due_a = w->base, due_b = w->base + half;
    w->kernel_known = false;
    /* a wrong j turns the sign with it */
    bool sign_first = step && (!strcmp(step, "sign") || !strcmp(step, "j"));
    /* s·w is what the outputs fix, so one sign is tried: the other gives
     * the same fit with −w */
    int s = sign_first ? -w->sign : w->sign;
    /* the run of the half where each element is largest, to solve on */
    const struct compared_run *best[BF_N] = { NULL };
    double size[BF_N] = { 0 };
    for (size_t r = 0; r < c->nruns; r++) {
        if (c->run[r].run->half != half)
            continue;
        const float *in = c->run[r].run->spec;
        for (int e = 0; e < BF_N; e++) {
            double m = hypot(in[e], in[BF_N + e]);
            if (m > size[e]) {
                size[e] = m;
                best[e] = &c->run[r];
            }
        }
    }
    bool found_other = false;   /* a fit of another size, kept while no twiddle fits */
    for (int differ = 0; differ <= 2; differ++) {
        for (int ka = 0; ka < BF_N; ka++) {
            for (int kb = 0; kb < BF_N; kb++) {
                if ((ka != due_a) + (kb != due_b) != differ || ka == kb)
                    continue;
                if (!best[kb] || size[kb] < 1e-3)
                    continue;
                const float *in = best[kb]->run->spec;
                double complex g = best[kb]->got[i] + I * best[kb]->got[BF_N + i];
                if (!isfinite(creal(g)) || !isfinite(cimag(g)))
                    return;
                double complex a = in[ka] + I * in[BF_N + ka];
                double complex b = in[kb] + I * in[BF_N + kb];
                double complex kw = s * (g - a) / b;
                bool all = true;
                for (size_t r = 0; r < c->nruns && all; r++) {
                    const struct compared_run *cr = &c->run[r];
                    if (cr->run->half != half || cr == best[kb])
                        continue;
                    const float *x = cr->run->spec;
                    double complex z = x[ka] + I * x[BF_N + ka] +
                                       s * kw * (x[kb] + I * x[BF_N + kb]);
                    all = compare_cell(creal(z), cr->got[i], t->atol, t->rtol) &&
                          compare_cell(cimag(z), cr->got[BF_N + i], t->atol, t->rtol);
                }
                if (!all)
                    continue;
                bool unit = fabs(cabs(kw) - 1) < 2e-3;
                if (!unit && (found_other || differ > 0))
                    continue;
                w->kernel_known = true;
                w->kernel_a = ka;
                w->kernel_b = kb;
                w->kernel_sign = s;
                w->kernel_w = (struct complex_value){ creal(kw) + 0.0, cimag(kw) + 0.0 };
                if (unit)
                    return;
                found_other = true;
            }
        }
    }
}

/* Whether the kernel's own numbers differ from the recipe's. */
static bool kernel_differs(const struct worked_cell *w)
{
    return w->kernel_known &&
           (w->kernel_a != w->base || w->kernel_b != w->base + w->half ||
            w->kernel_sign != w->sign || fabs(w->kernel_w.re - w->w.re) > 2e-3 ||
            fabs(w->kernel_w.im - w->w.im) > 2e-3);
}

/* A twiddle as the page writes it: 1, −i, e^(−iπ/4), else −0.448−0.894i. */
static void format_twiddle(char *buf, size_t size, struct complex_value z)
{
    for (int k = -7; k <= 8; k++) {
        if (hypot(z.re - family_cos8(k), z.im - family_sin8(k)) > 5e-4)
            continue;
        static const char *const named[] = { [0] = "1", [4] = "i", [8] = "−1" };
        if (k == 0 || k == 4 || k == 8) {
            snprintf(buf, size, "%s", named[k]);
        } else if (k == -4) {
            snprintf(buf, size, "−i");
        } else {
            int num = abs(k), den = 8;
            while (num % 2 == 0) {
                num /= 2;
                den /= 2;
            }
            if (num == 1)
                snprintf(buf, size, "e^(%siπ/%d)", k < 0 ? "−" : "", den);
            else
                snprintf(buf, size, "e^(%siπ·%d/%d)", k < 0 ? "−" : "", num, den);
        }
        return;
    }
    double re = fabs(z.re) < 5e-4 ? 0 : z.re, im = fabs(z.im) < 5e-4 ? 0 : z.im;
    int n = 0;
    if (re != 0 || im == 0)
        n = snprintf(buf, size, "%s%.3g", re < 0 ? "−" : "", fabs(re));
    if (im != 0 && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, "%s%.3gi", im < 0 ? "−" : re != 0 ? "+" : "",
                 fabs(im));
}

/* How the kernel's own numbers differ from the recipe's, in words: "your
 * w is −0.448−0.894i where −i is due". */
static void kernel_words(const struct worked_cell *w, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
#define KERNEL_ADD(...) \
    do { \
        int m = snprintf(buf + n, size - n, __VA_ARGS__); \
        if (m > 0) \
            n = n + (size_t)m < size ? n + (size_t)m : size - 1; \
    } while (0)
    if (w->kernel_a != w->base)
        KERNEL_ADD("%sa is element %d where element %d is due", n ? ", " : "", w->kernel_a,
                   w->base);
    if (w->kernel_b != w->base + w->half)
        KERNEL_ADD("%sb is element %d where element %d is due", n ? ", " : "", w->kernel_b,
                   w->base + w->half);
    if (w->kernel_sign != w->sign)
        KERNEL_ADD("%syour sign before w·b is %s where %s is due", n ? ", " : "",
                   w->kernel_sign < 0 ? "−" : "+", w->sign < 0 ? "−" : "+");
    if (fabs(w->kernel_w.re - w->w.re) > 2e-3 || fabs(w->kernel_w.im - w->w.im) > 2e-3) {
        char got[48], due[48];
        format_twiddle(got, sizeof got, w->kernel_w);
        format_twiddle(due, sizeof due, w->w);
        KERNEL_ADD("%syour w is %s where %s is due", n ? ", " : "", got, due);
    }
#undef KERNEL_ADD
}

/* A number as the sentence writes it, with the page's minus sign: six
 * significant digits, so that a denormal is not "0". */
static void format_number(char *buf, size_t size, double x)
{
    if (isnan(x))
        snprintf(buf, size, "NaN");
    else if (isinf(x))
        snprintf(buf, size, "%s", x > 0 ? "Infinity" : "−Infinity");
    else if (x < 0)
        snprintf(buf, size, "−%.6g", -x);
    else
        snprintf(buf, size, "%.6g", x + 0.0);
}

/* The expression e in words for the cell's plane: "the real part of a + w·b". */
static void expression_words(enum expression e, int plane, char *buf, size_t size)
{
    static const char *const parts[BF_PLANES] = { "real", "imaginary" };
    switch (e) {
    case E_OTHER_PLUS:
    case E_OTHER_MINUS:
        snprintf(buf, size, "the %s part of %s", parts[1 - plane],
                 e == E_OTHER_PLUS ? due_lower : due_upper);
        return;
    case E_INPUT:
        snprintf(buf, size, "the cell's own input, spectrum[%d][i]", plane);
        return;
    case E_ZERO:
        snprintf(buf, size, "0");
        return;
    default:
        snprintf(buf, size, "the %s part of %s", parts[plane], expression_names[e]);
        return;
    }
}

/* The cell's sentence, told in the step the diagnosis leads with (NULL or
 * "" when there is none): it names the other member of the pair only when
 * the diagnosis is about j or the sign, so the two never tell different
 * stories. */
static void say(struct worked_cell *w, int match, const char *step)
{
    static const char *const parts[BF_PLANES] = { "real", "imaginary" };
    char got[32], want[32], what[96];
    format_number(got, sizeof got, w->got);
    format_number(want, sizeof want, w->expected);
    if (w->passed) {
        snprintf(w->says, sizeof w->says, "Here the recipe gives the %s part of %s, %s, and "
                 "your kernel returned it.", parts[w->plane], w->due, want);
        return;
    }
    /* the kernel's own numbers tell the cell where no expression of the
     * recipe's does, where the one that does is another plane's, or where
     * the diagnosis is about w or the elements read */
    bool other_plane = match == E_OTHER_PLUS || match == E_OTHER_MINUS;
    bool own_step = step && (!strcmp(step, "w") || !strcmp(step, "read"));
    if (kernel_differs(w) && (match < 0 || own_step || (other_plane && !(step &&
                                                                          !strcmp(step, "plane"))))) {
        char own[192];
        kernel_words(w, own, sizeof own);
        snprintf(w->says, sizeof w->says, "Here the recipe gives the %s part of %s, %s; your "
                 "kernel returned %s, which is a %s w·b with its own numbers: %s.",
                 parts[w->plane], w->due, want, got, w->kernel_sign < 0 ? "−" : "+", own);
        return;
    }
    if (match < 0) {
        snprintf(w->says, sizeof w->says, "Here the recipe gives the %s part of %s, %s; your "
                 "kernel returned %s, which is no simple expression of this a, b and w.",
                 parts[w->plane], w->due, want, got);
        return;
    }
    expression_words((enum expression)match, w->plane, what, sizeof what);
    bool other_member = (match == E_PLUS || match == E_MINUS) && step &&
                        (!strcmp(step, "j") || !strcmp(step, "sign"));
    char tail[96] = "";
    if (other_member)
        snprintf(tail, sizeof tail, ", the value due at output %d, the other member of the pair",
                 w->partner);
    snprintf(w->says, sizeof w->says, "Here the recipe gives the %s part of %s, %s; your kernel "
             "returned %s, which is %s%s.", parts[w->plane], w->due, want, got, what, tail);
}

/* The expressions (worked_expressions, the due one left out) that give
 * the cell on every run of its half: how many, up to `most`, and the
 * first in *first. */
static int matching_expressions(const struct exercise *t, const struct gpu_run *runs, size_t nruns,
                                const float *out, size_t run, const struct worked_cell *w,
                                int most, int *first)
{
    int count = 0;
    *first = -1;
    for (int e = 0; e < E_COUNT && count < most; e++) {
        /* a value the due one also equals here would explain nothing */
        double x = expression_value((enum expression)e, w, runset_input(&runs[run]));
        if (strcmp(expression_names[e], w->due) &&
            !compare_cell(x, w->expected, t->atol, t->rtol) &&
            holds_on_every_run(t, runs, nruns, out, w->half, w->plane, w->i,
                               (enum expression)e)) {
            if (count++ == 0)
                *first = e;
        }
    }
    return count;
}

/* worked_cell_of, and how many expressions fit the cell, counted up to
 * `most` (1: only the first is wanted). */
static int work_cell(const struct comparison *c, size_t run, int plane, int i, const char *step,
                     int most, struct worked_cell *w)
{
    const struct exercise *t = c->ex;
    const struct gpu_run *runs = c->runs;
    size_t nruns = c->nruns;
    const float *out = c->out;
    const struct compared_run *cr = &c->run[run];
    quantities(&runs[run], !cr->visible, plane, i, w);
    /* the value due is the reference's, the one the cell is graded by */
    w->expected = cr->expected[plane][i];
    w->got = cr->got[plane * BF_N + i];
    w->passed = cr->passed[plane][i];
    int first = -1, count = 0;
    if (w->passed) {
        snprintf(w->matches, sizeof w->matches, "due");
    } else {
        count = matching_expressions(t, runs, nruns, out, run, w, most, &first);
        if (first >= 0) {
            snprintf(w->got_matches, sizeof w->got_matches, "%s", expression_names[first]);
            snprintf(w->matches, sizeof w->matches, "%s", expression_slugs[first]);
        }
        solve_kernel(c, step, w);
    }
    say(w, first, step);
    /* a cell whose only reading is another plane's tells a planes story:
     * it counts as a reading only where the diagnosis is about the planes */
    bool planes = step && !strcmp(step, "plane");
    if (!planes && count == 1 && (first == E_OTHER_PLUS || first == E_OTHER_MINUS))
        return 0;
    return count;
}

void worked_cell_of(const struct comparison *c, size_t run, int plane, int i, const char *step,
                    struct worked_cell *w)
{
    work_cell(c, run, plane, i, step, 1, w);
}

bool worked_pick(const struct comparison *c, const char *step, struct worked_cell *w)
{
    const struct exercise *t = c->ex;
    /* the halves from the smallest up, whatever order the task lists them in */
    int order[BF_NHALVES];
    for (int h = 0; h < BF_NHALVES; h++) {
        int rank = 0;
        for (int g = 0; g < BF_NHALVES; g++)
            rank += t->sweep[g] < t->sweep[h];
        order[rank] = t->sweep[h];
    }
    /* The first failing cell that exactly one expression fits: where the
     * mistake is the only reading (a flipped twiddle at half = 2 is also
     * a − w·b, since conj(−i) = −(−i); at half = 4 it is not), looked for
     * on the visible spectrum (48 cells, cheap next to the search). Failing
     * that, the first failing cell, hidden spectra after the visible one. */
    /* Then (issue 32) the first failing visible cell with a reading at
     * all: an expression, or the kernel's own numbers solved; never one
     * with no reading while one with a reading exists. */
    struct worked_cell cell;
    for (int pass = 0; pass < 4; pass++) {   /* unique visible; read visible; visible; hidden */
        for (int o = 0; o < BF_NHALVES; o++) {
            for (size_t r = 0; r < c->nruns; r++) {
                const struct compared_run *cr = &c->run[r];
                if (cr->run->half != order[o] || cr->visible != (pass < 3))
                    continue;
                for (int k = 0; k < BF_CELLS; k++) {
                    if (cr->passed[k / BF_N][k % BF_N])
                        continue;
                    int fits = work_cell(c, r, k / BF_N, k % BF_N, step, pass == 0 ? 2 : 1,
                                         &cell);
                    bool read = fits > 0 || kernel_differs(&cell);
                    if (pass > 1 || (pass == 0 && fits == 1) || (pass == 1 && read)) {
                        *w = cell;
                        return true;
                    }
                }
            }
        }
    }
    return false;
}

bool worked_all(const struct comparison *c, const char *step,
                struct worked_cell cells[WORKED_CELLS])
{
    for (int h = 0; h < BF_NHALVES; h++) {
        const struct compared_run *vis = c->visible[h];
        if (!vis)
            return false;
        size_t r = (size_t)(vis - c->run);
        for (int k = 0; k < BF_CELLS; k++)
            worked_cell_of(c, r, k / BF_N, k % BF_N, step, &cells[h * BF_CELLS + k]);
    }
    return true;
}
