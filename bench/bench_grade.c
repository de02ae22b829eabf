/*
 * bench_grade: the warm in-process grader, against the naive way and
 * against itself.
 *
 * - warm vs naive: N distinct submissions in one warm process (compiler
 *   and device created once), median and p99; M of them the naive way,
 *   each in a fresh process with glslc as a subprocess and a fresh Vulkan
 *   instance and device; the ratio of the medians.
 * - the loop budget's price: distinct kernels with a loop, graded with the
 *   loops counted and without, alternately, by two graders in this
 *   process; the ratio of the medians (target: at most 1.10).
 * - identical resubmissions: one kernel graded again and again with the
 *   kernel cache on, and one edited in its comments only; their median
 *   against a new kernel's (target: at most 2 ms).
 * Everything runs in the same process on the same machine, so the ratios
 * hold up on a noisy shared machine even when the absolute figures do not.
 * To compare two builds of the grader (what one dispatch per run costs
 * against one z-sliced dispatch), run bench/ab.sh OLD NEW.
 *
 * For counting instructions (valgrind --tool=callgrind, where a wall clock
 * means nothing): --warm-only stops after the warm part, --deadline-ms
 * lifts the bound on the device wait that valgrind's slowness would hit,
 * and --bodies loop grades the warm part's kernels with a loop, counted
 * (loop) or not (loop-uncounted), so that the counter's price can be read
 * as the difference of two runs' totals.
 *
 * usage: bench_grade [--warm N] [--naive M] [--loops L] [--device SEL] [--warm-only]
 *                    [--deadline-ms MS] [--bodies hint|loop|loop-uncounted]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/task.h"
#include "bench/bench_util.h"
#include "common/clock.h"
#include "common/defaults.h"
#include "common/io/read_input.h"
#include "engine/grade.h"
#include "engine/runs.h"
#include "engine/harness.h"

static double naive_one(const char *body, size_t len, const char *device)
{
    double t0 = clock_now_ms();
    char src_path[] = "/tmp/bench-naive-XXXXXX.comp";
    char spv_path[64];
    int fd = mkstemps(src_path, 5);
    if (fd < 0)
        return -1;
    size_t src_len;
    char *src = harness_assemble(exercise_default(), body, len, &src_len);
    if (write(fd, src, src_len) != (ssize_t)src_len) {
        close(fd);
        free(src);
        return -1;
    }
    close(fd);
    free(src);
    snprintf(spv_path, sizeof spv_path, "%s.spv", src_path);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "glslc -fshader-stage=comp --target-env=vulkan1.0 -o %s %s",
             spv_path, src_path);
    int rc = system(cmd);
    unlink(src_path);
    if (rc != 0)
        return -1;
    char err[256];
    size_t spv_len;
    char *spv = read_input(spv_path, 1 << 20, &spv_len, err, sizeof err);
    unlink(spv_path);
    if (!spv)
        return -1;
    struct gpu_context *g = gpu_context_new(device, NULL, NULL, err, sizeof err);
    if (!g) {
        free(spv);
        return -1;
    }
    struct gpu_run runs[TASK_RUNS];
    static float out[TASK_RUNS * TASK_CELLS];
    runs_fill(exercise_default(), TASK_DEFAULT_SEED, runs);   /* the same inputs as the warm path */
    struct gpu_timings t;
    enum gpu_status st = gpu_run(g, exercise_default(), (const uint32_t *)spv, spv_len / 4, runs, TASK_RUNS, out,
                                 NULL, 5000, &t, err, sizeof err);
    gpu_context_free(g);
    free(spv);
    return st == GPU_OK ? clock_now_ms() - t0 : -1;
}

/*
 * The naive way, one submission per process, as a grader that spawns a
 * process per request would do: this program re-executes itself with
 * --naive-one, which runs glslc as a subprocess, creates a fresh Vulkan
 * instance and device, dispatches, and exits. The environment is a naive
 * grader's: no GALLIVM_PERF tuning. Returns the wall time in ms, or -1.
 */
static double run_naive_process(const char *self, const char *body, size_t len)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    double t0 = clock_now_ms();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fds[0], 0);
        close(fds[0]);
        close(fds[1]);
        unsetenv("GALLIVM_PERF");
        execl(self, self, "--naive-one", (char *)NULL);
        _exit(127);
    }
    close(fds[0]);
    bool ok = write(fds[1], body, len) == (ssize_t)len;
    close(fds[1]);
    int status;
    waitpid(pid, &status, 0);
    double t = clock_now_ms() - t0;
    return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? t : -1;
}

