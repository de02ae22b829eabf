/*
 * bench_batch: butterfly-batch end to end on a class of distinct
 * submissions.
 *
 * Writes N distinct submissions (half correct, half with the twiddle sign
 * flipped; bench_submission) into a fresh folder, runs the real
 * butterfly-batch on them with J jobs, and times it from the spawn to its
 * exit: reading the inputs, starting and warming the workers, grading,
 * writing every results.json with fsync, and rebuilding the gradebook.
 * Then it runs the same command again, where every result is reused, and
 * for the baseline grades the same submissions through a pool of J workers
 * in this process, all submitted at once (timed from the first submission,
 * the workers already warm, as bench_pool does).
 *
 * usage: bench_batch BUTTERFLY_BATCH [--count N] [--jobs J] [--keep]
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pthread.h>

#include "batch/reports/batch_gradebook.h"
#include "bench/bench_util.h"
#include "common/clock.h"
#include "pool/pool.h"

extern char **environ;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

/* Runs argv quietly; returns its exit status (-1 when it could not run). */
static int run(char *const argv[], double *seconds)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    double t0 = clock_now_ms();
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fprintf(stderr, "bench_batch: cannot run %s: %s\n", argv[0], strerror(rc));
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    *seconds = (clock_now_ms() - t0) / 1000.0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct counter {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
};

static void count_done(struct pool_result *r, void *arg)
{
    struct counter *c = arg;
    pthread_mutex_lock(&c->lock);
    c->done++;
    pthread_cond_signal(&c->cond);
    pthread_mutex_unlock(&c->lock);
    pool_result_clear(r);
}

/* The same class through a pool in this process; seconds, or -1. */
static double pool_alone(int count, int jobs)
{
    struct pool_options o;
    char err[256], body[2048];
    pool_options_init(&o);
    o.workers = (unsigned)jobs;
    o.queue_length = (unsigned)count;
    o.device = getenv("BUTTERFLY_DEVICE");
    struct pool *p = pool_new(&o, err, sizeof err);
    if (!p || pool_wait_ready(p, o.workers, 60000, err, sizeof err) != o.workers) {
        fprintf(stderr, "bench_batch: %s\n", err);
        pool_free(p, 0);
        return -1;
    }
    struct counter c = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
    double t0 = clock_now_ms();
    int submitted = 0;
    for (int k = 0; k < count; k++) {
        size_t len = bench_submission((unsigned)k, body, sizeof body);
        struct pool_submission sub = { .body = body, .len = len, .done = count_done, .arg = &c };
        submitted += pool_submit(p, &sub, NULL, NULL) == POOL_SUBMITTED;
    }
    pthread_mutex_lock(&c.lock);
    while (c.done < submitted)
        pthread_cond_wait(&c.cond, &c.lock);
    pthread_mutex_unlock(&c.lock);
    double seconds = (clock_now_ms() - t0) / 1000.0;
    pool_free(p, 1000);
    return submitted == count ? seconds : -1;
}

static long gradebook_rows(const char *out)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/gradebook.csv", out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    long rows = batch_gradebook_count_rows(f);
    fclose(f);
    return rows;
}

int main(int argc, char **argv)
{
    int count = 500, jobs = 2;
    bool keep = false;
    if (argc < 2) {
        fprintf(stderr, "usage: bench_batch BUTTERFLY_BATCH [--count N] [--jobs J] [--keep]\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--count") && i + 1 < argc)
            count = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
            jobs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--keep"))
            keep = true;
    }
    if (count < 1 || jobs < 1 || jobs > 64) {
        fprintf(stderr, "bench_batch: bad --count or --jobs\n");
        return 2;
    }
    char dir[] = "/tmp/bench-batch-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench_batch: mkdtemp");
        return 1;
    }
    char in[64], out[64], body[2048], path[128], jobs_arg[16];
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(jobs_arg, sizeof jobs_arg, "%d", jobs);
    int rc = 1;
    if (mkdir(in, 0755) != 0) {
        perror("bench_batch: mkdir");
        goto out;
    }
    for (int k = 0; k < count; k++) {
        size_t len = bench_submission((unsigned)k, body, sizeof body);
        snprintf(path, sizeof path, "%s/s%05d.glsl", in, k);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(body, 1, len, f) != len) {
            perror("bench_batch: writing the class");
            if (f)
                fclose(f);
            goto out;
        }
        fclose(f);
    }
    char *args[] = { argv[1], "--jobs", jobs_arg, "--quiet", "-o", out, in, NULL };
    double first, again;
    int st = run(args, &first);
    long rows = gradebook_rows(out);
    if (st != 0 || rows != count) {
        fprintf(stderr, "bench_batch: butterfly-batch exited %d with %ld rows for %d inputs\n",
                st, rows, count);
        goto out;
    }
    st = run(args, &again);
    if (st != 0) {
        fprintf(stderr, "bench_batch: the rerun exited %d\n", st);
        goto out;
    }
    double base = pool_alone(count, jobs);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("class: %d distinct submissions, %d jobs, %ld cores\n", count, jobs, cores);
    printf("end to end: %.2f s, %.1f submissions/s (target at least 50)\n", first,
           count / first);
    printf("rerun, every result reused: %.2f s\n", again);
    if (base > 0)
        printf("pool alone (warm workers, no files): %.2f s, %.1f submissions/s; "
               "the batch runs at %.0f%% of that\n", base, count / base, 100 * base / first);
    printf("gradebook rows: %ld = inputs: %d\n", rows, count);
    rc = 0;
out:
    if (keep)
        printf("kept %s\n", dir);
    else
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}
