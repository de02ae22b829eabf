/* admin_lti.h - butterfly-admin's LTI commands (issue 22). */
#ifndef BUTTERFLY_ADMIN_LTI_H
#define BUTTERFLY_ADMIN_LTI_H

#include <stdbool.h>

#include "store/store.h"

/* Whether args (after "lti") are a command this file runs. */
bool admin_lti_shape(int nargs, char **args);

/* `lti rotate-key`: a new key pair becomes the tool's key in use; the old
 * one stays published for LTI_KEY_OVERLAP_S, keys past it are removed.
 * `lti registration-url`: prints a one-time Dynamic Registration address
 * under base (the public URL, no trailing '/'), good for one registration
 * within LTI_REGISTRATION_LIFETIME_S. Returns the exit status. */
int admin_lti(struct store *s, const char *base, int nargs, char **args);

#endif
