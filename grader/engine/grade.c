/* grade.c - the grading pipeline for one body, in process. */
#include "engine/grade.h"

#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/defaults.h"
#include "common/task.h"   /* TASK_DEFAULT_SEED */
#include "engine/answer_bound.h"
#include "engine/checks/source_check.h"
#include "engine/checks/spirv_check.h"
#include "engine/checks/spirv_loops.h"
#include "engine/checks/spirv_robust.h"
#include "engine/checks/spirv_strip.h"
#include "engine/compare.h"
#include "engine/compile/compile.h"
#include "engine/diagnosis/diagnose.h"
#include "engine/kernel_cache.h"
#include "engine/mistakes.h"
#include "engine/outcome.h"
#include "engine/refusal.h"
#include "engine/runs.h"

struct grader {
    struct grader_options opts;
    struct compiler *compiler;
    struct gpu_context *gpu;
    struct kernel_cache *cache;
    /* the named mistakes' kernels, compiled once and kept apart from the
     * submissions', whose least recently used would evict them */
    struct kernel_cache *mistakes;
    bool usable;
    struct grade_facts last;
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

static void stage(struct grader *g, enum grade_stage s)
{
    g->last.stage = s;
    if (g->opts.on_stage)
        g->opts.on_stage(s, g->opts.on_stage_arg);
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
    if (!(g->cache = kernel_cache_new(g->gpu)) || !(g->mistakes = kernel_cache_new(g->gpu))) {
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
    if (g->usable) {
        kernel_cache_free(g->cache);   /* after a timeout, kernels may be in use */
        kernel_cache_free(g->mistakes);
    }
    gpu_context_free(g->gpu);
    free(g);
}

void grader_set_stage_hook(struct grader *g, void (*on_stage)(enum grade_stage stage, void *arg),
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

const struct grade_facts *grader_last_facts(const struct grader *g)
{
    return &g->last;
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

static void named_mistake(struct grader *g, struct verdict *v, const struct exercise *ex,
                          const struct gpu_run *runs, size_t nruns, const float *out);

/* Runs the kernel of entry e on every run of exercise ex; the outputs are
 * judged (compare), the verdict worded (outcome) and a Wrong Answer of the
 * butterfly diagnosed (the body's code only picks among readings the
 * outputs prove). */
static void run_and_compare(struct grader *g, struct verdict *v, const struct exercise *ex,
                            const struct kernel_entry *e, const char *body, size_t len)
{
    struct gpu_run runs[EX_MAX_RUNS];
    float out[EX_MAX_RUNS * EX_MAX_CELLS];
    uint32_t marks[EX_MAX_RUNS * EX_MAX_CELLS];
    struct gpu_timings gt;
    char err[256] = "";
    size_t nruns = exercise_runs(ex);

    runs_fill(ex, g->opts.seed, runs);
    enum gpu_status st = gpu_kernel_run(g->gpu, e->kernel, runs, nruns, out, marks,
                                        g->opts.deadline_ms, &gt, err, sizeof err);
    v->timings.pipeline_ms += gt.pipeline_ms;
    v->timings.run_ms = gt.run_ms;
    switch (st) {
    case GPU_OK:
        break;
    case GPU_TIMEOUT:
        g->usable = false;
        verdict_deadline_hit(v, g->opts.deadline_ms, false);
        return;
    case GPU_DEVICE_LOST:
    case GPU_ERROR:
        internal_failure(g, v, st, err);
        return;
    }
    struct comparison c;
    compare_outputs(ex, runs, nruns, out, marks, &c);
    outcome_set(v, &c, e->loop_lines, e->nloops);
    if (v->status != VERDICT_WRONG_ANSWER)
        return;
    /* the butterfly's search is written for its shape and no other; an
     * exercise without one is diagnosed by its named mistakes */
    if (ex->diagnosis) {
        if (bf_shape_fits(ex, NULL, 0))
            diagnose_verdict(v, &c, body, len);
    } else {
        named_mistake(g, v, ex, runs, nruns, out);
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
static bool check_module(struct verdict *v, const struct exercise *ex,
                         const struct compile_result *cr)
{
    char msg[320];
    int line = 0;
    if (spirv_check_exercise(ex, cr->spirv, cr->nwords, &line, msg, sizeof msg))
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
 * loop (a module with none, `nloops` as spirv_loops_lines found, is left
 * as it is but for the loop mark's store), clamp every index, drop the
 * debug information, validate what the driver will be handed (once, after
 * every rewrite), build the pipeline. On success *out is the new kernel.
 * A module that does not validate, or that the robust-access pass
 * refuses, is the body's (Rejected) when glslang's own module is refused
 * too; else a step of ours failed on a valid one, and, as for any later
 * failure, the fault is the grader's (Internal Error).
 */
static bool build_kernel(struct grader *g, struct verdict *v, const struct exercise *ex,
                         const struct compile_result *cr, size_t loops_found,
                         struct gpu_kernel **out)
{
    char msg[320];
    uint32_t *counted = NULL, *safe = NULL, *final = NULL;
    size_t counted_words = 0, safe_words = 0, final_words = 0, nloops = 0;
    bool ok = false;

    *out = NULL;
    if (g->opts.count_loops && loops_found > 0 &&
        !spirv_loops_instrument(cr->spirv, cr->nwords, ex->loop_budget, &counted,
                                &counted_words, &nloops, msg, sizeof msg)) {
        verdict_set_message(v, "The grader could not count the loops of this kernel: %s.", msg);
        goto done;
    }
    const uint32_t *in = counted ? counted : cr->spirv;
    size_t in_words = counted ? counted_words : cr->nwords;
    if (!spirv_robust_apply(in, in_words, &safe, &safe_words, msg, sizeof msg)) {
        refusal_set(v, cr->spirv, cr->nwords,
                    nloops > 0 ? "loop counter or robust-access pass" : "robust-access pass", msg);
        goto done;
    }
    /* without a loop nothing can set the loop mark: its store goes, which
     * spares lavapipe's compile a store (about 5% of a new submission) */
    if (loops_found == 0)
        safe_words = spirv_loops_drop_mark_store(safe, safe_words);
    if (!spirv_strip_debug(safe, safe_words, &final, &final_words)) {
        verdict_set_message(v, "The grader ran out of memory preparing the kernel.");
        goto done;
    }
    if (!spirv_robust_validate(final, final_words, msg, sizeof msg)) {
        refusal_set(v, cr->spirv, cr->nwords, "rewrites (loop counter, index clamp, strip)", msg);
        goto done;
    }
    double t0 = clock_now_ms();
    enum gpu_status st = gpu_kernel_new(g->gpu, ex, final, final_words, out, msg, sizeof msg);
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
                                             const struct exercise *ex, const char *body,
                                             size_t len, const struct compile_result *cr)
{
    uint32_t *key = NULL;
    size_t key_words = 0;
    int *lines = NULL;
    size_t nloops = 0;
    struct kernel_entry *e = NULL;
    struct gpu_kernel *kernel = NULL;

    if (!check_module(v, ex, cr))
        return NULL;
    if (!spirv_strip_debug(cr->spirv, cr->nwords, &key, &key_words) ||
        !spirv_loops_lines(cr->spirv, cr->nwords, &lines, &nloops)) {
        verdict_set_message(v, "The grader ran out of memory preparing the kernel.");
        goto done;
    }
    if (g->opts.cache_kernels && (e = kernel_cache_by_module(g->cache, ex, key, key_words))) {
        /* the same kernel: its lines and warnings are this text's now */
        g->last.cache_hit = true;
        kernel_cache_retext(g->cache, e, body, len, lines, nloops, v->diags, v->ndiags);
        goto done;
    }
    if (!build_kernel(g, v, ex, cr, nloops, &kernel))
        goto done;
    e = kernel_cache_add(g->cache, ex, kernel, key, key_words, body, len, lines, nloops, v->diags,
                         v->ndiags);
    if (!e)
        verdict_set_message(v, "The grader ran out of memory keeping the kernel.");
done:
    free(key);
    free(lines);
    return e;
}

/* Whether exercise e is one the engine can grade: sizes within EX_MAX_*
 * and the names the harness needs (the loader checks every definition;
 * this keeps a hand-made one from overrunning a grading's arrays). */
static bool gradable(const struct exercise *e)
{
    return e && e->function && e->param && e->input && e->title && e->reference &&
           e->in_n >= 1 && e->in_n <= EX_MAX_N && e->out_n >= 1 && e->out_n <= EX_MAX_N &&
           e->in_planes >= 1 && e->in_planes <= EX_MAX_PLANES && e->out_planes >= 1 &&
           e->out_planes <= EX_MAX_PLANES && e->nsweep >= 1 && e->nsweep <= EX_MAX_SWEEP &&
           e->hidden >= 0 && e->hidden <= EX_MAX_HIDDEN && e->hidden_grid > 0 &&
           e->hidden_lo <= e->hidden_hi && e->loop_budget >= 1 &&
           e->loop_budget <= MAX_LOOP_BUDGET;
}

struct verdict *grader_grade(struct grader *g, const char *body, size_t len)
{
    return grader_grade_exercise(g, exercise_default(), body, len);
}

struct verdict *grader_grade_exercise(struct grader *g, const struct exercise *ex,
                                      const char *body, size_t len)
{
    double t0 = clock_now_ms();
    struct verdict *v = verdict_new(VERDICT_INTERNAL_ERROR, NULL);
    if (!v)
        return NULL;
    const struct gpu_device_info *dev = gpu_context_device(g->gpu);
    snprintf(v->device_name, sizeof v->device_name, "%s", dev->name);
    snprintf(v->device_driver, sizeof v->device_driver, "%s", dev->driver);
    v->has_device = true;
    v->device_type = dev->type;
    v->seed = g->opts.seed;
    v->timings.pipeline_ms = 0;
    g->last = (struct grade_facts){ .stage = STAGE_NONE };
    if (!gradable(ex)) {
        verdict_set_message(v, "The grader cannot grade this exercise: its definition is "
                               "outside what the engine holds; this is not a fault of your "
                               "code.");
        goto done;
    }
    verdict_set_exercise(v, ex);

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

    stage(g, STAGE_COMPILE);
    double tc = clock_now_ms();
    /* the same text as a kept kernel: nothing to compile */
    const struct kernel_entry *e = g->opts.cache_kernels
                                   ? kernel_cache_by_text(g->cache, ex, body, len) : NULL;
    if (e) {
        g->last.cache_hit = true;
        copy_warnings(v, e);
    } else {
        struct compile_result cr;
        if (!compiler_compile_exercise(g->compiler, ex, body, len, &cr)) {
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
        e = kernel_for(g, v, ex, body, len, &cr);
        compile_result_clear(&cr);
    }
    v->timings.compile_ms = clock_now_ms() - tc - v->timings.pipeline_ms;
    if (e) {
        stage(g, STAGE_RUN);
        g->last.kept = g->opts.cache_kernels && e->text_len == len && !memcmp(e->text, body, len);
        run_and_compare(g, v, ex, e, body, len);
    }
    /* without caching, the kernel was kept for this run only */
    if (!g->opts.cache_kernels && g->usable)
        kernel_cache_clear(g->cache);
done:
    g->last.dropped = g->usable ? kernel_cache_take_dropped(g->cache) : 0;
    v->timings.total_ms = clock_now_ms() - t0;
    /* the last word on the answer's size is the grader's: a verdict too
     * large to send would cost its worker and be an Internal Error */
    answer_bound_apply(v, MAX_ANSWER_BYTES);
    return v;
}

/*
 * The kernel of mistake m, compiled once per grader and kept; NULL when it
 * does not compile or build (the check on load names such a file).
 */
static const struct kernel_entry *mistake_kernel(struct grader *g, const struct exercise *ex,
                                                 const struct exercise_mistake *m)
{
    struct kernel_entry *k = kernel_cache_by_text(g->mistakes, ex, m->body, m->len);
    if (k)
        return k;
    /* what building it says is nobody's verdict */
    struct verdict *scratch = verdict_new(VERDICT_INTERNAL_ERROR, NULL);
    struct compile_result cr;
    if (!scratch || !compiler_compile_exercise(g->compiler, ex, m->body, m->len, &cr)) {
        verdict_free(scratch);
        return NULL;
    }
    uint32_t *key = NULL;
    size_t key_words = 0, nloops = 0;
    int *lines = NULL;
    struct gpu_kernel *kernel = NULL;
    if (cr.ok && check_module(scratch, ex, &cr) &&
        spirv_strip_debug(cr.spirv, cr.nwords, &key, &key_words) &&
        spirv_loops_lines(cr.spirv, cr.nwords, &lines, &nloops) &&
        build_kernel(g, scratch, ex, &cr, nloops, &kernel))
        k = kernel_cache_add(g->mistakes, ex, kernel, key, key_words, m->body, m->len, lines,
                             nloops, NULL, 0);
    free(key);
    free(lines);
    compile_result_clear(&cr);
    verdict_free(scratch);
    return k;
}

/*
 * A Wrong Answer of an exercise with no built-in search: the first of its
 * mistake kernels whose outputs on the same runs equal the submission's
 * is its diagnosis. A mistake that cannot be built or run is skipped.
 */
static void named_mistake(struct grader *g, struct verdict *v, const struct exercise *ex,
                          const struct gpu_run *runs, size_t nruns, const float *out)
{
    float due[EX_MAX_RUNS * EX_MAX_CELLS];
    struct gpu_timings gt;
    char err[256];
    for (size_t m = 0; m < ex->nmistakes && g->usable; m++) {
        const struct kernel_entry *k = mistake_kernel(g, ex, &ex->mistakes[m]);
        if (!k)
            continue;
        enum gpu_status st = gpu_kernel_run(g->gpu, k->kernel, runs, nruns, due, NULL,
                                            g->opts.deadline_ms, &gt, err, sizeof err);
        if (st == GPU_TIMEOUT || st == GPU_DEVICE_LOST)
            g->usable = false;
        if (st != GPU_OK)
            continue;
        if (mistakes_equal(ex, nruns, out, due)) {
            v->diagnosis = mistakes_diagnosis(&ex->mistakes[m]);
            return;
        }
    }
}

