/* diagnose.c - the catalogue of common butterfly mistakes, matched against
 * a kernel's outputs, and a summary in words when none matches. */
#include "diagnose.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/*
 * Merges were decided by computing every mistake on the visible and the
 * hidden spectra: a flipped angle and a conjugate multiply agree
 * everywhere (conj(e^(-ix)) = e^(+ix)), as do no twiddle and an int
 * division r / half (0, so w = 1), and both-plus and an angle from i (the
 * upper member's angle is π more, which negates w). Every other pair of
 * entries differs by more than 1 in some cell of the visible spectrum.
 */
static const struct diagnose_entry catalogue[] = {
    {
        .id = "twiddle_sign",
        .title = "The twiddle turns the wrong way",
        .explanation =
            "Your outputs are what w = e^(+iπ·r/half) gives: the sign of the "
            "twiddle's angle is flipped. Multiplying b by the conjugate of w "
            "(tr = wr·br + wi·bi, ti = wr·bi - wi·br) gives exactly the same "
            "numbers, so check the signs of the complex multiply as well. "
            "half = 1 passes only because every twiddle there is 1.",
        .hint = "Hint 2 — which twiddle? w = e^(-iπ·r/half), minus sign "
                "included; Hint 3 — the ending spells out the multiply.",
        .variant = { .angle_positive = true },
        .same_as = { { .conjugate_multiply = true } },
        .nsame = 1,
    },
    {
        .id = "no_twiddle",
        .title = "The twiddle is always 1",
        .explanation =
            "Your outputs are a + b and a - b, as if w were 1 on every pass. "
            "Either b is never multiplied by w, or the angle is always 0: in "
            "GLSL r / half with two ints is an int division, which is 0 "
            "because r < half, and converting that 0 to float comes too late. "
            "half = 1 passes because there w really is 1.",
        .hint = "Hint 2 — which twiddle? Divide as floats, float(r) / "
                "float(half), and multiply b by w.",
        .variant = { .no_twiddle = true },
        .same_as = { { .angle_int_division = true } },
        .nsame = 1,
    },
    {
        .id = "both_plus",
        .title = "Both members return a + w·b",
        .explanation =
            "The upper member of each pair (j = 1) returns a + w·b where it "
            "should return a - w·b. A twiddle angle taken from i instead of r "
            "gives exactly the same outputs: the upper member's i is half "
            "more than its r (plus whole blocks of 2·half), which adds π to "
            "the angle, turns w into -w, and so a - w·b into a + w·b.",
        .hint = "Hint 3 — the ending: the sign between a and w·b depends on j; "
                "Hint 2 — which twiddle?: the angle uses r = i % half, not i.",
        .variant = { .ending = ENDING_BOTH_PLUS },
        .same_as = { { .angle_from_i = true } },
        .nsame = 1,
    },
    {
        .id = "roles_swapped",
        .title = "The lower and upper members are swapped",
        .explanation =
            "The lower member of each pair (j = 0) returns a - w·b and the "
            "upper one (j = 1) returns a + w·b: it is the other way round. "
            "Check the test that picks the sign, and how j is computed.",
        .hint = "Hint 3 — the ending: a + w·b when j = 0; Hint 1 — which pair "
                "am I in? says which member has j = 0.",
        .variant = { .ending = ENDING_ROLES_SWAPPED },
    },
    {
        .id = "planes_swapped",
        .title = "The real and imaginary planes are swapped",
        .explanation =
            "Every cell holds the value of the other plane: the real part of "
            "a ± w·b is returned where this.thread.y asks for the imaginary "
            "one, and the other way round. this.thread.y is 0 for the real "
            "plane and 1 for the imaginary plane, as p is in spectrum[p][k].",
        .hint = "Hint 3 — the ending: return ar ± tr when this.thread.y is 0 "
                "and ai ± ti when it is 1.",
        .variant = { .planes_swapped = true },
    },
    {
        .id = "componentwise_multiply",
        .title = "w·b multiplied component by component",
        .explanation =
            "w·b was computed as (wr·br, wi·bi), which is not a complex "
            "product. (wr + i·wi)(br + i·bi) has the real part wr·br - wi·bi "
            "and the imaginary part wr·bi + wi·br: each part needs all four "
            "numbers. It shows already at half = 1, where w = 1 and the "
            "imaginary part of w·b comes out 0 instead of bi.",
        .hint = "Hint 3 — the ending: tr = wr * br - wi * bi; "
                "ti = wr * bi + wi * br.",
        .variant = { .componentwise_multiply = true },
    },
    {
        .id = "angle_two_pi",
        .title = "The twiddle's angle uses 2π",
        .explanation =
            "Your outputs match w = e^(-2iπ·r/half). Across a half-block the "
            "twiddle turns half a circle, not a whole one: the angle is "
            "-π·r/half (2π goes with the whole block, 2·half). half = 1 "
            "passes because r is always 0 there.",
        .hint = "Hint 2 — which twiddle? w = e^(-iπ·r/half).",
        .variant = { .angle_two_pi = true },
    },
    {
        .id = "angle_over_size",
        .title = "The twiddle's angle is divided by 8",
        .explanation =
            "Your outputs match w = e^(-iπ·r/8): the angle is divided by the "
            "transform size instead of by half. The twiddle belongs to the "
            "pass, so the angle is -π·r/half and changes as half does. "
            "half = 1 passes because r is always 0 there.",
        .hint = "Hint 2 — which twiddle? w = e^(-iπ·r/half).",
        .variant = { .angle_over_size = true },
    },
    {
        .id = "angle_last_pass",
        .title = "The last pass's twiddle on every pass",
        .explanation =
            "Your outputs match w = e^(-2iπ·r/8), the textbook twiddle for a "
            "block of 8. It is right only where the block (2·half) is 8 long, "
            "at half = 4, and at half = 1, where r is 0; at half = 2 the block "
            "is 4 long. Over a block of 2·half the angle is -2π·r/(2·half), "
            "that is -π·r/half.",
        .hint = "Hint 2 — which twiddle? w = e^(-iπ·r/half).",
        .variant = { .angle_two_pi = true, .angle_over_size = true },
    },
    {
        .id = "partner_parity",
        .title = "j taken from i % 2",
        .explanation =
            "Your outputs match j = i % 2. Odd and even tell the members apart "
            "only at half = 1; from half = 2 on the members of a pair are half "
            "apart, and j = (i / half) % 2 says whether i sits in the lower or "
            "the upper half of its block. A wrong j makes base, and so a, b "
            "and the sign, wrong too.",
        .hint = "Hint 1 — which pair am I in? j = (i / half) % 2.",
        .variant = { .j_from_parity = true },
    },
    {
        .id = "partner_next",
        .title = "b read at base + 1",
        .explanation =
            "Your outputs match b = element base + 1. The two members of a "
            "pair are half apart, which is 1 only at half = 1: b is element "
            "base + half.",
        .hint = "Hint 1 — which pair am I in? a is element base, b is "
                "element base + half.",
        .variant = { .partner_next = true },
    },
    {
        .id = "scaled_half",
        .title = "Every output is halved",
        .explanation =
            "Each cell holds (a ± w·b) / 2: right but for a factor of 1/2. A "
            "butterfly pass does not scale: return a + w·b and a - w·b as they "
            "are (an inverse transform's 1/N, where one is wanted, is applied "
            "once at the end, not in every pass).",
        .hint = "Hint 3 — the ending: return ar + tr, ar - tr, ai + ti or "
                "ai - ti, unscaled.",
        .variant = { .scaled_half = true },
    },
};

#define NCATALOGUE (sizeof catalogue / sizeof catalogue[0])

const struct diagnose_entry *diagnose_catalogue(size_t *n)
{
    *n = NCATALOGUE;
    return catalogue;
}

const struct diagnose_entry *diagnose_find(const char *id)
{
    for (size_t e = 0; e < NCATALOGUE; e++)
        if (!strcmp(catalogue[e].id, id))
            return &catalogue[e];
    return NULL;
}

/* The outputs of `variant` (NULL: the correct pass) on one run. */
static void expected_of(const struct gpu_run *run, const struct butterfly_variant *variant,
                        double want[TASK_PLANES][TASK_N])
{
    float in[TASK_PLANES][TASK_N];
    memcpy(in, run->spec, sizeof in);
    reference_pass_variant(in, run->half, variant, want);
}

static bool variant_matches(const struct task *t, const struct butterfly_variant *variant,
                            const struct gpu_run *runs, size_t nruns, const float *out)
{
    for (size_t r = 0; r < nruns; r++) {
        double want[TASK_PLANES][TASK_N];
        expected_of(&runs[r], variant, want);
        const float *got = out + r * TASK_CELLS;
        for (int p = 0; p < TASK_PLANES; p++)
            for (int i = 0; i < TASK_N; i++)
                if (!compare_cell(want[p][i], got[p * TASK_N + i], t->atol, t->rtol))
                    return false;
    }
    return true;
}

const struct diagnose_entry *diagnose_match(const struct task *t,
                                            const struct gpu_run *runs,
                                            size_t nruns, const float *out)
{
    const struct diagnose_entry *found = NULL;
    if (nruns == 0)
        return NULL;
    for (size_t e = 0; e < NCATALOGUE; e++) {
        if (!variant_matches(t, &catalogue[e].variant, runs, nruns, out))
            continue;
        /* Two matches would mean the runs cannot tell the mistakes apart;
         * naming either one could then mislead. */
        if (found)
            return NULL;
        found = &catalogue[e];
    }
    return found;
}

/* ---- the summary ---- */

/* Where the failures are, as bit masks over the task's halves. */
struct failure_map {
    unsigned wrong[TASK_PLANES][2];  /* [plane][member]: halves with a failing cell */
    unsigned nan;                    /* halves with a cell that came back NaN */
    bool visible_wrong, hidden_wrong;
};

static int half_index(const struct task *t, int half)
{
    for (int h = 0; h < TASK_NHALVES; h++)
        if (t->halves[h] == half)
            return h;
    return -1;
}

/* Returns true when some cell fails. */
static bool map_failures(const struct task *t, const struct gpu_run *runs, size_t nruns,
                         const float *out, struct failure_map *m)
{
    memset(m, 0, sizeof *m);
    bool any = false;
    for (size_t r = 0; r < nruns; r++) {
        int h = half_index(t, runs[r].half);
        if (h < 0)
            continue;
        double want[TASK_PLANES][TASK_N];
        expected_of(&runs[r], NULL, want);
        bool visible = !memcmp(runs[r].spec, t->visible, sizeof t->visible);
        const float *got = out + r * TASK_CELLS;
        for (int p = 0; p < TASK_PLANES; p++) {
            for (int i = 0; i < TASK_N; i++) {
                float g = got[p * TASK_N + i];
                if (compare_cell(want[p][i], g, t->atol, t->rtol))
                    continue;
                any = true;
                m->wrong[p][(i / runs[r].half) % 2] |= 1u << h;
                if (isnan(g))
                    m->nan |= 1u << h;
                if (visible)
                    m->visible_wrong = true;
                else
                    m->hidden_wrong = true;
            }
        }
    }
    return any;
}

/* A growing sentence in a fixed buffer; output past the end is dropped. */
struct text {
    char buf[512];
    size_t len;
};

static void add(struct text *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct text *s, const char *fmt, ...)
{
    if (s->len >= sizeof s->buf - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->buf + s->len, sizeof s->buf - s->len, fmt, ap);
    va_end(ap);
    size_t room = sizeof s->buf - s->len;
    if (n > 0)
        s->len += (size_t)n < room ? (size_t)n : room - 1;   /* truncated */
}

/* "every half", "half 4", "half 2 and 4", "half 1, 2 and 4". */
static void add_halves(struct text *s, const struct task *t, unsigned mask)
{
    unsigned all = (1u << TASK_NHALVES) - 1;
    if (mask == all) {
        add(s, "every half");
        return;
    }
    int count = 0, total = 0;
    for (int h = 0; h < TASK_NHALVES; h++)
        total += (mask >> h) & 1;
    add(s, "half ");
    for (int h = 0; h < TASK_NHALVES; h++) {
        if (!((mask >> h) & 1))
            continue;
        count++;
        add(s, "%s%d", count == 1 ? "" : count == total ? " and " : ", ", t->halves[h]);
    }
}

/* "right everywhere", or where one plane's members fail. */
static void add_plane(struct text *s, const struct task *t, const unsigned wrong[2])
{
    if (!wrong[0] && !wrong[1]) {
        add(s, "right everywhere");
    } else if (wrong[0] == wrong[1]) {
        add(s, "wrong at both members for ");
        add_halves(s, t, wrong[0]);
    } else {
        static const char *const member[2] = { "lower", "upper" };
        add(s, "wrong");
        for (int m = 0, said = 0; m < 2; m++) {
            if (!wrong[m])
                continue;
            add(s, "%s at the %s members for ", said++ ? " and" : "", member[m]);
            add_halves(s, t, wrong[m]);
        }
    }
}

char *diagnose_summary(const struct task *t, const struct gpu_run *runs,
                       size_t nruns, const float *out)
{
    struct failure_map m;
    if (!map_failures(t, runs, nruns, out, &m))
        return NULL;
    struct text s = { .len = 0 };
    if (m.wrong[0][0] == m.wrong[1][0] && m.wrong[0][1] == m.wrong[1][1]) {
        add(&s, "both planes ");
        add_plane(&s, t, m.wrong[0]);
    } else {
        add(&s, "real plane ");
        add_plane(&s, t, m.wrong[0]);
        add(&s, "; imaginary plane ");
        add_plane(&s, t, m.wrong[1]);
    }
    if (m.nan) {
        add(&s, "; some cells never written (NaN) for ");
        add_halves(&s, t, m.nan);
    }
    /* A kernel that is right on the spectrum the page shows and wrong on
     * the hidden ones has usually been fitted to the visible answers. */
    if (!m.visible_wrong && m.hidden_wrong)
        add(&s, "; right on the visible spectrum, wrong only on hidden ones");
    return strdup(s.buf);
}

void diagnose_verdict(struct verdict *v, const struct task *t,
                      const struct gpu_run *runs, size_t nruns, const float *out)
{
    const struct diagnose_entry *e = diagnose_match(t, runs, nruns, out);
    if (e) {
        diagnosis_free(v->diagnosis);
        v->diagnosis = diagnosis_new(e->id, e->title, e->explanation, e->hint);
        return;
    }
    char *summary = diagnose_summary(t, runs, nruns, out);
    if (summary) {
        free(v->summary);
        v->summary = summary;
    }
}
