/* grade.c - the grading pipeline for one body, in process. */
#include "engine/grade.h"

#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/defaults.h"
#include "engine/answer_bound.h"
#include "engine/checks/source_check.h"
#include "engine/checks/spirv_check.h"
#include "engine/checks/spirv_loops.h"
#include "engine/checks/spirv_robust.h"
#include "engine/checks/spirv_strip.h"
#include "engine/compare.h"
#include "engine/compile.h"
#include "engine/diagnosis/diagnose.h"
#include "engine/kernel_cache.h"
#include "engine/reference.h"

struct grader {
    struct grader_options opts;
    struct compiler *compiler;
    struct gpu_context *gpu;
    struct kernel_cache *cache;
    bool usable;
};

void grader_options_init(struct grader_options *o)
{
    o->device = NULL;
    o->seed = TASK_DEFAULT_SEED;
    o->deadline_ms = DEFAULT_DEADLINE_MS;
    o->before_device = NULL;
    o->before_device_arg = NULL;
    o->on_stage = NULL;
    o->on_stage_arg = NULL;
    o->cache_kernels = true;
    o->count_loops = true;
}

static void stage(struct grader *g, const char *name)
{
    if (g->opts.on_stage)
        g->opts.on_stage(name, g->opts.on_stage_arg);
}

struct grader *grader_new(const struct grader_options *o, char *err, size_t errsz)
{
    struct grader *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    g->opts = *o;
    g->compiler = compiler_new();
    if (!g->compiler) {
        snprintf(err, errsz, "cannot create the shaderc compiler");
        goto fail;
    }
    /* lavapipe compiles each pipeline with LLVM at its first dispatch. The
     * kernels are tiny, so LLVM's optimisation passes cost more than they
     * save: without them the compile takes half the time. GPU drivers
     * ignore the variable; a value already in the environment wins. */
    setenv("GALLIVM_PERF", "nopt", 0);
    /* Student shaders never go to Mesa's on-disk cache: it would grow
     * without bound and outlive the process. */
    setenv("MESA_SHADER_CACHE_DISABLE", "true", 0);
    /* Each run is one workgroup of 16 threads, which lavapipe's thread pool
     * cannot share out: its threads only add a wake-up to each of the 27
     * dispatches (an identical resubmission took 5 ms with them, 0.5 ms
     * without). Workers are one per core anyway. */
    setenv("LP_NUM_THREADS", "0", 0);
    g->gpu = gpu_context_new(o->device, o->before_device, o->before_device_arg, err, errsz);
    if (!g->gpu)
        goto fail;
    if (!(g->cache = kernel_cache_new(g->gpu))) {
        snprintf(err, errsz, "out of memory");
        goto fail;
    }
    g->usable = true;
    return g;
fail:
    grader_free(g);
    return NULL;
}

void grader_free(struct grader *g)
{
    if (!g)
        return;
    compiler_free(g->compiler);
    if (g->usable)
        kernel_cache_free(g->cache);   /* after a timeout, kernels may be in use */
    gpu_context_free(g->gpu);
    free(g);
}

void grader_set_stage_hook(struct grader *g, void (*on_stage)(const char *stage, void *arg),
                           void *arg)
{
    g->opts.on_stage = on_stage;
    g->opts.on_stage_arg = arg;
}

void grader_set_seed(struct grader *g, uint64_t seed)
{
    g->opts.seed = seed;
}

const struct gpu_device_info *grader_device(const struct grader *g)
{
    return gpu_context_device(g->gpu);
}

bool grader_usable(const struct grader *g)
{
    return g->usable;
}

/* Moves the compiler's diagnostics and log into the verdict. */
static void take_diagnostics(struct verdict *v, struct compile_result *cr)
{
    v->diags = cr->diags;
    v->ndiags = cr->ndiags;
    v->log = cr->log;
    v->log_truncated = cr->log_truncated;
    cr->diags = NULL;
    cr->ndiags = 0;
    cr->log = NULL;
}

/* A refusal also marks its line, for the editor, after any warnings the
 * compiler gave. */
