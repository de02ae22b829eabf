/* solved.c - mistakes read straight off the outputs: a half the kernel
 * never reads, a and b or their planes swapped, and the kernel's own
 * twiddle solved from the two planes of each cell.
 *
 * These are the mistakes students make that the family's formulas have no
 * row for (issue 32): each reading is a whole recipe with one step
 * replaced, checked on every cell of every run (visible and hidden) within
 * the task's tolerance, so that naming it is a claim proven on the
 * outputs, as every other diagnosis is.
 */
#include "engine/diagnosis/solved.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/diagnosis/family.h"
#include "engine/diagnosis/literal.h"
#include "engine/diagnosis/summary.h"
#include "engine/diagnosis/text.h"
#include "engine/reference.h"

/* One cell's right pair: the elements, the member, the recipe's twiddle. */
struct cell_pair {
    int j, a, b;
    double complex w;
};

static struct cell_pair pair_at(int half, int i)
{
    struct cell_pair p;
    p.j = (i / half) % 2;
    p.a = i - p.j * half;
    p.b = p.a + half;
    p.w = cexp(-I * M_PI * (double)(i % half) / (double)half);
    return p;
}

static double complex element(const struct gpu_run *run, int k, bool planes_swapped)
{
    double re = run->spec[k], im = run->spec[BF_N + k];
    return planes_swapped ? im + I * re : re + I * im;
}

/* Whether the value z, due at cell (plane, i) of run cr, is what the
 * kernel returned there. */
static bool cell_is(const struct exercise *t, const struct compared_run *cr, int i,
                    double complex z)
{
    double want[BF_PLANES] = { creal(z), cimag(z) };
    for (int p = 0; p < BF_PLANES; p++) {
        if (!isfinite(want[p]) ||
            !compare_cell(want[p], cr->got[p * BF_N + i], t->atol, t->rtol))
            return false;
    }
    return true;
}

/* ---- the recipe with a and b, or their planes, swapped ---- */

enum variant { SWAP_AB, SWAP_B_PLANES, SWAP_A_PLANES, SWAP_BOTH_PLANES, VARIANTS };

static double complex variant_value(enum variant v, const struct gpu_run *run, int i)
{
    struct cell_pair p = pair_at(run->half, i);
    double complex a = element(run, p.a, v == SWAP_A_PLANES || v == SWAP_BOTH_PLANES);
    double complex b = element(run, p.b, v == SWAP_B_PLANES || v == SWAP_BOTH_PLANES);
    if (v == SWAP_AB) {
        double complex x = a;
        a = b;
        b = x;
    }
    return p.j == 0 ? a + p.w * b : a - p.w * b;
}

static bool variant_matches(const struct comparison *c, enum variant v)
{
    for (size_t k = 0; k < c->nruns; k++)
        for (int i = 0; i < BF_N; i++)
            if (!cell_is(c->ex, &c->run[k], i, variant_value(v, c->run[k].run, i)))
                return false;
    return true;
}

/* ---- a half the kernel never reads ---- */

/* The half h0 whose right pass the kernel returns on every run of every
 * half, or 0 when there is none. */
static int fixed_half(const struct comparison *c)
{
    for (int h = 0; h < BF_NHALVES; h++) {
        int h0 = c->ex->sweep[h];
        bool all = true;
        for (size_t k = 0; k < c->nruns && all; k++) {
            double want[BF_PLANES][BF_N];
            float in[BF_PLANES][BF_N];
            memcpy(in, c->run[k].run->spec, sizeof in);
            reference_pass(in, h0, want);
            for (int i = 0; i < BF_N && all; i++)
                all = cell_is(c->ex, &c->run[k], i, want[0][i] + I * want[1][i]);
        }
        if (all)
            return h0;
    }
    return 0;
}

/* ---- the kernel's own twiddle ---- */

bool solved_twiddles(const struct comparison *c, double complex w[BF_NHALVES][BF_N])
{
    const struct exercise *t = c->ex;
    for (int h = 0; h < BF_NHALVES; h++) {
        int half = t->sweep[h];
        for (int i = 0; i < BF_N; i++) {
            struct cell_pair p = pair_at(half, i);
            /* solved on the run of this half where b is largest */
            const struct compared_run *best = NULL;
            double size = 0;
            for (size_t k = 0; k < c->nruns; k++) {
                if (c->run[k].run->half != half)
                    continue;
                double m = cabs(element(c->run[k].run, p.b, false));
                if (m > size) {
                    size = m;
                    best = &c->run[k];
                }
            }
            if (!best || size < 1e-3)
                return false;
            double complex got = best->got[i] + I * best->got[BF_N + i];
            double complex a = element(best->run, p.a, false), b = element(best->run, p.b, false);
            if (!isfinite(creal(got)) || !isfinite(cimag(got)))
                return false;
            /* got = a ± w·b: w = ±(got − a)/b */
            w[h][i] = (p.j == 0 ? 1 : -1) * (got - a) / b;
            for (size_t k = 0; k < c->nruns; k++) {
                const struct compared_run *cr = &c->run[k];
                if (cr->run->half != half)
                    continue;
                double complex ak = element(cr->run, p.a, false), bk = element(cr->run, p.b, false);
                if (!cell_is(t, cr, i, p.j == 0 ? ak + w[h][i] * bk : ak - w[h][i] * bk))
                    return false;
            }
        }
    }
    return true;
}

