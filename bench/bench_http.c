/*
 * bench_http: the HTTP server under load, against the pool on its own.
 *
 * Starts butterfly-server (on a free loopback port), then for concurrency
 * 1, 4 and 16 posts distinct kernels over keep-alive connections for a
 * while and prints latency p50/p99 and throughput, with /healthz polled
 * all the while (its p99 under that load). Before that, in the same run,
 * the same kind of load goes straight to a pool in this process, which is
 * the baseline: the HTTP layer's cost is the difference.
 *
 * usage: bench_http SERVER_BINARY [--seconds S] [--workers W]
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench_util.h"
#include "common/clock.h"
#include "pool/pool.h"

#define MAX_SAMPLES 100000

static unsigned port;
static double run_seconds = 6;
static atomic_uint next_kernel;

struct samples {
    pthread_mutex_t lock;
    double *v;
    size_t n;
};

static void add_sample(struct samples *s, double x)
{
    pthread_mutex_lock(&s->lock);
    if (s->n < MAX_SAMPLES)
        s->v[s->n++] = x;
    pthread_mutex_unlock(&s->lock);
}

static int connect_server(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The verdict's own total time ("timings_ms":{..."total":X}) in a reply, or -1. */
static double reply_total_ms(const char *buf, size_t len)
{
    const char *t = memmem(buf, len, "\"timings_ms\":", 13);
    const char *total = t ? memmem(t, len - (size_t)(t - buf), "\"total\":", 8) : NULL;
    return total ? atof(total + 8) : -1;
}

static __thread double last_total_ms;

/* One request on a keep-alive connection; returns the status, -1 on error.
 * last_total_ms gets the grading time the verdict reports, if any. */
static int http_call(int fd, const char *method, const char *path, const char *body,
                     size_t len)
{
    char req[512 + 4096];
    int n = body ? snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: bench\r\n"
                            "Content-Type: text/plain\r\nContent-Length: %zu\r\n\r\n",
                            method, path, len)
                 : snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: bench\r\n\r\n",
                            method, path);
    if (n < 0 || (size_t)n + len > sizeof req)
        return -1;
    if (len)
        memcpy(req + n, body, len);
    if (write(fd, req, (size_t)n + len) != (ssize_t)((size_t)n + len))
        return -1;
    static __thread char buf[1 << 18];
    size_t have = 0;
    char *end = NULL;
    while (!(end = memmem(buf, have, "\r\n\r\n", 4))) {
        ssize_t got = read(fd, buf + have, sizeof buf - have);
        if (got <= 0)
            return -1;
        have += (size_t)got;
    }
    int status = atoi(buf + 9);
    char *cl = memmem(buf, (size_t)(end - buf), "Content-Length: ", 16);
    size_t body_len = cl ? strtoul(cl + 16, NULL, 10) : 0;
    size_t total = (size_t)(end + 4 - buf) + body_len;
    while (have < total) {
        ssize_t got = read(fd, buf + have, sizeof buf - have);
        if (got <= 0)
            return -1;
        have += (size_t)got;
    }
    last_total_ms = reply_total_ms(end, total - (size_t)(end - buf));
    return status;
}

struct load {
    struct samples *lat;
    struct samples *over;         /* latency minus the worker's own time */
    atomic_int errors;
    atomic_bool stop;
};

static void *submitter(void *arg)
{
    struct load *l = arg;
    int fd = connect_server();
    char body[2048];
    while (fd >= 0 && !atomic_load(&l->stop)) {
        size_t len = bench_submission(atomic_fetch_add(&next_kernel, 1), body, sizeof body);
        double t0 = clock_now_ms();
        int st = http_call(fd, "POST", "/api/tasks/butterfly/submissions", body, len);
        if (st != 200) {
            atomic_fetch_add(&l->errors, 1);
            close(fd);
            fd = connect_server();
            continue;
        }
        double ms = clock_now_ms() - t0;
        add_sample(l->lat, ms);
        if (last_total_ms >= 0)
            add_sample(l->over, ms - last_total_ms);
    }
    if (fd >= 0)
        close(fd);
    return NULL;
}

