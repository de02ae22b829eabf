#ifndef GRADER_SPIRV_CHECK_H
#define GRADER_SPIRV_CHECK_H

/*
 * The SPIR-V gate between compiling a submission and running it.
 *
 * The student's body is spliced into the harness as the body of a function,
 * but a body can close that function with `}` and declare globals of its
 * own: shared memory, extra buffers, push constants, images, extensions.
 * Compiling succeeds for all of those, so this checker reads the compiled
 * module and refuses anything the harness itself does not need. It parses
 * the word stream itself (no SPIR-V library) and treats the module as
 * hostile: every length is checked before it is used.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/exercise/exercise.h"

/* Largest module accepted, in bytes. The harness compiles to about 7 KiB. */
#define SPIRV_CHECK_MAX_BYTES (512u * 1024u)

/*
 * Checks a compiled module against the harness contract of exercise e
 * (its local size is e's out_n x out_planes x 1), then its cost
 * (spirv_cost.h). Returns true when it may run; else false with a
 * one-sentence reason in msg and, when line is not NULL, the body line to
 * mark in *line (0 when none applies: most refusals are about the module
 * as a whole). msg is always NUL-terminated when msgsz > 0 (empty on
 * success); msg may be NULL when msgsz is 0. words is read only, never kept.
 */
bool spirv_check_exercise(const struct exercise *e, const uint32_t *words, size_t nwords,
                          int *line, char *msg, size_t msgsz);

/* spirv_check_exercise for the butterfly (exercise_default()). */
bool spirv_check(const uint32_t *words, size_t nwords, int *line, char *msg, size_t msgsz);

/*
 * The same as spirv_check for a module given as bytes (as shaderc returns
 * it): refuses a size that is not a whole number of 32-bit words, and
 * accepts any alignment of bytes.
 */
bool spirv_check_bytes(const void *bytes, size_t nbytes, char *msg, size_t msgsz);

#endif
