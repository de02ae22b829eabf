/* describe.c - a member of the family that explains a kernel's outputs,
 * in words: how it differs from the right formula, where it shows, what
 * else gives the same numbers, and which of the page's hints helps. */
#include "engine/diagnosis/describe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/diagnosis/summary.h"
#include "engine/diagnosis/text.h"

const char describe_values_title[] = "Some values";

/* The diagnosis the four texts spell, taking (and emptying) them; NULL on
 * OOM. */
static struct diagnosis *diagnosis_from_texts(struct text *id, struct text *title,
                                              struct text *why, struct text *hint)
{
    char *sid = text_take(id), *stitle = text_take(title), *swhy = text_take(why),
         *shint = text_take(hint);
    struct diagnosis *d = NULL;
    if (sid && stitle && swhy && shint)
        d = diagnosis_new(sid, stitle, swhy, shint);
    free(sid);
    free(stitle);
    free(swhy);
    free(shint);
    return d;
}

/* The free-form explanation's aspects: what a cell takes. */
enum aspect { ASPECT_A, ASPECT_B, ASPECT_W, ASPECT_SIGN, ASPECT_PART, ASPECT_CONSTANT,
              ASPECTS };

static const struct {
    const char *id, *noun;
    int hint;
    const char *advice;
} aspects[ASPECTS] = {
    [ASPECT_A] = { "wrong_a", "a", 1, "a is element base, b is element base + half, with "
                   "j = (i / half) % 2 and base = i - j * half" },
    [ASPECT_B] = { "wrong_b", "b", 1, "a is element base, b is element base + half, with "
                   "j = (i / half) % 2 and base = i - j * half" },
    [ASPECT_W] = { "wrong_twiddle", "w", 2, "w = e^(−iπ·r/half) with r = i % half" },
    [ASPECT_SIGN] = { "wrong_sign", "sign", 3, "a + w·b where j = 0, a − w·b where j = 1, "
                      "with tr = wr * br - wi * bi and ti = wr * bi + wi * br" },
    [ASPECT_PART] = { "wrong_part", "part of w·b", 3, "the real plane takes tr = wr * br - "
                      "wi * bi, the imaginary plane ti = wr * bi + wi * br" },
    [ASPECT_CONSTANT] = { "stray_constant", "constant", 3, "a ± w·b adds no number of "
                          "its own: look for i, half, r or PI where an input or a twiddle "
                          "belongs" },
};

const char *describe_aspect_id(int k)
{
    return k >= 0 && k < ASPECTS ? aspects[k].id : NULL;
}

/* One mistake of a member: its parameter and value. */
struct mistake {
    enum family_param param;
    int value;
};

static size_t mistakes_of(const struct family_member *m, struct mistake out[FAMILY_NPARAMS])
{
    size_t n = 0;
    for (int p = 0; p < FAMILY_NPARAMS; p++)
        if (m->v[p])
            out[n++] = (struct mistake){ (enum family_param)p, m->v[p] };
    return n;
}

static const struct family_value *value_of(struct mistake k)
{
    return &family_param(k.param)->values[k.value];
}

static int hint_of(struct mistake k)
{
    return value_of(k)->hint ? value_of(k)->hint : family_param(k.param)->hint;
}

static const char *advice_of(struct mistake k)
{
    return value_of(k)->advice ? value_of(k)->advice : family_param(k.param)->advice;
}

/* A number as the report writes it, with the infinities by name. */
static void add_number(struct text *s, double x)
{
    if (isinf(x))
        text_add(s, "%s", x > 0 ? "Infinity" : "−Infinity");
    else
        text_add(s, "%.6g", x);
}

/* What member m does, as clauses joined by "and". */
static void add_whats(struct text *s, const struct family_member *m)
{
    struct mistake ks[FAMILY_NPARAMS];
    size_t n = mistakes_of(m, ks);
    for (size_t k = 0; k < n; k++) {
        text_add(s, "%s%s", k == 0 ? "" : k + 1 == n ? ", and " : ", ", value_of(ks[k])->what);
        if (ks[k].param == FP_OUTPUT && ks[k].value == family_param(FP_OUTPUT)->nvalues - 1) {
            text_add(s, ", ");
            add_number(s, m->constant);
        }
    }
}

