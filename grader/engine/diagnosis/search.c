/* search.c - the family searched for a kernel's outputs.
 *
 * The family is large (every parameter's values multiplied out), so it is
 * searched in two steps. A member acts on the arithmetic of a cell through
 * its "shape" values (planes, scale, multiply, one plane filled) and on
 * which numbers the cell takes through its "table" values (j, base, the
 * partner, the twiddle's angle, the sign): those only choose, for each
 * (half, i), the elements of a and b, the twiddle's angle in steps of π/8
 * and whether a and w·b are added or taken away.
 *
 * So for each shape with at most SEARCH_MAX_SHAPE_DEPTH mistakes, every
 * cell is first decoded: the pairs (a, b, angle, op) that reproduce it on
 * every run of its half. Of the 3072 pairs a cell could take, only those
 * the visible run's outputs allow are tried: the w·b each a and op need is
 * known, and looked up among that run's products, sorted. A shape under
 * which some cell has no pair is out. Under a shape where every cell
 * decodes, the table formulas are enumerated by the number of mistakes
 * they make, and each is checked against the decoded pairs alone, which
 * is cheap. When no formula within reach fits the right shape's pairs,
 * the decoded pairs themselves are the explanation.
 */
#include "engine/diagnosis/search.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/compare.h"
#include "engine/diagnosis/runset.h"

/* w·b for one element and twiddle of one run, as the shape forms it. */
struct product {
    double t[BF_PLANES];
    signed char b, k;
};

/* Every product of one run (8 elements by 16 twiddles), sorted by each
 * part as it is first needed. */
struct products {
    struct product by[BF_PLANES][BF_N * 16];
    bool sorted[BF_PLANES];
};

/* Products depend on the shape's multiply and trig alone: one set per
 * pair of their values and per half serves every shape that shares them. */
#define PRODUCT_KINDS (8 * 4)

struct search_ctx {
    const struct exercise *t;
    const struct gpu_run *runs;
    const float *out;
    struct runset rs;
    struct family_pair decoded[BF_NHALVES][BF_N][SEARCH_MAX_DECODED];
    int ndecoded[BF_NHALVES][BF_N];
    struct search_result *res;
    int best;                               /* depth of res->found, INT_MAX: none yet */
    int hot_h, hot_i;                       /* the cell that ruled out the last shape */
    struct products *products[PRODUCT_KINDS][BF_NHALVES];   /* owned, made on demand */
};

/* A cell agrees: within tolerance, or the same NaN or infinity. */
static bool cell_ok(const struct exercise *t, double want, float got)
{
    if (isnan(want))
        return isnan(got);
    if (isinf(want))
        return isinf(got) && (want > 0) == (got > 0);
    return compare_cell(want, got, t->atol, t->rtol);
}

static bool setup(struct search_ctx *c, const struct exercise *t, const struct gpu_run *runs,
                  size_t nruns, const float *out)
{
    memset(c->products, 0, sizeof c->products);
    c->t = t;
    c->runs = runs;
    c->out = out;
    c->best = INT_MAX;
    c->hot_h = c->hot_i = 0;
    return runset_init(&c->rs, t, runs, nruns);
}

/* Whether pair pr under shape m reproduces cell i of runs [from, to) of half h. */
static bool pair_ok(const struct search_ctx *c, const struct family_member *m, int h, int i,
                    const struct family_pair *pr, int from, int to)
{
    for (int k = from; k < to; k++) {
        int r = c->rs.run[h][k];
        double want[BF_PLANES];
        family_shape_cells(m, runset_input(&c->runs[r]), pr, i, want);
        const float *got = c->out + (size_t)r * BF_CELLS;
        if (!cell_ok(c->t, want[0], got[i]) || !cell_ok(c->t, want[1], got[BF_N + i]))
            return false;
    }
    return true;
}

