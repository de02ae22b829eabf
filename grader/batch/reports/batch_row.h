/*
 * batch_row.h - a gradebook row as the other outputs read it once its
 * verdict is gone: the learning systems' gradebooks (batch_lms.h) and the
 * class report (batch_class_report.h). Small, so that a class of 100,000
 * can be held whole.
 */
#ifndef BUTTERFLY_BATCH_ROW_H
#define BUTTERFLY_BATCH_ROW_H

#include <stdbool.h>

#include "common/score.h"
#include "batch/input/batch_input.h"
#include "common/verdict.h"
#include "gradebook/feedback.h"

#define BATCH_ROW_FEEDBACK_MAX GRADEBOOK_FEEDBACK_MAX   /* gradebook/feedback.h */

struct batch_row {
    const struct batch_input *e;     /* the input: id, key, location (not owned) */
    enum verdict_status status;
    int score, max_score, halves_passed, hidden_passed;
    double lms_score;                /* a learning system's: the late policy's (a row from
                                      * the records with late attempts), else score */
    char *mistake;                   /* owned: the diagnosis's title, or NULL */
    char *feedback;                  /* owned: verdict, points and the main reason, one line */
    bool grade;                      /* a grade of the student's work: not an Internal Error
                                      * (the grader's failure) nor a duplicated id (whose
                                      * inputs were not graded) */
};

/* Fills *row for input e, graded to v and scored sc; its learning
 * system's score counts e's late attempts (a stored record's) as policy
 * lp says, its chosen one under policy last when last. False on OOM
 * (*row then owns nothing). */
bool batch_row_fill(struct batch_row *row, const struct batch_input *e, const struct verdict *v,
                    const struct score *sc, bool last, const struct late_policy *lp);

/* Releases what *row owns. */
void batch_row_clear(struct batch_row *row);

/* Frees n rows and the array. Accepts NULL. */
void batch_rows_free(struct batch_row *rows, size_t n);

#endif