/* The angle of w = e^(iπk/8) as the page writes twiddles. */
static void add_twiddle(struct text *s, int k)
{
    k = ((k % 16) + 16) % 16;
    int signed_k = k > 8 ? k - 16 : k;
    switch (signed_k) {
    case 0: text_add(s, "1"); return;
    case 8: text_add(s, "−1"); return;
    case 4: text_add(s, "i"); return;
    case -4: text_add(s, "−i"); return;
    }
    int num = abs(signed_k), den = 8;
    while (num % 2 == 0) {
        num /= 2;
        den /= 2;
    }
    const char *sign = signed_k < 0 ? "−" : "";
    if (num == 1)
        text_add(s, "e^(%siπ/%d)", sign, den);
    else
        text_add(s, "e^(%siπ·%d/%d)", sign, num, den);
}

static const char *op_words(int op)
{
    return op == OP_MINUS ? "a − w·b" : op == OP_REVERSED ? "w·b − a" : "a + w·b";
}

/* One aspect of a free-form explanation: how many cells take the wrong
 * number, and the first of them (smallest half first). */
static void add_aspect(struct text *s, const struct task *t, const struct search_found *f,
                       enum aspect a, const struct family_pair right[TASK_NHALVES][TASK_N])
{
    int count = 0, first_h = -1, first_i = -1;
    for (int rank = 1; rank <= TASK_N; rank *= 2) {
        int h = summary_half_index(t, rank);
        if (h < 0)
            continue;
        for (int i = 0; i < TASK_N; i++) {
            const struct family_pair *x = &f->pairs[h][i], *y = &right[h][i];
            bool differs = a == ASPECT_A ? x->a != y->a : a == ASPECT_B ? x->b != y->b
                         : a == ASPECT_W ? x->k != y->k : x->op != y->op;
            if (!differs)
                continue;
            if (count++ == 0) {
                first_h = h;
                first_i = i;
            }
        }
    }
    if (count == 0)
        return;
    const struct family_pair *x = &f->pairs[first_h][first_i], *y = &right[first_h][first_i];
    text_add(s, "%s", s->len ? "; " : "");
    switch (a) {
    case ASPECT_A:
        text_add(s, "a is element %d where element %d (base) is due", x->a, y->a);
        break;
    case ASPECT_B:
        text_add(s, "b is element %d where element %d (base + half) is due", x->b, y->b);
        break;
    case ASPECT_W:
        text_add(s, "w is ");
        add_twiddle(s, x->k);
        text_add(s, " where ");
        add_twiddle(s, y->k);
        text_add(s, " is due");
        break;
    default:
        text_add(s, "the cell returns %s where %s is due", op_words(x->op), op_words(y->op));
        break;
    }
    text_add(s, " at half = %d, i = %d", t->halves[first_h], first_i);
    if (count > 1)
        text_add(s, " (%d cells of 24 in all)", count);
}

/* Which aspects of a free-form explanation differ from the right pairs. */
static unsigned aspects_of(const struct search_found *f,
                           const struct family_pair right[TASK_NHALVES][TASK_N])
{
    unsigned mask = 0;
    for (int h = 0; h < TASK_NHALVES; h++) {
        for (int i = 0; i < TASK_N; i++) {
            mask |= (f->pairs[h][i].a != right[h][i].a) << ASPECT_A;
            mask |= (f->pairs[h][i].b != right[h][i].b) << ASPECT_B;
            mask |= (f->pairs[h][i].k != right[h][i].k) << ASPECT_W;
            mask |= (f->pairs[h][i].op != right[h][i].op) << ASPECT_SIGN;
        }
    }
    return mask;
}