/* Every cell of a member with these pairs, visible runs first. */
static bool pairs_ok(const struct search_ctx *c, const struct family_member *m,
                     const struct family_pair pairs[BF_NHALVES][BF_N])
{
    for (int pass = 0; pass < 2; pass++) {
        for (int o = 0; o < BF_NHALVES; o++) {
            int h = c->rs.order[o];
            int from = pass == 0 ? 0 : c->rs.nvisible[h];
            int to = pass == 0 ? c->rs.nvisible[h] : c->rs.n[h];
            for (int i = 0; i < BF_N; i++)
                if (!pair_ok(c, m, h, i, &pairs[h][i], from, to))
                    return false;
        }
    }
    return true;
}

static void pairs_of(const struct search_ctx *c, const struct family_member *m,
                     struct family_pair pairs[BF_NHALVES][BF_N])
{
    for (int h = 0; h < BF_NHALVES; h++)
        for (int i = 0; i < BF_N; i++)
            family_pair_of(m, c->t->sweep[h], i, &pairs[h][i]);
}

static bool member_ok(const struct search_ctx *c, const struct family_member *m)
{
    struct family_pair pairs[BF_NHALVES][BF_N];
    pairs_of(c, m, pairs);
    return pairs_ok(c, m, pairs);
}

bool search_member_matches(const struct exercise *t, const struct gpu_run *runs, size_t nruns,
                           const float *out, const struct family_member *m)
{
    struct search_ctx c;
    return setup(&c, t, runs, nruns, out) && member_ok(&c, m);
}

bool search_tables_match(const struct exercise *t, const struct gpu_run *runs, size_t nruns,
                         const float *out, const struct family_member *m,
                         const struct family_pair pairs[BF_NHALVES][BF_N])
{
    struct search_ctx c;
    return setup(&c, t, runs, nruns, out) && pairs_ok(&c, m, pairs);
}

/* Keeps an explanation if it makes no more mistakes than the best so far. */
static void keep(struct search_ctx *c, const struct search_found *f)
{
    struct search_result *res = c->res;
    if (f->depth > c->best)
        return;
    if (f->depth < c->best) {
        c->best = f->depth;
        res->n = 0;
        res->more = 0;
    }
    if (res->n < SEARCH_MAX_FOUND)
        res->found[res->n++] = *f;
    else
        res->more++;
}

static void keep_member(struct search_ctx *c, const struct family_member *m)
{
    struct search_found f = { .member = *m, .tables = false, .depth = family_depth(m) };
    keep(c, &f);
}

/*
 * A plane that one value fills, or both planes made equal, are facts about
 * the outputs that need no decoding: checked first, they rule such shapes
 * out at once.
 */
static bool shape_plausible(const struct search_ctx *c, const struct family_member *shape)
{
    const struct exercise *t = c->t;
    struct family_map map;
    family_shape_map(shape, &map);
    bool same = !map.filled[0] && !map.filled[1] && map.source[0] == map.source[1];
    if (!map.filled[0] && !map.filled[1] && !same)
        return true;
    for (int h = 0; h < BF_NHALVES; h++) {
        for (int k = 0; k < c->rs.n[h]; k++) {
            int r = c->rs.run[h][k];
            const float (*in)[BF_N] = runset_input(&c->runs[r]);
            const float *got = c->out + (size_t)r * BF_CELLS;
            for (int i = 0; i < BF_N; i++) {
                for (int p = 0; p < BF_PLANES; p++)
                    if (map.filled[p] &&
                        !cell_ok(t, family_fill(shape, in, p, i), got[p * BF_N + i]))
                        return false;
                if (same) {
                    /* both within tolerance of one value w: |w| is at most
                     * (|got| + atol) / (1 - rtol) */
                    double x = got[i], y = got[BF_N + i];
                    double w = (fmax(fabs(x), fabs(y)) + t->atol) / (1 - t->rtol);
                    if (!isfinite(x) || !isfinite(y) ||
                        fabs(x - y) > 2 * (t->atol + t->rtol * w) + 1e-9)
                        return false;
                }
            }
        }
    }
    return true;
}

/* Sorts n products by part `key`: a shell sort, since qsort's callback
 * costs more than the sort itself at 128 entries. */
static void sort_products(struct product *xs, int n, int key)
{
    static const int gaps[] = { 57, 23, 10, 4, 1 };
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        int gap = gaps[g];
        for (int i = gap; i < n; i++) {
            struct product x = xs[i];
            int j = i;
            for (; j >= gap && xs[j - gap].t[key] > x.t[key]; j -= gap)
                xs[j] = xs[j - gap];
            xs[j] = x;
        }
    }
}

