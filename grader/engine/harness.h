/* harness.h - wraps a kernel body in the harness shader. */
#ifndef BUTTERFLY_HARNESS_H
#define BUTTERFLY_HARNESS_H

#include <stddef.h>

/*
 * Returns the full compute shader for `body` (len bytes, need not be
 * NUL-terminated or end in a newline), malloc'd and NUL-terminated, its
 * length in *out_len; NULL when out of memory. The caller frees it. Lines
 * of the body keep their numbers in diagnostics (the harness puts #line 1
 * before it); diagnostics from after the body carry source string 1.
 */
char *harness_assemble(const char *body, size_t len, size_t *out_len);

#endif
