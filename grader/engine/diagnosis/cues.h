/* cues.h - what a body's own code shows of a mistake, to choose among
 * readings that the outputs prove equally. */
#ifndef BUTTERFLY_CUES_H
#define BUTTERFLY_CUES_H

#include <stddef.h>

/*
 * The body's code with blanks and comments left out, as the cues read it;
 * a new string for the caller to free, NULL on OOM or for a NULL body.
 */
char *cues_compact(const char *body, size_t len);

/*
 * Whether the compact code (cues_compact) shows the mistake `value_id` (a
 * family value's id, "angle_from_i"), and in which recipe step: the step's
 * slug ("w" where the angle is written float(i), "r" where r = i), or NULL
 * when the code shows nothing of it (or compact is NULL). A cue never
 * makes a reading: it only picks, among readings the outputs prove, the
 * one to lead with.
 */
const char *cues_step(const char *compact, const char *value_id);

#endif