/* The products of half h's first run under `shape`, sorted by part
 * `key`; NULL when out of memory. */
static const struct product *products_of(struct search_ctx *c,
                                         const struct family_member *shape, int h, int key)
{
    struct products **slot = &c->products[shape->v[FP_MULTIPLY] * 4 + shape->v[FP_TRIG]][h];
    if (!*slot) {
        struct products *ps = malloc(sizeof *ps);
        if (!ps)
            return NULL;
        const float (*in)[BF_N] = runset_input(&c->runs[c->rs.run[h][0]]);
        for (int b = 0; b < BF_N; b++) {
            for (int k = 0; k < 16; k++) {
                struct product *x = &ps->by[0][b * 16 + k];
                family_product(shape, in, b, k, x->t);
                x->b = (signed char)b;
                x->k = (signed char)k;
            }
        }
        memcpy(ps->by[1], ps->by[0], sizeof ps->by[1]);
        ps->sorted[0] = ps->sorted[1] = false;
        *slot = ps;
    }
    struct products *ps = *slot;
    if (!ps->sorted[key]) {
        sort_products(ps->by[key], BF_N * 16, key);
        ps->sorted[key] = true;
    }
    return ps->by[key];
}

static void products_free(struct search_ctx *c)
{
    for (int k = 0; k < PRODUCT_KINDS; k++)
        for (int h = 0; h < BF_NHALVES; h++)
            free(c->products[k][h]);
}

/* Adds pr to cell (h, i)'s decoded pairs if it reproduces every run. */
static void try_pair(struct search_ctx *c, const struct family_member *shape, int h, int i,
                     const struct family_pair *pr, int *n)
{
    if (!pair_ok(c, shape, h, i, pr, 0, c->rs.n[h]))
        return;
    if (*n < SEARCH_MAX_DECODED)
        c->decoded[h][i][*n] = *pr;
    (*n)++;
}

/*
 * Decodes cell (h, i): the pairs that reproduce it on every run of half h,
 * into c->decoded; returns how many. Rather than trying all 3072 pairs, it
 * works back from the first run's outputs: the shape says which part of
 * a ± w·b each plane shows, so for each a and op the w·b needed is known
 * within the tolerance, and the products of that run, sorted, give the
 * (b, twiddle) within reach at once. Each is then checked on every run.
 */
static int decode_cell(struct search_ctx *c, const struct family_member *shape, int h, int i)
{
    const struct exercise *t = c->t;
    int r = c->rs.run[h][0];
    const float (*in)[BF_N] = runset_input(&c->runs[r]);
    const float *got = c->out + (size_t)r * BF_CELLS;
    struct family_map map;
    family_shape_map(shape, &map);
    bool have[BF_PLANES] = { false, false };
    double target[BF_PLANES] = { 0, 0 }, window[BF_PLANES] = { 0, 0 };
    for (int p = 0; p < BF_PLANES; p++) {
        if (map.filled[p])
            continue;
        double g = got[p * BF_N + i];
        if (!isfinite(g))
            return 0;          /* a ± w·b is finite */
        /* |g - want| <= atol + rtol |want|, and |want| <= (|g| + atol) / (1 - rtol) */
        double tol = t->atol + t->rtol * (fabs(g) + t->atol) / (1 - t->rtol);
        int s = map.source[p];
        if (!have[s] || tol / map.scale < window[s]) {
            target[s] = g / map.scale;
            window[s] = tol / map.scale + 1e-9;
            have[s] = true;
        }
    }
    int n = 0;
    struct family_pair pr;
    if (!have[0] && !have[1]) {
        /* nothing to work back from: try every pair */
        for (int op = 0; op < 3; op++)
            for (pr.op = (unsigned char)op, pr.a = 0; pr.a < BF_N; pr.a++)
                for (pr.b = 0; pr.b < BF_N; pr.b++)
                    for (pr.k = 0; pr.k < 16; pr.k++)
                        try_pair(c, shape, h, i, &pr, &n);
        return n;
    }
    int key = have[0] ? 0 : 1, other = 1 - key;
    const struct product *sorted = products_of(c, shape, h, key);
    if (!sorted)
        return 0;
    for (int op = 0; op < 3; op++) {
        pr.op = (unsigned char)op;
        for (pr.a = 0; pr.a < BF_N; pr.a++) {
            double need[BF_PLANES];
            for (int s = 0; s < BF_PLANES; s++) {
                double a = in[s][pr.a];
                need[s] = op == OP_PLUS ? target[s] - a : op == OP_MINUS ? a - target[s]
                                                                         : target[s] + a;
            }
            /* the first product not below need - window */
            int lo = 0, hi = BF_N * 16;
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (sorted[mid].t[key] < need[key] - window[key])
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (int e = lo; e < BF_N * 16 && sorted[e].t[key] <= need[key] + window[key];
                 e++) {
                if (have[other] && fabs(sorted[e].t[other] - need[other]) > window[other])
                    continue;
                pr.b = sorted[e].b;
                pr.k = sorted[e].k;
                try_pair(c, shape, h, i, &pr, &n);
            }
        }
    }
    return n;
}

