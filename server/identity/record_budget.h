/*
 * record_budget.h - what a client that is not a signed-in student may
 * have the store keep: so many records and so many bytes in a window, per
 * client as the fair share keys it (common/client_id.h: an IPv4 address,
 * an IPv6 /64, the forwarded client behind a trusted proxy).
 *
 * The attack it bounds: a signed-out client posting 64 KiB bodies that
 * are Rejected in a millisecond had every one recorded (hundreds of MB in
 * seconds, until the disk was full and no student's record went in).
 * Grading is not bounded here, only what is kept. Thread-safe; memory
 * only, no store.
 */
#ifndef BUTTERFLY_RECORD_BUDGET_H
#define BUTTERFLY_RECORD_BUDGET_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "common/client_id.h"

struct record_budget;

/* A budget of `records` records and `bytes` bytes per client in every
 * window of window_s seconds; 0 for either: no bound on it. NULL on OOM. */
struct record_budget *record_budget_new(unsigned records, uint64_t bytes, unsigned window_s);

/* Accepts NULL. */
void record_budget_free(struct record_budget *b);

enum record_budget_answer {
    BUDGET_OK,          /* counted: keep it */
    BUDGET_RECORDS,     /* the client's records for this window are spent */
    BUDGET_BYTES,       /* the client's bytes for this window are spent */
};

/* "ok", "records" or "bytes"; never NULL. */
const char *record_budget_answer_to_str(enum record_budget_answer a);

/*
 * Whether client may have one more record of `bytes` kept now; when so it
 * is counted. A record larger than the whole byte budget is refused.
 */
enum record_budget_answer record_budget_take(struct record_budget *b,
                                             const struct client_id *client, uint64_t bytes,
                                             time_t now);

/* The budget's two bounds (0: none). */
void record_budget_limits(struct record_budget *b, unsigned *records, uint64_t *bytes);

/* Writes the budget's counters in Prometheus' text format. */
void record_budget_render_metrics(struct record_budget *b, FILE *f);

#endif
