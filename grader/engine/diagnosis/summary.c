/* summary.c - where a kernel's outputs fail, in words. */
#include "engine/diagnosis/summary.h"

#include <math.h>
#include <string.h>


static const char *const nonfinite_names[NONFINITE_KINDS] = { "NaN", "Infinity", "−Infinity" };

int summary_half_index(const struct exercise *t, int half)
{
    for (int h = 0; h < BF_NHALVES; h++)
        if (t->sweep[h] == half)
            return h;
    return -1;
}

static int nonfinite_kind(float x)
{
    return isnan(x) ? NONFINITE_NAN : x > 0 ? NONFINITE_INF : NONFINITE_MINUS_INF;
}

/* Returns true when some cell fails. */
bool summary_map(const struct comparison *c, struct failure_map *m)
{
    memset(m, 0, sizeof *m);
    bool any = false;
    for (size_t r = 0; r < c->nruns; r++) {
        const struct compared_run *cr = &c->run[r];
        int h = cr->half_index;
        if (h < 0)
            continue;
        bool visible = cr->visible;
        const float *got = cr->got;
        for (int p = 0; p < BF_PLANES; p++) {
            for (int i = 0; i < BF_N; i++) {
                float g = got[p * BF_N + i];
                if (!isfinite(g)) {
                    int kind = nonfinite_kind(g);
                    if (visible)
                        m->visible_cells[kind][h] |= (uint16_t)(1u << (p * BF_N + i));
                    else
                        m->hidden_cells[kind][h] = true;
                }
                if (cr->passed[p][i])
                    continue;
                any = true;
                m->wrong[p][(i / cr->run->half) % 2] |= 1u << h;
                m->halves |= 1u << h;
                if (visible)
                    m->visible_wrong = true;
                else
                    m->hidden_wrong = true;
            }
        }
    }
    return any;
}

/* "every half", "half 4", "half 2 and 4", "half 1, 2 and 4". */
void summary_add_halves(struct text *s, const struct exercise *t, unsigned mask)
{
    unsigned all = (1u << BF_NHALVES) - 1;
    if (mask == all) {
        text_add(s, "every half");
        return;
    }
    int count = 0, total = 0;
    for (int h = 0; h < BF_NHALVES; h++)
        total += (mask >> h) & 1;
    text_add(s, "half ");
    for (int h = 0; h < BF_NHALVES; h++) {
        if (!((mask >> h) & 1))
            continue;
        count++;
        text_add(s, "%s%d", count == 1 ? "" : count == total ? " and " : ", ", t->sweep[h]);
    }
}

/* "right everywhere", or where one plane's members fail. */
static void add_plane(struct text *s, const struct exercise *t, const unsigned wrong[2])
{
    if (!wrong[0] && !wrong[1]) {
        text_add(s, "right everywhere");
    } else if (wrong[0] == wrong[1]) {
        text_add(s, "wrong at both members for ");
        summary_add_halves(s, t, wrong[0]);
    } else {
        static const char *const member[2] = { "lower", "upper" };
        text_add(s, "wrong");
        for (int m = 0, said = 0; m < 2; m++) {
            if (!wrong[m])
                continue;
            text_add(s, "%s at the %s members for ", said++ ? " and" : "", member[m]);
            summary_add_halves(s, t, wrong[m]);
        }
    }
}

/* "real i = 0, 4; imaginary i = 3" for a mask of 16 cells. */
static void add_cells(struct text *s, uint16_t cells)
{
    static const char *const planes[BF_PLANES] = { "real", "imaginary" };
    if (cells == 0xffff) {
        text_add(s, "every cell");
        return;
    }
    for (int p = 0, said = 0; p < BF_PLANES; p++) {
        unsigned row = (cells >> (p * BF_N)) & 0xffu;
        if (!row)
            continue;
        text_add(s, "%s%s ", said++ ? "; " : "", planes[p]);
        if (row == 0xffu) {
            text_add(s, "every i");
            continue;
        }
        text_add(s, "i = ");
        for (int i = 0, n = 0; i < BF_N; i++)
            if ((row >> i) & 1)
                text_add(s, "%s%d", n++ ? ", " : "", i);
    }
}

/*
 * "it returned NaN in every cell", or "it returned NaN at half 2 (real
 * i = 1), half 4 (hidden spectra)": the cells where the kernel returned a
 * value that is not a number, so that the words never call them unwritten
 * (the harness writes every cell).
 */
static void add_nonfinite(struct text *s, const struct exercise *t, const struct failure_map *m)
{
    for (int kind = 0; kind < NONFINITE_KINDS; kind++) {
        bool any = false, everywhere = true;
        for (int h = 0; h < BF_NHALVES; h++) {
            any |= m->visible_cells[kind][h] || m->hidden_cells[kind][h];
            everywhere &= m->visible_cells[kind][h] == 0xffff && m->hidden_cells[kind][h];
        }
        if (!any)
            continue;
        if (everywhere) {
            text_add(s, "; it returned %s in every cell", nonfinite_names[kind]);
            continue;
        }
        text_add(s, "; it returned %s at ", nonfinite_names[kind]);
        for (int h = 0, said = 0; h < BF_NHALVES; h++) {
            if (!m->visible_cells[kind][h] && !m->hidden_cells[kind][h])
                continue;
            text_add(s, "%shalf %d (", said++ ? ", " : "", t->sweep[h]);
            if (m->visible_cells[kind][h])
                add_cells(s, m->visible_cells[kind][h]);
            else
                text_add(s, "hidden spectra only");
            text_add(s, ")");
        }
    }
}

char *summary_text(const struct comparison *c)
{
    const struct exercise *t = c->ex;
    struct failure_map m;
    if (!summary_map(c, &m))
        return NULL;
    struct text s = { 0 };
    if (m.wrong[0][0] == m.wrong[1][0] && m.wrong[0][1] == m.wrong[1][1]) {
        text_add(&s, "both planes ");
        add_plane(&s, t, m.wrong[0]);
    } else {
        text_add(&s, "real plane ");
        add_plane(&s, t, m.wrong[0]);
        text_add(&s, "; imaginary plane ");
        add_plane(&s, t, m.wrong[1]);
    }
    add_nonfinite(&s, t, &m);
    /* A kernel that is right on the spectrum the page shows and wrong on
     * the hidden ones has usually been fitted to the visible answers. */
    if (!m.visible_wrong && m.hidden_wrong)
        text_add(&s, "; right on the visible spectrum, wrong only on hidden ones");
    return text_take(&s);
}
