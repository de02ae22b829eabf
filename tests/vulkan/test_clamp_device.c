/*
 * Our bounds clamp (spirv_clamp.c, what spirv_robust_apply runs) and
 * SPIRV-Tools' graphics robust-access pass (spirv_robust_apply_tools, what
 * it ran before) compute the same on a real device: for every sample body,
 * every mistake and bodies that index with wild values, prepared as
 * grading prepares them (checked, loops counted, debug information
 * stripped), each cell of every run comes out bit for bit the same, and so
 * does its loop mark. The modules themselves are compared in
 * tests/unit/test_spirv_clamp.c; this is what the device makes of them.
 *
 * Argument: the folder of the sample bodies (tests/samples).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/task.h"
#include "engine/checks/spirv_check.h"
#include "engine/checks/spirv_loops.h"
#include "engine/checks/spirv_robust.h"
#include "engine/checks/spirv_strip.h"
#include "engine/compile/compile.h"
#include "engine/gpu.h"
#include "tests/support/device_fixture.h"
#include "tests/support/sample_bodies.h"

static const char *samples_dir = "tests/samples";

struct fixture {
    struct device_fixture dev;
    struct gpu_run runs[TASK_RUNS];
};

/* Inputs that differ in every run and cell, small integers and their
 * halves so that sums stay exact. */
static void make_runs(struct gpu_run runs[TASK_RUNS])
{
    static const int halves[3] = {1, 2, 4};
    for (int r = 0; r < TASK_RUNS; r++) {
        runs[r].half = halves[r / (1 + TASK_HIDDEN)];
        for (int k = 0; k < TASK_CELLS; k++)
            runs[r].spec[k] = (float)((r * 37 + k * 11) % 17 - 8) / 2.0f;
    }
}

static int setup(void **state)
{
    static struct fixture f;
    if (!device_fixture_open(&f.dev))
        return -1;
    make_runs(f.runs);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    device_fixture_close(&f->dev);
    return 0;
}

typedef bool (*robust_fn)(const uint32_t *, size_t, uint32_t **, size_t *, char *, size_t);

/* The module through one robust-access pass, stripped, run on every run. */
static void run_with(struct fixture *f, const char *what, robust_fn robust,
                     const uint32_t *words, size_t nwords, float *out, uint32_t *loops)
{
    char msg[320];
    uint32_t *safe, *final;
    size_t safe_words, final_words;
    struct gpu_timings t;
    if (!robust(words, nwords, &safe, &safe_words, msg, sizeof msg))
        fail_msg("%s: the robust-access pass failed: %s", what, msg);
    assert_true(spirv_strip_debug(safe, safe_words, &final, &final_words));
    enum gpu_status st = gpu_run(f->dev.gpu, exercise_default(), final, final_words, f->runs, TASK_RUNS, out, loops,
                                 5000, &t, msg, sizeof msg);
    if (st != GPU_OK)
        fail_msg("%s: the run failed: %s", what, msg);
    free(safe);
    free(final);
}

/* Both passes on one body; false when it does not compile or is refused. */
static bool same_on_device(void *arg, const char *what, const char *body)
{
    struct fixture *f = arg;
    struct compile_result cr;
    char msg[320];
    int line;
    assert_true(compiler_compile(f->dev.compiler, body, strlen(body), &cr));
    if (!cr.ok || !spirv_check(cr.spirv, cr.nwords, &line, msg, sizeof msg)) {
        compile_result_clear(&cr);
        return false;
    }
    uint32_t *counted = NULL;
    size_t counted_n = 0, nloops = 0;
    assert_true(spirv_loops_instrument(cr.spirv, cr.nwords, exercise_default()->loop_budget, &counted,
                                       &counted_n, &nloops, msg, sizeof msg));
    static float ours[TASK_RUNS * TASK_CELLS], tools[TASK_RUNS * TASK_CELLS];
    static uint32_t ours_loops[TASK_RUNS * TASK_CELLS], tools_loops[TASK_RUNS * TASK_CELLS];
    run_with(f, what, spirv_robust_apply, counted, counted_n, ours, ours_loops);
    run_with(f, what, spirv_robust_apply_tools, counted, counted_n, tools, tools_loops);
    for (size_t c = 0; c < TASK_RUNS * TASK_CELLS; c++)
        if (memcmp(&ours[c], &tools[c], sizeof ours[c]) != 0 || ours_loops[c] != tools_loops[c])
            fail_msg("%s: run %zu cell %zu: ours %g (loop %u), SPIRV-Tools' %g (loop %u)", what,
                     c / TASK_CELLS, c % TASK_CELLS, (double)ours[c], ours_loops[c],
                     (double)tools[c], tools_loops[c]);
    free(counted);
    compile_result_clear(&cr);
    return true;
}

static void test_index_bodies(void **state)
{
    for (size_t k = 0; k < index_bodies_count; k++) {
        char what[32];
        snprintf(what, sizeof what, "index body %zu", k);
        if (!same_on_device(*state, what, index_bodies[k]))
            fail_msg("%s does not compile or is refused", what);
    }
}

static void test_samples(void **state)
{
    char mistakes[1024];
    snprintf(mistakes, sizeof mistakes, "%s/mistakes", samples_dir);
    size_t n = sample_bodies_each(samples_dir, same_on_device, *state) +
               sample_bodies_each(mistakes, same_on_device, *state);
    assert_true(n >= 40);   /* of 22 + 34 bodies, those that compile and pass the checks */
}

int main(int argc, char **argv)
{
    if (argc > 1)
        samples_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_bodies),
        cmocka_unit_test(test_samples),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