static void add_line_diagnostic(struct verdict *v, int line, const char *msg)
{
    if (line > 0)
        verdict_add_diagnostic(v, line, DIAG_ERROR, msg);
}

void grade_fill_runs(uint64_t seed, struct gpu_run runs[TASK_RUNS])
{
    for (int h = 0; h < TASK_NHALVES; h++) {
        for (int s = 0; s <= TASK_HIDDEN; s++) {
            struct gpu_run *r = &runs[h * (1 + TASK_HIDDEN) + s];
            float spec[TASK_PLANES][TASK_N];
            if (s == 0)
                memcpy(spec, task_butterfly.visible, sizeof spec);
            else
                task_hidden_spectrum(seed, (unsigned)(h * TASK_HIDDEN + s - 1), spec);
            r->half = task_butterfly.halves[h];
            memcpy(r->spec, spec, sizeof spec);
        }
    }
}

/* Compares every run with the reference; returns true when all pass. */
static bool compare_runs(struct verdict *v, const struct gpu_run runs[TASK_RUNS],
                         const float *out)
{
    bool all = true;
    const struct task *t = &task_butterfly;
    for (int h = 0; h < TASK_NHALVES; h++) {
        struct half_result *hr = &v->halves[h];
        hr->half = t->halves[h];
        hr->passed = true;
        hr->hidden_passed = 0;
        hr->hidden_total = TASK_HIDDEN;
        for (int s = 0; s <= TASK_HIDDEN; s++) {
            int run = h * (1 + TASK_HIDDEN) + s;
            float in[TASK_PLANES][TASK_N];
            double want[TASK_PLANES][TASK_N];
            memcpy(in, runs[run].spec, sizeof in);
            reference_pass(in, hr->half, want);
            bool run_ok = true;
            for (int y = 0; y < TASK_PLANES; y++) {
                for (int x = 0; x < TASK_N; x++) {
                    float got = out[run * TASK_CELLS + y * TASK_N + x];
                    bool ok = compare_cell(want[y][x], got, t->atol, t->rtol);
                    run_ok &= ok;
                    if (s == 0)
                        hr->cells[y][x] = (struct cell_result){ want[y][x], got, ok };
                }
            }
            if (s > 0)
                hr->hidden_passed += run_ok;
            hr->passed &= run_ok;
        }
        all &= hr->passed;
    }
    v->halves_run = TASK_NHALVES;
    return all;
}

static void describe_failure(struct verdict *v)
{
    char halves[64] = "";
    size_t n = 0;
    int failed = 0;
    for (int h = 0; h < v->halves_run; h++) {
        if (v->halves[h].passed)
            continue;
        n += (size_t)snprintf(halves + n, sizeof halves - n, "%s%d",
                              failed ? ", " : "", v->halves[h].half);
        failed++;
    }
    verdict_set_message(v, "Wrong for half = %s; the other halves are right.", halves);
    if (failed == v->halves_run)
        verdict_set_message(v, "Wrong for every half (%s).", halves);
}

/*
 * The first run and cell (visible spectra before hidden ones, half by
 * half) whose thread ran over the loop budget, into v->loop; false when
 * no thread did. loop_lines[k - 1] is the body line of loop k.
 */
static bool find_loop_overrun(struct verdict *v, const uint32_t *marks,
                              const struct gpu_run runs[TASK_RUNS], const int *loop_lines,
                              size_t nloops)
{
    for (int pass = 0; pass < 2; pass++) {
        for (int run = 0; run < TASK_RUNS; run++) {
            bool hidden = run % (1 + TASK_HIDDEN) != 0;
            if (hidden != (pass == 1))
                continue;
            for (int cell = 0; cell < TASK_CELLS; cell++) {
                uint32_t loop = marks[run * TASK_CELLS + cell];
                if (!loop)
                    continue;
                if (!(v->loop = calloc(1, sizeof *v->loop)))
                    return true;
                *v->loop = (struct verdict_loop){
                    .line = loop <= nloops ? loop_lines[loop - 1] : 0,
                    .limit = task_butterfly.loop_budget,
                    .half = runs[run].half,
                    .hidden = hidden,
                    .i = cell % TASK_N,
                    .plane = cell / TASK_N,
                };
                return true;
            }
        }
    }
    return false;
}

