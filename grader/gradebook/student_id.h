/*
 * student_id.h - which ids a gradebook row can carry as a student's, and
 * text made printable for rows and terminals: the batch's inputs and the
 * class view's downloads judge and show them alike.
 */
#ifndef BUTTERFLY_GRADEBOOK_STUDENT_ID_H
#define BUTTERFLY_GRADEBOOK_STUDENT_ID_H

#include <stddef.h>

#define GRADEBOOK_ID_MAX 80   /* bytes of a student's id */

/*
 * Why `id` (len bytes) cannot be a student id, as a phrase for a row
 * ("the id is empty"), or NULL when it can: 1 to GRADEBOOK_ID_MAX bytes
 * of UTF-8 text with no control character, and not "." or "..".
 */
const char *gradebook_id_problem(const char *id, size_t len);

/*
 * A printable copy of len bytes: valid UTF-8 text is kept, control
 * characters and bytes that are not UTF-8 become %XX (so a file name or
 * a name cannot send escape sequences to a terminal). Returns a malloc'd
 * string, NULL on OOM.
 */
char *gradebook_display(const char *s, size_t len);

#endif
