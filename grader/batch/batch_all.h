/*
 * batch_all.h - butterfly-batch --from-database --task all: Canvas's or
 * Moodle's gradebook with an assignment column per built-in exercise, in
 * course order (exercises/LIST), from the records as they are, written to
 * OUT/gradebook-canvas.csv or OUT/gradebook-moodle.csv; nothing else is
 * written (a run per --task ID writes an exercise's other outputs).
 */
#ifndef BUTTERFLY_BATCH_ALL_H
#define BUTTERFLY_BATCH_ALL_H

#include "batch/batch.h"

/* Runs it for options o (batch_options_problem passed); returns a
 * batch_exit value. */
int batch_all_run(const struct batch_options *o);

#endif
