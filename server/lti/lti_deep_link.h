/*
 * lti_deep_link.h - Deep Linking 2.0 (issue 34, item 1) and the Canvas
 * developer key's JSON (item 4): what the routes in lti_http.c answer.
 *
 * An instructor's LtiDeepLinkingRequest is answered with a chooser: one
 * form per exercise (GET /api/tasks' list, with its points), no script.
 * Each form posts the chooser's choice token to /lti/deep-link. The
 * token is kept server-side (the login states' table, marked as a
 * choice, used once, LTI_CHOICE_LIFETIME_S) with what the answer needs:
 * the registration, the deployment, the platform's return URL and data.
 * The choice is answered with a page that posts the signed
 * LtiDeepLinkingResponse (form field JWT) to the return URL.
 */
#ifndef BUTTERFLY_LTI_DEEP_LINK_H
#define BUTTERFLY_LTI_DEEP_LINK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "server/lti/lti.h"
#include "store/store.h"
#include "store/store_lti.h"

#define LTI_EXERCISE_ID_MAX 64    /* bytes of an exercise's id in a choice */

/* What a chooser's choice answers with, read back from the store. */
struct lti_dl_choice {
    char *issuer, *client_id, *deployment_id, *return_url;
    char *data;                 /* NULL: the request had none */
    char nonce[STORE_TOKEN_SIZE];   /* fresh, for the answer's JWT */
};

/* Fills *st (cleared first; the caller frees it with store_lti_state_clear)
 * with the choice of the deep-linking launch c of platform p, for
 * store_lti_state_put: a new token in st->state. False on OOM or no
 * random bytes. */
bool lti_deep_link_keep(const struct lti_platform *p, const struct lti_claims *c,
                        struct store_lti_state *st);

/* Reads a state taken from the store (store_lti_state_take) as a choice
 * into *out: false when it is not one (a login's state) or unreadable.
 * out is the caller's, freed with lti_deep_link_choice_clear. */
bool lti_deep_link_read(const struct store_lti_state *st, struct lti_dl_choice *out);

/* Frees what out holds and zeroes it. Accepts NULL. */
void lti_deep_link_choice_clear(struct lti_dl_choice *out);

/* The title and points of exercise id, from GET /api/tasks' list: false
 * when no exercise has that id. */
bool lti_deep_link_exercise(const char *id, char *title, size_t titlesz, int *points);

/* The chooser page for the choice token, its forms posting to
 * public_url's /lti/deep-link: HTML text the caller frees, *len its
 * length; NULL on OOM. */
char *lti_deep_link_chooser(const char *public_url, const char *token, size_t *len);

/* The LtiDeepLinkingResponse for choice c and exercise id: a JWT signed
 * with the tool's key in use (kid in its header; s: the store, on the LTI
 * thread), iss the client id, aud the platform's issuer, c's nonce, c's
 * data echoed, one ltiResourceLink under public_url with the exercise in
 * custom and its line item. A string the caller frees; NULL with a
 * sentence in err. */
char *lti_deep_link_response(struct store *s, const struct lti_dl_choice *c,
                             const char *public_url, const char *id, char *err, size_t errsz);

/* The page that posts jwt to return_url (a form with one JWT field, sent
 * by a script allowed by script_nonce, and a button without script):
 * HTML text the caller frees, *len its length; NULL on OOM. */
char *lti_deep_link_autopost(const char *return_url, const char *jwt, const char *script_nonce,
                             size_t *len);

/* The Content-Security-Policy of the autopost page: its script by nonce,
 * its form to return_url's origin only, framed by frame_ancestors (NULL:
 * none). A string the caller frees; NULL on OOM or a return URL with no
 * origin. */
char *lti_deep_link_autopost_csp(const char *return_url, const char *script_nonce,
                                 const char *frame_ancestors);

/* The Canvas developer key's JSON (GET /lti/canvas.json) for the tool at
 * public_url (no trailing '/'): every URL under it. New reference; NULL
 * on OOM. */
json_t *lti_deep_link_canvas(const char *public_url);

#endif