static int naive_one_main(void)
{
    char err[256];
    size_t len;
    char *body = read_input("-", TASK_MAX_SOURCE, &len, err, sizeof err);
    if (!body)
        return 1;
    double t = naive_one(body, len, getenv("BUTTERFLY_DEVICE"));
    free(body);
    return t >= 0 ? 0 : 1;
}

/* Grades body with g and returns the milliseconds; -1 on a wrong verdict. */
static double timed_grade(struct grader *g, const char *body, size_t len,
                          enum verdict_status want)
{
    double t0 = clock_now_ms();
    struct verdict *v = grader_grade(g, body, len);
    double ms = clock_now_ms() - t0;
    bool ok = v && v->status == want;
    verdict_free(v);
    return ok ? ms : -1;
}

/*
 * Identical resubmissions against new kernels, in one grader with its
 * kernel cache: the same text again (no compile at all), and the same
 * kernel with other comments (compiled, then found by its module).
 * Returns the number of wrong verdicts.
 */
static int bench_resubmissions(struct grader *g, int n)
{
    char body[2048], edited[2200];
    double *same = calloc((size_t)n, sizeof *same), *comment = calloc((size_t)n, sizeof *comment);
    double *fresh = calloc((size_t)n, sizeof *fresh);
    int bad = 0;
    size_t len = bench_submission(2000000, body, sizeof body);
    timed_grade(g, body, len, VERDICT_ACCEPTED);   /* the first time: compiled and kept */
    /* as students press Run again: the same text, then other comments */
    for (int k = 0; k < n; k++)
        bad += (same[k] = timed_grade(g, body, len, VERDICT_ACCEPTED)) < 0;
    for (int k = 0; k < n; k++) {
        size_t elen = (size_t)snprintf(edited, sizeof edited, "// edit %d\n%s", k, body);
        bad += (comment[k] = timed_grade(g, edited, elen, VERDICT_ACCEPTED)) < 0;
    }
    for (int k = 0; k < n; k++) {
        size_t flen = bench_submission(3000000 + 2 * (unsigned)k, edited, sizeof edited);
        bad += (fresh[k] = timed_grade(g, edited, flen, VERDICT_ACCEPTED)) < 0;
    }
    double s50 = bench_quantile(same, (size_t)n, 0.5), s99 = bench_quantile(same, (size_t)n, 0.99);
    double c50 = bench_quantile(comment, (size_t)n, 0.5);
    double f50 = bench_quantile(fresh, (size_t)n, 0.5);
    printf("resubmit: the same text again: median %.2f ms, p99 %.2f ms; the same kernel with "
           "other comments: median %.2f ms; a new kernel: median %.2f ms (same/new %.2f)\n",
           s50, s99, c50, f50, s50 / f50);
    free(same);
    free(comment);
    free(fresh);
    return bad;
}

/*
 * The loop budget's price: distinct kernels with a loop, graded alternately
 * by a grader that counts loops and one that does not, neither keeping
 * kernels. Returns the number of wrong verdicts.
 */
static int bench_loop_counting(const char *device, int n)
{
    struct grader_options o;
    char err[256], body[2048];
    grader_options_init(&o);
    o.device = device;
    o.cache_kernels = false;
    struct grader *counted = grader_new(&o, err, sizeof err);
    o.count_loops = false;
    struct grader *plain = grader_new(&o, err, sizeof err);
    double *with = calloc((size_t)n, sizeof *with), *without = calloc((size_t)n, sizeof *without);
    int bad = 0;
    if (!counted || !plain || !with || !without) {
        fprintf(stderr, "bench_grade: %s\n", err);
        bad = 1;
        goto done;
    }
    size_t len = bench_submission_loop(4000000, body, sizeof body);
    timed_grade(counted, body, len, VERDICT_ACCEPTED);   /* warm-up, as a worker does */
    timed_grade(plain, body, len, VERDICT_ACCEPTED);
    for (int k = 0; k < n; k++) {
        len = bench_submission_loop((unsigned)(5000000 + 2 * k), body, sizeof body);
        with[k] = timed_grade(counted, body, len, VERDICT_ACCEPTED);
        len = bench_submission_loop((unsigned)(5000001 + 2 * k), body, sizeof body);
        without[k] = timed_grade(plain, body, len, VERDICT_ACCEPTED);
        bad += with[k] < 0 || without[k] < 0;
    }
    double w50 = bench_quantile(with, (size_t)n, 0.5), o50 = bench_quantile(without, (size_t)n, 0.5);
    printf("loops: %d kernels with a loop, median %.2f ms counted, %.2f ms not (ratio %.2f)\n",
           n, w50, o50, w50 / o50);
done:
    free(with);
    free(without);
    grader_free(counted);
    grader_free(plain);
    return bad;
}

