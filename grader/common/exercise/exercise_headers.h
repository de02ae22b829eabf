/* exercise_headers.h - what a solution or a mistake file says of itself in
 * its first lines: a solution's "// expect: ..." line, a mistake's
 * "// title:", "// explanation:" and "// hint:" lines (docs/EXERCISES.md). */
#ifndef BUTTERFLY_EXERCISE_HEADERS_H
#define BUTTERFLY_EXERCISE_HEADERS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/exercise/exercise.h"
#include "common/exercise/exercise_load.h"

/*
 * Whether s (len bytes) is text a page shows on one line: 1 to max bytes,
 * no control characters (a newline in a title would split a header, a NUL
 * would cut it).
 */
bool exercise_headers_text_ok(const char *s, size_t len, size_t max);

/*
 * Reads a solution's first line (after an optional UTF-8 byte-order mark):
 * "// expect: accepted", "// expect: wrong" or "// expect: wrong ID", with
 * any blanks between the words. Returns true with *expect set and `mistake`
 * the ID ("" when none); false with `why` (whylen bytes) saying what is due
 * and quoting the line.
 */
bool exercise_headers_expect(const char *text, size_t len, enum exercise_expect *expect,
                             char mistake[EX_ID_MAX + 1], char *why, size_t whylen);

/* A mistake file's header, as exercise_headers_mistake reads it. */
struct exercise_mistake_header {
    char title[EX_LOAD_MAX_TEXT + 1];
    char explanation[EX_LOAD_MAX_PARAGRAPH + 1];   /* its lines joined by one space */
    char hint[EX_LOAD_MAX_TEXT + 1];               /* "" when none */
};

/*
 * Reads the "// KEY: value" lines at the top of a mistake file (the first
 * line not starting with // ends them; other keys are comments): a title
 * once, one or more explanation lines, a hint at most once. Returns true
 * with *out filled; false with *field the key at fault ("title",
 * "explanation", "hint") and `why` what is wrong with it.
 */
bool exercise_headers_mistake(const char *text, size_t len, struct exercise_mistake_header *out,
                              const char **field, char *why, size_t whylen);

#endif
