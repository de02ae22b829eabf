/* iso8601.h - a date and time with its zone (an LTI launch's due_at,
 * butterfly-admin class due) as ms since the epoch. */
#ifndef BUTTERFLY_ISO8601_H
#define BUTTERFLY_ISO8601_H

#include <stdbool.h>
#include <stdint.h>

/* An ISO 8601 date and time (YYYY-MM-DDTHH:MM[:SS[.fff]] then Z or
 * +HH:MM / -HH:MM; a space for the T) as ms since the epoch into *ms.
 * False for anything else: an empty text, a substitution a platform left
 * unmade ("$Canvas.assignment.dueAt.iso8601"), a date without a zone
 * (whose clock would it be?), more than 64 bytes. */
bool iso8601_ms(const char *text, int64_t *ms);

#endif
