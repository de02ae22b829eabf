/* decompile.c - output values read back as formulas of the inputs.
 *
 * A kernel whose typo reads ai where ar belongs, or writes wr·bi where
 * wr·br belongs, is no member of the family with a formula: its cells
 * still are a few inputs times a few twiddle values, but not in the shape
 * of a ± w·b. Each output value is read back here as
 *     ±x + f·u + g·v
 * for inputs x, u and v and coefficients f and g among the values a
 * twiddle's cos or sin takes (0, ±1, ±cos(π/8), ±cos(π/4), ±cos(3π/8)),
 * checked on every run of its half. The right formula is tried first,
 * then every formula with one term changed, then all of them.
 */
#include "engine/diagnosis/decompile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/compare.h"
#include "engine/diagnosis/family.h"
#include "engine/diagnosis/runset.h"

static const double coefs[DECOMPILE_COEFS] = {
    0.0, 1.0, -1.0, 0.9238795325112867, -0.9238795325112867, 0.7071067811865476,
    -0.7071067811865476, 0.38268343236508984, -0.38268343236508984,
};

/* term[0] is ±x or nothing: the indices of 0, 1 and -1 */
#define A_COEFS 3

double decompile_coef(int c)
{
    return c >= 0 && c < DECOMPILE_COEFS ? coefs[c] : 0.0;
}

/* The index of coefficient x (exact values of the eighths table). */
static signed char coef_index(double x)
{
    for (int c = 0; c < DECOMPILE_COEFS; c++)
        if (fabs(coefs[c] - x) < 1e-12)
            return (signed char)c;
    return 0;
}

void decompile_due(int half, int i, int p, struct cell_formula *f)
{
    int j = (i / half) % 2, base = i - j * half, r = i % half;
    double wr = family_cos8(-8 * r / half), wi = family_sin8(-8 * r / half);
    double s = j == 0 ? 1 : -1;
    int q = 1 - p;
    f->constant = 0.0;
    f->term[0] = (struct term){ (signed char)p, (signed char)base, coef_index(1) };
    /* real: ar ± (wr·br - wi·bi); imaginary: ai ± (wr·bi + wi·br) */
    f->term[1] = (struct term){ (signed char)p, (signed char)(base + half), coef_index(s * wr) };
    f->term[2] = (struct term){ (signed char)q, (signed char)(base + half),
                                coef_index(p == 0 ? -s * wi : s * wi) };
    for (int k = 1; k < 3; k++)
        if (f->term[k].coef == 0)
            f->term[k].plane = f->term[k].element = 0;
}

bool decompile_same_term(const struct term *a, const struct term *b)
{
    return a->plane == b->plane && a->element == b->element && a->coef == b->coef;
}

bool decompile_equal(const struct cell_formula *a, const struct cell_formula *b)
{
    for (int k = 0; k < 3; k++)
        if (!decompile_same_term(&a->term[k], &b->term[k]))
            return false;
    return a->constant == b->constant;
}

static double term_value(const struct term *t, const float in[BF_PLANES][BF_N])
{
    return t->coef ? coefs[(int)t->coef] * in[(int)t->plane][(int)t->element] : 0.0;
}

double decompile_value(const struct cell_formula *f, const float in[BF_PLANES][BF_N])
{
    return term_value(&f->term[0], in) + term_value(&f->term[1], in) +
           term_value(&f->term[2], in) + f->constant;
}

/* A product term and its value on the first run, for the sorted lookup. */
struct product_term {
    double value;
    struct term term;
};

static void sort_terms(struct product_term *xs, int n)
{
    for (int gap = n / 2; gap > 0; gap /= 2) {
        for (int k = gap; k < n; k++) {
            struct product_term x = xs[k];
            int j = k;
            for (; j >= gap && xs[j - gap].value > x.value; j -= gap)
                xs[j] = xs[j - gap];
            xs[j] = x;
        }
    }
}

#define NPRODUCTS (1 + BF_CELLS * (DECOMPILE_COEFS - 1))

struct decompile_ctx {
    const struct exercise *t;
    const struct gpu_run *runs;
    const float *out;
    struct runset rs;
    /* every product term's value on a half's first run ([0]), or its
     * difference between the first two runs ([1]), sorted; made once */
    struct product_term products[BF_NHALVES][2][NPRODUCTS];
    bool have_products[BF_NHALVES][2];
};

/* Whether f gives value (p, i) on runs [from, to) of half h. */
static bool formula_ok(const struct decompile_ctx *c, const struct cell_formula *f, int h,
                       int p, int i, int from, int to)
{
    for (int k = from; k < to; k++) {
        int r = c->rs.run[h][k];
        double want = decompile_value(f, runset_input(&c->runs[r]));
        if (!compare_cell(want, c->out[(size_t)r * BF_CELLS + p * BF_N + i], c->t->atol,
                          c->t->rtol))
            return false;
    }
    return true;
}

