/*
 * batch_class_report.h - OUT/summary.html, the class at a glance for the
 * instructor: the verdicts, the pass rate per half, the points
 * distribution, the most common mistakes and compile errors each with one
 * student's example, and a table of students, each linked to their own
 * report (batch_student_report.h). Its figures are summary.json's.
 */
#ifndef BUTTERFLY_BATCH_CLASS_REPORT_H
#define BUTTERFLY_BATCH_CLASS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "batch/reports/batch_row.h"
#include "batch/reports/batch_summary.h"

/*
 * Writes the page, headed by the exercise's title and subtitle, for the summary s of n rows (sorted by id), graded
 * with `seed`, into f. Every row with a usable id links to
 * reports/KEY.html.
 */
void batch_class_report_write(FILE *f, const char *title, const char *subtitle,
                              const struct batch_summary *s, const struct batch_row *rows,
                              size_t n, uint64_t seed);

#endif
