/* lti_keys.h - the tool's keys from the store. */
#ifndef BUTTERFLY_LTI_KEYS_H
#define BUTTERFLY_LTI_KEYS_H

#include <rhonabwy.h>
#include <stdbool.h>
#include <stddef.h>

#include "store/store.h"

/* The newest key's private JWK (for signing) and its kid; false with a
 * reason in err when the store has none. The caller frees *key. */
bool lti_keys_signing(struct store *s, jwk_t **key, char kid[64], char *err, size_t errsz);

/* The public key set ({"keys": [...]}, keys past their overlap left out)
 * as JSON text the caller frees; NULL when the store cannot say or on OOM. */
char *lti_keys_public_text(struct store *s);

#endif