/*
 * Decodes every cell under `shape` into c->decoded: the pairs that
 * reproduce it on every run of its half. False as soon as a cell has none.
 * The cell that ruled out the last shape is tried first: outputs that one
 * shape cannot explain at some cell, most others cannot either.
 */
static bool decode(struct search_ctx *c, const struct family_member *shape)
{
    if (!shape_plausible(c, shape))
        return false;
    for (int o = 0; o < BF_NHALVES; o++)
        if (c->rs.n[c->rs.order[o]] == 0)
            return false;
    for (int k = -1; k < BF_NHALVES * BF_N; k++) {
        int h = k < 0 ? c->hot_h : c->rs.order[k / BF_N], i = k < 0 ? c->hot_i : k % BF_N;
        if (k >= 0 && h == c->hot_h && i == c->hot_i)
            continue;
        c->ndecoded[h][i] = decode_cell(c, shape, h, i);
        if (c->ndecoded[h][i] == 0) {
            c->hot_h = h;
            c->hot_i = i;
            return false;
        }
    }
    return true;
}

static bool same_pair(const struct family_pair *x, const struct family_pair *y)
{
    return x->a == y->a && x->b == y->b && x->k == y->k && x->op == y->op;
}

/* Whether member m's pairs are among the decoded ones at every cell. */
static bool tables_fit(const struct search_ctx *c, const struct family_member *m)
{
    for (int o = 0; o < BF_NHALVES; o++) {
        int h = c->rs.order[o];
        for (int i = 0; i < BF_N; i++) {
            struct family_pair pr;
            family_pair_of(m, c->t->sweep[h], i, &pr);
            int n = c->ndecoded[h][i];
            bool found = false;
            for (int k = 0; k < n && k < SEARCH_MAX_DECODED && !found; k++)
                found = same_pair(&pr, &c->decoded[h][i][k]);
            /* a cell with more pairs than were kept: ask the outputs */
            if (!found && n > SEARCH_MAX_DECODED)
                found = pair_ok(c, m, h, i, &pr, 0, c->rs.n[h]);
            if (!found)
                return false;
        }
    }
    return true;
}

/* Every way of adding `left` more table mistakes to m, from parameter `from` on. */
static void enumerate(struct search_ctx *c, struct family_member *m, int from, int left,
                      bool *any)
{
    if (left == 0) {
        if (tables_fit(c, m)) {
            keep_member(c, m);
            *any = true;
        }
        return;
    }
    for (int p = from; p < FAMILY_NPARAMS; p++) {
        if (m->v[p] != 0)
            continue;       /* taken by the shape */
        const struct family_param_info *info = family_param((enum family_param)p);
        for (int v = 1; v < info->nvalues; v++) {
            if (!info->values[v].table)
                continue;
            m->v[p] = (unsigned char)v;
            enumerate(c, m, p + 1, left - 1, any);
        }
        m->v[p] = 0;
    }
}

