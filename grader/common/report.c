/* report.c - a verdict as text a person reads at a glance. */
#include "common/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

/* A value the kernel returned, NaN and infinities by name: the harness
 * writes every cell, so a NaN is what the kernel computed. */
const char *report_value(double x, char *buf, size_t size)
{
    if (isnan(x))
        snprintf(buf, size, "NaN");
    else if (isinf(x))
        snprintf(buf, size, "%s", x > 0 ? "Infinity" : "-Infinity");
    else
        snprintf(buf, size, "%.6g", x);
    return buf;
}

static void print_value(FILE *out, double x)
{
    char buf[32];
    fputs(report_value(x, buf, sizeof buf), out);
}

static void print_complex(FILE *out, struct complex_value c)
{
    fprintf(out, "(%.6g, %.6g)", c.re, c.im);
}

/*
 * The worked cell, as a student would work it on paper:
 *   Worked cell: half = 2, visible spectrum, i = 1, real plane
 *     j = 0 (lower member), base = 1, r = 1, partner = 3
 *     a = element 1 = (-0.5, 1.25), b = element 3 = (0.75, 2)
 *     w = e^(-iπ·1/2) = (0, -1), w·b = (2, -0.75)
 *     due: a + w·b = 1.5 (real part)
 *     returned: 3, which is a − w·b
 */
static void print_worked(FILE *out, const struct worked_cell *w)
{
    const char *plane = w->plane == 0 ? "real" : "imaginary";
    fprintf(out, "\nWorked cell: half = %d, %s spectrum, i = %d, %s plane\n", w->half,
            w->hidden ? "a hidden" : "the visible", w->i, plane);
    fprintf(out, "  j = %d (%s member), base = %d, r = %d, partner = %d\n", w->j,
            w->j == 0 ? "lower" : "upper", w->base, w->r, w->partner);
    fprintf(out, "  a = element %d = ", w->base);
    print_complex(out, w->a);
    fprintf(out, ", b = element %d = ", w->base + w->half);
    print_complex(out, w->b);
    fprintf(out, "\n  w = e^(-iπ·%d/%d) = ", w->r, w->half);
    print_complex(out, w->w);
    fprintf(out, ", w·b = ");
    print_complex(out, w->wb);
    fprintf(out, "\n  due: %s = ", w->due);
    print_value(out, w->expected);
    fprintf(out, " (%s part)\n  returned: ", plane);
    print_value(out, w->got);
    if (w->got_matches[0])
        fprintf(out, ", which is %s", w->got_matches);
    fprintf(out, "\n");
}

static void print_ms(FILE *out, const char *label, double ms)
{
    if (ms >= 0)
        fprintf(out, "%s %.2f ms", label, ms);
    else
        fprintf(out, "%s n/a", label);
}

const char *report_plane_name(const struct verdict *v, int y)
{
    static const char *const complex[] = { "real", "imag" };
    static const char *const plain[EX_MAX_PLANES] = { "p0", "p1" };
    if (v->grid_planes == 2)
        return complex[y];
    return y >= 0 && y < EX_MAX_PLANES ? plain[y] : "?";
}

int report_wrong_cells(const struct verdict *v, const struct half_result *h)
{
    int wrong = 0;
    for (int y = 0; y < v->grid_planes; y++)
        for (int x = 0; x < v->grid_n; x++)
            wrong += !h->cells[y][x].passed;
    return wrong;
}

void report_cells(FILE *out, const struct verdict *v, const struct half_result *h)
{
    fprintf(out, "        i:");
    for (int x = 0; x < v->grid_n; x++)
        fprintf(out, " %3d", x);
    fprintf(out, "\n");
    for (int y = 0; y < v->grid_planes; y++) {
        fprintf(out, "  %7s:", report_plane_name(v, y));
        for (int x = 0; x < v->grid_n; x++)
            fprintf(out, " %3s", h->cells[y][x].passed ? "ok" : "XX");
        fprintf(out, "\n");
    }
    if (report_wrong_cells(v, h))
        fprintf(out, "  failing cells:\n");
    for (int y = 0; y < v->grid_planes; y++) {
        for (int x = 0; x < v->grid_n; x++) {
            const struct cell_result *c = &h->cells[y][x];
            if (c->passed)
                continue;
            fprintf(out, "    i=%d %s: expected ", x, report_plane_name(v, y));
            print_value(out, c->expected);
            fprintf(out, ", got ");
            print_value(out, c->got);
            fprintf(out, "\n");
        }
    }
}

/* The exercise v grades, for its names; the default one for a verdict on
 * an exercise this build lacks (a record that outlived its definition). */
static const struct exercise *exercise_of(const struct verdict *v)
{
    const struct exercise *e = exercise_find(v->task);
    return e ? e : exercise_default();
}

static void print_half(FILE *out, const struct verdict *v, const struct half_result *h)
{
    const struct exercise *e = exercise_of(v);
    fprintf(out, "\n%s = %d: %s (hidden %s %d/%d)\n", e->param, h->half,
            h->passed ? "passed" : "FAILED", exercise_hidden_word(e), h->hidden_passed,
            h->hidden_total);
    report_cells(out, v, h);
}

void report_write(FILE *out, const struct verdict *v)
{
    fprintf(out, "Verdict: %s\n", verdict_status_to_str(v->status));
    if (v->message)
        fprintf(out, "%s\n", v->message);
    if (v->diagnosis) {
        fprintf(out, "\nLikely mistake: %s\n  %s\n  Look at: %s\n", v->diagnosis->title,
                v->diagnosis->explanation, v->diagnosis->hint);
    } else if (v->summary) {
        fprintf(out, "\nWhere it fails: %s\n", v->summary);
    }
    if (v->worked_cell)
        print_worked(out, v->worked_cell);
    if (v->ndiags > 0)
        fprintf(out, "\nDiagnostics (line numbers are those of your body):\n");
    for (size_t i = 0; i < v->ndiags; i++) {
        const struct diagnostic *d = &v->diags[i];
        fprintf(out, "  line %d: %s: %s\n", d->line,
                diag_severity_to_str(d->severity), d->message);
        if (d->original)
            fprintf(out, "    (the compiler's words: %s)\n", d->original);
    }
    if (v->log_truncated)
        fprintf(out, "  (compiler log truncated)\n");
    for (int h = 0; h < v->halves_run; h++)
        print_half(out, v, &v->halves[h]);
    fprintf(out, "\n");
    if (v->has_device)
        fprintf(out, "Device: %s (%s)\n", v->device_name, device_type_to_str(v->device_type));
    fprintf(out, "Time:");
    print_ms(out, " compile", v->timings.compile_ms);
    print_ms(out, ", pipeline", v->timings.pipeline_ms);
    print_ms(out, ", run", v->timings.run_ms);
    print_ms(out, ", total", v->timings.total_ms);
    fprintf(out, "\n");
    /* The hidden inputs are drawn afresh for every grading; the seed is
     * what lets someone who doubts a verdict repeat exactly this one. */
    const struct exercise *e = exercise_of(v);
    bool other = e != exercise_default();
    if (v->halves_run > 0)
        fprintf(out, "Seed: %" PRIu64 " (butterfly-grade%s%s --seed %" PRIu64
                " draws the same hidden %s again)\n", v->seed, other ? " --exercise " : "",
                other ? e->id : "", v->seed, exercise_hidden_word(e));
}

char *report_to_string(const struct verdict *v)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    report_write(f, v);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