/* The id: the mistakes' ids in family order, then the aspects', by '+'. */
static void add_id(struct text *s, const struct search_found *f, unsigned aspect_mask)
{
    struct mistake ks[FAMILY_NPARAMS];
    size_t n = mistakes_of(&f->member, ks), said = 0;
    for (size_t k = 0; k < n; k++)
        text_add(s, "%s%s", said++ ? "+" : "", value_of(ks[k])->id);
    for (int a = 0; a < ASPECTS; a++)
        if ((aspect_mask >> a) & 1)
            text_add(s, "%s%s", said++ ? "+" : "", aspects[a].id);
}

static const char *const counts[] = { "", "One", "Two", "Three", "Four", "Five", "Six" };

/* A heading with its first letter made small, to follow a colon or comma. */
static void add_lowered(struct text *s, const char *title)
{
    if (title[0] >= 'A' && title[0] <= 'Z')
        text_add(s, "%c%s", title[0] - 'A' + 'a', title + 1);
    else
        text_add(s, "%s", title);
}

static void add_title(struct text *s, const struct search_found *f, unsigned aspect_mask)
{
    struct mistake ks[FAMILY_NPARAMS];
    size_t n = mistakes_of(&f->member, ks);
    if (f->tables) {
        for (size_t k = 0; k < n; k++) {
            text_add(s, "%s", value_of(ks[k])->title);
            text_add(s, ", and ");
        }
        text_add(s, "a ± w·b with the wrong");
        int total = 0, said = 0;
        for (int a = 0; a < ASPECTS; a++)
            total += (aspect_mask >> a) & 1;
        for (int a = 0; a < ASPECTS; a++)
            if ((aspect_mask >> a) & 1)
                text_add(s, "%s %s", said++ == 0 ? "" : said == total ? " and" : ",", aspects[a].noun);
        return;
    }
    if (n == 1) {
        text_add(s, "%s", value_of(ks[0])->title);
        return;
    }
    text_add(s, "%s mistakes at once: ", n < sizeof counts / sizeof counts[0] ? counts[n] : "Several");
    for (size_t k = 0; k < n; k++) {
        text_add(s, "%s", k == 0 ? "" : k + 1 == n ? ", and " : ", ");
        add_lowered(s, value_of(ks[k])->title);
    }
}

/* "It shows at half = 2 and 4; half = 1 is right." from the outputs. */
static void add_where(struct text *s, const struct comparison *c)
{
    const struct task *t = c->task;
    struct failure_map m;
    if (!summary_map(c, &m))
        return;
    unsigned all = (1u << TASK_NHALVES) - 1;
    text_add(s, " It shows at ");
    summary_add_halves(s, t, m.halves);
    if (m.halves != all) {
        text_add(s, "; ");
        summary_add_halves(s, t, all & ~m.halves);
        text_add(s, " %s right", __builtin_popcount(all & ~m.halves) > 1 ? "are" : "is");
    }
    text_add(s, ".");
}

/* The page's hints that help, each once, in the page's order. */
static void add_hints(struct text *s, const struct search_result *res, unsigned aspect_mask)
{
    const char *advice[4][8];
    size_t nadvice[4] = { 0 };
    size_t shown = res->n < 4 ? res->n : 4;
    for (size_t e = 0; e < shown; e++) {
        struct mistake ks[FAMILY_NPARAMS];
        size_t n = mistakes_of(&res->found[e].member, ks);
        for (size_t k = 0; k < n + ASPECTS; k++) {
            int hint;
            const char *text;
            if (k < n) {
                hint = hint_of(ks[k]);
                text = advice_of(ks[k]);
            } else if (e == 0 && ((aspect_mask >> (k - n)) & 1)) {
                hint = aspects[k - n].hint;
                text = aspects[k - n].advice;
            } else {
                continue;
            }
            bool again = false;
            for (size_t a = 0; a < nadvice[hint]; a++)
                again |= advice[hint][a] == text || !strcmp(advice[hint][a], text);
            if (!again && nadvice[hint] < 8)
                advice[hint][nadvice[hint]++] = text;
        }
    }
    for (int h = 1, said = 0; h <= 3; h++) {
        if (!nadvice[h])
            continue;
        const char *name = family_hint_name(h);
        text_add(s, "%s%s%s", said++ ? "; " : "", name, name[strlen(name) - 1] == '?' ? " " : ": ");
        for (size_t a = 0; a < nadvice[h]; a++)
            text_add(s, "%s%s", a ? "; " : "", advice[h][a]);
    }
}

