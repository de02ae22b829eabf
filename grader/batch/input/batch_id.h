/* batch_id.h - student ids: which are usable, and their names on disk. */
#ifndef BUTTERFLY_BATCH_ID_H
#define BUTTERFLY_BATCH_ID_H

#include <stddef.h>

#include "gradebook/student_id.h"

#define BATCH_ID_MAX  GRADEBOOK_ID_MAX        /* bytes of an id (gradebook/student_id.h) */
#define BATCH_KEY_MAX (3 * BATCH_ID_MAX + 1)  /* its name on disk, with the NUL */

/*
 * Why `id` (len bytes) cannot be a student id, as a phrase for a row
 * ("the id is empty"), or NULL when it can: 1 to BATCH_ID_MAX bytes of
 * UTF-8 text with no control character, and not "." or "..".
 */
const char *batch_id_problem(const char *id, size_t len);

/*
 * Writes the id's name on disk into key: a-z, 0-9, '_', '-' and a '.'
 * that is not the first byte stay; every other byte (capitals included)
 * becomes %XX with capital hex digits. The mapping is one to one even on
 * a case-insensitive file system, and the name can hold no '/', cannot
 * start with a dot, and fits NAME_MAX, so no id can collide with another
 * or reach outside its folder. Needs an id batch_id_problem accepts.
 */
void batch_id_key(const char *id, size_t len, char key[BATCH_KEY_MAX]);

/*
 * A printable copy of len bytes for rows and terminals: valid UTF-8 text
 * is kept, control characters and bytes that are not UTF-8 become %XX (so
 * a file name cannot send escape sequences to the instructor's terminal).
 * Returns a malloc'd string, NULL on OOM.
 */
char *batch_display(const char *s, size_t len);

/* Shortens s in place to at most max bytes without splitting a UTF-8
 * sequence (gradebook_text_cut, gradebook/feedback.h). */
void batch_display_cut(char *s, size_t max);

#endif
