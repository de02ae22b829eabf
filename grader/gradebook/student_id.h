/*
 * student_id.h - which ids a gradebook row can carry as a student's, and
 * text made printable for rows and terminals: the batch's inputs and the
 * class view's downloads judge and show them alike.
 */
#ifndef BUTTERFLY_GRADEBOOK_STUDENT_ID_H
#define BUTTERFLY_GRADEBOOK_STUDENT_ID_H

#include <stdbool.h>
#include <stddef.h>

#define GRADEBOOK_ID_MAX 80   /* bytes of a student's id */

/*
 * Why len bytes of s cannot be a line of text, as a phrase for a row
 * ("is not UTF-8 text", "holds a control character"), or NULL when they
 * can: UTF-8 with no control character (C0, DEL, C1: a TAB, a line break
 * and an escape sequence alike). A roster's cells and a student's id are
 * judged by it.
 */
const char *gradebook_text_problem(const char *s, size_t len);

/* Whether len bytes of s are UTF-8 with no NUL (a file's cell in a column
 * nobody reads: control characters there do no harm, another encoding
 * says the whole file is in it). */
bool gradebook_is_utf8(const char *s, size_t len);

/*
 * Why `id` (len bytes) cannot be a student id, as a phrase for a row
 * ("the id is empty"), or NULL when it can: 1 to GRADEBOOK_ID_MAX bytes
 * of UTF-8 text with no control character, and not "." or "..". (An id
 * a spreadsheet would run is usable: the batch's own gradebook guards
 * it; Moodle's file leaves it out, moodle.h.)
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
