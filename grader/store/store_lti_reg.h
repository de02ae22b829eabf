/*
 * store_lti_reg.h - LTI Dynamic Registration's rows (issue 34, schema
 * version 4): the one-time registration addresses butterfly-admin makes
 * (kept as their token's SHA-256, used once, for LTI_REGISTRATION_LIFETIME_S),
 * and the platforms that registered themselves through one, which the
 * server reads beside --lti-config.
 *
 * Same rules as store.h: one connection, one thread; errors in err.
 */
#ifndef BUTTERFLY_STORE_LTI_REG_H
#define BUTTERFLY_STORE_LTI_REG_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

/* Makes a registration token (store_new_token) good until expires_ms and
 * keeps its SHA-256 (the expired ones are dropped): the token into token. */
enum store_status store_lti_reg_token_new(struct store *s, int64_t expires_ms,
                                          char token[STORE_TOKEN_SIZE], struct store_error *err);

/* Takes token: deleted whatever comes next, so it registers once.
 * STORE_NOT_FOUND when it is no token made here, was taken, or expired at
 * now_ms (a token of the wrong length or alphabet included). */
enum store_status store_lti_reg_token_take(struct store *s, const char *token, int64_t now_ms,
                                           struct store_error *err);

/* A platform that registered itself. deployment_id "": none named. */
struct store_lti_platform {
    const char *name, *issuer, *client_id, *deployment_id;
    const char *auth_login_url, *auth_token_url, *key_set_url;
    int64_t registered_ms;
};

/* Keeps p (every string at most STORE_MAX_TEXT bytes, all but
 * deployment_id non-empty): STORE_CONFLICT when (issuer, client_id) is
 * kept already, STORE_INVALID when a string is missing or too long. */
enum store_status store_lti_platform_add(struct store *s, const struct store_lti_platform *p,
                                         struct store_error *err);

/* Calls fn for each kept platform, oldest first; fn returns false to
 * stop. The strings are valid during the call only. */
enum store_status store_lti_platforms_each(struct store *s,
                                           bool (*fn)(const struct store_lti_platform *p,
                                                      void *arg),
                                           void *arg, struct store_error *err);

#endif