static bool formula_ok_everywhere(const struct decompile_ctx *c, const struct cell_formula *f,
                                  int h, int p, int i)
{
    return formula_ok(c, f, h, p, i, 0, c->rs.nvisible[h]) &&
           formula_ok(c, f, h, p, i, c->rs.nvisible[h], c->rs.n[h]);
}

/* Term number k of the options for a slot: nothing, then every input with
 * every coefficient the slot allows. */
static struct term option(int k, int ncoefs)
{
    if (k == 0)
        return (struct term){ 0, 0, 0 };
    k--;
    int coef = 1 + k % (ncoefs - 1), input = k / (ncoefs - 1);
    return (struct term){ (signed char)(input / BF_N), (signed char)(input % BF_N),
                          (signed char)coef };
}

static int noptions(int ncoefs)
{
    return 1 + BF_CELLS * (ncoefs - 1);
}

/* The right formula with one term changed, the first that fits. */
static bool one_term_changed(const struct decompile_ctx *c, int h, int p, int i,
                             struct cell_formula *f)
{
    struct cell_formula due;
    decompile_due(c->t->sweep[h], i, p, &due);
    for (int slot = 0; slot < 3; slot++) {
        int ncoefs = slot == 0 ? A_COEFS : DECOMPILE_COEFS;
        for (int k = 0; k < noptions(ncoefs); k++) {
            *f = due;
            f->term[slot] = option(k, ncoefs);
            if (formula_ok_everywhere(c, f, h, p, i))
                return true;
        }
    }
    return false;
}

/*
 * Every formula: for each x and first product, the second product the
 * first run's value needs is looked up among all of them, sorted; each
 * that fits there is checked on every run. With `constant`, the formula
 * also adds a constant: the difference of two runs then cancels it, so the
 * same search runs on the differences, and the constant is what is left
 * on the first run.
 */
static bool any_formula(struct decompile_ctx *c, int h, int p, int i, bool constant,
                        struct cell_formula *f)
{
    if (constant && c->rs.n[h] < 2)
        return false;
    const float (*in)[BF_N] = runset_input(&c->runs[c->rs.run[h][0]]);
    const float (*in1)[BF_N] = runset_input(&c->runs[c->rs.run[h][constant ? 1 : 0]]);
    const float *got = c->out + (size_t)c->rs.run[h][0] * BF_CELLS;
    const float *got1 = c->out + (size_t)c->rs.run[h][constant ? 1 : 0] * BF_CELLS;
    struct product_term *products = c->products[h][constant];
    if (!c->have_products[h][constant]) {
        for (int k = 0; k < NPRODUCTS; k++) {
            products[k].term = option(k, DECOMPILE_COEFS);
            products[k].value = term_value(&products[k].term, in) -
                                (constant ? term_value(&products[k].term, in1) : 0.0);
        }
        sort_terms(products, NPRODUCTS);
        c->have_products[h][constant] = true;
    }
    double g0 = got[p * BF_N + i], g1 = got1[p * BF_N + i];
    if (!isfinite(g0) || !isfinite(g1))
        return false;
    double g = constant ? g0 - g1 : g0;
    /* |g - want| <= atol + rtol |want|, and |want| <= (|g| + atol) / (1 - rtol);
     * a difference of two values may be off by both their tolerances */
    double window = 0;
    for (int k = 0; k < (constant ? 2 : 1); k++) {
        double x = k ? g1 : g0;
        window += c->t->atol + c->t->rtol * (fabs(x) + c->t->atol) / (1 - c->t->rtol);
    }
    window += 1e-9;
    struct cell_formula due;
    decompile_due(c->t->sweep[h], i, p, &due);
    /* the due a first: a formula that keeps it reads as the nearer one */
    for (int a = -1; a < noptions(A_COEFS); a++) {
        struct term x = a < 0 ? due.term[0] : option(a, A_COEFS);
        if (a >= 0 && decompile_same_term(&x, &due.term[0]))
            continue;
        f->term[0] = x;
        f->constant = 0.0;
        double rest = g - term_value(&f->term[0], in) +
                      (constant ? term_value(&f->term[0], in1) : 0.0);
        /* pairs u <= v of sorted products whose sum is rest within the
         * window: as u climbs, the v that fit only fall */
        int right = NPRODUCTS - 1;
        for (int u = 0; u < NPRODUCTS; u++) {
            double need = rest - products[u].value;
            while (right >= 0 && products[right].value > need + window)
                right--;
            if (right < u)
                break;
            for (int v = right; v >= u && products[v].value >= need - window; v--) {
                f->term[1] = products[u].term;
                f->term[2] = products[v].term;
                f->constant = 0.0;
                if (constant)
                    f->constant = g0 - decompile_value(f, in);
                if (formula_ok_everywhere(c, f, h, p, i))
                    return true;
            }
        }
    }
    return false;
}

