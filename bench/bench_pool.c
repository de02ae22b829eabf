/*
 * bench_pool: the worker pool's throughput and its overhead per job.
 *
 * 1. Latency: N distinct submissions one at a time through the pool; the
 *    overhead of a job is its latency minus the grading time its worker
 *    measured (queueing, the socket, JSON both ways, the scheduling).
 * 2. Throughput: M distinct submissions all at once through W workers.
 * 3. Baseline: the same N graded in this process, for the ratio.
 *
 * usage: bench_pool [--workers W] [--latency N] [--throughput M]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_util.h"
#include "common/clock.h"
#include "engine/grade.h"
#include "pool/pool.h"

struct counter {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done, accepted;
};

static void count_done(struct pool_result *r, void *arg)
{
    struct counter *c = arg;
    pthread_mutex_lock(&c->lock);
    c->done++;
    c->accepted += r->head.status == VERDICT_ACCEPTED;
    pthread_cond_signal(&c->cond);
    pthread_mutex_unlock(&c->lock);
    pool_result_clear(r);
}

/* The worker's own time of a result (its verdict's total), after timing. */
static double worker_ms(struct pool_result *r)
{
    struct verdict *v = verdict_from_bytes(r->verdict, r->verdict_len);
    double ms = v ? v->timings.total_ms : 0;
    verdict_free(v);
    pool_result_clear(r);
    return ms;
}

int main(int argc, char **argv)
{
    unsigned workers = 2;
    int lat_n = 100, thr_n = 400;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--workers"))
            workers = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--latency"))
            lat_n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--throughput"))
            thr_n = atoi(argv[i + 1]);
    }
    if (workers < 1 || lat_n < 1 || thr_n < 1) {
        fprintf(stderr, "usage: bench_pool [--workers W] [--latency N] [--throughput M]\n");
        return 2;
    }
    struct pool_options o;
    char err[256], body[2048];
    pool_options_init(&o);
    o.workers = workers;
    o.queue_length = (unsigned)thr_n;
    o.device = getenv("BUTTERFLY_DEVICE");
    struct pool *p = pool_new(&o, err, sizeof err);
    if (!p || pool_wait_ready(p, workers, 60000, err, sizeof err) != workers) {
        fprintf(stderr, "bench_pool: %s\n", err);
        return 1;
    }

    double *lat = calloc((size_t)lat_n, sizeof *lat);
    double *over = calloc((size_t)lat_n, sizeof *over);
    for (int k = 0; k < lat_n; k++) {
        size_t len = bench_submission((unsigned)k, body, sizeof body);
        double t0 = clock_now_ms();
        struct pool_result r;
        pool_grade(p, body, len, &r);
        lat[k] = clock_now_ms() - t0;
        over[k] = lat[k] - worker_ms(&r);
    }

    struct counter c = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
    double t0 = clock_now_ms();
    for (int k = 0; k < thr_n; k++) {
        size_t len = bench_submission((unsigned)(100000 + k), body, sizeof body);
        struct pool_submission sub = { .body = body, .len = len, .done = count_done, .arg = &c };
        if (pool_submit(p, &sub, NULL, NULL) != POOL_SUBMITTED) {
            fprintf(stderr, "bench_pool: submit failed\n");
            return 1;
        }
    }
    pthread_mutex_lock(&c.lock);
    while (c.done < thr_n)
        pthread_cond_wait(&c.cond, &c.lock);
    pthread_mutex_unlock(&c.lock);
    double wall = clock_now_ms() - t0;
    pool_free(p, 1000);

    /* the in-process baseline, after the pool is gone */
    struct grader_options go;
    grader_options_init(&go);
    go.device = o.device;
    struct grader *g = grader_new(&go, err, sizeof err);
    if (!g) {
        fprintf(stderr, "bench_pool: %s\n", err);
        return 1;
    }
    double *inproc = calloc((size_t)lat_n, sizeof *inproc);
    size_t len = bench_submission(999999, body, sizeof body);
    verdict_free(grader_grade(g, body, len));   /* warm-up, as a worker does */
    for (int k = 0; k < lat_n; k++) {
        len = bench_submission((unsigned)(200000 + k), body, sizeof body);
        double t = clock_now_ms();
        verdict_free(grader_grade(g, body, len));
        inproc[k] = clock_now_ms() - t;
    }
    printf("device: %s (%s)\n", grader_device(g)->name,
           device_type_to_str(grader_device(g)->type));
    grader_free(g);

    double lat_med = bench_quantile(lat, (size_t)lat_n, 0.5);
    double in_med = bench_quantile(inproc, (size_t)lat_n, 0.5);
    printf("latency through the pool: %d jobs one at a time, median %.2f ms, p99 %.2f ms\n",
           lat_n, lat_med, bench_quantile(lat, (size_t)lat_n, 0.99));
    printf("in-process grading:       %d jobs, median %.2f ms\n", lat_n, in_med);
    printf("pool overhead per job (latency - worker's own grading time): median %.2f ms, p99 %.2f ms\n",
           bench_quantile(over, (size_t)lat_n, 0.5), bench_quantile(over, (size_t)lat_n, 0.99));
    printf("pool overhead, medians compared: %.2f ms\n", lat_med - in_med);
    printf("throughput: %d jobs through %u workers in %.0f ms: %.1f submissions/s (%d accepted)\n",
           thr_n, workers, wall, thr_n / (wall / 1000.0), c.accepted);
    free(lat);
    free(over);
    free(inproc);
    return 0;
}
