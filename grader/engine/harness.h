/* harness.h - wraps a kernel body in the harness shader of its exercise. */
#ifndef BUTTERFLY_HARNESS_H
#define BUTTERFLY_HARNESS_H

#include <stddef.h>

#include "common/exercise/exercise.h"

/*
 * Returns the full compute shader of exercise e for `body` (len bytes,
 * need not be NUL-terminated or end in a newline): the embedded template
 * (shaders/harness.comp) filled with e's names and sizes, the body at its
 * marker. malloc'd and NUL-terminated, its length in *out_len; NULL when
 * out of memory. The caller frees it. Lines of the body keep their
 * numbers in diagnostics (the harness puts #line 1 before it); diagnostics
 * from after the body carry source string 1. e's names must be GLSL
 * identifiers and its sizes within EX_MAX_* (the loader checks both).
 */
char *harness_assemble(const struct exercise *e, const char *body, size_t len,
                       size_t *out_len);

#endif
