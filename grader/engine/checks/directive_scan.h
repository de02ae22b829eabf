/*
 * directive_scan.h - the preprocessor directives of a body, found the way
 * glslang's own preprocessor finds them.
 *
 * A directive the body checks miss reaches the compiler, so this scanner
 * reads the text exactly as glslang 12's preprocessor scanner does (its
 * tStringInput::getch and ::scan): line continuations vanish, "\r\n",
 * "\n" and a lone "\r" are one newline each, only ' ' and '\t' are
 * blanks, "//" runs to the newline, a block comment is skipped whole and
 * makes no newline, a string runs to its quote or the newline with its
 * escapes (\x.., \0..) read as glslang reads them and ends after 1024
 * characters, and an apostrophe is a token of its own. A '#' is a
 * directive when the token before it was a newline (or there was none).
 *
 * It is deliberately wider than glslang in one way: it reports directives
 * that glslang would skip (inside "#if 0", or after an error that stops
 * glslang), since refusing those is harmless. tests/unit and
 * fuzz/fuzz_source_check.c check it against glslang itself.
 */
#ifndef BUTTERFLY_DIRECTIVE_SCAN_H
#define BUTTERFLY_DIRECTIVE_SCAN_H

#include <stdbool.h>
#include <stddef.h>

/* Longest directive name kept; longer names are cut (none is forbidden). */
#define DIRECTIVE_NAME_MAX 16

/*
 * Calls found(name, line, arg) for every directive in s (len bytes,
 * scanned as if a newline came just before it): name is the identifier
 * after the '#' ("" when none), line the 1-based line of the '#' counted
 * by '\n' bytes as glslang counts them. Stops early when found() returns
 * false.
 */
void directive_scan(const char *s, size_t len,
                    bool (*found)(const char *name, int line, void *arg), void *arg);

#endif
