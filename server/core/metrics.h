/* metrics.h - counters for GET /metrics, in Prometheus' text format. */
#ifndef BUTTERFLY_METRICS_H
#define BUTTERFLY_METRICS_H

#include "common/verdict.h"
#include "pool/pool.h"
#include "server/identity/auth.h"
#include "server/identity/records.h"

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

/* The exposition text (malloc'd, caller frees): butterfly_build_info, the
 * standard process_* metrics of this process, the counters, the pool's
 * gauges, the wrong tokens (guard), the sign-ins refused (sign_ins) and
 * the records' counters (rs; NULL: no store, none written). */
char *metrics_render(struct metrics *m, const struct pool_stats *ps, struct records *rs,
                     struct token_guard *guard, struct token_guard *sign_ins);

#endif