/* A Time Limit Exceeded by the loop budget: the same on every device. */
static void loop_verdict(struct verdict *v)
{
    const struct verdict_loop *l = v->loop;
    char where[32] = "";
    v->status = VERDICT_TIME_LIMIT;
    if (!l) {
        verdict_set_message(v, "A loop ran more than %u times.", task_butterfly.loop_budget);
        return;
    }
    if (l->line > 0)
        snprintf(where, sizeof where, " on line %d", l->line);
    verdict_set_message(v, "The loop%s ran more than %u times for output cell i = %d, plane %d "
                        "(half = %d, %s spectrum): every thread may take at most %u loop "
                        "iterations in all. Look for a loop whose condition never becomes "
                        "false; the butterfly needs no loop at all.",
                        where, l->limit, l->i, l->plane, l->half,
                        l->hidden ? "a hidden" : "the visible", l->limit);
    char msg[96];
    snprintf(msg, sizeof msg, "this loop ran more than %u times", l->limit);
    add_line_diagnostic(v, l->line, msg);
}

/* A failure of the grader's own (the driver's, the device's, memory's):
 * Internal Error, which the pool retries on a fresh worker. */
static void internal_failure(struct grader *g, struct verdict *v, enum gpu_status st,
                             const char *err)
{
    v->status = VERDICT_INTERNAL_ERROR;
    if (st == GPU_DEVICE_LOST || st == GPU_TIMEOUT)
        g->usable = false;
    verdict_set_message(v, "The grader could not run the kernel (%s: %s); this is not a fault "
                        "of your code.", gpu_status_to_str(st), err);
}

/* Runs the kernel of entry e on every run, and judges the outputs. */
static void run_and_compare(struct grader *g, struct verdict *v, const struct kernel_entry *e)
{
    struct gpu_run runs[TASK_RUNS];
    float out[TASK_RUNS * TASK_CELLS];
    uint32_t marks[TASK_RUNS * TASK_CELLS];
    struct gpu_timings gt;
    char err[256] = "";

    grade_fill_runs(g->opts.seed, runs);
    enum gpu_status st = gpu_kernel_run(g->gpu, e->kernel, runs, TASK_RUNS, out, marks,
                                        g->opts.deadline_ms, &gt, err, sizeof err);
    v->timings.pipeline_ms += gt.pipeline_ms;
    v->timings.run_ms = gt.run_ms;
    switch (st) {
    case GPU_OK:
        break;
    case GPU_TIMEOUT:
        g->usable = false;
        verdict_time_limit(v, g->opts.deadline_ms, false);
        return;
    case GPU_DEVICE_LOST:
    case GPU_ERROR:
        internal_failure(g, v, st, err);
        return;
    }
    if (find_loop_overrun(v, marks, runs, e->loop_lines, e->nloops)) {
        loop_verdict(v);
    } else if (compare_runs(v, runs, out)) {
        v->status = VERDICT_ACCEPTED;
        verdict_set_message(v, "Every cell is right for half = 1, 2 and 4, on the visible and the hidden spectra.");
    } else {
        v->status = VERDICT_WRONG_ANSWER;
        describe_failure(v);
        diagnose_verdict(v, &task_butterfly, runs, TASK_RUNS, out);
    }
}

/* Sets the message of a Compilation Error from its first diagnostic, or
 * from the log when glslang gave none with a line. */
static void compile_error_message(struct verdict *v, const struct compile_result *cr)
{
    if (cr->ndiags > 0)
        verdict_set_message(v, "line %d: %s", cr->diags[0].line, cr->diags[0].message);
    else if (cr->log && *cr->log)
        /* a link-time error ("Recursion detected") has no line: its
         * first line is the message, since the text report shows no log */
        verdict_set_message(v, "The kernel does not compile: %.*s",
                            (int)(strcspn(cr->log, "\n") < 200 ? strcspn(cr->log, "\n") : 200),
                            cr->log);
    else
        /* glslang gives up without a word when an allocation fails
         * (a macro bomb against the worker's memory cap) */
        verdict_set_message(v, "The compiler gave up without a message (out of memory?): "
                               "look for macros that expand to huge code.");
}