/* Differences from the right pair, field by field. */
static int pair_distance(const struct family_pair *x, const struct family_pair *y)
{
    return (x->a != y->a) + (x->b != y->b) + (x->k != y->k) + (x->op != y->op);
}

/* The decoded pairs nearest the right ones, as an explanation of its own. */
static void keep_tables(struct search_ctx *c, const struct family_member *shape,
                        struct search_found *f)
{
    static const struct family_member right;
    struct family_pair want[BF_NHALVES][BF_N];
    pairs_of(c, &right, want);
    memset(f, 0, sizeof *f);
    f->member = *shape;
    f->tables = true;
    bool differs[4] = { false, false, false, false };
    for (int h = 0; h < BF_NHALVES; h++) {
        for (int i = 0; i < BF_N; i++) {
            const struct family_pair *best = &c->decoded[h][i][0];
            int n = c->ndecoded[h][i] < SEARCH_MAX_DECODED ? c->ndecoded[h][i]
                                                            : SEARCH_MAX_DECODED;
            for (int k = 1; k < n; k++)
                if (pair_distance(&c->decoded[h][i][k], &want[h][i]) <
                    pair_distance(best, &want[h][i]))
                    best = &c->decoded[h][i][k];
            f->pairs[h][i] = *best;
            differs[0] |= best->a != want[h][i].a;
            differs[1] |= best->b != want[h][i].b;
            differs[2] |= best->k != want[h][i].k;
            differs[3] |= best->op != want[h][i].op;
        }
    }
    f->depth = family_depth(shape) + differs[0] + differs[1] + differs[2] + differs[3];
}

static signed char clamped(int k)
{
    return (signed char)(k < 0 ? 0 : k > BF_N - 1 ? BF_N - 1 : k);
}

/* The pair the recipe gives at (half, i) when step `step` takes value x
 * there and every other step is right; false when x is no value of it.
 * A j past 1 is the upper member where the code asks j != 0 (variant 0)
 * and the lower one where it asks j == 1 (variant 1). */
static bool step_pair(enum search_step step, int half, int i, int x, int variant,
                      struct family_pair *pr)
{
    static const struct family_member right;
    family_pair_of(&right, half, i, pr);
    switch (step) {
    case SEARCH_STEP_J:
        if (variant && (x == 0 || x == 1))
            return false;
        pr->a = clamped(i - x * half);
        pr->b = clamped(i - x * half + half);
        pr->op = (variant ? x == 1 : x != 0) ? OP_MINUS : OP_PLUS;
        return true;
    case SEARCH_STEP_BASE:
        if (variant)
            return false;
        /* an index out of 0..7 reads what the device's clamp gives */
        pr->a = clamped(x);
        pr->b = clamped(x + half);
        return true;
    default:
        break;
    }
    if (variant)
        return false;
    switch (step) {
    case SEARCH_STEP_R:
        /* w = e^(-iπ·x/half), a whole number of π/8 since half divides 8 */
        pr->k = (signed char)((((-x * (8 / half)) % 16) + 16) % 16);
        return true;
    case SEARCH_STEP_W:
        if (x < 0 || x > 15)
            return false;
        pr->k = (signed char)x;
        return true;
    case SEARCH_STEP_SIGN:
        if (x < OP_PLUS || x > OP_REVERSED)
            return false;
        pr->op = (unsigned char)x;
        return true;
    case SEARCH_STEP_READ:
        if (x < 0 || x >= BF_N * BF_N)
            return false;
        pr->a = (signed char)(x / BF_N);
        pr->b = (signed char)(x % BF_N);
        return true;
    default:
        return false;
    }
}

/* The values step `step` is tried with, the right one first. */
static int step_range(enum search_step step, int *lo, int *hi)
{
    switch (step) {
    case SEARCH_STEP_J: *lo = -BF_N; *hi = BF_N; break;
    case SEARCH_STEP_BASE: *lo = -BF_N; *hi = 2 * BF_N - 1; break;
    case SEARCH_STEP_R: *lo = -BF_N; *hi = BF_N; break;
    case SEARCH_STEP_W: *lo = 0; *hi = 15; break;
    case SEARCH_STEP_SIGN: *lo = OP_PLUS; *hi = OP_REVERSED; break;
    case SEARCH_STEP_READ: *lo = 0; *hi = BF_N * BF_N - 1; break;
    default: return 0;
    }
    return 1;
}