struct diagnosis *describe_member(const struct comparison *c, const struct search_result *res)
{
    const struct task *t = c->task;
    if (!res || res->n == 0)
        return NULL;
    const struct search_found *f = &res->found[0];
    static const struct family_member right_member;
    struct family_pair right[TASK_NHALVES][TASK_N];
    for (int h = 0; h < TASK_NHALVES; h++)
        for (int i = 0; i < TASK_N; i++)
            family_pair_of(&right_member, t->halves[h], i, &right[h][i]);
    unsigned aspect_mask = f->tables ? aspects_of(f, right) : 0;

    struct text id = { 0 }, title = { 0 }, why = { 0 }, hint = { 0 };
    add_id(&id, f, aspect_mask);
    add_title(&title, f, aspect_mask);

    struct mistake ks[FAMILY_NPARAMS];
    size_t n = mistakes_of(&f->member, ks);
    text_add(&why, "Every cell, on the visible spectrum and on the hidden ones, is what the "
              "butterfly gives when ");
    if (n > 0)
        add_whats(&why, &f->member);
    if (f->tables) {
        /* the aspects, each with its first wrong cell */
        struct text detail = { 0 };
        for (int a = 0; a < ASPECTS; a++)
            if ((aspect_mask >> a) & 1)
                add_aspect(&detail, t, f, (enum aspect)a, right);
        text_add(&why, "%sit returns a ± w·b with numbers that are not the right ones: %s.",
            n > 0 ? ", and " : "", detail.buf ? detail.buf : "");
        free(detail.buf);
    } else {
        text_add(&why, ".");
    }
    if (n > 0) {
        text_add(&why, " The right formula: ");
        for (size_t k = 0, said = 0; k < n; k++) {
            /* one parameter's right formula can stand for two mistakes */
            bool again = false;
            for (size_t e = 0; e < k; e++)
                again |= family_param(ks[e].param)->due == family_param(ks[k].param)->due;
            if (!again)
                text_add(&why, "%s%s", said++ ? "; " : "", family_param(ks[k].param)->due);
        }
        text_add(&why, ".");
    }
    add_where(&why, c);
    if (res->n > 1) {
        text_add(&why, " The same numbers come from a kernel where ");
        size_t shown = res->n < 4 ? res->n : 4;
        for (size_t e = 1; e < shown; e++) {
            text_add(&why, "%s", e == 1 ? "" : "; or where ");
            add_whats(&why, &res->found[e].member);
        }
        size_t others = res->n - shown + res->more;
        if (others > 0)
            text_add(&why, "; or %zu other such mistake%s", others, others > 1 ? "s" : "");
        text_add(&why, ".");
    }
    add_hints(&hint, res, aspect_mask);

    return diagnosis_from_texts(&id, &title, &why, &hint);
}

/* ---- values read back as formulas ---- */

/* Whether the product terms of f are those of g (in either order), with
 * every coefficient times `sign`. */
static bool same_products(const struct cell_formula *f, const struct cell_formula *g,
                          int sign)
{
    struct term x[2] = { f->term[1], f->term[2] }, y[2] = { g->term[1], g->term[2] };
    for (int k = 0; k < 2; k++) {
        double c = sign * decompile_coef(y[k].coef);
        for (int n = 0; n < DECOMPILE_COEFS; n++)
            if (y[k].coef && fabs(decompile_coef(n) - c) < 1e-12)
                y[k].coef = (signed char)n;
    }
    return (decompile_same_term(&x[0], &y[0]) && decompile_same_term(&x[1], &y[1])) ||
           (decompile_same_term(&x[0], &y[1]) && decompile_same_term(&x[1], &y[0]));
}