/* Refuses what the harness does not allow or what would cost a device too
 * much: the body may have closed its function and declared globals of its
 * own. False (the verdict Rejected) when refused. */
static bool check_module(struct verdict *v, const struct compile_result *cr)
{
    char msg[320];
    int line = 0;
    if (spirv_check(cr->spirv, cr->nwords, &line, msg, sizeof msg))
        return true;
    v->status = VERDICT_REJECTED;
    if (line > 0)
        verdict_set_message(v, "line %d: %s", line, msg);
    else
        verdict_set_message(v, "%s", msg);
    add_line_diagnostic(v, line, msg);
    return false;
}

/*
 * From glslang's checked module to a kernel on the device: count every
 * loop, clamp every index (the robust-access pass validates the module
 * before and after, which also checks the loop counter's rewrite), drop
 * the debug information, build the pipeline. On success *out is the new
 * kernel. A module the robust-access pass refuses is the body's
 * (Rejected), unless only the rewritten one is refused: then, as for any
 * later failure, it is the grader's (Internal Error).
 */
static bool build_kernel(struct grader *g, struct verdict *v, const struct compile_result *cr,
                         struct gpu_kernel **out)
{
    char msg[320], plain_msg[32];
    uint32_t *counted = NULL, *safe = NULL, *final = NULL;
    size_t counted_words = 0, safe_words = 0, final_words = 0, nloops = 0;
    bool ok = false;

    *out = NULL;
    if (g->opts.count_loops &&
        !spirv_loops_instrument(cr->spirv, cr->nwords, task_butterfly.loop_budget, &counted,
                                &counted_words, &nloops, msg, sizeof msg)) {
        verdict_set_message(v, "The grader could not count the loops of this kernel: %s.", msg);
        goto done;
    }
    const uint32_t *in = counted ? counted : cr->spirv;
    size_t in_words = counted ? counted_words : cr->nwords;
    if (!spirv_robust_apply(in, in_words, &safe, &safe_words, msg, sizeof msg)) {
        uint32_t *plain = NULL;
        size_t plain_words;
        /* whose fault: the body's module, or the loop counter's rewrite? */
        if (nloops > 0 && spirv_robust_apply(cr->spirv, cr->nwords, &plain, &plain_words,
                                             plain_msg, sizeof plain_msg)) {
            verdict_set_message(v, "The grader's loop counter broke the kernel: %s.", msg);
        } else {
            v->status = VERDICT_REJECTED;
            verdict_set_message(v, "The compiled kernel could not be made safe to run: %s", msg);
        }
        free(plain);
        goto done;
    }
    if (!spirv_strip_debug(safe, safe_words, &final, &final_words)) {
        verdict_set_message(v, "The grader ran out of memory preparing the kernel.");
        goto done;
    }
    double t0 = clock_now_ms();
    enum gpu_status st = gpu_kernel_new(g->gpu, final, final_words, out, msg, sizeof msg);
    v->timings.pipeline_ms = clock_now_ms() - t0;
    if (st != GPU_OK) {
        internal_failure(g, v, st, msg);
        goto done;
    }
    ok = true;
done:
    free(counted);
    free(safe);
    free(final);
    return ok;
}

/* Copies the entry's warnings into the verdict (which has none yet), for
 * a body that was not compiled again. */
static void copy_warnings(struct verdict *v, const struct kernel_entry *e)
{
    if (e->nwarnings == 0 || !(v->diags = diagnostics_copy(e->warnings, e->nwarnings)))
        return;
    v->ndiags = e->nwarnings;
}

/*
 * The kernel of a body that compiled: from the cache when the same module
 * was built before (comments, whitespace and names aside), else built and
 * kept. NULL with the verdict set when it is refused or cannot be built.
 */
