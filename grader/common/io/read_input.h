/* read_input.h - read a whole file or stdin, with a size bound. */
#ifndef BUTTERFLY_READ_INPUT_H
#define BUTTERFLY_READ_INPUT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Reads at most `max` bytes of `path` ("-" is standard input) into a
 * malloc'd buffer (NUL-terminated; the content may itself hold NULs) and
 * sets *len. A longer input is cut at `max`, so callers pass limit + 1 to
 * see that it is too long. NULL with a reason in err on failure.
 */
char *read_input(const char *path, size_t max, size_t *len, char *err, size_t errsz);

#endif