/* A complex number as the page writes it: the recipe's twiddles by name
 * (1, −i, e^(−iπ/4)), other numbers as re±im·i with three digits. */
void solved_add_complex(struct text *s, double complex z)
{
    for (int k = -7; k <= 8; k++) {
        if (cabs(z - cexp(I * M_PI * k / 8.0)) > 5e-4)
            continue;
        text_add_twiddle(s, k);
        return;
    }
    double re = fabs(creal(z)) < 5e-4 ? 0 : creal(z), im = fabs(cimag(z)) < 5e-4 ? 0 : cimag(z);
    if (im == 0) {
        text_add(s, "%s%.3g", re < 0 ? "−" : "", fabs(re));
        return;
    }
    if (re != 0)
        text_add(s, "%s%.3g", re < 0 ? "−" : "", fabs(re));
    text_add(s, "%s%.3gi", im < 0 ? "−" : re != 0 ? "+" : "", fabs(im));
}

enum w_kind { W_OFF_BY_PI, W_DEGREES, W_OTHER };

static bool all_twiddles(const struct exercise *t, const double complex w[BF_NHALVES][BF_N],
                         double complex (*rule)(int half, int i))
{
    for (int h = 0; h < BF_NHALVES; h++)
        for (int i = 0; i < BF_N; i++)
            if (cabs(w[h][i] - rule(t->sweep[h], i)) > 2e-3)
                return false;
    return true;
}

static double complex turned_by_pi(int half, int i)
{
    return -pair_at(half, i).w;
}

/* cos and sin of −180·r/half taken as radians */
static double complex in_degrees(int half, int i)
{
    return cexp(-I * 180.0 * (double)(i % half) / (double)half);
}

/* ---- the words ---- */

static struct diagnosis *made(struct text *id, struct text *title, struct text *why,
                              struct text *hint, const char *step, struct text *more)
{
    char *sid = text_take(id), *stitle = text_take(title), *swhy = text_take(why),
         *shint = text_take(hint), *smore = text_take(more);
    struct diagnosis *d = NULL;
    if (sid && stitle && swhy && shint) {
        d = diagnosis_new(sid, stitle, swhy, shint);
        if (d && !diagnosis_set_more(d, step, smore && smore[0] ? smore : NULL)) {
            diagnosis_free(d);
            d = NULL;
        }
    }
    free(sid);
    free(stitle);
    free(swhy);
    free(shint);
    free(smore);
    return d;
}

/* "; it shows at half 2 and 4 (half 1 is right)." */
static void add_where(struct text *s, const struct comparison *c)
{
    struct failure_map m;
    if (!summary_map(c, &m)) {
        text_add(s, ".");
        return;
    }
    unsigned all = (1u << BF_NHALVES) - 1;
    text_add(s, "; it shows at ");
    summary_add_halves(s, c->ex, m.halves);
    if (m.halves != all) {
        text_add(s, " (");
        summary_add_halves(s, c->ex, all & ~m.halves);
        text_add(s, " %s right)", __builtin_popcount(all & ~m.halves) > 1 ? "are" : "is");
    }
    if (!m.visible_wrong)
        text_add(s, ", on the hidden spectra only");
    text_add(s, ".");
}


static struct diagnosis *words_half(const struct comparison *c, int h0)
{
    struct text id = { 0 }, title = { 0 }, why = { 0 }, hint = { 0 }, more = { 0 };
    text_add(&id, "half_never_read");
    text_add(&title, "Your kernel never reads half");
    text_add(&why, "Every half gives the same outputs, the right ones for half = %d", h0);
    add_where(&why, c);
    text_add(&hint, "%s j, base, r and the angle all follow half, the kernel's parameter: "
             "use half itself, not a number of your own", family_hint_name(1));
    text_add(&more, "The kernel runs once per pass, with half = 1, then 2, then 4; on every "
             "spectrum yours returned the pass of half = %d, as if half were always %d.", h0, h0);
    return made(&id, &title, &why, &hint, "j", &more);
}

