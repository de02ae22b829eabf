/* source_check.h - the checks a body passes before it reaches the compiler. */
#ifndef BUTTERFLY_SOURCE_CHECK_H
#define BUTTERFLY_SOURCE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Checks a kernel body: not empty or blank, at most TASK_MAX_SOURCE bytes,
 * no NUL byte, valid UTF-8, no control character but the whitespace ones
 * (tab, line feed, vertical tab, form feed, carriage return), and no directive that would change the
 * harness's contract (#version, #extension, #include, #line, #pragma).
 * Returns true when the body may be compiled. Otherwise returns false and
 * writes one sentence for the student into msg (always NUL-terminated) and
 * the 1-based line of the fault into *line (0 when no line applies).
 */
bool source_check(const char *body, size_t len, int *line,
                  char *msg, size_t msgsz);

#endif
