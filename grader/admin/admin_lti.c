/* admin_lti.c - butterfly-admin lti rotate-key. */
#include "admin/admin_lti.h"

#include <stdio.h>
#include <string.h>

#include "common/defaults.h"
#include "store/store_lti.h"

bool admin_lti_shape(int nargs, char **args)
{
    return nargs == 2 && !strcmp(args[1], "rotate-key");
}

int admin_lti(struct store *s, int nargs, char **args)
{
    (void)nargs;
    (void)args;
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
