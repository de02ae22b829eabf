/*
 * store_choose.h - the one record that stands for each student in a
 * gradebook: the policy's choice among the records received by a time.
 * What `butterfly-batch --from-database` and the class view's gradebook
 * downloads both read, so that they choose alike.
 */
#ifndef BUTTERFLY_STORE_CHOOSE_H
#define BUTTERFLY_STORE_CHOOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/exercise/exercise.h"
#include "store/store.h"

/* Which of a student's records stands for them. */
enum store_policy {
    STORE_POLICY_BEST,     /* the most points; the latest of those on a tie */
    STORE_POLICY_LAST,     /* the latest */
};

/* Parses a policy's name ("best", "last"); false when it is neither. */
bool store_policy_from_str(const char *s, enum store_policy *p);

/* "best" or "last"; never NULL. */
const char *store_policy_to_str(enum store_policy p);

/* A student's attempts against the due date (store_record.late), among
 * those the choice read. */
struct store_lateness {
    unsigned late;               /* attempts after the due date */
    int best_on_time;            /* the most points on time, -1: no attempt on time */
    int best_late;               /* the most points late, -1: no late attempt */
};

/* The chosen records, one per signed-in student, of one exercise,
 * ordered by student as store_records_each walks them. */
struct store_chosen {
    struct store_record *v;      /* owned */
    struct store_lateness *lateness;   /* owned, one per record of v */
    size_t n, cap;
    size_t records;              /* read, at or before until, of the exercise */
    size_t nobody;               /* of them, of no signed-in student */
    size_t other_tasks;          /* read, at or before until, of other exercises */
};

/*
 * Fills *out with the record the policy chooses for each student among
 * their records of exercise `task` (store_record.task, an exercise id)
 * received at or before until_ms (INT64_MAX: all), in one read of the
 * store (store_records_each): a student's attempts at one exercise never
 * stand for another's. Without with_source the chosen records
 * hold no source (a gradebook needs none; a class's sources are large).
 * On failure *out is empty (STORE_NO_MEMORY when memory ran out). Release with store_chosen_clear.
 */
enum store_status store_records_choose(struct store *s, const char *task, int64_t until_ms,
                                       enum store_policy p, bool with_source, struct store_chosen *out,
                                       struct store_error *err);

/* Whether task has the shape of an exercise's id, as the task column
 * holds it: 1 to EX_ID_MAX bytes of [a-z0-9_-]. What a reader that is
 * given an id from outside (a query, an option) checks before it looks. */
bool store_task_ok(const char *task);

/* Releases what *c holds and empties it. Accepts an empty one. */
void store_chosen_clear(struct store_chosen *c);

#endif
