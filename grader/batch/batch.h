/*
 * batch.h - grading a whole class through the worker pool.
 *
 * Reads the inputs (batch_input.h), reuses what an earlier run recorded
 * for the same source and seed, grades the rest through a pool of
 * workers, writes each student's results.json the moment its verdict
 * comes (batch_output.h), then rebuilds gradebook.csv and summary.json
 * from those files and checks that the gradebook has one row per input.
 * See docs/BATCH.md.
 */
#ifndef BUTTERFLY_BATCH_H
#define BUTTERFLY_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "batch/input/batch_input.h"
#include "batch/input/batch_input_db.h"
#include "common/due/late_policy.h"
#include "batch/reports/batch_lms.h"

struct batch_options {
    const char *input;            /* a folder, a CSV or JSON Lines file, "-": standard input */
    const char *task;             /* --task: the exercise's id; NULL: the default */
    const char *output;           /* the output folder (created if missing) */
    enum batch_format format;     /* AUTO: from the input */
    const char *id_column;        /* NULL: id, student_id, student */
    const char *source_column;    /* NULL: source, code, submission */
    unsigned jobs;                /* pool workers; 0: the number of cores */
    bool seed_given;              /* false: the kept seed, else a drawn one (batch_seed.h) */
    uint64_t seed;                /* with seed_given */
    uint32_t deadline_ms;         /* per submission */
    const char *device;           /* NULL: the best */
    bool force;                   /* regrade what an earlier run recorded, with a new seed */
    bool quiet;                   /* no progress, no printed summary */
    enum gradebook_layout gradebook;  /* a learning system's gradebook besides gradebook.csv */
    const char *roster;           /* Canvas: the roster CSV */
    const char *assignment;       /* Canvas: the points column's header; NULL: the exercise's
                                   * title */
    bool excel;                   /* CSV files start with a UTF-8 byte-order mark */
    const char *from_database;    /* a store's URL: the inputs are its records (input NULL) */
    int64_t until_ms;             /* with from_database: records received by then (INT64_MAX) */
    enum store_policy policy;     /* with from_database: which record of a student */
    bool regrade;                 /* with from_database: grade the chosen source again */
    bool late_policy_given;       /* --late-policy: with from_database only */
    struct late_policy late_policy;   /* what a late attempt counts for in Canvas's and
                                       * Moodle's score (default none) */
};

/* The outcome of a run, as the exit status of butterfly-batch. */
enum batch_exit {
    BATCH_EXIT_OK = 0,             /* every input has its row */
    BATCH_EXIT_INCOMPLETE = 1,     /* so it has, but some rows are Internal Errors: run again */
    BATCH_EXIT_FAILED = 2,         /* no gradebook: bad inputs, output folder, no device */
    BATCH_EXIT_USAGE = 64,
    BATCH_EXIT_SIGNAL = 128,       /* + the signal: interrupted, resumable */
};

/* Fills *o with the defaults. */
void batch_options_init(struct batch_options *o);

/*
 * Checks the options that depend on each other (a roster for Canvas, and
 * only there). Returns NULL when they fit, else the message for the user.
 */
const char *batch_options_problem(const struct batch_options *o);

/*
 * Runs the batch; progress and errors go to standard error, the summary
 * to standard output. SIGINT, SIGTERM and SIGHUP stop it cleanly (the
 * submissions being graded finish and are recorded; a second signal stops
 * at once). Returns a batch_exit value (BATCH_EXIT_SIGNAL + the signal
 * when interrupted).
 */
int batch_run(const struct batch_options *o);

#endif