/* The inputs of the product terms with a coefficient, as a bit mask. */
static unsigned product_inputs(const struct cell_formula *f)
{
    unsigned mask = 0;
    for (int k = 1; k < 3; k++)
        if (f->term[k].coef)
            mask |= 1u << (f->term[k].plane * TASK_N + f->term[k].element);
    return mask;
}

/* Whether f's product terms take the inputs g's do, with coefficients of
 * the same size. */
static bool same_sizes(const struct cell_formula *f, const struct cell_formula *g)
{
    if (product_inputs(f) != product_inputs(g))
        return false;
    for (int k = 1; k < 3; k++) {
        bool found = !f->term[k].coef;
        for (int n = 1; n < 3 && !found; n++)
            found = g->term[n].coef && g->term[n].plane == f->term[k].plane &&
                    g->term[n].element == f->term[k].element &&
                    fabs(fabs(decompile_coef(g->term[n].coef)) -
                         fabs(decompile_coef(f->term[k].coef))) < 1e-12;
        if (!found)
            return false;
    }
    return true;
}

/*
 * The ways of telling what differs between a value's formula f and the due
 * one: alternatives, each a mask of aspects, since one value can read as
 * more than one mistake (where |wr| = |wi|, a lost sign and the other part
 * of w·b give the same formula). Returns how many.
 */
static int formula_aspects(const struct cell_formula *f, int half, int i, int p,
                           unsigned alternatives[ASPECTS])
{
    struct cell_formula due, other;
    decompile_due(half, i, p, &due);
    decompile_due(half, i, 1 - p, &other);
    unsigned a = decompile_same_term(&f->term[0], &due.term[0]) ? 0 : 1u << ASPECT_A;
    if (f->constant != 0)
        a |= 1u << ASPECT_CONSTANT;
    int n = 0;
    if (same_products(f, &due, 1)) {
        alternatives[n++] = a;
        return n;
    }
    if (same_products(f, &due, -1) || same_sizes(f, &due))
        alternatives[n++] = a | 1u << ASPECT_SIGN;
    if (same_products(f, &other, 1) || same_products(f, &other, -1))
        alternatives[n++] = a | 1u << ASPECT_PART;
    if (product_inputs(f) == product_inputs(&due))
        alternatives[n++] = a | 1u << ASPECT_W;
    else
        alternatives[n++] = a | 1u << ASPECT_B;
    return n;
}

/* How much a set of aspects claims: fewer aspects first, then the more
 * specific ones (a different twiddle is what any other change of the
 * coefficients also looks like). */
static int aspects_cost(unsigned m)
{
    static const int rank[ASPECTS] = { [ASPECT_A] = 0, [ASPECT_B] = 1, [ASPECT_SIGN] = 2,
                                       [ASPECT_PART] = 3, [ASPECT_W] = 4,
                                       [ASPECT_CONSTANT] = 5 };
    int cost = 0;
    for (int a = 0; a < ASPECTS; a++)
        if ((m >> a) & 1)
            cost += 100 + rank[a];
    return cost;
}

/* The fewest aspects that tell what differs at every wrong value. */
static unsigned fewest_aspects(const unsigned alternatives[][ASPECTS], const int *nalts,
                               int nvalues)
{
    unsigned best = (1u << ASPECTS) - 1;
    for (unsigned m = 0; m < 1u << ASPECTS; m++) {
        if (aspects_cost(m) >= aspects_cost(best))
            continue;
        bool covers = true;
        for (int v = 0; v < nvalues && covers; v++) {
            bool some = false;
            for (int k = 0; k < nalts[v]; k++)
                some |= (alternatives[v][k] & ~m) == 0;
            covers = some;
        }
        if (covers)
            best = m;
    }
    return best;
}

