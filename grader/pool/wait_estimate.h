/*
 * wait_estimate.h - how long a new job would wait, from the jobs ahead of
 * it, the recent job time and the workers: the one estimate that both
 * admission (refuse past a bound) and Retry-After come from.
 */
#ifndef BUTTERFLY_WAIT_ESTIMATE_H
#define BUTTERFLY_WAIT_ESTIMATE_H

/* The recent mean time of a job on a worker, in milliseconds. */
struct job_time {
    double mean_ms;
    unsigned samples;
};

/* Before any job has run: a guess of a slow kernel on lavapipe. */
#define JOB_TIME_FIRST_GUESS_MS 100.0

/* Starts with no samples (mean_ms is then the first guess). */
void job_time_init(struct job_time *t);

/*
 * Adds one job's time. The mean follows recent jobs (an exponential
 * moving average over about the last 32), so that a class switching from
 * the starter to real kernels moves it within seconds.
 */
void job_time_add(struct job_time *t, double ms);

/*
 * The wait of a job submitted now, in milliseconds: the `queued` jobs
 * ahead of it and the `busy` ones running share `workers` workers, each
 * job taking the recent mean. 0 while a worker would be free for it.
 */
double wait_estimate_ms(const struct job_time *t, unsigned queued, unsigned busy,
                        unsigned workers);

/* Seconds for Retry-After: the estimate rounded up, at least 1. */
unsigned wait_retry_after_s(double wait_ms);

#endif
