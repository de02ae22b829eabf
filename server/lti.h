/*
 * lti.h - LTI 1.3 (issue 22): the platforms the tool is registered with,
 * the checks of a launch, and the thread that does LTI's slow work.
 *
 * Threads. libmicrohttpd's thread never fetches, signs against the
 * network or calls the store: a login's state and a launch go to the LTI
 * thread (lti_submit), which has its own store connection and libcurl,
 * and resumes the connection when done; scores go out from a sender
 * thread of their own, reading the outbox the records' trigger fills
 * (store_lti.h). The tool's public key set is kept in memory for
 * GET /lti/jwks.json and reread from the store every LTI_KEYS_REFRESH_S.
 */
#ifndef BUTTERFLY_LTI_H
#define BUTTERFLY_LTI_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define LTI_MAX_PLATFORMS 64
#define LTI_MAX_DEPLOYMENTS 32
#define LTI_MAX_FRAME_ORIGINS 8     /* a platform's frame_origins */

/* One registration: what --lti-config's "platforms" holds. */
struct lti_platform {
    char *name, *issuer, *client_id;
    char *deployment_ids[LTI_MAX_DEPLOYMENTS];
    size_t n_deployments;
    char *auth_login_url, *auth_token_url, *key_set_url;
};

struct lti_config {
    struct lti_platform p[LTI_MAX_PLATFORMS];
    size_t n;
    /* The origins every platform's frame_origins names, space-separated,
     * for the pages' Content-Security-Policy frame-ancestors; NULL: none
     * (the pages refuse every frame) */
    char *frame_ancestors;
};

/* Reads --lti-config FILE: false with a sentence in err (which field of
 * which platform) when it is not as docs/LTI.md says. */
bool lti_config_load(const char *path, struct lti_config *out, char *err, size_t errsz);

/* Parses the JSON text of a config (what lti_config_load reads). */
bool lti_config_parse(const char *text, size_t len, struct lti_config *out, char *err,
                      size_t errsz);

void lti_config_free(struct lti_config *c);

/* The registration of (issuer, client_id); client_id NULL or "" matches
 * the issuer's only one (a login may leave it out). NULL when none, or
 * when client_id is empty and the issuer has several. */
const struct lti_platform *lti_config_find(const struct lti_config *c, const char *issuer,
                                           const char *client_id);

/* ---- the checks of a launch (lti_check.c: pure, unit-tested) ----------------- */

/* Why a launch was refused: the metric's label and the page's sentence. */
struct lti_refusal {
    const char *code;       /* NULL: accepted */
    char message[256];
};

/* A reason a launch is refused for: the metric's label (and the page's
 * <code id="check">) and its sentence. */
struct lti_reason {
    const char *code, *message;
};

/* Every reason, in docs/LTI.md's order (tests/unit/test_lti_docs.py
 * holds the doc to it); /metrics lists each, refused or not. */
extern const struct lti_reason lti_reasons[];
extern const size_t lti_n_reasons;

/* The reason of code, NULL when none is listed. */
const struct lti_reason *lti_reason_find(const char *code);

/* Fills *why with code and message (NULL: the reason's own sentence);
 * returns false, for "return lti_refuse(...)". */
bool lti_refuse(struct lti_refusal *why, const char *code, const char *message);

/* Whether token is a JWT whose header's alg says it is unsigned ("none",
 * in any case), with or without a signature part. */
bool lti_token_unsigned(const char *token);

/* What an accepted launch says. Pointers into the claims (valid while
 * they are). */
struct lti_claims {
    const char *sub, *name, *email, *deployment_id;
    const char *context_id, *context_title, *resource_link_id;
    const char *lineitem;   /* NULL: no AGS claim with the score scope */
    bool instructor;
};

/*
 * Checks the claims of a verified id_token against the registration p,
 * the login's nonce and target_link_uri, and the clock (now, with
 * LTI_CLOCK_SKEW_S for iat). False with the failed check in *why.
 */
bool lti_check_claims(const json_t *claims, const struct lti_platform *p, const char *nonce,
                      const char *target_link_uri, time_t now, struct lti_claims *out,
                      struct lti_refusal *why);

/* The value of name in an application/x-www-form-urlencoded body, decoded
 * into out (NUL-terminated). False when absent, or longer than outsz - 1. */
bool lti_form_value(const char *body, size_t len, const char *name, char *out, size_t outsz);

/* ---- the LTI threads (lti.c) ----------------------------------------------------- */

enum lti_policy { LTI_POLICY_BEST, LTI_POLICY_LAST };

struct lti_options {
    const char *config_path;
    const char *database_url;     /* the store (LTI needs one) */
    const char *public_url;       /* the tool's base address, no trailing '/' */
    enum lti_policy policy;
};

struct lti;
struct store;

/* Reads the config, opens the store, makes the tool's key pair on a
 * first start, starts the threads. NULL with a reason in err. */
struct lti *lti_start(const struct lti_options *o, char *err, size_t errsz);

/* Stops the threads: the launches queued are answered (their connections
 * resumed), a send in flight finishes within its timeout; from then on
 * lti_submit refuses. The HTTP threads may still use l (their answers to
 * those launches count in its metrics) until the daemon has stopped.
 * Accepts NULL; a second call does nothing. */
void lti_quiesce(struct lti *l);

/* lti_quiesce, then frees everything: call after the HTTP daemon has
 * stopped. Accepts NULL. */
void lti_free(struct lti *l);

const struct lti_config *lti_config_of(const struct lti *l);
const char *lti_public_url(const struct lti *l);

/* The public key set as JSON text, a copy the caller frees (NULL: OOM). */
char *lti_jwks_text(struct lti *l);

/* A job for the LTI thread: fn(l, arg) runs there. False when the queue
 * is full or stopping (fn not called). */
bool lti_submit(struct lti *l, void (*fn)(struct lti *l, struct store *s, void *arg),
                void *arg);

/* Counts a refused launch under its code, and an accepted one. */
void lti_count_launch(struct lti *l, const char *refusal_code);

/* Writes LTI's counters in Prometheus' text format. */
void lti_render_metrics(struct lti *l, FILE *f);

/*
 * On the LTI thread: verifies token's signature (RS256 only, whatever its
 * header says) with the key of its kid in p's key set, fetched with a
 * bound on time and size, cached, and fetched again once for an unknown
 * kid. On success *claims is a new reference. Else false and *why.
 */
bool lti_verify_token(struct lti *l, const struct lti_platform *p, const char *token,
                      json_t **claims, struct lti_refusal *why);

/* libcurl, bounded: GET (body NULL) or POST body with content type ctype
 * and optional bearer token; the answer (at most max bytes) into *out (a
 * NUL-terminated string the caller frees), its status into *status.
 * False with a sentence in err when no answer came (or it was too big). */
bool lti_http_fetch(const char *url, const char *body, const char *ctype, const char *bearer,
                    const char *accept, size_t max, long timeout_ms, char **out, long *status,
                    char *err, size_t errsz);

#endif
