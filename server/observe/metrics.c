/* metrics.c - a handful of counters and one latency histogram, the
 * build's facts and the standard process metrics. */
#include "server/observe/metrics.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "server/observe/process_stats.h"

/* every verdict status, from the verdict's own table */
#define NCOUNTED VERDICT_NSTATUSES

/* seconds; the last bucket is +Inf */
static const double buckets[] = { 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10 };
#define NBUCKETS (sizeof buckets / sizeof buckets[0])

static const unsigned codes[] = { 200, 202, 303, 304, 400, 401, 403, 404, 405, 409, 411, 413,
                                  415, 429, 431, 500, 503 };
#define NCODES (sizeof codes / sizeof codes[0])


struct metrics {
    pthread_mutex_t lock;
    unsigned long long by_refusal[POOL_NSUBMIT_STATUSES];   /* POOL_SUBMITTED unused */
    unsigned long long by_verdict[NCOUNTED];
    unsigned long long bucket[NBUCKETS + 1];
    double latency_sum;
    unsigned long long latency_count;
    unsigned long long by_code[NCODES + 1];   /* the last: any other code */
};

struct metrics *metrics_new(void)
{
    struct metrics *m = calloc(1, sizeof *m);
    if (m)
        pthread_mutex_init(&m->lock, NULL);
    return m;
}

void metrics_free(struct metrics *m)
{
    if (!m)
        return;
    pthread_mutex_destroy(&m->lock);
    free(m);
}

void metrics_count_submission(struct metrics *m, enum verdict_status status, double seconds)
{
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < NCOUNTED; i++)
        if (verdict_status_at(i) == status)
            m->by_verdict[i]++;
    size_t b = 0;
    while (b < NBUCKETS && seconds > buckets[b])
        b++;
    m->bucket[b]++;
    m->latency_sum += seconds;
    m->latency_count++;
    pthread_mutex_unlock(&m->lock);
}

void metrics_count_refusal(struct metrics *m, enum pool_submit_status why)
{
    if (why == POOL_SUBMITTED || (unsigned)why >= POOL_NSUBMIT_STATUSES)
        return;
    pthread_mutex_lock(&m->lock);
    m->by_refusal[why]++;
    pthread_mutex_unlock(&m->lock);
}

void metrics_count_response(struct metrics *m, unsigned status)
{
    pthread_mutex_lock(&m->lock);
    size_t i = 0;
    while (i < NCODES && codes[i] != status)
        i++;
    m->by_code[i]++;
    pthread_mutex_unlock(&m->lock);
}

/* A label's value as the text format wants it: \\, \" and \n escaped. */
static void put_label_value(FILE *f, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            fputc('\\', f);
        if (*v == '\n')
            fputs("\\n", f);
        else
            fputc(*v, f);
    }
}

/* The standard process metrics (the names Prometheus' client libraries
 * use), for this process: the server, not its workers. */
static void render_process(FILE *f)
{
    struct process_stats p;
    if (!process_stats_read(&p))
        return;    /* without /proc: better no figures than zeros */
    fprintf(f, "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"
               "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total %.2f\n"
               "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
               "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %.0f\n"
               "# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n"
               "# TYPE process_virtual_memory_bytes gauge\nprocess_virtual_memory_bytes %.0f\n"
               "# HELP process_open_fds Number of open file descriptors.\n"
               "# TYPE process_open_fds gauge\nprocess_open_fds %.0f\n"
               "# HELP process_max_fds Maximum number of open file descriptors.\n"
               "# TYPE process_max_fds gauge\nprocess_max_fds %.0f\n"
               "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n"
               "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds %.2f\n",
            p.cpu_seconds, p.resident_bytes, p.virtual_bytes, p.open_fds, p.max_fds,
            p.start_time_seconds);
}