static const char usage[] =
    "usage: bench_grade [--warm N] [--naive M] [--loops L] [--device SEL] [--warm-only]\n"
    "                   [--deadline-ms MS] [--bodies hint|loop|loop-uncounted]\n";

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--naive-one"))
        return naive_one_main();
    int warm_n = 200, naive_n = 20, loops_n = 60, deadline_ms = 0;
    bool warm_only = false, loop_bodies = false, counted = true;
    const char *device = getenv("BUTTERFLY_DEVICE");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--warm") && i + 1 < argc)
            warm_n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--naive") && i + 1 < argc)
            naive_n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--loops") && i + 1 < argc)
            loops_n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else if (!strcmp(argv[i], "--warm-only"))
            warm_only = true;
        else if (!strcmp(argv[i], "--deadline-ms") && i + 1 < argc)
            deadline_ms = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--bodies") && i + 1 < argc) {
            const char *b = argv[++i];
            loop_bodies = strncmp(b, "loop", 4) == 0;
            counted = strcmp(b, "loop-uncounted") != 0;
            if (strcmp(b, "hint") && strcmp(b, "loop") && strcmp(b, "loop-uncounted")) {
                fprintf(stderr, "%s", usage);
                return 2;
            }
        } else {
            fprintf(stderr, "%s", usage);
            return 2;
        }
    }
    if (warm_n < 1 || naive_n < 1 || loops_n < 1 || deadline_ms < 0 ||
        deadline_ms > (int)MAX_DEADLINE_MS) {
        fprintf(stderr, "bench_grade: counts must be positive\n");
        return 2;
    }

    char body[2048];
    double *warm = calloc((size_t)warm_n, sizeof *warm);
    double *naive = calloc((size_t)naive_n, sizeof *naive);
    if (device)
        setenv("BUTTERFLY_DEVICE", device, 1);   /* for the naive processes */
    for (int k = 0; k < naive_n; k++) {
        size_t len = bench_submission((unsigned)k, body, sizeof body);
        naive[k] = run_naive_process("/proc/self/exe", body, len);
        if (naive[k] < 0) {
            fprintf(stderr, "bench_grade: a naive run failed (is glslc installed?)\n");
            return 1;
        }
    }

    struct grader_options o;
    char err[256];
    grader_options_init(&o);
    o.device = device;
    o.count_loops = counted;
    if (deadline_ms)
        o.deadline_ms = (uint32_t)deadline_ms;
    struct grader *g = grader_new(&o, err, sizeof err);
    if (!g) {
        fprintf(stderr, "bench_grade: %s\n", err);
        return 1;
    }
    printf("device: %s (%s)\n", grader_device(g)->name,
           device_type_to_str(grader_device(g)->type));

    double compile_sum = 0, pipeline_sum = 0;
    int bad = 0;
    /* one warm-up, as a worker does at start */
    size_t len = bench_submission(1000000, body, sizeof body);
    verdict_free(grader_grade(g, body, len));
    for (int k = 0; k < warm_n; k++) {
        len = loop_bodies ? bench_submission_loop(7000000 + (unsigned)k, body, sizeof body)
                          : bench_submission((unsigned)k, body, sizeof body);
        double t0 = clock_now_ms();
        struct verdict *v = grader_grade(g, body, len);
        warm[k] = clock_now_ms() - t0;
        /* the loop bodies are all correct, the hint-shaped ones every other */
        enum verdict_status want = (k % 2) && !loop_bodies ? VERDICT_WRONG_ANSWER
                                                           : VERDICT_ACCEPTED;
        bad += !v || v->status != want;
        if (v) {
            compile_sum += v->timings.compile_ms;
            pipeline_sum += v->timings.pipeline_ms;
        }
        verdict_free(v);
    }
    if (!warm_only)
        bad += bench_resubmissions(g, warm_n);
    grader_free(g);
    if (!warm_only)
        bad += bench_loop_counting(device, loops_n);   /* in graders of their own */
    double warm_med = bench_quantile(warm, (size_t)warm_n, 0.5);
    double warm_p99 = bench_quantile(warm, (size_t)warm_n, 0.99);
    double naive_med = bench_quantile(naive, (size_t)naive_n, 0.5);
    printf("warm:  %d submissions, median %.2f ms, p99 %.2f ms (compile+checks %.2f ms, pipeline+dispatch %.2f ms on average)\n",
           warm_n, warm_med, warm_p99, compile_sum / warm_n, pipeline_sum / warm_n);
    printf("naive: %d submissions, median %.2f ms (fresh process: glslc subprocess + fresh instance and device)\n",
           naive_n, naive_med);
    printf("ratio naive/warm (medians): %.1fx\n", naive_med / warm_med);
    printf("wrong verdicts: %d\n", bad);
    free(warm);
    free(naive);
    return bad ? 1 : 0;
}
