/*
 * batch_student_report.h - OUT/reports/KEY.html, one student's report for
 * the instructor, linked from summary.html: the verdict and points, the
 * six tests as Gradescope shows them, what the student reads before the
 * grades are published, and the grader's whole report (hidden spectra,
 * diagnosis, timings). Self-contained like summary.html.
 */
#ifndef BUTTERFLY_BATCH_STUDENT_REPORT_H
#define BUTTERFLY_BATCH_STUDENT_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/score.h"
#include "batch/input/batch_input.h"
#include "common/verdict.h"

/*
 * The page of input e (a usable id), titled by the exercise's title, graded to v and scored sc with
 * `seed` from a source whose SHA-256 is `sha` (NULL: refused before
 * grading). Returns a malloc'd string, NULL on OOM.
 */
char *batch_student_report_html(const struct batch_input *e, const char *title,
                                const struct verdict *v, const struct score *sc, uint64_t seed,
                                const char *sha);

#endif
