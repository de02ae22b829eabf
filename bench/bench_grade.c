/*
 * bench_grade: the warm in-process grader against the naive way.
 *
 * Grades N distinct submissions in one warm process (compiler and device
 * created once) and prints the median and p99 per submission; and grades
 * M of them the naive way, each in a fresh process with glslc as a
 * subprocess and a fresh Vulkan instance and device, and prints the ratio
 * of the medians. Both
 * run in the same process on the same machine, so the ratio holds up on a
 * noisy shared machine even when the absolute figures do not.
 *
 * usage: bench_grade [--warm N] [--naive M] [--device SEL]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "clock.h"
#include "grade.h"
#include "harness.h"
#include "read_input.h"

static double naive_one(const char *body, size_t len, const char *device)
{
    double t0 = clock_now_ms();
    char src_path[] = "/tmp/bench-naive-XXXXXX.comp";
    char spv_path[64];
    int fd = mkstemps(src_path, 5);
    if (fd < 0)
        return -1;
    size_t src_len;
    char *src = harness_assemble(body, len, &src_len);
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
    grade_fill_runs(TASK_DEFAULT_SEED, runs);   /* the same inputs as the warm path */
    struct gpu_timings t;
    enum gpu_status st = gpu_run(g, (const uint32_t *)spv, spv_len / 4, runs, TASK_RUNS, out,
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

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--naive-one"))
        return naive_one_main();
    int warm_n = 200, naive_n = 20;
    const char *device = getenv("BUTTERFLY_DEVICE");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--warm") && i + 1 < argc)
            warm_n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--naive") && i + 1 < argc)
            naive_n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else {
            fprintf(stderr, "usage: bench_grade [--warm N] [--naive M] [--device SEL]\n");
            return 2;
        }
    }
    if (warm_n < 1 || naive_n < 1) {
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
    struct grader *g = grader_new(&o, err, sizeof err);
    if (!g) {
        fprintf(stderr, "bench_grade: %s\n", err);
        return 1;
    }
    printf("device: %s (%s)\n", grader_device(g)->name, grader_device(g)->type);

    double compile_sum = 0, pipeline_sum = 0;
    int bad = 0;
    /* one warm-up, as a worker does at start */
    size_t len = bench_submission(1000000, body, sizeof body);
    verdict_free(grader_grade(g, body, len));
    for (int k = 0; k < warm_n; k++) {
        len = bench_submission((unsigned)k, body, sizeof body);
        double t0 = clock_now_ms();
        struct verdict *v = grader_grade(g, body, len);
        warm[k] = clock_now_ms() - t0;
        enum verdict_status want = (k % 2) ? VERDICT_WRONG_ANSWER : VERDICT_ACCEPTED;
        bad += !v || v->status != want;
        if (v) {
            compile_sum += v->timings.compile_ms;
            pipeline_sum += v->timings.pipeline_ms;
        }
        verdict_free(v);
    }
    grader_free(g);
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