static void *health_poller(void *arg)
{
    struct load *l = arg;
    struct samples *s = l->lat;   /* the health samples */
    int fd = connect_server();
    while (fd >= 0 && !atomic_load(&l->stop)) {
        double t0 = clock_now_ms();
        if (http_call(fd, "GET", "/healthz", NULL, 0) != 200)
            atomic_fetch_add(&l->errors, 1);
        add_sample(s, clock_now_ms() - t0);
        usleep(20000);
    }
    if (fd >= 0)
        close(fd);
    return NULL;
}

static double run_http(int conc, double *p50, double *p99, double *hp99, double *over50,
                       int *errors)
{
    struct samples lat = { PTHREAD_MUTEX_INITIALIZER, calloc(MAX_SAMPLES, sizeof(double)), 0 };
    struct samples ov = { PTHREAD_MUTEX_INITIALIZER, calloc(MAX_SAMPLES, sizeof(double)), 0 };
    struct samples hl = { PTHREAD_MUTEX_INITIALIZER, calloc(MAX_SAMPLES, sizeof(double)), 0 };
    struct load l = { &lat, &ov, 0, false }, hlo = { &hl, &ov, 0, false };
    pthread_t th[64], ht;
    double t0 = clock_now_ms();
    for (int i = 0; i < conc; i++)
        pthread_create(&th[i], NULL, submitter, &l);
    pthread_create(&ht, NULL, health_poller, &hlo);
    usleep((useconds_t)(run_seconds * 1e6));
    atomic_store(&l.stop, true);
    atomic_store(&hlo.stop, true);
    for (int i = 0; i < conc; i++)
        pthread_join(th[i], NULL);
    pthread_join(ht, NULL);
    double wall = (clock_now_ms() - t0) / 1000.0;
    *p50 = bench_quantile(lat.v, lat.n, 0.5);
    *p99 = bench_quantile(lat.v, lat.n, 0.99);
    *hp99 = bench_quantile(hl.v, hl.n, 0.99);
    *over50 = bench_quantile(ov.v, ov.n, 0.5);
    *errors = atomic_load(&l.errors) + atomic_load(&hlo.errors);
    double rate = (double)lat.n / wall;
    free(lat.v);
    free(ov.v);
    free(hl.v);
    return rate;
}

/* --- the baseline: the same load straight into a pool ------------------ */

struct direct {
    struct pool *pool;
    struct samples *lat;
    struct samples *over;
    atomic_bool stop;
};

static void *direct_submitter(void *arg)
{
    struct direct *d = arg;
    char body[2048];
    while (!atomic_load(&d->stop)) {
        size_t len = bench_submission(atomic_fetch_add(&next_kernel, 1), body, sizeof body);
        double t0 = clock_now_ms();
        struct pool_result r;
        pool_grade(d->pool, body, len, &r);
        double ms = clock_now_ms() - t0;
        struct verdict *v = verdict_from_bytes(r.verdict, r.verdict_len);
        add_sample(d->lat, ms);
        add_sample(d->over, ms - (v ? v->timings.total_ms : 0));
        verdict_free(v);
        pool_result_clear(&r);
    }
    return NULL;
}

static double run_direct(struct pool *p, int conc, double *p50, double *over50)
{
    struct samples lat = { PTHREAD_MUTEX_INITIALIZER, calloc(MAX_SAMPLES, sizeof(double)), 0 };
    struct samples ov = { PTHREAD_MUTEX_INITIALIZER, calloc(MAX_SAMPLES, sizeof(double)), 0 };
    struct direct d = { p, &lat, &ov, false };
    pthread_t th[64];
    double t0 = clock_now_ms();
    for (int i = 0; i < conc; i++)
        pthread_create(&th[i], NULL, direct_submitter, &d);
    usleep((useconds_t)(run_seconds * 1e6));
    atomic_store(&d.stop, true);
    for (int i = 0; i < conc; i++)
        pthread_join(th[i], NULL);
    double rate = (double)lat.n / ((clock_now_ms() - t0) / 1000.0);
    *p50 = bench_quantile(lat.v, lat.n, 0.5);
    *over50 = bench_quantile(ov.v, ov.n, 0.5);
    free(lat.v);
    free(ov.v);
    return rate;
}