/* Reads back every value for decompile_outputs, with c made. */
static bool decompile_all(struct decompile_ctx *c, size_t nruns,
                          struct cell_formula formulas[BF_NHALVES][BF_PLANES][BF_N])
{
    const struct exercise *t = c->t;
    if (!runset_init(&c->rs, t, c->runs, nruns))
        return false;
    for (int o = 0; o < BF_NHALVES; o++) {
        int h = c->rs.order[o];
        if (c->rs.n[h] == 0)
            return false;
        for (int p = 0; p < BF_PLANES; p++) {
            for (int i = 0; i < BF_N; i++) {
                struct cell_formula *f = &formulas[h][p][i];
                decompile_due(t->sweep[h], i, p, f);
                if (formula_ok_everywhere(c, f, h, p, i))
                    continue;
                /* the same number on every spectrum: a constant and nothing else */
                *f = (struct cell_formula){ .constant = c->out[(size_t)c->rs.run[h][0] *
                                                                   BF_CELLS + p * BF_N + i] };
                if (isfinite(f->constant) && formula_ok_everywhere(c, f, h, p, i))
                    continue;
                if (!one_term_changed(c, h, p, i, f) && !any_formula(c, h, p, i, false, f) &&
                    !any_formula(c, h, p, i, true, f))
                    return false;
            }
        }
    }
    return true;
}

bool decompile_outputs(const struct exercise *t, const struct gpu_run *runs, size_t nruns,
                       const float *out,
                       struct cell_formula formulas[BF_NHALVES][BF_PLANES][BF_N])
{
    struct decompile_ctx *c = malloc(sizeof *c);
    if (!c)
        return false;
    *c = (struct decompile_ctx){ .t = t, .runs = runs, .out = out };
    bool all = decompile_all(c, nruns, formulas);
    free(c);
    return all;
}

/* The name of input (plane, element) for cell i at half: ar, ai, br, bi
 * for the cell's own a and b. */
static void input_name(int plane, int element, int half, int i, char *buf, size_t size)
{
    int j = (i / half) % 2, base = i - j * half;
    if (element == base)
        snprintf(buf, size, "a%c", plane ? 'i' : 'r');
    else if (element == base + half)
        snprintf(buf, size, "b%c", plane ? 'i' : 'r');
    else
        snprintf(buf, size, "spectrum[%d][%d]", plane, element);
}

char *decompile_render(const struct cell_formula *f, int half, int i, char *buf, size_t size)
{
    /* terms on one input are one term: wr·bi + wi·bi is (wr + wi)·bi */
    struct merged_term {
        int plane, element;
        double coef;
    } merged[3];
    int n = 0;
    for (int k = 0; k < 3; k++) {
        const struct term *t = &f->term[k];
        if (!t->coef)
            continue;
        int m = 0;
        while (m < n && (merged[m].plane != t->plane || merged[m].element != t->element))
            m++;
        if (m == n)
            merged[n++] = (struct merged_term){ t->plane, t->element, 0.0 };
        merged[m].coef += coefs[(int)t->coef];
    }
    size_t len = 0;
    buf[0] = '\0';
    for (int m = 0; m < n; m++) {
        double x = merged[m].coef;
        if (fabs(x) < 1e-12)
            continue;
        char name[32], number[16] = "";
        input_name(merged[m].plane, merged[m].element, half, i, name, sizeof name);
        if (fabs(fabs(x) - 1) > 1e-12)
            snprintf(number, sizeof number, "%.4f·", fabs(x));
        int w = snprintf(buf + len, size - len, "%s%s%s", len == 0 ? (x < 0 ? "−" : "")
                                                                   : (x < 0 ? " − " : " + "),
                         number, name);
        if (w < 0 || (size_t)w >= size - len)
            return buf;
        len += (size_t)w;
    }
    double k = f->constant;
    if (fabs(k) > 1e-12) {
        int w = snprintf(buf + len, size - len, "%s%.4g", len == 0 ? (k < 0 ? "−" : "")
                                                                   : (k < 0 ? " − " : " + "),
                         fabs(k));
        if (w > 0 && (size_t)w < size - len)
            len += (size_t)w;
    }
    if (len == 0)
        snprintf(buf, size, "0");
    return buf;
}
