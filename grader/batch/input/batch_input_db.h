/*
 * batch_input_db.h - a class's inputs from the records a grading server
 * kept (store.h), for `butterfly-batch --from-database URL`.
 *
 * One input per student: the record the policy chooses among those
 * received at or before --until. The input carries the record's verdict
 * bytes, seed and SHA-256, so that the gradebooks are written from what
 * the student was answered, without grading again; with --regrade its
 * source is graded again. Records of nobody (no one signed in) are
 * counted and left out: a gradebook has no row to give them.
 */
#ifndef BUTTERFLY_BATCH_INPUT_DB_H
#define BUTTERFLY_BATCH_INPUT_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "batch/input/batch_input.h"
#include "gradebook/layout.h"
#include "store/store_choose.h"
#include "batch/reports/batch_roster.h"

/* The marking an unverified name gets wherever it is shown. */
#define BATCH_UNVERIFIED_MARK GRADEBOOK_UNVERIFIED_MARK

/*
 * Parses --until's value: RFC 3339 ("2026-12-01T23:59:00Z",
 * "2026-12-01T23:59+01:00", seconds optional) or @UNIX_SECONDS, into
 * milliseconds since the epoch. False when it is neither.
 */
bool batch_until_parse(const char *s, int64_t *ms);

struct batch_db_options {
    const char *url;                 /* store_open's */
    const char *task;                /* the exercise whose records are read */
    int64_t until_ms;                /* INT64_MAX: every record */
    enum store_policy policy;
};

struct batch_db_result {
    size_t records;                  /* of the exercise, read, at or before until */
    size_t other_tasks;              /* of other exercises, left out */
    size_t nobody;                   /* of them, of no signed-in student */
    size_t unverified;               /* inputs of students with an open lab's name */
};

/*
 * Reads the chosen records into *in (format BATCH_FORMAT_DATABASE, sorted
 * by id as batch_inputs_load sorts), each input with its `stored` part,
 * and the store's students into *roster (the Student, ID and Section
 * columns; an unverified name carries BATCH_UNVERIFIED_MARK), for
 * Canvas's gradebook. False with a reason in err (the store cannot be
 * opened or read); *in and *roster are then empty.
 */
bool batch_input_db_load(const struct batch_db_options *o, struct batch_inputs *in,
                         struct gradebook_roster *roster, struct batch_db_result *res,
                         char *err, size_t errsz);

#endif