static const struct kernel_entry *kernel_for(struct grader *g, struct verdict *v,
                                             const char *body, size_t len,
                                             const struct compile_result *cr)
{
    uint32_t *key = NULL;
    size_t key_words = 0;
    int *lines = NULL;
    size_t nloops = 0;
    struct kernel_entry *e = NULL;
    struct gpu_kernel *kernel = NULL;

    if (!check_module(v, cr))
        return NULL;
    if (!spirv_strip_debug(cr->spirv, cr->nwords, &key, &key_words) ||
        !spirv_loops_lines(cr->spirv, cr->nwords, &lines, &nloops)) {
        verdict_set_message(v, "The grader ran out of memory preparing the kernel.");
        goto done;
    }
    if (g->opts.cache_kernels && (e = kernel_cache_by_module(g->cache, key, key_words))) {
        /* the same kernel: its lines and warnings are this text's now */
        kernel_cache_retext(e, body, len, lines, nloops, v->diags, v->ndiags);
        goto done;
    }
    if (!build_kernel(g, v, cr, &kernel))
        goto done;
    e = kernel_cache_add(g->cache, kernel, key, key_words, body, len, lines, nloops, v->diags,
                         v->ndiags);
    if (!e)
        verdict_set_message(v, "The grader ran out of memory keeping the kernel.");
done:
    free(key);
    free(lines);
    return e;
}

struct verdict *grader_grade(struct grader *g, const char *body, size_t len)
{
    double t0 = clock_now_ms();
    struct verdict *v = verdict_new(VERDICT_INTERNAL_ERROR, NULL);
    if (!v)
        return NULL;
    const struct gpu_device_info *dev = gpu_context_device(g->gpu);
    snprintf(v->device_name, sizeof v->device_name, "%s", dev->name);
    snprintf(v->device_driver, sizeof v->device_driver, "%s", dev->driver);
    v->device_type = dev->type;
    v->seed = g->opts.seed;
    v->timings.pipeline_ms = 0;

    /* Editors on Windows may save a byte-order mark first; glslang reads it
     * as a stray token. It is no newline, so line numbers stay the same. */
    if (len >= 3 && !memcmp(body, "\xef\xbb\xbf", 3)) {
        body += 3;
        len -= 3;
    }
    char msg[256];
    int line;
    if (!source_check(body, len, &line, msg, sizeof msg)) {
        v->status = VERDICT_REJECTED;
        verdict_set_message(v, "%s", msg);
        add_line_diagnostic(v, line, msg);
        goto done;
    }

    stage(g, "compile");
    double tc = clock_now_ms();
    /* the same text as a kept kernel: nothing to compile */
    const struct kernel_entry *e = g->opts.cache_kernels
                                   ? kernel_cache_by_text(g->cache, body, len) : NULL;
    if (e) {
        copy_warnings(v, e);
    } else {
        struct compile_result cr;
        if (!compiler_compile(g->compiler, body, len, &cr)) {
            verdict_set_message(v, "The compiler failed (out of memory?).");
            goto done;
        }
        if (!cr.ok) {
            v->timings.compile_ms = clock_now_ms() - tc;
            v->status = VERDICT_COMPILATION_ERROR;
            compile_error_message(v, &cr);
            take_diagnostics(v, &cr);
            compile_result_clear(&cr);
            goto done;
        }
        take_diagnostics(v, &cr);   /* warnings */
        e = kernel_for(g, v, body, len, &cr);
        compile_result_clear(&cr);
    }
    v->timings.compile_ms = clock_now_ms() - tc - v->timings.pipeline_ms;
    if (e) {
        stage(g, "run");
        run_and_compare(g, v, e);
    }
    /* without caching, the kernel was kept for this run only */
    if (!g->opts.cache_kernels && g->usable)
        kernel_cache_clear(g->cache);
done:
    v->timings.total_ms = clock_now_ms() - t0;
    /* the last word on the answer's size is the grader's: a verdict too
     * large to send would cost its worker and be an Internal Error */
    answer_bound_apply(v, MAX_ANSWER_BYTES);
    return v;
}
