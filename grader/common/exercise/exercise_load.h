/* exercise_load.h - an exercise's definition (exercise.json and the files
 * of its folder) read into a struct exercise, every mistake in it told by
 * file and field. Pure: it reads only what it is given, so the build, the
 * registry, the check on load and the fuzzer all read a definition the
 * same way. The format: docs/EXERCISES.md, exercises/exercise.schema.json. */
#ifndef BUTTERFLY_EXERCISE_LOAD_H
#define BUTTERFLY_EXERCISE_LOAD_H

#include <stddef.h>

#include "common/exercise/exercise.h"

/* The bounds of a definition, so that a definition is as bounded as a
 * request: every string, file and count below has a limit. */
#define EX_LOAD_MAX_JSON       (64 * 1024)  /* bytes of exercise.json */
#define EX_LOAD_MAX_FILE       (64 * 1024)  /* bytes of any other file (a body's own bound) */
#define EX_LOAD_MAX_FILES      64           /* files in a folder that the loader reads */
#define EX_LOAD_MAX_TEXT       200          /* bytes of a title, a signature, an API meaning */
#define EX_LOAD_MAX_PARAGRAPH  (4 * EX_LOAD_MAX_TEXT)  /* bytes of a mistake's explanation */
#define EX_LOAD_MAX_NAME       64           /* bytes of a GLSL name, an API name or type */
#define EX_LOAD_MAX_ORDER      1000         /* course.order */
#define EX_LOAD_MAX_GRID       65536        /* input.hidden.grid, a power of two */
#define EX_LOAD_MAX_HIDDEN_K   (1 << 24)    /* |min * grid|, |max * grid|: exact in float */
#define EX_LOAD_MAX_PARAM      65536        /* |a parameter value| */
/* Below lavapipe's silent cap of 65,535 iterations per loop, so that the
 * driver never decides a verdict (TASK_LOOP_BUDGET's reason). */
#define EX_LOAD_MAX_LOOP_BUDGET 60000
#define EX_LOAD_MAX_ERROR      512          /* bytes of a message, NUL included */

/* One file of an exercise's folder, named from the folder
 * ("README.md", "solutions/correct.glsl"); text need not end in NUL. */
struct exercise_file {
    const char *name;
    const char *text;
    size_t len;
};

/*
 * Reads the exercise in folder `dir` (as messages name it, e.g.
 * "exercises/butterfly"; its last component is the id the definition must
 * have) from `json` (exercise.json's bytes) and `files` (README.md,
 * starter.glsl, solutions/NAME.glsl, mistakes/ID.glsl; other names are
 * ignored). Returns a new exercise, owned by the caller and freed with
 * exercise_load_free, whose strings are its own copies and whose reference
 * is NULL (the caller sets it). On a mistake returns NULL and writes one
 * line to `err` (errlen bytes, always NUL-terminated when errlen > 0):
 * "DIR/FILE: FIELD: what is wrong". Never crashes on any bytes.
 */
struct exercise *exercise_load(const char *dir, const char *json, size_t json_len,
                               const struct exercise_file *files, size_t nfiles,
                               char *err, size_t errlen);

/* Frees what exercise_load returned, every string with it; NULL is fine. */
void exercise_load_free(struct exercise *e);

/*
 * Whether `id` may name an exercise or a mistake: 1 to EX_ID_MAX bytes of
 * [a-z0-9_-]. An id is a folder name, a URL segment and a record's column.
 */
bool exercise_id_valid(const char *id);

#endif
