/*
 * feedback.h - a grade's feedback as a learning system shows it: one line,
 * "Verdict: S of M points. " and the main reason (the named mistake, the
 * compiler's first error, or the verdict's own sentence), cut to fit
 * without splitting a UTF-8 sequence.
 */
#ifndef BUTTERFLY_GRADEBOOK_FEEDBACK_H
#define BUTTERFLY_GRADEBOOK_FEEDBACK_H

#include <stddef.h>

#include "common/score.h"
#include "common/verdict.h"

#define GRADEBOOK_FEEDBACK_MAX 600   /* bytes of the one-line feedback, with its NUL */

/* Writes the feedback of verdict v, scored sc, into line. */
void gradebook_feedback(const struct verdict *v, const struct score *sc,
                        char line[GRADEBOOK_FEEDBACK_MAX]);

/*
 * Shortens s in place, if it is longer, to at most max bytes without
 * splitting a UTF-8 sequence: for text cut to fit a buffer (snprintf cuts
 * at a byte), which a CSV or JSON reader must still take as UTF-8.
 */
void gradebook_text_cut(char *s, size_t max);

#endif
