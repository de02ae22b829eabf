/* feedback.c - a grade's one-line feedback (feedback.h). */
#include "gradebook/feedback.h"

#include <stdio.h>
#include <string.h>

void gradebook_text_cut(char *s, size_t max)
{
    size_t len = strlen(s);
    if (len <= max)
        return;
    /* back to the first byte of the sequence the cut falls in */
    while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
        max--;
    s[max] = '\0';
}

/* The first error of a compile log, or the verdict's own sentence. */
static const char *main_reason(const struct verdict *v, char *buf, size_t bufsz)
{
    if (v->diagnosis && v->diagnosis->title)
        return v->diagnosis->title;
    if (v->status == VERDICT_COMPILATION_ERROR)
        for (size_t i = 0; i < v->ndiags; i++)
            if (v->diags[i].severity == DIAG_ERROR) {
                snprintf(buf, bufsz, "line %d: %s", v->diags[i].line, v->diags[i].message);
                return buf;
            }
    return v->message ? v->message : "";
}

void gradebook_feedback(const struct verdict *v, const struct score *sc,
                        char line[GRADEBOOK_FEEDBACK_MAX])
{
    char reason[GRADEBOOK_FEEDBACK_MAX / 2];
    snprintf(line, GRADEBOOK_FEEDBACK_MAX, "%s: %d of %d points. %s",
             verdict_status_to_str(v->status), sc->score, sc->max_score,
             main_reason(v, reason, sizeof reason));
    gradebook_text_cut(line, GRADEBOOK_FEEDBACK_MAX - 4);
    /* one line: a learning system shows feedback as a paragraph */
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
}
