/*
 * store_lti_key.c - the tool's LTI key pairs: made here (RSA, as a JWK,
 * with rhonabwy) so that the server's first start and
 * `butterfly-admin lti rotate-key` make them the same way.
 */
#include <stdio.h>
#include <string.h>
#include <rhonabwy.h>

#include "common/defaults.h"
#include "store/store_internal.h"
#include "store/store_lti.h"

enum store_status store_lti_key_make(struct store *s, bool only_if_none,
                                     char kid_out[STORE_LTI_KID_SIZE], struct store_error *err)
{
    char id[STORE_ID_SIZE];
    if (!store_new_id(id))
        return store_fail(err, STORE_ERROR, "no random bytes for a key id");
    char kid[STORE_LTI_KID_SIZE];
    snprintf(kid, sizeof kid, "%.16s", id);
    jwk_t *priv = NULL, *pub = NULL;
    char *text = NULL;
    enum store_status st = STORE_OK;
    if (r_jwk_init(&priv) != RHN_OK || r_jwk_init(&pub) != RHN_OK ||
        r_jwk_generate_key_pair(priv, pub, R_KEY_TYPE_RSA, LTI_RSA_BITS, kid) != RHN_OK ||
        !(text = r_jwk_export_to_json_str(priv, 0)))
        st = store_fail(err, STORE_ERROR, "could not make an RSA key pair");
    bool added = false;
    if (st == STORE_OK)
        st = store_lti_key_add(s, kid, text, only_if_none, &added, err);
    if (kid_out)
        snprintf(kid_out, STORE_LTI_KID_SIZE, "%s", st == STORE_OK && added ? kid : "");
    r_free(text);
    r_jwk_free(priv);
    r_jwk_free(pub);
    return st;
}