/* Whether the decoded pairs of cell (h, i) hold pr (or, past what was
 * kept, whether pr reproduces the cell). */
static bool decoded_has(const struct search_ctx *c, const struct family_member *shape, int h,
                        int i, const struct family_pair *pr)
{
    int n = c->ndecoded[h][i];
    for (int k = 0; k < n && k < SEARCH_MAX_DECODED; k++)
        if (same_pair(pr, &c->decoded[h][i][k]))
            return true;
    return n > SEARCH_MAX_DECODED && pair_ok(c, shape, h, i, pr, 0, c->rs.n[h]);
}

/*
 * Whether one step, taking a value per cell, explains the decoded pairs
 * of the right shape: fills f's pairs and values with the value nearest
 * the right one at each cell.
 */
static bool step_explains(const struct search_ctx *c, const struct family_member *shape,
                          enum search_step step, struct search_found *f)
{
    int lo, hi;
    if (!step_range(step, &lo, &hi))
        return false;
    for (int h = 0; h < BF_NHALVES; h++) {
        int half = c->t->sweep[h];
        for (int i = 0; i < BF_N; i++) {
            static const struct family_member right;
            struct family_pair want;
            family_pair_of(&right, half, i, &want);
            int j = (i / half) % 2;
            int own = step == SEARCH_STEP_J ? j : step == SEARCH_STEP_BASE ? i - j * half
                    : step == SEARCH_STEP_R ? i % half : step == SEARCH_STEP_W ? want.k
                    : step == SEARCH_STEP_SIGN ? want.op : want.a * BF_N + want.b;
            bool found = false;
            /* the right value first, then the nearest ones */
            for (int d = 0; d <= hi - lo && !found; d++) {
                for (int side = 0; side < (d ? 2 : 1) && !found; side++) {
                    int x = side ? own - d : own + d;
                    for (int variant = 0; variant < 2 && !found; variant++) {
                        struct family_pair pr;
                        if (x < lo || x > hi || !step_pair(step, half, i, x, variant, &pr))
                            continue;
                        if (decoded_has(c, shape, h, i, &pr)) {
                            f->pairs[h][i] = pr;
                            f->values[h][i] = (signed char)x;
                            found = true;
                        }
                    }
                }
            }
            if (!found)
                return false;
        }
    }
    return true;
}

/*
 * The decoded pairs read through the recipe's steps: the first step, in
 * the recipe's order, that alone explains them, with the other steps that
 * do too; false when no one step does.
 */
static bool keep_step(struct search_ctx *c, const struct family_member *shape,
                      struct search_found *f)
{
    bool any = false;
    for (int s = SEARCH_STEP_J; s < SEARCH_STEPS; s++) {
        struct search_found g;
        memset(&g, 0, sizeof g);
        if (!step_explains(c, shape, (enum search_step)s, &g))
            continue;
        if (!any) {
            *f = g;
            f->member = *shape;
            f->tables = true;
            f->step = (enum search_step)s;
            f->depth = family_depth(shape) + 1;
            any = true;
        } else {
            f->step_also |= 1u << s;
        }
        memcpy(f->step_values[s], g.values, sizeof g.values);
    }
    return any;
}

/* Every shape with `left` more mistakes added to m from parameter `from` on, into shapes. */
static void add_shapes(struct family_member *m, int from, int left, struct family_member *shapes,
                       size_t *n)
{
    if (left == 0) {
        if (*n < SEARCH_MAX_SHAPES)
            shapes[(*n)++] = *m;
        return;
    }
    for (int p = from; p < FAMILY_NPARAMS; p++) {
        const struct family_param_info *info = family_param((enum family_param)p);
        for (int v = 1; v < info->nvalues && p != FP_OUTPUT; v++) {
            if (info->values[v].table)
                continue;
            m->v[p] = (unsigned char)v;
            add_shapes(m, p + 1, left - 1, shapes, n);
        }
        m->v[p] = 0;
    }
}

