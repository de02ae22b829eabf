/*
 * bench_search: what the diagnosis of a Wrong Answer costs the worker.
 *
 * Times diagnose_verdict (the search of the family, the words, the worked
 * cells) on the outputs a kernel gives, for four kinds of kernel:
 *   one      - every member of the family with one mistake
 *   two      - every member with two mistakes
 *   near     - each of those with one hidden cell off by 0.5 (no name)
 *   noise    - numbers unrelated to the inputs (no name: the worst case,
 *              every shape is tried and fails)
 * and prints, per kind, how many were named and the median, p99 and
 * largest time per call. The time is the thread's CPU time, so that other
 * work on a shared machine does not count (wall time on a quiet machine is
 * the same). No device is needed: the outputs are computed.
 *
 * usage: bench_search [--rounds N]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "common/task.h"
#include "bench/bench_util.h"
#include "engine/diagnosis/diagnose.h"
#include "engine/diagnosis/family.h"
#include "engine/grade.h"
#include "engine/runs.h"
#include "tests/support/compared.h"

#define NRUNS BF_RUNS

struct sample_set {
    double *ms;
    size_t n, cap, named;
    double slowest;
    char slowest_name[96];
};

static void record(struct sample_set *s, double ms, bool named, const char *name)
{
    if (ms > s->slowest) {
        s->slowest = ms;
        snprintf(s->slowest_name, sizeof s->slowest_name, "%s", name);
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->ms = realloc(s->ms, s->cap * sizeof *s->ms);
        if (!s->ms) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    s->ms[s->n++] = ms;
    s->named += named;
}

/* This thread's CPU time in milliseconds. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void outputs_of(const struct family_member *m, const struct gpu_run *runs, float *out)
{
    for (int r = 0; r < NRUNS; r++)
        for (int p = 0; p < BF_PLANES; p++)
            for (int i = 0; i < BF_N; i++)
                out[r * BF_CELLS + p * BF_N + i] = (float)family_cell(
                    m, (const float (*)[BF_N])runs[r].spec, runs[r].half, p, i);
}

/* Times one diagnosis of the outputs of kernel `name`. */
static void time_one(const struct gpu_run *runs, const float *out, struct sample_set *s,
                     const char *name)
{
    struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, NULL);
    double t0 = cpu_ms();
    diagnose_verdict(v, compared(exercise_default(), runs, NRUNS, out), NULL, 0);
    double ms = cpu_ms() - t0;
    if (v->worked_cell)     /* a Wrong Answer: the outputs are not right */
        record(s, ms, v->diagnosis != NULL, name);
    verdict_free(v);
}

static void print(const char *name, struct sample_set *s)
{
    if (!s->n)
        return;
    printf("%-6s %6zu calls, %6zu named: median %.3f ms, p99 %.3f ms, max %.3f ms (%s)\n",
           name, s->n, s->named, bench_quantile(s->ms, s->n, 0.5),
           bench_quantile(s->ms, s->n, 0.99), s->slowest, s->slowest_name);
}

int main(int argc, char **argv)
{
    int rounds = 1;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--rounds") && a + 1 < argc) {
            rounds = atoi(argv[++a]);
        } else {
            fprintf(stderr, "usage: bench_search [--rounds N]\n");
            return 64;
        }
    }
    struct gpu_run runs[NRUNS];
    float *out = malloc(NRUNS * BF_CELLS * sizeof *out);
    struct sample_set one = { 0 }, two = { 0 }, near = { 0 }, noise = { 0 };
    uint64_t state = 1;
    for (int round = 0; round < rounds; round++) {
        runs_fill(exercise_default(), TASK_DEFAULT_SEED + (uint64_t)round, runs);
        for (int p = 0; p < FAMILY_NPARAMS; p++) {
            const struct family_param_info *a = family_param((enum family_param)p);
            for (int v = 1; v < a->nvalues; v++) {
                for (int q = p; q < FAMILY_NPARAMS; q++) {
                    const struct family_param_info *b = family_param((enum family_param)q);
                    for (int w = q == p ? 0 : 1; w < (q == p ? 1 : b->nvalues); w++) {
                        struct family_member m = { .constant = 1.5 };
                        m.v[p] = (unsigned char)v;
                        if (q != p)
                            m.v[q] = (unsigned char)w;
                        char name[96];
                        snprintf(name, sizeof name, "%s%s%s", a->values[v].id,
                                 q == p ? "" : "+", q == p ? "" : b->values[w].id);
                        outputs_of(&m, runs, out);
                        time_one(runs, out, q == p ? &one : &two, name);
                        float *c = &out[(5 + p) * BF_CELLS + v % BF_CELLS];
                        *c = isfinite(*c) ? *c + 0.5f : 0.5f;
                        time_one(runs, out, &near, name);
                    }
                }
            }
        }
        for (int k = 0; k < 200; k++) {
            for (int c = 0; c < NRUNS * BF_CELLS; c++) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                out[c] = (float)((double)(state >> 11) / (double)(1ull << 52) * 4 - 4);
            }
            time_one(runs, out, &noise, "random numbers");
        }
    }
    print("one", &one);
    print("two", &two);
    print("near", &near);
    print("noise", &noise);
    free(one.ms);
    free(two.ms);
    free(near.ms);
    free(noise.ms);
    free(out);
    return 0;
}
