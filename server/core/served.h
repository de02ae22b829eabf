/* served.h - the exercises this server serves (--exercises), in course
 * order: the routes, the pages, the task list and LTI's chooser read them
 * here, so that a server never serves an exercise it was told not to. */
#ifndef BUTTERFLY_SERVED_H
#define BUTTERFLY_SERVED_H

#include <stdbool.h>
#include <stddef.h>

#include "common/exercise/exercise.h"

/*
 * Chooses the served exercises: list is comma-separated ids (spaces
 * around them allowed; one named twice is served once), NULL or "" for
 * every built-in one. Kept in the registry's course order whatever the
 * list's order. False, the choice left as it was, with a message naming
 * the id in err, for an id no exercise has, an empty item, or more than
 * MAX_SERVED_EXERCISES. Called once at start, before any thread reads
 * the set (it is read without a lock from then on).
 */
/* The 404 unknown_exercise's sentence, for every route that names one. */
#define SERVED_UNKNOWN_MESSAGE "No such exercise is served here (GET /api/tasks lists them)."

bool served_select(const char *list, char *err, size_t errsz);

/* How many exercises are served; the i-th in course order (NULL past
 * the last). Before any served_select: every built-in one. */
size_t served_count(void);
const struct exercise *served_at(size_t i);

/* The served exercise `id` (the registry's), NULL when it is not one:
 * no exercise has that id, or --exercises left it out. */
const struct exercise *served_find(const char *id);

#endif
