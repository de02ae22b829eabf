/*
 * A run sees only its own input, on a real Vulkan device, checked on every
 * run (the verdict shows only the visible ones): each run gets inputs that
 * no other run has (run r's values are 1000 r + k), and bodies that try to
 * read past their own spectrum, by every route a body has, must return
 * values of their own run only, or constants that are the same in every
 * run. The kernels go through the grader's own stages: compile, SPIR-V
 * checks, the robust-access pass, stripping, and the per-run dispatch.
 */
#include <math.h>
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
#include "engine/checks/spirv_robust.h"
#include "engine/checks/spirv_strip.h"
#include "engine/compile/compile.h"
#include "engine/gpu.h"
#include "tests/support/device_fixture.h"

static int setup(void **state)
{
    static struct device_fixture f;
    if (!device_fixture_open(&f))
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    device_fixture_close(*state);
    return 0;
}

/* Every run's inputs are its own: 1000 r + k, negative in plane 1. */
static void make_runs(struct gpu_run runs[TASK_RUNS])
{
    static const int halves[3] = { 1, 2, 4 };
    for (int r = 0; r < TASK_RUNS; r++) {
        runs[r].half = halves[r / (1 + TASK_HIDDEN)];
        for (int k = 0; k < TASK_N; k++) {
            runs[r].spec[k] = (float)(1000 * r + k);
            runs[r].spec[TASK_N + k] = -(float)(1000 * r + k);
        }
    }
}

/* Compiles and runs body through the grader's stages; out per run. */
static void run_body(struct device_fixture *f, const char *body, float out[TASK_RUNS * TASK_CELLS])
{
    struct compile_result cr;
    char msg[256];
    uint32_t *safe, *final;
    size_t safe_words, final_words;
    struct gpu_run runs[TASK_RUNS];
    struct gpu_timings t;
    assert_true(compiler_compile(f->compiler, body, strlen(body), &cr));
    if (!cr.ok)
        fail_msg("does not compile: %s", cr.log ? cr.log : "");
    if (!spirv_check(cr.spirv, cr.nwords, NULL, msg, sizeof msg))
        fail_msg("refused: %s", msg);
    assert_true(spirv_robust_apply(cr.spirv, cr.nwords, &safe, &safe_words, msg, sizeof msg));
    assert_true(spirv_strip_debug(safe, safe_words, &final, &final_words));
    make_runs(runs);
    enum gpu_status st = gpu_run(f->gpu, exercise_default(), final, final_words, runs, TASK_RUNS, out, NULL, 5000,
                                 &t, msg, sizeof msg);
    if (st != GPU_OK)
        fail_msg("the run failed: %s", msg);
    free(safe);
    free(final);
    compile_result_clear(&cr);
}

/* Whether v is one of run r's inputs. */
static bool own_input(int r, float v)
{
    for (int k = 0; k < TASK_N; k++)
        if (v == (float)(1000 * r + k) || v == -(float)(1000 * r + k))
            return true;
    return false;
}

struct probe {
    const char *what, *body;
    bool constant;     /* the same value in every run */
};

static void test_each_route_reads_only_its_own_run(void **state)
{
    static const struct probe probes[] = {
        { "an index past the end", "return spectrum[this.thread.y][this.thread.x + 8 * half];",
          false },
        { "a negative index", "return spectrum[this.thread.y][-1 - 7 * this.thread.x];", false },
        { "an index taken from the data",
          "int k = int(abs(spectrum[0][0])) + this.thread.x;\nreturn spectrum[this.thread.y][k];",
          false },
        { "the buffer by its name, past its planes",
          "return bf_in.spec[this.thread.y + 3][this.thread.x * 5];", false },
        { "the buffer by its name, a negative plane",
          "return bf_in.spec[-2 - this.thread.y][this.thread.x];", false },
        { "the workgroup id and count",
          "return float(gl_WorkGroupID.x + gl_WorkGroupID.y + gl_WorkGroupID.z) + "
          "100.0 * float(gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z);", true },
        { "the global invocation id",
          "return float(gl_GlobalInvocationID.z * 1000u + gl_GlobalInvocationID.y * 100u + "
          "gl_GlobalInvocationID.x);", true },
    };
    struct device_fixture *f = *state;
    static float out[TASK_RUNS * TASK_CELLS];
    for (size_t p = 0; p < sizeof probes / sizeof probes[0]; p++) {
        char body[512];
        snprintf(body, sizeof body, "%s\n", probes[p].body);
        run_body(f, body, out);
        for (int r = 0; r < TASK_RUNS; r++) {
            for (int c = 0; c < TASK_CELLS; c++) {
                float v = out[r * TASK_CELLS + c];
                bool ok = probes[p].constant ? v == out[c] : own_input(r, v);
                if (!ok)
                    fail_msg("%s: run %d, cell %d returned %g, which is not its own", 
                             probes[p].what, r, c, (double)v);
            }
        }
        print_message("ok: %s\n", probes[p].what);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_route_reads_only_its_own_run),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
