/* metrics.h - counters for GET /metrics, in Prometheus' text format. */
#ifndef BUTTERFLY_METRICS_H
#define BUTTERFLY_METRICS_H

#include "common/verdict.h"
#include "pool/pool.h"
#include <stdio.h>


struct metrics;

/* A new set of zeroed counters; NULL on OOM. */
struct metrics *metrics_new(void);

/* Frees the counters. Accepts NULL. */
void metrics_free(struct metrics *m);

/* Counts one graded submission with its verdict and its latency. Thread-safe. */
void metrics_count_submission(struct metrics *m, enum verdict_status status, double seconds);

/* Counts one submission refused before queueing, by the pool's reason
 * (labelled with pool_submit_status_to_str). Thread-safe. */
void metrics_count_refusal(struct metrics *m, enum pool_submit_status why);

/* Counts one HTTP response by status code. Thread-safe. */
void metrics_count_response(struct metrics *m, unsigned status);

/* Writes the exposition text to f: butterfly_build_info, the standard
 * process_* metrics of this process, the counters and the pool's gauges.
 * The other rooms' counters follow from their own render_metrics. */
void metrics_render(struct metrics *m, const struct pool_stats *ps, FILE *f);

#endif
