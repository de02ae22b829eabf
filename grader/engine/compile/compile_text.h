/*
 * compile_text.h - compiler text made safe to show: bounded, every
 * control character visible.
 *
 * glslang echoes the student's source into its messages (#error's text,
 * a bad token, an identifier). A body of 64 KiB of ESC bytes would
 * otherwise come back in the verdict several times over, each byte six
 * times as long in JSON (\u001b), and drive terminal escapes in the text
 * report. So every piece of compiler text a verdict carries goes through
 * here once, with a bound of its own (grader/common/defaults.h).
 */
#ifndef BUTTERFLY_COMPILE_TEXT_H
#define BUTTERFLY_COMPILE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* What ends a text that was cut (U+2026, three bytes of UTF-8). */
#define COMPILE_TEXT_CUT_MARK "\xe2\x80\xa6"

/*
 * A copy of the `len` bytes at `s` in which every control character is a
 * visible escape: C0 controls and DEL as \xHH (a newline is kept when
 * keep_newlines), C1 controls and the bidirectional controls (U+061C,
 * U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) as \uHHHH, and bytes
 * that are not UTF-8 as \xHH. The copy is at most `max` bytes (max >= 16):
 * when more would be needed it is cut at a character boundary and ends in
 * COMPILE_TEXT_CUT_MARK, and *cut (when not NULL) is set true; else it is
 * left alone. Returns a malloc'd, NUL-terminated string; NULL on OOM.
 */
char *compile_text_visible(const char *s, size_t len, size_t max, bool keep_newlines, bool *cut);

#endif
