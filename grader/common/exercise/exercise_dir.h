/* exercise_dir.h - an exercise's folder read from disk and loaded: what
 * the build's check and an author's `--check-exercise DIR` read. */
#ifndef BUTTERFLY_EXERCISE_DIR_H
#define BUTTERFLY_EXERCISE_DIR_H

#include <stddef.h>

#include "common/exercise/exercise.h"

/*
 * Reads folder `dir` (exercise.json, README.md, starter.glsl,
 * solutions/ *.glsl and mistakes/ *.glsl in name order; reference.c must be
 * there) and loads it with exercise_load. Every file is read up to its
 * bound and no further. Returns the exercise (free it with
 * exercise_load_free; its reference is NULL) or NULL with the message in
 * `err` (errlen bytes), naming the file and the field.
 */
struct exercise *exercise_dir_load(const char *dir, char *err, size_t errlen);

#endif
