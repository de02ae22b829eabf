/* exercise_embedded.h - the exercises built in, as the build embeds them
 * (scripts/embed_exercises.py writes the table from exercises/LIST). */
#ifndef BUTTERFLY_EXERCISE_EMBEDDED_H
#define BUTTERFLY_EXERCISE_EMBEDDED_H

#include <stddef.h>

#include "common/exercise/exercise.h"
#include "common/exercise/exercise_load.h"

/* One folder of exercises/: its definition's bytes, its other files, and
 * its reference under its built-in name (exercise_reference_ID). */
struct exercise_embedded {
    const char *dir;                   /* "exercises/ID", as messages name it */
    const char *json;
    size_t json_len;
    const struct exercise_file *files;
    size_t nfiles;
    exercise_reference_fn reference;
};

/* In LIST's order; exercise_embedded_count of them. */
extern const struct exercise_embedded exercise_embedded[];
extern const size_t exercise_embedded_count;

#endif
