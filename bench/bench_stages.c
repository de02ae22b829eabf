/*
 * bench_stages: our own stages of a new submission, one by one, without a
 * device: the body checks, shaderc (harness assembly included), the
 * SPIR-V checks, the cache keys (debug information stripped, loop lines),
 * the loop counter, the robust-access pass, the final strip and the
 * validation of what the driver is handed, in the order grade.c runs
 * them. Each stage is timed in this thread's CPU time, so that a shared
 * machine's other load does not count, and in wall time; p50 and p90 over N distinct hint-shaped
 * submissions (bench_submission), after a warm-up.
 *
 * usage: bench_stages [N] [--loop]   (--loop: bodies with a loop)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "common/clock.h"
#include "common/task.h"
#include "engine/checks/source_check.h"
#include "engine/checks/spirv_check.h"
#include "engine/checks/spirv_loops.h"
#include "engine/checks/spirv_robust.h"
#include "engine/checks/spirv_strip.h"
#include "engine/compile/compile.h"

enum { S_CHECKS, S_COMPILE, S_SPIRV_CHECK, S_KEYS, S_LOOPS, S_ROBUST, S_STRIP, S_VALIDATE, S_N };
static const char *const stage_names[S_N] = {
    "body checks", "shaderc compile", "SPIR-V checks", "cache keys (strip, loop lines)",
    "loop counter", "robust access", "mark store dropped, final strip",
    "validation (the driver's module)",
};

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Runs every stage on one body into cpu[S_N] and wall[S_N]; false on a failure. */
static bool one(struct compiler *c, const char *body, size_t len, double cpu[S_N],
                double wall[S_N])
{
    char msg[320];
    int line;
    struct compile_result cr;
    uint32_t *key = NULL, *counted = NULL, *safe = NULL, *final = NULL;
    int *lines = NULL;
    size_t key_words, counted_words = 0, safe_words, final_words, nloops = 0, nlines;
    bool ok = false;
    double c0 = cpu_ms(), w0 = clock_now_ms();
#define LAP(s) do { double c1 = cpu_ms(), w1 = clock_now_ms(); \
                    cpu[s] = c1 - c0; wall[s] = w1 - w0; c0 = c1; w0 = w1; } while (0)
    if (!source_check(body, len, &line, msg, sizeof msg))
        return false;
    LAP(S_CHECKS);
    if (!compiler_compile(c, body, len, &cr) || !cr.ok)
        return false;
    LAP(S_COMPILE);
    if (!spirv_check(cr.spirv, cr.nwords, &line, msg, sizeof msg))
        goto done;
    LAP(S_SPIRV_CHECK);
    if (!spirv_strip_debug(cr.spirv, cr.nwords, &key, &key_words) ||
        !spirv_loops_lines(cr.spirv, cr.nwords, &lines, &nlines))
        goto done;
    LAP(S_KEYS);
    /* as grade.c: a module without loops is not rewritten */
    if (nlines > 0 && !spirv_loops_instrument(cr.spirv, cr.nwords, task_butterfly.loop_budget,
                                              &counted, &counted_words, &nloops, msg,
                                              sizeof msg))
        goto done;
    LAP(S_LOOPS);
    if (!spirv_robust_apply(counted ? counted : cr.spirv, counted ? counted_words : cr.nwords,
                            &safe, &safe_words, msg, sizeof msg))
        goto done;
    LAP(S_ROBUST);
    if (nlines == 0)   /* as grade.c: nothing can set the loop mark */
        safe_words = spirv_loops_drop_mark_store(safe, safe_words);
    if (!spirv_strip_debug(safe, safe_words, &final, &final_words))
        goto done;
    LAP(S_STRIP);
    if (!spirv_robust_validate(final, final_words, msg, sizeof msg))
        goto done;
    LAP(S_VALIDATE);
#undef LAP
    ok = true;
done:
    free(key);
    free(lines);
    free(counted);
    free(safe);
    free(final);
    compile_result_clear(&cr);
    return ok;
}

int main(int argc, char **argv)
{
    int n = argc > 1 && argv[1][0] != '-' ? atoi(argv[1]) : 200;
    bool loop = argc > 1 && !strcmp(argv[argc - 1], "--loop");
    if (n < 1)
        n = 1;
    struct compiler *c = compiler_new();
    double *cpu = calloc((size_t)n * S_N, sizeof *cpu), *wall = calloc((size_t)n * S_N, sizeof *wall);
    double *col = calloc((size_t)n, sizeof *col), *tot = calloc((size_t)n, sizeof *tot);
    double *wtot = calloc((size_t)n, sizeof *wtot);
    if (!c || !cpu || !wall || !col || !tot || !wtot)
        return 1;
    char body[2048];
    double scratch[S_N], scratch_w[S_N];
    for (int k = 0; k < 20; k++) {   /* warm-up: glslang's first compile initialises it */
        size_t len = (loop ? bench_submission_loop : bench_submission)(900000u + 2 * k, body, sizeof body);
        one(c, body, len, scratch, scratch_w);
    }
    for (int k = 0; k < n; k++) {
        size_t len = (loop ? bench_submission_loop : bench_submission)(2u * (unsigned)k, body, sizeof body);
        if (!one(c, body, len, cpu + (size_t)k * S_N, wall + (size_t)k * S_N)) {
            fprintf(stderr, "bench_stages: submission %d failed\n", k);
            return 1;
        }
        for (int s = 0; s < S_N; s++) {
            tot[k] += cpu[(size_t)k * S_N + s];
            wtot[k] += wall[(size_t)k * S_N + s];
        }
    }
    printf("%d new %s submissions, our stages (CPU ms of this thread; wall in brackets):\n", n,
           loop ? "looping hint-shaped" : "hint-shaped");
    for (int s = 0; s < S_N; s++) {
        for (int k = 0; k < n; k++)
            col[k] = cpu[(size_t)k * S_N + s];
        double p50 = bench_quantile(col, (size_t)n, 0.5), p90 = bench_quantile(col, (size_t)n, 0.9);
        for (int k = 0; k < n; k++)
            col[k] = wall[(size_t)k * S_N + s];
        printf("  %-32s p50 %6.3f  p90 %6.3f  [%6.3f]\n", stage_names[s], p50, p90,
               bench_quantile(col, (size_t)n, 0.5));
    }
    printf("  %-32s p50 %6.3f  p90 %6.3f  [%6.3f]\n", "all our stages",
           bench_quantile(tot, (size_t)n, 0.5), bench_quantile(tot, (size_t)n, 0.9),
           bench_quantile(wtot, (size_t)n, 0.5));
    compiler_free(c);
    free(cpu);
    free(wall);
    free(col);
    free(tot);
    free(wtot);
    return 0;
}
