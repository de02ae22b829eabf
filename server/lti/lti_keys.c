/* lti_keys.c - the tool's own keys, as the store keeps them: the public
 * set it publishes and the newest private key it signs with. */
#include "server/lti/lti_keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"
#include "store/store_lti.h"

/* The public half of a stored private JWK, with its kid, alg and use. */
static json_t *public_jwk(const char *kid, const char *priv_json)
{
    jwk_t *priv = NULL, *pub = NULL;
    json_t *out = NULL;
    if (r_jwk_init(&priv) == RHN_OK && r_jwk_init(&pub) == RHN_OK &&
        r_jwk_import_from_json_str(priv, priv_json) == RHN_OK &&
        r_jwk_extract_pubkey(priv, pub, R_FLAG_IGNORE_REMOTE) == RHN_OK) {
        r_jwk_set_property_str(pub, "kid", kid);
        r_jwk_set_property_str(pub, "alg", "RS256");
        r_jwk_set_property_str(pub, "use", "sig");
        out = r_jwk_export_to_json_t(pub);
    }
    r_jwk_free(priv);
    r_jwk_free(pub);
    return out;
}

struct key_pick {
    json_t *keys;           /* the public set */
    char *signing_jwk;      /* the newest key's private JWK */
    char signing_kid[64];
    int64_t now;
};

static bool pick_key(const struct store_lti_key *k, void *arg)
{
    struct key_pick *p = arg;
    if (k->retired_ms && k->retired_ms + (int64_t)LTI_KEY_OVERLAP_S * 1000 < p->now)
        return true;   /* past its overlap: no longer published */
    json_t *pub = public_jwk(k->kid, k->jwk);
    if (pub)
        json_array_append_new(p->keys, pub);
    if (!k->retired_ms && !p->signing_jwk) {
        p->signing_jwk = strdup(k->jwk);
        snprintf(p->signing_kid, sizeof p->signing_kid, "%s", k->kid);
    }
    return true;
}

bool lti_keys_signing(struct store *s, jwk_t **key, char kid[64], char *err, size_t errsz)
{
    struct store_error e = { 0 };
    struct key_pick p = { json_array(), NULL, "", store_now_ms() };
    enum store_status st = store_lti_keys_each(s, pick_key, &p, &e);
    json_decref(p.keys);
    *key = NULL;
    bool ok = st == STORE_OK && p.signing_jwk && r_jwk_init(key) == RHN_OK &&
              r_jwk_import_from_json_str(*key, p.signing_jwk) == RHN_OK;
    if (ok) {
        snprintf(kid, 64, "%s", p.signing_kid);
    } else {
        snprintf(err, errsz, "no signing key in the store (%s)", e.message);
        r_jwk_free(*key);
        *key = NULL;
    }
    free(p.signing_jwk);
    return ok;
}

char *lti_keys_public_text(struct store *s)
{
    struct store_error e = { 0 };
    struct key_pick p = { json_array(), NULL, "", store_now_ms() };
    char *text = NULL;
    if (p.keys && store_lti_keys_each(s, pick_key, &p, &e) == STORE_OK) {
        json_t *doc = json_pack("{s:O}", "keys", p.keys);
        text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
        json_decref(doc);
    }
    json_decref(p.keys);
    free(p.signing_jwk);
    return text;
}
