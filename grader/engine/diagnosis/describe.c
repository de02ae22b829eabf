/* describe.c - a member of the family that explains a kernel's outputs,
 * in words: how it differs from the right formula, where it shows, what
 * else gives the same numbers, and which of the page's hints helps. */
#include "engine/diagnosis/describe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/diagnosis/cues.h"
#include "engine/diagnosis/literal.h"
#include "engine/diagnosis/summary.h"
#include "engine/diagnosis/text.h"

const char describe_values_title[] = "Some values";

/* The diagnosis the texts spell, taking (and emptying) them; NULL on OOM. */
static struct diagnosis *diagnosis_from_texts(struct text *id, struct text *title,
                                              struct text *why, struct text *hint,
                                              const char *step, struct text *more)
{
    char *sid = text_take(id), *stitle = text_take(title), *swhy = text_take(why),
         *shint = text_take(hint), *smore = text_take(more);
    struct diagnosis *d = NULL;
    if (sid && stitle && swhy && shint && smore) {
        d = diagnosis_new(sid, stitle, swhy, shint);
        if (d && !diagnosis_set_more(d, step, smore[0] ? smore : NULL)) {
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

/* The free-form explanation's aspects: what a cell takes. */
enum aspect { ASPECT_A, ASPECT_B, ASPECT_W, ASPECT_SIGN, ASPECT_PART, ASPECT_CONSTANT,
              ASPECTS };

static const struct {
    const char *id, *noun, *step;
    int hint;
    const char *advice;
} aspects[ASPECTS] = {
    [ASPECT_A] = { "wrong_a", "a", "read", 1, "a is element base, b is element base + half, with "
                   "j = (i / half) % 2 and base = i - j * half" },
    [ASPECT_B] = { "wrong_b", "b", "read", 1, "a is element base, b is element base + half, with "
                   "j = (i / half) % 2 and base = i - j * half" },
    [ASPECT_W] = { "wrong_twiddle", "w", "w", 2, "w = e^(−iπ·r/half) with r = i % half" },
    [ASPECT_SIGN] = { "wrong_sign", "sign", "sign", 3, "a + w·b where j = 0, a − w·b where j = 1, "
                      "with tr = wr * br - wi * bi and ti = wr * bi + wi * br" },
    [ASPECT_PART] = { "wrong_part", "part of w·b", "wb", 3, "the real plane takes tr = wr * br - "
                      "wi * bi, the imaginary plane ti = wr * bi + wi * br" },
    [ASPECT_CONSTANT] = { "stray_constant", "constant", "w", 3, "a ± w·b adds no number of "
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

static const char *op_words(int op)
{
    return op == OP_MINUS ? "a − w·b" : op == OP_REVERSED ? "w·b − a" : "a + w·b";
}

/* One aspect of a free-form explanation: how many cells take the wrong
 * number, and the first of them (smallest half first). */
static void add_aspect(struct text *s, const struct exercise *t, const struct search_found *f,
                       enum aspect a, const struct family_pair right[BF_NHALVES][BF_N])
{
    int count = 0, first_h = -1, first_i = -1;
    for (int rank = 1; rank <= BF_N; rank *= 2) {
        int h = summary_half_index(t, rank);
        if (h < 0)
            continue;
        for (int i = 0; i < BF_N; i++) {
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
        text_add_twiddle(s, x->k);
        text_add(s, " where ");
        text_add_twiddle(s, y->k);
        text_add(s, " is due");
        break;
    default:
        text_add(s, "the cell returns %s where %s is due", op_words(x->op), op_words(y->op));
        break;
    }
    text_add(s, " at half = %d, i = %d", t->sweep[first_h], first_i);
    if (count > 1)
        text_add(s, " (%d cells of 24 in all)", count);
}

/* Which aspects of a free-form explanation differ from the right pairs. */
static unsigned aspects_of(const struct search_found *f,
                           const struct family_pair right[BF_NHALVES][BF_N])
{
    unsigned mask = 0;
    for (int h = 0; h < BF_NHALVES; h++) {
        for (int i = 0; i < BF_N; i++) {
            mask |= (f->pairs[h][i].a != right[h][i].a) << ASPECT_A;
            mask |= (f->pairs[h][i].b != right[h][i].b) << ASPECT_B;
            mask |= (f->pairs[h][i].k != right[h][i].k) << ASPECT_W;
            mask |= (f->pairs[h][i].op != right[h][i].op) << ASPECT_SIGN;
        }
    }
    return mask;
}

/* What one step, taking values of its own, is called in ids and titles. */
static const struct {
    const char *id, *step, *title, *alone;
    int hint;
    const char *advice;
} step_readings[SEARCH_STEPS] = {
    [SEARCH_STEP_J] = { "wrong_j", "j", "j is not (i / half) % 2 in some cells", "a wrong j alone", 1,
                        "j = (i / half) % 2 is 0 for the lower member and 1 for the upper "
                        "one, never anything else" },
    [SEARCH_STEP_BASE] = { "wrong_base", "base", "base is not i − j·half in some cells", "a wrong base alone", 1,
                           "base = i - j * half lands both members of a pair on the same "
                           "base" },
    [SEARCH_STEP_R] = { "wrong_r", "r", "r is not i % half in some cells", "a wrong r alone", 2,
                        "r = i % half, the place inside the half-block, is all w depends "
                        "on" },
    [SEARCH_STEP_W] = { "wrong_twiddle", "w", "The twiddle is wrong in some cells", "a wrong twiddle alone", 2,
                        "w = e^(−iπ·r/half) with r = i % half" },
    [SEARCH_STEP_SIGN] = { "wrong_sign", "sign", "The sign before w·b is wrong in some cells", "a wrong sign alone",
                           3, "a + w·b where j = 0, a − w·b where j = 1" },
    [SEARCH_STEP_READ] = { "wrong_read", "read", "a or b read from the wrong element", "a wrong element read alone", 1,
                           "a is element base, b is element base + half" },
};

/* The id: the mistakes' ids in family order, then the step's or the
 * aspects', by '+'. */
static void add_id(struct text *s, const struct search_found *f, unsigned aspect_mask)
{
    struct mistake ks[FAMILY_NPARAMS];
    size_t n = mistakes_of(&f->member, ks), said = 0;
    for (size_t k = 0; k < n; k++)
        text_add(s, "%s%s", said++ ? "+" : "", value_of(ks[k])->id);
    if (f->tables && f->step != SEARCH_STEP_NONE) {
        text_add(s, "%s%s", said++ ? "+" : "", step_readings[f->step].id);
        return;
    }
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

/* A clause made to open a sentence: its first word capitalised when it
 * is an English one; one that opens with a name of the code ("w = ...",
 * "base is", "tr = ...") stays as written. */
static void add_capital(struct text *s, const char *clause)
{
    static const char *const words[] = { "every ", "each ", "both ", "the ", "at " };
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
        if (!strncmp(clause, words[k], strlen(words[k]))) {
            text_add(s, "%c%s", clause[0] - 'a' + 'A', clause + 1);
            return;
        }
    }
    text_add(s, "%s", clause);
}

/* An integer with the page's minus sign. */
static void add_int(struct text *s, int x)
{
    text_add(s, x < 0 ? "−%d" : "%d", x < 0 ? -x : x);
}

static void add_title(struct text *s, const struct search_found *f)
{
    struct mistake ks[FAMILY_NPARAMS];
    size_t n = mistakes_of(&f->member, ks);
    if (f->tables) {
        for (size_t k = 0; k < n; k++)
            text_add(s, "%s, and ", value_of(ks[k])->title);
        if (f->step != SEARCH_STEP_NONE)
            text_add(s, "%s", n ? "" : step_readings[f->step].title);
        if (n && f->step != SEARCH_STEP_NONE)
            add_lowered(s, step_readings[f->step].title);
        if (f->step == SEARCH_STEP_NONE)
            text_add(s, "%s", n ? "the wrong pair, twiddle or sign in some cells"
                                : "The wrong pair, twiddle or sign in some cells");
        return;
    }
    if (n == 1) {
        text_add(s, "%s", value_of(ks[0])->title);
        return;
    }
    text_add(s, "%s mistakes: ", n < sizeof counts / sizeof counts[0] ? counts[n] : "Several");
    for (size_t k = 0; k < n; k++) {
        text_add(s, "%s", k == 0 ? "" : k + 1 == n ? ", and " : ", ");
        add_lowered(s, value_of(ks[k])->title);
    }
}

/* "; it shows at half 2 and 4 (half 1 is right)." from the outputs. */
static void add_where(struct text *s, const struct comparison *c)
{
    const struct exercise *t = c->ex;
    struct failure_map m;
    if (!summary_map(c, &m)) {
        text_add(s, ".");
        return;
    }
    unsigned all = (1u << BF_NHALVES) - 1;
    text_add(s, "; it shows at ");
    summary_add_halves(s, t, m.halves);
    if (m.halves != all) {
        text_add(s, " (");
        summary_add_halves(s, t, all & ~m.halves);
        text_add(s, " %s right)", __builtin_popcount(all & ~m.halves) > 1 ? "are" : "is");
    }
    if (!m.visible_wrong)
        text_add(s, ", on the hidden spectra only");
    text_add(s, ".");
}

/* One hint of the page, with what it says to do: the lead mistake's. */
static void add_one_hint(struct text *s, int hint, const char *advice)
{
    const char *name = family_hint_name(hint);
    if (!name[0])
        name = family_hint_name(3);
    text_add(s, "%s%s%s", name, name[strlen(name) - 1] == '?' ? " " : ": ", advice);
}

/* How many of a found member's mistakes its own code shows. */
static int cue_count(const struct search_found *f, const char *compact)
{
    struct mistake ks[FAMILY_NPARAMS];
    size_t n = mistakes_of(&f->member, ks);
    int count = 0;
    for (size_t k = 0; k < n; k++)
        count += cues_step(compact, value_of(ks[k])->id) != NULL;
    return count;
}

/*
 * A mistake's step, read against the code: where its own step's line is
 * the recipe's to the letter, the neighbouring step the same mistake can
 * live in, so that the diagnosis names the line that is not: the angle's
 * index in r; a product formed wrong in w·b; w·b's part taken wrong in the
 * ending's plane; the twiddle's sign in the conjugate multiply; what picks
 * the sign, on an ending written right, in the j it reads.
 */
static const char *step_against(struct mistake k, unsigned literal)
{
    const char *step = family_step_of(k.param, k.value);
    if (!literal_contradicts(literal, step))
        return step;
    static const struct {
        enum family_param param;
        const char *from, *to;
    } moves[] = {
        { FP_INDEX, "w", "r" }, { FP_MULTIPLY, "w", "wb" }, { FP_MULTIPLY, "wb", "plane" },
        { FP_SIGN, "w", "wb" }, { FP_ROLE, "sign", "j" }, { FP_ENDING, "sign", "j" },
    };
    for (size_t m = 0; m < sizeof moves / sizeof moves[0]; m++)
        if (moves[m].param == k.param && !strcmp(step, moves[m].from) &&
            !literal_contradicts(literal, moves[m].to))
            return moves[m].to;
    return step;
}

/* How many of a found reading's mistakes name a step the code writes as
 * the recipe does (literal_steps). */
static int literal_count(const struct search_found *f, unsigned literal)
{
    struct mistake ks[FAMILY_NPARAMS];
    size_t n = mistakes_of(&f->member, ks);
    int count = 0;
    for (size_t k = 0; k < n; k++)
        count += literal_contradicts(literal, step_against(ks[k], literal));
    return count;
}

/* The recipe step a found member leads with: the code's, when it shows
 * one of the mistakes, else that of the mistake earliest in the recipe. */
static const char *lead_step(const struct search_found *f, const char *compact,
                             unsigned literal)
{
    struct mistake ks[FAMILY_NPARAMS];
    size_t n = mistakes_of(&f->member, ks);
    const char *best = NULL;
    for (size_t k = 0; k < n; k++) {
        const char *cue = cues_step(compact, value_of(ks[k])->id);
        if (cue && !literal_contradicts(literal, cue))
            return cue;
        /* a step the code writes as the recipe does leads only when every
         * mistake's does */
        const char *step = step_against(ks[k], literal);
        bool lit = literal_contradicts(literal, step);
        if (!best || (literal_contradicts(literal, best) && !lit) ||
            (literal_contradicts(literal, best) == lit &&
             family_step_rank(step) < family_step_rank(best)))
            best = step;
    }
    return best ? best : "";
}

/* A step reading's first cell off and how many are: "j is 2 where 0 is
 * due at half = 1, i = 2 (4 cells of 24)". */
static void add_step_values(struct text *s, const struct exercise *t, const struct search_found *f)
{
    static const char *const ops[] = { "a + w·b", "a − w·b", "w·b − a" };
    int count = 0, first_h = -1, first_i = -1, own = 0;
    for (int rank = 1; rank <= BF_N; rank *= 2) {
        int h = summary_half_index(t, rank);
        for (int i = 0; h >= 0 && i < BF_N; i++) {
            static const struct family_member right;
            struct family_pair want;
            family_pair_of(&right, rank, i, &want);
            int j = (i / rank) % 2;
            int x = f->step == SEARCH_STEP_J ? j : f->step == SEARCH_STEP_BASE ? i - j * rank
                  : f->step == SEARCH_STEP_R ? i % rank : f->step == SEARCH_STEP_W ? want.k
                  : f->step == SEARCH_STEP_SIGN ? want.op : want.a * BF_N + want.b;
            if (f->values[h][i] == x)
                continue;
            if (count++ == 0) {
                first_h = h;
                first_i = i;
                own = x;
            }
        }
    }
    if (count == 0)
        return;
    int got = f->values[first_h][first_i];
    switch (f->step) {
    case SEARCH_STEP_J:
    case SEARCH_STEP_BASE:
    case SEARCH_STEP_R:
        text_add(s, "%s is ", f->step == SEARCH_STEP_J ? "j" : f->step == SEARCH_STEP_BASE ? "base" : "r");
        add_int(s, got);
        text_add(s, " where ");
        add_int(s, own);
        text_add(s, " is due");
        break;
    case SEARCH_STEP_W:
        text_add(s, "w is ");
        text_add_twiddle(s, got);
        text_add(s, " where ");
        text_add_twiddle(s, own);
        text_add(s, " is due");
        break;
    case SEARCH_STEP_SIGN:
        text_add(s, "the cell returns %s where %s is due", ops[got], ops[own]);
        break;
    default:
        if (got / BF_N == own / BF_N)
            text_add(s, "b is element %d where element %d (base + half) is due", got % BF_N,
                     own % BF_N);
        else if (got % BF_N == own % BF_N)
            text_add(s, "a is element %d where element %d (base) is due", got / BF_N,
                     own / BF_N);
        else
            text_add(s, "a is element %d and b element %d where elements %d and %d are due",
                     got / BF_N, got % BF_N, own / BF_N, own % BF_N);
        break;
    }
    text_add(s, " at half = %d, i = %d", t->sweep[first_h], first_i);
    if (count > 1)
        text_add(s, " (%d cells of 24 in all)", count);
}

/* The largest size of any output: 0 only where every cell is exactly 0. */
static double largest_output(const struct comparison *c)
{
    double m = 0;
    for (size_t k = 0; k < c->nruns * BF_CELLS; k++)
        if (fabs(c->out[k]) > m)
            m = fabs(c->out[k]);
    return m;
}

/* What member m does, as clauses joined by "and"; outputs that are not
 * exactly 0 where m returns 0 are said as they are. */
static void add_whats_of(struct text *s, const struct family_member *m,
                         const struct comparison *c)
{
    if (m->v[FP_OUTPUT] == 1 && largest_output(c) > 0) {
        text_add(s, "every cell returns 0 or a number as close to it as ");
        add_number(s, largest_output(c));
        text_add(s, ", within the tolerance of 0 (a float that small is what a division "
                    "by zero or an underflow can leave)");
        return;
    }
    add_whats(s, m);
}

struct diagnosis *describe_member(const struct comparison *c, const struct search_result *res,
                                  const char *compact)
{
    const struct exercise *t = c->ex;
    if (!res || res->n == 0)
        return NULL;
    /* among readings the outputs prove alike, one that names no line the
     * student wrote as the recipe does leads; of those, the one the code
     * shows */
    unsigned literal = literal_steps(compact);
    size_t lead = 0;
    for (size_t e = 1; e < res->n; e++) {
        int le = literal_count(&res->found[e], literal),
            ll = literal_count(&res->found[lead], literal);
        if (le < ll ||
            (le == ll && cue_count(&res->found[e], compact) > cue_count(&res->found[lead], compact)))
            lead = e;
    }
    struct search_found *f = malloc(sizeof *f);
    if (!f)
        return NULL;
    *f = res->found[lead];
    /* a step reading on a literal line gives way to an equivalent step */
    if (f->tables && f->step != SEARCH_STEP_NONE &&
        literal_contradicts(literal, step_readings[f->step].step)) {
        for (int k = SEARCH_STEP_J; k < SEARCH_STEPS; k++) {
            if (!((f->step_also >> k) & 1) || literal_contradicts(literal, step_readings[k].step))
                continue;
            f->step_also = (f->step_also & ~(1u << k)) | (1u << f->step);
            f->step = (enum search_step)k;
            memcpy(f->values, f->step_values[k], sizeof f->values);
            break;
        }
    }
    /* a sign of its own per cell, on an ending written as the recipe does,
     * is the j that ending reads (j picks + or −): said as j where j's line
     * is not the recipe's */
    if (f->tables && f->step == SEARCH_STEP_SIGN && literal_contradicts(literal, "sign") &&
        !literal_contradicts(literal, "j")) {
        bool plus_minus = true;
        for (int h = 0; h < BF_NHALVES; h++)
            for (int i = 0; i < BF_N; i++)
                plus_minus &= f->pairs[h][i].op == OP_PLUS || f->pairs[h][i].op == OP_MINUS;
        if (plus_minus) {
            for (int h = 0; h < BF_NHALVES; h++)
                for (int i = 0; i < BF_N; i++)
                    f->values[h][i] = f->pairs[h][i].op == OP_MINUS;
            f->step = SEARCH_STEP_J;
        }
    }
    /* "equivalently" never offers a step the student wrote as the recipe does */
    for (int k = SEARCH_STEP_J; k < SEARCH_STEPS; k++)
        if (literal_contradicts(literal, step_readings[k].step))
            f->step_also &= ~(1u << k);
    static const struct family_member right_member;
    struct family_pair right[BF_NHALVES][BF_N];
    for (int h = 0; h < BF_NHALVES; h++)
        for (int i = 0; i < BF_N; i++)
            family_pair_of(&right_member, t->sweep[h], i, &right[h][i]);
    bool by_step = f->tables && f->step != SEARCH_STEP_NONE;
    unsigned aspect_mask = f->tables && !by_step ? aspects_of(f, right) : 0;

    struct text id = { 0 }, title = { 0 }, why = { 0 }, hint = { 0 }, more = { 0 };
    add_id(&id, f, aspect_mask);
    add_title(&title, f);

    struct mistake ks[FAMILY_NPARAMS];
    size_t n = mistakes_of(&f->member, ks);
    const char *step = lead_step(f, compact, literal);
    /* the mistake in the lead step */
    size_t k0 = 0;
    for (size_t k = 0; k < n; k++)
        if (!strcmp(step_against(ks[k], literal), step) ||
            !strcmp(family_step_of(ks[k].param, ks[k].value), step))
            k0 = k;
    /* the aspects of a fit, in the recipe's order (a, b, w, the sign) */
    int first = -1, second = -1;
    for (int a = 0; a < ASPECTS; a++) {
        if (!((aspect_mask >> a) & 1))
            continue;
        if (first < 0)
            first = a;
        else if (second < 0)
            second = a;
    }
    int parts = (int)n + (by_step ? 1 : f->tables ? __builtin_popcount(aspect_mask) : 0);
    /* one sentence: what the kernel does, and where it shows; with three
     * or more parts, only the one to start with (issue 32: one story) */
    struct text what = { 0 };
    bool two = n == 2 && !f->tables;   /* the lead one, then the other in a sentence */
    if (n > 0 && (parts >= 3 || two))
        text_add(&what, "%s", value_of(ks[k0])->what);
    else if (n > 0)
        add_whats_of(&what, &f->member, c);
    if (by_step) {
        if (parts < 3) {
            text_add(&what, "%s", n ? ", and " : "");
            add_step_values(&what, t, f);
        }
        if (!n)
            step = step_readings[f->step].step;
    } else if (f->tables && first >= 0) {
        if (!n || parts < 3) {
            struct text detail = { 0 };
            add_aspect(&detail, t, f, (enum aspect)first, right);
            text_add(&what, "%sthe cells fit a ± w·b with %s", n ? ", and " : "",
                     detail.buf ? detail.buf : "");
            free(detail.buf);
        }
        if (!n)
            step = aspects[first].step;
    }
    if (what.buf)
        add_capital(&why, what.buf);
    free(what.buf);
    add_where(&why, c);
    /* a second mistake gets one sentence */
    if (two) {
        /* never of a line the student wrote as the recipe does */
        if (!literal_contradicts(literal, step_against(ks[1 - k0], literal))) {
            text_add(&why, " A second mistake: ");
            add_lowered(&why, value_of(ks[1 - k0])->what);
            text_add(&why, ".");
        }
        free(title.buf);
        title = (struct text){ 0 };
        text_add(&title, "%s", value_of(ks[k0])->title);
    }
    if (f->tables && !by_step && !n && parts == 2 && second >= 0) {
        struct text detail = { 0 };
        add_aspect(&detail, t, f, (enum aspect)second, right);
        text_add(&why, " They also fit %s.", detail.buf ? detail.buf : "");
        free(detail.buf);
    }
    if (parts >= 3) {
        static const char *const nouns[ASPECTS] = {
            [ASPECT_A] = "a, the element read at base",
            [ASPECT_B] = "b, the element read at base + half",
            [ASPECT_W] = "the twiddle", [ASPECT_SIGN] = "the sign before w·b",
            [ASPECT_PART] = "w·b", [ASPECT_CONSTANT] = "the stray number",
        };
        free(title.buf);
        title = (struct text){ 0 };
        text_add(&title, "Several steps differ: start with ");
        if (n > 0)
            add_lowered(&title, value_of(ks[k0])->title);
        else
            text_add(&title, "%s", first >= 0 ? nouns[first] : step);
    }

    /* behind "more": the right formula, the readings that give the same
     * numbers, and which step could not be pinned down */
    if (n > 0) {
        text_add(&more, "The right formula: ");
        for (size_t k = 0, said = 0; k < n; k++) {
            /* one parameter's right formula can stand for two mistakes */
            bool again = false;
            for (size_t e = 0; e < k; e++)
                again |= family_param(ks[e].param)->due == family_param(ks[k].param)->due;
            if (!again)
                text_add(&more, "%s%s", said++ ? "; " : "", family_param(ks[k].param)->due);
        }
        text_add(&more, ".");
    }
    if (by_step && f->step_also) {
        text_add(&more, "%sEquivalently, the same numbers come from ", more.len ? " " : "");
        for (int k = SEARCH_STEP_J, said = 0; k < SEARCH_STEPS; k++)
            if ((f->step_also >> k) & 1)
                text_add(&more, "%s%s", said++ ? " or from " : "", step_readings[k].alone);
        text_add(&more, ".");
    }
    if (f->tables && !by_step)
        text_add(&more, "%sThe outputs do not show which step (j, base, r, w or the sign) "
                 "computes these numbers: several give them.", more.len ? " " : "");
    /* other readings of the same numbers: never one on a line the student
     * wrote as the recipe does; one said, the rest counted (issue 32:
     * "more" stays short) */
    size_t eligible = 0, first_other = res->n;
    for (size_t e = 0; e < res->n; e++) {
        if (e == lead || literal_count(&res->found[e], literal))
            continue;
        if (eligible++ == 0)
            first_other = e;
    }
    if (eligible > 0) {
        text_add(&more, "%sEquivalently, the same numbers come from a kernel where ",
                 more.len ? " " : "");
        add_whats(&more, &res->found[first_other].member);
        size_t others = eligible - 1 + res->more;
        if (others > 0)
            text_add(&more, "; or %zu other such mistake%s", others, others > 1 ? "s" : "");
        text_add(&more, ".");
    }

    if (n > 0) {
        /* the hint of the mistake in the lead step */
        add_one_hint(&hint, hint_of(ks[k0]), advice_of(ks[k0]));
    } else if (by_step) {
        add_one_hint(&hint, step_readings[f->step].hint, step_readings[f->step].advice);
    } else {
        for (int a = 0; a < ASPECTS; a++)
            if ((aspect_mask >> a) & 1) {
                add_one_hint(&hint, aspects[a].hint, aspects[a].advice);
                break;
            }
    }
    struct diagnosis *d = diagnosis_from_texts(&id, &title, &why, &hint, step, &more);
    free(f);
    return d;
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
            mask |= 1u << (f->term[k].plane * BF_N + f->term[k].element);
    return mask;
}

/* The elements the product terms with a coefficient read, either plane. */
static unsigned product_elements(const struct cell_formula *f)
{
    unsigned mask = 0;
    for (int k = 1; k < 3; k++)
        if (f->term[k].coef)
            mask |= 1u << f->term[k].element;
    return mask;
}

/* Whether some term of f is a (the due formula's a term, the same number
 * with the same sign), wherever the read-back put it; *rest gets the
 * inputs of f's other terms with a coefficient, as a bit mask. */
static bool has_a_term(const struct cell_formula *f, const struct term *a, unsigned *rest)
{
    bool found = false;
    double net[BF_PLANES * BF_N] = { 0 };
    for (int k = 0; k < 3; k++) {
        const struct term *x = &f->term[k];
        if (!x->coef)
            continue;
        bool same = x->plane == a->plane && x->element == a->element &&
                    decompile_coef(x->coef) == decompile_coef(a->coef);
        if (same && !found)
            found = true;
        else
            net[x->plane * BF_N + x->element] += decompile_coef(x->coef);
    }
    /* terms that cancel (x − x) read nothing */
    *rest = 0;
    for (int k = 0; k < BF_PLANES * BF_N; k++)
        if (fabs(net[k]) > 1e-9)
            *rest |= 1u << k;
    return found;
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
    /* the products read b's own numbers in other amounts: a twiddle that
     * is not the recipe's (its cos or sin wrong), or b's other part */
    if (product_inputs(f) == product_inputs(&due)) {
        alternatives[n++] = a | 1u << ASPECT_W;
    } else {
        if (product_elements(f) == product_elements(&due))
            alternatives[n++] = a | 1u << ASPECT_W;
        alternatives[n++] = a | 1u << ASPECT_B;
    }
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

/* The explanation of outputs read back as formulas, value by value. */
struct diagnosis *describe_formulas(
    const struct comparison *c,
    const struct cell_formula formulas[BF_NHALVES][BF_PLANES][BF_N], unsigned literal)
{
    const struct exercise *t = c->ex;
    static const char *const parts[BF_PLANES] = { "real", "imaginary" };
    unsigned examples_shown = 0, planes_wrong = 0, members_wrong = 0;
    bool a_wrong = false, products_wrong = false, ending_like = true, own_index = true;
    int wrong = 0;
    unsigned alternatives[BF_NHALVES * BF_CELLS][ASPECTS];
    int nalts[BF_NHALVES * BF_CELLS];
    struct text examples = { 0 };
    for (int rank = 1; rank <= BF_N; rank *= 2) {
        int h = summary_half_index(t, rank);
        for (int p = 0; h >= 0 && p < BF_PLANES; p++) {
            bool shown_here = false;
            for (int i = 0; i < BF_N; i++) {
                struct cell_formula due;
                decompile_due(rank, i, p, &due);
                const struct cell_formula *f = &formulas[h][p][i];
                if (decompile_equal(f, &due))
                    continue;
                nalts[wrong] = formula_aspects(f, rank, i, p, alternatives[wrong]);
                wrong++;
                planes_wrong |= 1u << p;
                members_wrong |= 1u << ((i / rank) % 2);
                unsigned rest = 0;
                bool a_off = !has_a_term(f, &due.term[0], &rest);
                bool products_off = !same_products(f, &due, 1);
                a_wrong |= a_off;
                products_wrong |= products_off;
                /* what only the ending does: negate w·b, leave it out, add
                 * a number of its own to it */
                ending_like &= !a_off && (!products_off || same_products(f, &due, -1) || !rest);
                /* a read at the thread's own index (i, i + half) is right
                 * for the lower member, where base = i */
                own_index &= (!a_off || f->term[0].element == i) &&
                             (!products_off ||
                              ((product_elements(f) >> (i + rank < BF_N ? i + rank
                                                                          : BF_N - 1)) & 1));
                /* the first wrong value only (issue 32: one story, short) */
                if (shown_here || examples_shown == 1)
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
    struct text id = { 0 }, title = { 0 }, why = { 0 }, hint = { 0 }, more = { 0 };
    int said = 0;
    for (int a = 0; a < ASPECTS; a++)
        if ((mask >> a) & 1)
            text_add(&id, "%s%s", said++ ? "+" : "", aspects[a].id);
    /*
     * The step: every step before the ending feeds both members of a pair
     * (ar, tr and w are the same for j = 0 and j = 1), so values wrong at
     * one member only are the ending's; values wrong in one plane at both
     * are that plane's a (read) or its part of w·b; else the one aspect's
     * step, or the earliest in the recipe, and "more" says the outputs do
     * not pin it down.
     */
    static const char *const members[2] = { "lower member (j = 0)", "upper member (j = 1)" };
    bool one_member = (members_wrong == 1 || members_wrong == 2) &&
                      !(members_wrong == 2 && own_index);
    bool one_plane = planes_wrong == 1 || planes_wrong == 2;
    int plane = planes_wrong == 2 ? 1 : 0;
    const char *step = "";
    text_add(&title, "%s", describe_values_title);
    if (one_member) {
        step = "sign";
        text_add(&title, " of the %s end wrong", members[members_wrong == 2]);
        if (one_plane)
            text_add(&title, " in the %s plane", parts[plane]);
    } else if (one_plane && ending_like) {
        step = "sign";
        text_add(&title, " of the %s plane end wrong", parts[plane]);
    } else if (one_plane && !(a_wrong && products_wrong)) {
        step = a_wrong ? "read" : "wb";
        text_add(&title, " of the %s plane take the wrong %s", parts[plane],
                 a_wrong ? (plane ? "ai" : "ar") : (plane ? "ti" : "tr"));
    } else {
        /* "Some values take the wrong number for b and use the wrong twiddle" */
        static const char *const verbs[ASPECTS] = {
            [ASPECT_A] = "take the wrong number for a", [ASPECT_B] = "take the wrong number for b",
            [ASPECT_W] = "use the wrong twiddle", [ASPECT_SIGN] = "have the wrong sign",
            [ASPECT_PART] = "take the other part of w·b", [ASPECT_CONSTANT] = "add a stray number",
        };
        int total = __builtin_popcount(mask);
        bool ab = (mask & (1u << ASPECT_A)) && (mask & (1u << ASPECT_B));
        said = 0;
        for (int a = 0; a < ASPECTS; a++) {
            if (!((mask >> a) & 1) || (ab && a == ASPECT_B))
                continue;
            const char *verb = ab && a == ASPECT_A ? "take the wrong numbers for a and b"
                                                   : verbs[a];
            text_add(&title, "%s%s", said == 0 ? " " : said == total - 1 - ab ? " and " : ", ",
                     verb);
            said++;
        }
        /* the earliest in the recipe, of the steps not written as the
         * recipe does where there is one */
        for (int a = 0; a < ASPECTS; a++) {
            if (!((mask >> a) & 1))
                continue;
            bool lit = literal_contradicts(literal, aspects[a].step);
            if (!step[0] || (literal_contradicts(literal, step) && !lit) ||
                (literal_contradicts(literal, step) == lit &&
                 family_step_rank(aspects[a].step) < family_step_rank(step)))
                step = aspects[a].step;
        }
        /* three or more: one story, the step to start with (issue 32) */
        if (total >= 3) {
            static const char *const starts[] = { "j", "the read of a and b", "base", "r",
                                                  "w", "w·b", "the sign", "the plane" };
            static const char *const slugs[] = { "j", "read", "base", "r", "w", "wb", "sign",
                                                 "plane" };
            const char *words = step;
            for (size_t k = 0; k < sizeof slugs / sizeof slugs[0]; k++)
                if (!strcmp(slugs[k], step))
                    words = starts[k];
            free(title.buf);
            title = (struct text){ 0 };
            text_add(&title, "Several steps differ: start with %s", words);
        }
    }
    /* the first wrong value, then how many (issue 32: one story, short) */
    if (examples.buf)
        add_capital(&why, examples.buf);
    text_add(&why, " (%d of the 48 values)", wrong);
    free(examples.buf);
    add_where(&why, c);
    text_add(&more, "Every value, on the visible spectrum and on the hidden ones, is one number "
             "of the spectrum plus or minus at most two others times a cos or sin of a twiddle "
             "(and maybe a constant), so each is shown as that formula.");
    if (!one_member && !one_plane && __builtin_popcount(mask) > 1)
        text_add(&more, " The outputs do not show which one step computes these numbers: "
                 "the wrong values differ in more than one of a, b, w and the sign.");
    if (one_member || (one_plane && ending_like)) {
        add_one_hint(&hint, 3, family_param(FP_FILL)->advice);
    } else if (one_plane && !(a_wrong && products_wrong)) {
        add_one_hint(&hint, a_wrong ? 1 : 3, a_wrong ? family_param(FP_A)->advice
                                                       : family_param(FP_MULTIPLY)->advice);
    } else {
        for (int a = 0; a < ASPECTS; a++)
            if ((mask >> a) & 1) {
                add_one_hint(&hint, aspects[a].hint, aspects[a].advice);
                break;
            }
    }
    return diagnosis_from_texts(&id, &title, &why, &hint, step, &more);
}