static pid_t start_server(const char *binary, unsigned workers)
{
    int out[2];
    char w[16];
    snprintf(w, sizeof w, "%u", workers);
    if (pipe(out) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        close(out[0]);
        execl(binary, binary, "--port", "0", "--workers", w, "--queue", "256", "--quiet",
              (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    char line[256] = "";
    FILE *f = fdopen(out[0], "r");
    if (!f || !fgets(line, sizeof line, f))
        return -1;
    char *at = strstr(line, "127.0.0.1:");
    port = at ? (unsigned)atoi(at + 10) : 0;
    /* wait for a ready worker */
    for (int i = 0; i < 600; i++) {
        int fd = connect_server();
        int st = fd >= 0 ? http_call(fd, "GET", "/healthz", NULL, 0) : -1;
        if (fd >= 0)
            close(fd);
        if (st == 200)
            break;
        usleep(100000);
    }
    return port ? pid : -1;
}

int main(int argc, char **argv)
{
    unsigned workers = 2;
    if (argc < 2) {
        fprintf(stderr, "usage: bench_http SERVER_BINARY [--seconds S] [--workers W]\n");
        return 2;
    }
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seconds"))
            run_seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--workers"))
            workers = (unsigned)atoi(argv[i + 1]);
    }
    signal(SIGPIPE, SIG_IGN);
    static const int levels[] = { 1, 4, 16 };
    double direct_p50[3], direct_rate[3], direct_over[3];

    struct pool_options o;
    char err[256];
    pool_options_init(&o);
    o.workers = workers;
    o.queue_length = 256;
    struct pool *p = pool_new(&o, err, sizeof err);
    if (!p || pool_wait_ready(p, workers, 60000, err, sizeof err) != workers) {
        fprintf(stderr, "bench_http: %s\n", err);
        return 1;
    }
    for (int i = 0; i < 3; i++)
        direct_rate[i] = run_direct(p, levels[i], &direct_p50[i], &direct_over[i]);
    pool_free(p, 1000);

    pid_t srv = start_server(argv[1], workers);
    if (srv < 0) {
        fprintf(stderr, "bench_http: the server did not start\n");
        return 1;
    }
    printf("%u workers, %.0f s per level\n", workers, run_seconds);
    printf("%-5s %-28s %-38s %s\n", "conc", "pool alone: p50, rate", "over HTTP: p50, p99, rate",
           "/healthz p99, errors");
    int bad = 0;
    for (int i = 0; i < 3; i++) {
        double p50, p99, hp99, over;
        int errors;
        double rate = run_http(levels[i], &p50, &p99, &hp99, &over, &errors);
        printf("%-5d %7.2f ms %7.1f/s         %7.2f ms %7.2f ms %7.1f/s (%3.0f%%)   %6.2f ms, %d\n",
               levels[i], direct_p50[i], direct_rate[i], p50, p99, rate,
               100.0 * rate / direct_rate[i], hp99, errors);
        if (i == 0)
            printf("      HTTP adds %.2f ms at p50: latency minus the worker's own grading time "
                   "is %.2f ms over HTTP, %.2f ms through the pool alone (medians differ by %.2f ms)\n",
                   over - direct_over[0], over, direct_over[0], p50 - direct_p50[0]);
        bad += errors;
    }
    kill(srv, SIGTERM);
    waitpid(srv, NULL, 0);
    return bad ? 1 : 0;
}