void metrics_render(struct metrics *m, const struct pool_stats *ps, FILE *f)
{
    fprintf(f, "# HELP butterfly_build_info The server's version and the device its workers "
               "grade on (empty until one is ready); always 1.\n"
               "# TYPE butterfly_build_info gauge\nbutterfly_build_info{version=\"");
    put_label_value(f, BUTTERFLY_VERSION);
    fputs("\",device=\"", f);
    put_label_value(f, ps->device_name);
    fputs("\"} 1\n", f);
    render_process(f);
    pthread_mutex_lock(&m->lock);
    fprintf(f, "# HELP butterfly_submissions_total Graded submissions by verdict.\n"
               "# TYPE butterfly_submissions_total counter\n");
    for (size_t i = 0; i < NCOUNTED; i++)
        fprintf(f, "butterfly_submissions_total{verdict=\"%s\",status_id=\"%d\"} %llu\n",
                verdict_status_slug(verdict_status_at(i)), (int)verdict_status_at(i),
                m->by_verdict[i]);
    fprintf(f, "# HELP butterfly_submission_duration_seconds Time from a submission's last byte to its verdict.\n"
               "# TYPE butterfly_submission_duration_seconds histogram\n");
    unsigned long long cum = 0;
    for (size_t b = 0; b < NBUCKETS; b++) {
        cum += m->bucket[b];
        fprintf(f, "butterfly_submission_duration_seconds_bucket{le=\"%g\"} %llu\n", buckets[b], cum);
    }
    cum += m->bucket[NBUCKETS];
    fprintf(f, "butterfly_submission_duration_seconds_bucket{le=\"+Inf\"} %llu\n", cum);
    fprintf(f, "butterfly_submission_duration_seconds_sum %.6f\n", m->latency_sum);
    fprintf(f, "butterfly_submission_duration_seconds_count %llu\n", m->latency_count);
    fprintf(f, "# HELP butterfly_http_responses_total HTTP responses by status code.\n"
               "# TYPE butterfly_http_responses_total counter\n");
    for (size_t i = 0; i < NCODES; i++)
        fprintf(f, "butterfly_http_responses_total{code=\"%u\"} %llu\n", codes[i], m->by_code[i]);
    fprintf(f, "butterfly_http_responses_total{code=\"other\"} %llu\n", m->by_code[NCODES]);
    fprintf(f, "# HELP butterfly_submissions_refused_total Submissions refused before queueing, by reason.\n"
               "# TYPE butterfly_submissions_refused_total counter\n");
    for (int i = POOL_SUBMITTED + 1; i < POOL_NSUBMIT_STATUSES; i++)
        fprintf(f, "butterfly_submissions_refused_total{reason=\"%s\"} %llu\n",
                pool_submit_status_to_str((enum pool_submit_status)i), m->by_refusal[i]);
    pthread_mutex_unlock(&m->lock);

    fprintf(f, "# HELP butterfly_queue_depth Submissions waiting for a worker.\n"
               "# TYPE butterfly_queue_depth gauge\nbutterfly_queue_depth %u\n", ps->queued);
    fprintf(f, "# HELP butterfly_queue_capacity Longest the queue may get.\n"
               "# TYPE butterfly_queue_capacity gauge\nbutterfly_queue_capacity %u\n", ps->queue_length);
    fprintf(f, "# HELP butterfly_workers_ready Warm workers (idle or busy).\n"
               "# TYPE butterfly_workers_ready gauge\nbutterfly_workers_ready %u\n", ps->ready);
    fprintf(f, "# HELP butterfly_workers_busy Workers grading right now.\n"
               "# TYPE butterfly_workers_busy gauge\nbutterfly_workers_busy %u\n", ps->busy);
    fprintf(f, "# HELP butterfly_worker_restarts_total Workers replaced after a fault: a timeout, a crash, a bad frame, "
               "an Internal Error, a failed start (not a recycle, not a cancelled job).\n"
               "# TYPE butterfly_worker_restarts_total counter\nbutterfly_worker_restarts_total %llu\n",
            (unsigned long long)ps->worker_restarts);
    fprintf(f, "# HELP butterfly_worker_recycles_total Workers replaced by plan after their job quota (--recycle-after).\n"
               "# TYPE butterfly_worker_recycles_total counter\nbutterfly_worker_recycles_total %llu\n",
            (unsigned long long)ps->recycles);
    fprintf(f, "# HELP butterfly_queue_refusals_total Submissions refused because the queue was full.\n"
               "# TYPE butterfly_queue_refusals_total counter\nbutterfly_queue_refusals_total %llu\n",
            (unsigned long long)ps->refused_full);
    fprintf(f, "# HELP butterfly_queue_clients Clients with a submission waiting.\n"
               "# TYPE butterfly_queue_clients gauge\nbutterfly_queue_clients %u\n",
            ps->queued_clients);
    fprintf(f, "# HELP butterfly_expected_wait_seconds Expected wait of a submission made now.\n"
               "# TYPE butterfly_expected_wait_seconds gauge\nbutterfly_expected_wait_seconds %.3f\n",
            ps->expected_wait_ms / 1000.0);
    fprintf(f, "# HELP butterfly_job_seconds Recent mean time of a job on a worker.\n"
               "# TYPE butterfly_job_seconds gauge\nbutterfly_job_seconds %.4f\n",
            ps->mean_job_ms / 1000.0);
    fprintf(f, "# HELP butterfly_jobs_cancelled_total Jobs whose client went away: left the queue, or had their worker stopped.\n"
               "# TYPE butterfly_jobs_cancelled_total counter\n"
               "butterfly_jobs_cancelled_total{where=\"queued\"} %llu\n"
               "butterfly_jobs_cancelled_total{where=\"running\"} %llu\n",
            (unsigned long long)ps->cancelled_queued, (unsigned long long)ps->cancelled_running);
    fprintf(f, "# HELP butterfly_job_retries_total Jobs graded again after a failure of the grader's own.\n"
               "# TYPE butterfly_job_retries_total counter\nbutterfly_job_retries_total %llu\n",
            (unsigned long long)ps->retries);
}
