/* wait_estimate.c - the expected wait of a new job. */
#include "pool/wait_estimate.h"

#include <math.h>

void job_time_init(struct job_time *t)
{
    t->mean_ms = JOB_TIME_FIRST_GUESS_MS;
    t->samples = 0;
}

void job_time_add(struct job_time *t, double ms)
{
    if (!(ms >= 0))   /* NaN or negative: a clock fault, not a job time */
        return;
    /* the first samples weigh more, so the first guess fades at once */
    double alpha = t->samples < 32 ? 1.0 / (t->samples + 1) : 1.0 / 32;
    t->mean_ms += alpha * (ms - t->mean_ms);
    t->samples++;
}

double wait_estimate_ms(const struct job_time *t, unsigned queued, unsigned busy,
                        unsigned workers)
{
    if (workers == 0)
        return INFINITY;
    /* jobs that must start before this one, beyond the workers' first round */
    double ahead = (double)queued + busy + 1 - workers;
    return ahead <= 0 ? 0 : ahead * t->mean_ms / workers;
}

unsigned wait_retry_after_s(double wait_ms)
{
    if (!(wait_ms < 86400000.0))
        return 86400;
    double s = ceil(wait_ms / 1000.0);
    return s < 1 ? 1 : (unsigned)s;
}
