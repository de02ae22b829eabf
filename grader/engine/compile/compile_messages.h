/* compile_messages.h - glslang's messages in plain words for an exercise. */
#ifndef BUTTERFLY_COMPILE_MESSAGES_H
#define BUTTERFLY_COMPILE_MESSAGES_H

#include <stddef.h>

#include "common/exercise/exercise.h"
#include "common/verdict.h"

/* The words of the missing-';' diagnostic (tests compare against it). */
extern const char compile_missing_semicolon[];

/*
 * The message a student of exercise e reads for one glslang message `raw`
 * (without its "body:L: error: " prefix), in e's names and sizes, or NULL
 * when glslang's own text is kept.
 * `line_text` is the code of the diagnostic's line (comments removed), or
 * NULL when unknown; some rewrites look at it (=== and const are
 * JavaScript's). Returns a malloc'd string the caller frees.
 */
char *compile_message_rewrite(const struct exercise *e, const char *raw, const char *line_text);

/*
 * Rewrites the diagnostics of one compile for exercise e in place, given
 * the body that was compiled (len bytes, body_lines lines):
 *  - a syntax error at the first token of a line whose previous code line
 *    does not end in ';', '{', '}' or ',' (nor in an operator, which
 *    continues the statement) moves to that line as "missing ';' at the
 *    end of this line?";
 *  - the messages students meet most are put in plain words;
 *  - a diagnostic the same as the one before it (line and words) is
 *    dropped, as are follow-on errors of a JavaScript name on its line.
 * A rewritten diagnostic keeps glslang's text in `original`. *n is updated;
 * dropped messages are freed. Each diagnostic gets its column where
 * glslang's words prove it (compile_column.h), the missing ';' the column
 * just past its line's code. On OOM a diagnostic is left as it was.
 */
void compile_messages_apply(const struct exercise *e, struct diagnostic *diags, size_t *n,
                            const char *body, size_t len, int body_lines);

#endif
