/*
 * batch_feedback.h - what a student reads in Gradescope before the grades
 * are published: the top-level `output` of results.json. It speaks of the
 * visible spectrum only (the one the exercise page shows): no verdict, no
 * diagnosis, no hidden spectra and no total, since each of those can
 * change with the hidden results. Those come in the hidden tests, shown
 * once the instructor publishes the grades.
 */
#ifndef BUTTERFLY_BATCH_FEEDBACK_H
#define BUTTERFLY_BATCH_FEEDBACK_H

#include <stdbool.h>

#include "common/score.h"
#include "batch/input/batch_input.h"
#include "common/verdict.h"

/*
 * The visible feedback of input e, scored sc from verdict v; `refused`
 * when it was Rejected before grading. A kernel that ran gets the grid of
 * the visible spectrum's cells per half and its visible points; one that
 * did not run gets the verdict that stopped it and its message (a
 * compile error, a refusal, a time limit: none depends on a hidden
 * spectrum's result). Returns a malloc'd string, NULL on OOM.
 */
char *batch_feedback_visible(const struct batch_input *e, const struct verdict *v,
                             const struct score *sc, bool refused);

/*
 * Whether the verdict's kernel ran on the spectra (Accepted or Wrong
 * Answer): only then do cells, hidden spectra and diagnoses exist.
 */
bool batch_feedback_ran(const struct verdict *v);

#endif
