/* admin_lti.c - butterfly-admin lti rotate-key and lti registration-url. */
#include "admin/admin_lti.h"

#include <stdio.h>
#include <string.h>

#include "common/defaults.h"
#include "store/store_lti.h"
#include "store/store_lti_reg.h"

bool admin_lti_shape(int nargs, char **args)
{
    return nargs == 2 && (!strcmp(args[1], "rotate-key") || !strcmp(args[1], "registration-url"));
}

/* A one-time Dynamic Registration address under base: only its token's
 * hash is kept, so the address printed here is the only copy. */
static int registration_url(struct store *s, const char *base)
{
    struct store_error e = { 0 };
    char token[STORE_TOKEN_SIZE];
    int64_t expires = store_now_ms() + (int64_t)LTI_REGISTRATION_LIFETIME_S * 1000;
    if (store_lti_reg_token_new(s, expires, token, &e) != STORE_OK) {
        fprintf(stderr, "butterfly-admin: %s\n", e.message);
        return 1;
    }
    printf("%s/lti/register?token=%s\n", base, token);
    fprintf(stderr, "butterfly-admin: paste this address into the platform's Dynamic "
            "Registration (Moodle: Site administration > Plugins > Manage tools > Tool URL); "
            "it registers one platform, within %u minutes\n", LTI_REGISTRATION_LIFETIME_S / 60u);
    return 0;
}

int admin_lti(struct store *s, const char *base, int nargs, char **args)
{
    (void)nargs;
    if (!strcmp(args[1], "registration-url"))
        return registration_url(s, base);
    struct store_error e = { 0 };
    char kid[STORE_LTI_KID_SIZE];
    int64_t cutoff = store_now_ms() - (int64_t)LTI_KEY_OVERLAP_S * 1000;
    if (store_lti_key_make(s, false, kid, &e) != STORE_OK || store_lti_keys_prune(s, cutoff, &e) != STORE_OK) {
        fprintf(stderr, "butterfly-admin: %s\n", e.message);
        return 1;
    }
    printf("new LTI key %s: servers sign with it within %u s; the previous key stays "
           "published at /lti/jwks.json for %u days\n", kid, LTI_KEYS_REFRESH_S,
           LTI_KEY_OVERLAP_S / 86400u);
    return 0;
}