static struct diagnosis *words_variant(const struct comparison *c, enum variant v)
{
    static const struct {
        const char *id, *title, *what, *advice;
    } words[VARIANTS] = {
        [SWAP_AB] = { "a_b_swapped", "a and b are swapped",
                      "a is read from element base + half and b from element base, so the "
                      "kernel returns b ± w·a",
                      "a is element base, b is element base + half (b is the one w turns)" },
        [SWAP_B_PLANES] = { "b_planes_swapped", "b's real and imaginary parts are swapped",
                            "br is read from spectrum[1] and bi from spectrum[0]",
                            "br = spectrum[0][base + half], bi = spectrum[1][base + half]" },
        [SWAP_A_PLANES] = { "a_planes_swapped", "a's real and imaginary parts are swapped",
                            "ar is read from spectrum[1] and ai from spectrum[0]",
                            "ar = spectrum[0][base], ai = spectrum[1][base]" },
        [SWAP_BOTH_PLANES] = { "a_planes_swapped+b_planes_swapped",
                               "a's and b's real and imaginary parts are swapped",
                               "ar and br are read from spectrum[1], ai and bi from spectrum[0]",
                               "the real parts are in spectrum[0], the imaginary ones in "
                               "spectrum[1]" },
    };
    struct text id = { 0 }, title = { 0 }, why = { 0 }, hint = { 0 }, more = { 0 };
    text_add(&id, "%s", words[v].id);
    text_add(&title, "%s", words[v].title);
    text_add(&why, "%s", words[v].what);
    add_where(&why, c);
    text_add(&hint, "%s %s", family_hint_name(1), words[v].advice);
    text_add(&more, "Every cell, on the visible spectrum and the hidden ones, is what the recipe "
             "gives with this one change.");
    return made(&id, &title, &why, &hint, "read", &more);
}

static struct diagnosis *words_twiddle(const struct comparison *c,
                                       const double complex w[BF_NHALVES][BF_N],
                                       enum w_kind kind, unsigned literal)
{
    const struct exercise *t = c->ex;
    int count = 0, fh = -1, fi = -1;
    for (int rank = 1; rank <= BF_N; rank *= 2) {
        int h = summary_half_index(t, rank);
        for (int i = 0; h >= 0 && i < BF_N; i++) {
            if (cabs(w[h][i] - pair_at(rank, i).w) <= 2e-3)
                continue;
            if (count++ == 0) {
                fh = h;
                fi = i;
            }
        }
    }
    if (count == 0)
        return NULL;
    struct text id = { 0 }, title = { 0 }, why = { 0 }, hint = { 0 }, more = { 0 };
    static const char *const ids[] = { "twiddle_off_by_pi", "angle_in_degrees", "wrong_twiddle" };
    static const char *const titles[] = { "The twiddle is off by π", "The angle is in degrees",
                                          "The twiddle is wrong in some cells" };
    text_add(&id, "%s", ids[kind]);
    text_add(&title, "%s", titles[kind]);
    int half = t->sweep[fh];
    if (kind == W_DEGREES)
        text_add(&why, "cos and sin take radians: ");
    text_add(&why, "%s w is ", kind == W_DEGREES ? "your" : "Your");
    solved_add_complex(&why, w[fh][fi]);
    text_add(&why, " where ");
    solved_add_complex(&why, pair_at(half, fi).w);
    text_add(&why, " is due at half = %d, i = %d", half, fi);
    if (kind == W_OFF_BY_PI)
        text_add(&why, ", and in every cell it is −w, the recipe's twiddle turned half a turn");
    else if (count > 1)
        text_add(&why, " (%d cells of 24)", count);
    add_where(&why, c);
    text_add(&hint, "%s ", family_hint_name(2));
    if (kind == W_DEGREES)
        text_add(&hint, "the angle is −PI * float(r) / float(half), in radians (−180·r/half "
                 "degrees is that angle only when converted)");
    else
        text_add(&hint, "w = e^(−iπ·r/half): wr = cos(-PI * float(r) / float(half)), "
                 "wi = sin(the same angle)");
    text_add(&more, "Your w is solved from the two planes of each cell, w = ±(got − a)/b, with "
             "a, b and the sign the recipe's: every cell of every run fits it.");
    if (kind == W_OFF_BY_PI && !(literal & LITERAL_SIGN))
        text_add(&more, " Equivalently, the same numbers come from the lower and upper members "
                 "swapped (a − w·b where j = 0).");
    return made(&id, &title, &why, &hint, "w", &more);
}

struct diagnosis *solved_structure(const struct comparison *c, bool half_too, bool reads_too)
{
    for (int v = 0; v < VARIANTS && reads_too; v++)
        if (variant_matches(c, (enum variant)v))
            return words_variant(c, (enum variant)v);
    if (!half_too)
        return NULL;
    /* proven on every run, hidden ones too: the right pass of one half */
    int h0 = fixed_half(c);
    return h0 ? words_half(c, h0) : NULL;
}

struct diagnosis *solved_twiddle(const struct comparison *c, unsigned literal)
{
    double complex (*w)[BF_N] = malloc(BF_NHALVES * sizeof *w);
    struct diagnosis *d = NULL;
    /* a twiddle is cos and sin of one angle: a w of another size is a
     * scale or a sign of the ending, not the twiddle */
    bool unit = w && solved_twiddles(c, w);
    for (int h = 0; unit && h < BF_NHALVES; h++)
        for (int i = 0; i < BF_N; i++)
            unit &= fabs(cabs(w[h][i]) - 1) < 2e-3;
    if (unit) {
        enum w_kind kind = all_twiddles(c->ex, w, turned_by_pi) ? W_OFF_BY_PI
                         : all_twiddles(c->ex, w, in_degrees)   ? W_DEGREES
                                                                  : W_OTHER;
        d = words_twiddle(c, w, kind, literal);
    }
    free(w);
    return d;
}
