/*
 * lti_register.h - LTI Dynamic Registration 1.0 (issue 34): a platform
 * registers itself through a one-time address that butterfly-admin lti
 * registration-url makes (store_lti_reg.h).
 *
 * The platform opens PUBLIC/lti/register?token=T with
 * openid_configuration=URL&registration_token=RT appended, in its admin's
 * browser, inside its frame. The token is taken from the store first
 * (used once, whatever follows): a call without a valid one fetches
 * nothing. Then, on a thread of its own (one registration at a time,
 * never libmicrohttpd's, nor the LTI thread, which would hold the
 * records' writer through the calls), the configuration is fetched
 * (bounded in time and size), checked, the tool's client registration
 * POSTed to its registration_endpoint with the bearer registration
 * token, the platform kept in the store and added to the running
 * server's registrations (a launch from it works at once). Stored
 * platforms are read at every start beside --lti-config's; where both
 * name one (issuer, client_id), --lti-config's is used.
 */
#ifndef BUTTERFLY_LTI_REGISTER_H
#define BUTTERFLY_LTI_REGISTER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "server/lti/lti.h"
#include "store/store.h"

/* What a platform's openid configuration says, as the registration
 * uses it (strings owned, lti_register_config_clear frees). */
struct lti_register_config {
    char *issuer, *registration_endpoint;
    char *auth_login_url, *auth_token_url, *key_set_url;
    char issuer_origin[LTI_ORIGIN_SIZE];   /* the page's frame-ancestors */
};

void lti_register_config_clear(struct lti_register_config *c);

/* Whether url may be called for a registration: https, or http to a
 * loopback host (127.0.0.1, localhost, [::1]: a platform on this
 * machine, the tests'); its origin into origin (LTI_ORIGIN_SIZE) and its
 * host alone into host (LTI_ORIGIN_SIZE). */
bool lti_register_url_ok(const char *url, char *origin, char *host);

/* Reads the configuration text fetched from config_url: false with a
 * sentence in err when it is no JSON object, lacks an address, names an
 * address lti_register_url_ok refuses, its issuer's host is not
 * config_url's, or its registration_endpoint's host is not the issuer's. */
bool lti_register_config_read(const char *config_url, const char *text, size_t len,
                              struct lti_register_config *out, char *err, size_t errsz);

/* The tool's client registration for public_url (no trailing '/'), a
 * new object (NULL on OOM): redirect_uris, initiate_login_uri, jwks_uri,
 * private_key_jwt, implicit and client_credentials, id_token, the AGS
 * and NRPS scopes, and the LTI tool configuration (domain,
 * target_link_uri, claims, messages with LtiDeepLinkingRequest). */
json_t *lti_register_message(const char *public_url);

/* Reads the platform's answer: its client_id (into a new string) and
 * deployment_id (a new string, NULL when it named none). False with a
 * sentence in err when it is no object with a client_id of 1 to
 * STORE_MAX_TEXT bytes. */
bool lti_register_answer_read(const char *text, size_t len, char **client_id,
                              char **deployment_id, char *err, size_t errsz);

/* One registration in flight: what the request gave and what the
 * registration answers. The caller owns it; it must stay until done. */
struct lti_registration {
    char token[STORE_TOKEN_SIZE + 1];
    char *config_url, *registration_token;   /* the caller's (freed by it) */
    void (*done)(void *arg);                  /* called once, on the registrar's thread */
    void *arg;
    /* the answer */
    unsigned status;                          /* 200 registered; else a refusal */
    char code[32];                            /* the refusal's name (the page's check) */
    char message[400];
    char frame_origin[LTI_ORIGIN_SIZE];       /* the platform's, for the page */
};

struct lti;

/* Starts g on the registrar's thread: false (g untouched, done never
 * called) when one is in flight already or the tool is stopping. */
bool lti_register_start(struct lti *l, struct lti_registration *g);

/* At start, on the store's thread: appends the platforms kept in the
 * store to l's registrations, those of --lti-config winning (a platform
 * of both is skipped, said on stderr). */
void lti_register_load(struct lti *l, struct store *s);

/* On the store's thread, every LTI_KEYS_REFRESH_S: appends the platforms
 * another instance of this store registered since (quietly skipping those
 * known), so that a launch reaching any instance finds them. */
void lti_register_refresh(struct lti *l, struct store *s);

/* Waits for the registration in flight, if any (bounded by its calls'
 * timeouts). */
void lti_register_stop(struct lti *l);

#endif