/* The page's hints for a set of aspects, each hint once with its advice. */
static void add_aspect_hints(struct text *s, unsigned mask)
{
    for (int h = 1, said = 0; h <= 3; h++) {
        int given = 0;
        for (int a = 0; a < ASPECTS; a++) {
            if (!((mask >> a) & 1) || aspects[a].hint != h)
                continue;
            bool again = false;
            for (int b = 0; b < a; b++)
                again |= ((mask >> b) & 1) && !strcmp(aspects[b].advice, aspects[a].advice);
            if (again)
                continue;
            const char *name = family_hint_name(h);
            if (given++ == 0)
                text_add(s, "%s%s%s", said++ ? "; " : "", name,
                    name[strlen(name) - 1] == '?' ? " " : ": ");
            else
                text_add(s, "; ");
            text_add(s, "%s", aspects[a].advice);
        }
    }
}

/* The explanation of outputs read back as formulas, value by value. */
struct diagnosis *describe_formulas(
    const struct comparison *c,
    const struct cell_formula formulas[TASK_NHALVES][TASK_PLANES][TASK_N])
{
    const struct task *t = c->task;
    static const char *const parts[TASK_PLANES] = { "real", "imaginary" };
    unsigned examples_shown = 0;
    int wrong = 0;
    unsigned alternatives[TASK_NHALVES * TASK_CELLS][ASPECTS];
    int nalts[TASK_NHALVES * TASK_CELLS];
    struct text examples = { 0 };
    for (int rank = 1; rank <= TASK_N; rank *= 2) {
        int h = summary_half_index(t, rank);
        for (int p = 0; h >= 0 && p < TASK_PLANES; p++) {
            bool shown_here = false;
            for (int i = 0; i < TASK_N; i++) {
                struct cell_formula due;
                decompile_due(rank, i, p, &due);
                const struct cell_formula *f = &formulas[h][p][i];
                if (decompile_equal(f, &due))
                    continue;
                nalts[wrong] = formula_aspects(f, rank, i, p, alternatives[wrong]);
                wrong++;
                /* the first wrong value of each half and plane, three at most */
                if (shown_here || examples_shown == 3)
                    continue;
                char got[128], want[128];
                text_add(&examples, "%sat half = %d, i = %d the %s part is %s where %s is due",
                    examples_shown++ ? "; " : "", rank, i, parts[p],
                    decompile_render(f, rank, i, got, sizeof got),
                    decompile_render(&due, rank, i, want, sizeof want));
                shown_here = true;
            }
        }
    }
    unsigned mask = fewest_aspects(alternatives, nalts, wrong);
    struct text id = { 0 }, title = { 0 }, why = { 0 }, hint = { 0 };
    int total = 0, said = 0;
    for (int a = 0; a < ASPECTS; a++)
        total += (mask >> a) & 1;
    bool constant = (mask >> ASPECT_CONSTANT) & 1;
    for (int a = 0; a < ASPECTS; a++)
        if ((mask >> a) & 1)
            text_add(&id, "%s%s", said++ ? "+" : "", aspects[a].id);
    /* "Some values take the wrong a and b, and add a constant" */
    text_add(&title, "%s", describe_values_title);
    total -= constant;
    said = 0;
    for (int a = 0; a < ASPECTS; a++) {
        if (!((mask >> a) & 1) || a == ASPECT_CONSTANT)
            continue;
        text_add(&title, "%s %s", said == 0 ? " take the wrong" : said == total - 1 ? " and" : ",",
            aspects[a].noun);
        said++;
    }
    if (constant)
        text_add(&title, "%s add a constant", total ? ", and" : "");
    text_add(&why, "Every value, on the visible spectrum and on the hidden ones, is one number of "
              "the spectrum plus or minus at most two others times a cos or sin of a twiddle "
              "(and maybe a constant), but %d of the 48 values do not take the numbers the "
              "butterfly takes: %s.",
        wrong, examples.buf ? examples.buf : "");
    free(examples.buf);
    add_where(&why, c);
    add_aspect_hints(&hint, mask);
    return diagnosis_from_texts(&id, &title, &why, &hint);
}