/* The shapes with at most `depth` mistakes, the fewest first. */
static size_t shapes_upto(struct family_member shapes[SEARCH_MAX_SHAPES], int depth)
{
    size_t n = 0;
    for (int d = 0; d <= depth; d++) {
        struct family_member m = { .constant = 0 };
        add_shapes(&m, 0, d, shapes, &n);
    }
    return n;
}

bool search_outputs(const struct exercise *t, const struct gpu_run *runs, size_t nruns,
                    const float *out, struct search_result *res)
{
    struct search_ctx c;
    res->n = 0;
    res->more = 0;
    c.res = res;
    if (!setup(&c, t, runs, nruns, out))
        return false;

    /* Outputs that ignore the inputs' pairs altogether. */
    const struct family_param_info *output = family_param(FP_OUTPUT);
    for (int v = 1; v < output->nvalues; v++) {
        struct family_member m = { .v = { [FP_OUTPUT] = (unsigned char)v } };
        if (v == output->nvalues - 1) {
            /* the one constant: the first visible cell says which */
            int r = c.rs.run[c.rs.order[0]][0];
            m.constant = out[(size_t)r * BF_CELLS];
            if (isnan(m.constant) || m.constant == 0)
                continue;
        }
        if (member_ok(&c, &m))
            keep_member(&c, &m);
    }
    if (res->n > 0)
        return true;

    /* The right shape, then every shape with one mistake, then two. */
    struct family_member shapes[SEARCH_MAX_SHAPES];
    size_t nshapes = shapes_upto(shapes, SEARCH_MAX_SHAPE_DEPTH);
    struct search_found fallback, by_step;
    bool have_fallback = false, have_step = false;
    for (size_t s = 0; s < nshapes; s++) {
        int depth = family_depth(&shapes[s]);
        if (depth > c.best)
            continue;
        if (depth == c.best) {
            /* no room for a table mistake: the shape alone, with the right
             * pairs, is all there is to try */
            if (member_ok(&c, &shapes[s]))
                keep_member(&c, &shapes[s]);
            continue;
        }
        if (!decode(&c, &shapes[s]))
            continue;
        bool named = false;
        for (int extra = 0; !named && depth + extra <= SEARCH_MAX_DEPTH &&
                            depth + extra <= c.best; extra++) {
            struct family_member m = shapes[s];
            enumerate(&c, &m, 0, extra, &named);
        }
        /* Pairs without a formula explain outputs only under the right
         * shape: "a ± w·b, computed right, from the wrong numbers". With a
         * wrong shape too, decoded pairs can fit by accident of arithmetic
         * ((a + a) / 2 is a) and would explain nothing. */
        if (!named && !have_fallback && depth == 0) {
            keep_tables(&c, &shapes[s], &fallback);
            have_fallback = true;
        }
        /* one step of the recipe, taking a value of its own per cell,
         * breaks one step: it leads over formulas that break more */
        if (depth == 0 && !have_step)
            have_step = keep_step(&c, &shapes[s], &by_step);
    }
    /* A twiddle (or an r) or a sign of its own per cell can stand for
     * the other (a − w·b = a + (−w)·b): such a reading leads only where no
     * formula names the mistakes, and is told with its twin; an index
     * step (j, base, the elements) leads over formulas with more mistakes. */
    bool index_step = have_step && (by_step.step == SEARCH_STEP_J ||
                                    by_step.step == SEARCH_STEP_BASE ||
                                    by_step.step == SEARCH_STEP_READ);
    if (have_step && (res->n == 0 || (c.best > 1 && index_step))) {
        /* the step leads; the formulas with more mistakes stay as
         * readings that give the same numbers */
        size_t keep_n = res->n < SEARCH_MAX_FOUND - 1 ? res->n : SEARCH_MAX_FOUND - 1;
        res->more += res->n - keep_n;
        memmove(&res->found[1], &res->found[0], keep_n * sizeof res->found[0]);
        res->found[0] = by_step;
        res->n = keep_n + 1;
    } else if (res->n == 0 && have_fallback) {
        keep(&c, &fallback);
    }
    products_free(&c);
    return res->n > 0;
}
