/*
 * lti.h - LTI 1.3 (issue 22): the platforms the tool is registered with,
 * the checks of a launch, and the thread that does LTI's slow work.
 *
 * Threads. libmicrohttpd's thread never fetches, signs against the
 * network or calls the store: a login's state and a launch go to the LTI
 * thread (lti_submit), which has its own store connection and libcurl,
 * and resumes the connection when done; a platform's key set is fetched
 * on a short-lived thread of its own (one at most per platform) while the
 * launches that need it wait parked, so no platform waits behind another's
 * fetch; scores go out from a sender thread of their own, reading the
 * outbox the records' trigger fills (store_lti.h), and the courses' rosters
 * (NRPS) are read on a thread of their own (lti_nrps.c) from the asks a
 * launch leaves in the store. The tool's public key set is kept in memory for
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
#include "store/store_writer.h"

#define LTI_MAX_PLATFORMS 64
#define LTI_MAX_DEPLOYMENTS 32
#define LTI_MAX_FRAME_ORIGINS 8     /* a platform's frame_origins */
#define LTI_MAX_SERVICE_ORIGINS 8   /* a platform's service_origins */
/* the origins a registration's calls may go to: its issuer's, its three
 * URLs' and its service_origins */
#define LTI_MAX_ORIGINS (4 + LTI_MAX_SERVICE_ORIGINS)
#define LTI_ORIGIN_SIZE 300         /* "scheme://host:port" and its NUL */

/* One registration: what --lti-config's "platforms" holds. */
struct lti_platform {
    char *name, *issuer, *client_id;
    char *deployment_ids[LTI_MAX_DEPLOYMENTS];
    size_t n_deployments;       /* 0 (a platform that registered itself naming none): any */
    char *auth_login_url, *auth_token_url, *key_set_url;
    /* where the tool may call (lti_config_url_origin's form, each once): nothing
     * outside them is fetched for this registration */
    char origins[LTI_MAX_ORIGINS][LTI_ORIGIN_SIZE];
    size_t n_origins;
};

struct lti_config {
    struct lti_platform p[LTI_MAX_PLATFORMS];
    size_t n;   /* grows while the server runs (lti_config_add): read it with an acquire */
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

/* A registration made other than by the file: a platform that
 * registered itself (Dynamic Registration, kept in the store).
 * deployment_id NULL or "": any deployment of the client. */
struct lti_config_entry {
    const char *name, *issuer, *client_id, *deployment_id;
    const char *auth_login_url, *auth_token_url, *key_set_url;
};

/* Appends e to c, checked as a file's platform is (and not the same
 * (issuer, client_id) as one there): false with a sentence in err, c as
 * it was. One thread at a time appends; readers (lti_config_find) may
 * run meanwhile and see the entry only once it is whole. */
bool lti_config_add(struct lti_config *c, const struct lti_config_entry *e, char *err,
                    size_t errsz);

/* The origin of an http(s) URL as libcurl parses it, lower-case
 * "scheme://host:port" with the scheme's port when none is written, into
 * out. False for anything else, and for a URL with a user or password
 * (libcurl would send them). */
bool lti_config_url_origin(const char *url, char *out, size_t outsz);

/* The tool's own addresses under public_url, as a platform is told them
 * (the Canvas key, a Dynamic Registration), and its domain: the host
 * alone, or host:port when with_port (each platform's own rule). */
struct lti_tool_urls {
    char login[1100], launch[1100], jwks[1100], domain[300];
};
void lti_config_tool_urls(const char *public_url, bool with_port, struct lti_tool_urls *out);

/* Whether url is at one of p's origins (p->origins): the only addresses a
 * call made for p may go to. */
bool lti_config_allows(const struct lti_platform *p, const char *url);

/* The registration of (issuer, client_id); client_id NULL or "" matches
 * the issuer's only one (a login may leave it out). NULL when none, or
 * when client_id is empty and the issuer has several. */
const struct lti_platform *lti_config_find(const struct lti_config *c, const char *issuer,
                                           const char *client_id);

/* ---- the checks of a launch (lti_check.c: pure, unit-tested) ----------------- */

/* The reasons a launch is refused for, in docs/LTI.md's order: the code
 * counts and compares them; their names are for /metrics, the page and
 * the log only (lti_check_reasons). */
enum lti_reason_id {
    LTI_ACCEPTED = 0,       /* no refusal */
    LTI_R_TOO_LARGE,
    LTI_R_NOT_A_JWT,
    LTI_R_STATE_COOKIE,
    LTI_R_STATE,
    LTI_R_ALG_NONE,
    LTI_R_KEY_HEADER,
    LTI_R_ALG,
    LTI_R_KID,
    LTI_R_KEY_SET,
    LTI_R_SIGNATURE,
    LTI_R_ISS,
    LTI_R_AUD,
    LTI_R_AZP,
    LTI_R_EXP,
    LTI_R_IAT,
    LTI_R_NONCE,
    LTI_R_VERSION,
    LTI_R_MESSAGE_TYPE,
    LTI_R_DEPLOYMENT_ID,
    LTI_R_SUB,
    LTI_R_ROLES,
    LTI_R_RESOURCE_LINK,
    LTI_R_DEEP_LINKING_ROLE,
    LTI_R_DEEP_LINKING_SETTINGS,
    LTI_R_TARGET_LINK_URI,
    LTI_R_EXERCISE,
    LTI_R_UNREGISTERED,
    LTI_R_STORE,
    LTI_R_BUSY,
    LTI_NREASONS
};

/* Why a launch was refused: the reason and the page's sentence. */
struct lti_refusal {
    enum lti_reason_id code;    /* LTI_ACCEPTED: accepted */
    char message[256];
};

/* A reason's name (the metric's label, the page's <code id="check">) and
 * its sentence. */
struct lti_reason {
    const char *code, *message;
};

/* Every reason by its id (index LTI_ACCEPTED is empty), in docs/LTI.md's
 * order (tests/unit/test_lti_docs.py holds the doc to it); /metrics lists
 * each, refused or not. */
extern const struct lti_reason lti_check_reasons[LTI_NREASONS];

/* The name of reason id ("" for LTI_ACCEPTED and what is no reason). */
const char *lti_check_reason_code(enum lti_reason_id id);

/* The reason named code, LTI_ACCEPTED when none is (for a test or a
 * document's check, never on a request's path). */
enum lti_reason_id lti_check_reason_find(const char *code);

/* Fills *why with code and message (NULL: the reason's own sentence);
 * returns false, for "return lti_check_refuse(...)". */
bool lti_check_refuse(struct lti_refusal *why, enum lti_reason_id code, const char *message);

/* Whether token is a JWT whose header's alg says it is unsigned ("none",
 * in any case), with or without a signature part. */
bool lti_check_token_unsigned(const char *token);

/* Reads token's header before any JWT library does: true when it is a
 * compact JWS (three base64url parts, a header of at most
 * LTI_MAX_JWT_HEADER bytes that is one JSON object, no member twice)
 * naming no key and no key's address (jku, x5u, jwk, x5c). Else false
 * with the reason in *why (alg_none, not_a_jwt, key_header). */
bool lti_check_token_header(const char *token, struct lti_refusal *why);

/* What an accepted launch says. Pointers into the claims (valid while
 * they are). */
struct lti_claims {
    const char *sub, *name, *email, *deployment_id;
    const char *context_id, *context_title, *resource_link_id;
    const char *lineitem;   /* NULL: no AGS claim with the score scope */
    const char *lineitems;  /* without a lineitem, with the lineitem scope: where the
                               tool makes the link's (NULL: none) */
    const char *resource_link_title;   /* NULL: none */
    int64_t due_ms;         /* the custom parameter due_at, ms since the epoch (0: none) */
    const char *exercise;   /* the custom parameter exercise: a built-in exercise's id
                               (checked); NULL: none named, the default exercise */
    bool instructor;
    /* An LtiDeepLinkingRequest (an instructor's, resource_link_id NULL):
     * where the choice goes back to (at one of the registration's origins)
     * and the platform's data to echo (NULL: none) */
    bool deep_linking;
    const char *deep_link_return_url, *deep_link_data;
    /* The names and roles claim's context_memberships_url (an http(s)
     * address; NULL: none): the course's roster (lti_nrps.c) */
    const char *memberships_url;
};

/*
 * Checks the claims of a verified id_token against the registration p,
 * the login's nonce and target_link_uri, and the clock (now, with
 * LTI_CLOCK_SKEW_S for iat). False with the failed check in *why.
 */
bool lti_check_claims(const json_t *claims, const struct lti_platform *p, const char *nonce,
                      const char *target_link_uri, time_t now, struct lti_claims *out,
                      struct lti_refusal *why);

/* Whether role (a roles claim's or a roster member's) names an
 * instructor, a teaching assistant, a content developer or an
 * administrator of the context; whether it names a learner. */
bool lti_check_role_teaches(const char *role);
bool lti_check_role_learns(const char *role);

/* Reads one member of an NRPS roster page: false when it has no user_id
 * (*sub, a pointer into member). *learner: an active Learner (status
 * absent or "Active") with no teaching role: a student of the class. */
bool lti_check_roster_member(const json_t *member, const char **sub, bool *learner);

/* The target of the rel="next" link of an HTTP Link header's value
 * (RFC 8288: links separated by commas, rel a space-separated list,
 * quoted or not) into out. False when there is none, it is malformed or
 * longer than outsz - 1. */
bool lti_check_link_next(const char *value, char *out, size_t outsz);
/* An ISO 8601 date and time (YYYY-MM-DDTHH:MM[:SS[.fff]] then Z or
 * +HH:MM / -HH:MM; a space for the T) as ms since the epoch into *ms.
 * False for anything else: an empty text, a substitution the platform
 * left unmade ("$Canvas.assignment.dueAt.iso8601"), a date without a
 * zone. */
bool lti_check_iso8601_ms(const char *text, int64_t *ms);

/* The value of name in an application/x-www-form-urlencoded body, decoded
 * into out (NUL-terminated). False when absent, or longer than outsz - 1. */
bool lti_check_form_value(const char *body, size_t len, const char *name, char *out, size_t outsz);

/* ---- the LTI threads (lti.c) ----------------------------------------------------- */

enum lti_policy { LTI_POLICY_BEST, LTI_POLICY_LAST };

/* What an attempt after its link's due date counts for (--late-policy):
 * none (never above the best on-time attempt), accept (as if on time),
 * penalty (its points less late_penalty_pct percent). */
enum lti_late_policy { LTI_LATE_NONE, LTI_LATE_ACCEPT, LTI_LATE_PENALTY };

struct lti_options {
    const char *config_path;
    const char *database_url;     /* the store (LTI needs one) */
    const char *public_url;       /* the tool's base address, no trailing '/' */
    enum lti_policy policy;
    enum lti_late_policy late_policy;
    unsigned late_penalty_pct;    /* 0 .. 100, for LTI_LATE_PENALTY */
    /* How LTI uses the store: runs fn on the thread that owns a connection
     * (the records' writer when write, else their reader) and returns once
     * it has run; false, fn not called, when refused. LTI opens no
     * connection of its own (server/records.h, records_call_wait). */
    bool (*store_call)(void *ctx, bool write, store_call_fn fn, void *arg);
    void *store_ctx;
};

struct lti;
struct store;

/* Reads the config, makes the tool's key pair on a first start (through
 * o->store_call), starts the threads. NULL with a reason in err. */
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

/* Tells the roster reader (lti_nrps.c) that a launch asked for a
 * course's roster (store_lti_roster_ask): it reads what is due now
 * rather than at its next poll. Never waits. */
void lti_nrps_wake(struct lti *l);

/* Counts a refused launch under its code, and an accepted one. */
void lti_count_launch(struct lti *l, enum lti_reason_id refusal);

/* Writes LTI's counters in Prometheus' text format. */
void lti_render_metrics(struct lti *l, FILE *f);

/* What /healthz says of LTI, a new object: {"status": "ok"} or
 * {"status": "degraded", "platforms": [{"name", "key_set":
 * "unreachable", "message", "since"}]} for each platform whose last key
 * set fetch failed. NULL on OOM. */
json_t *lti_health(struct lti *l);

enum lti_verify { LTI_VERIFIED, LTI_REFUSED, LTI_WAIT };

/*
 * On the LTI thread: verifies token's signature (RS256 only, whatever its
 * header says, and only after lti_check_token_header) with the key of its kid
 * in p's key set, which is cached and fetched (bounded in time and size,
 * from p's key_set_url only) when missing, past its time, or without the
 * kid, at most every LTI_KEY_SET_REFETCH_S.
 * LTI_VERIFIED: *claims is a new reference. LTI_REFUSED: *why says why.
 * LTI_WAIT (only when may_wait): the key set is being fetched, on a thread
 * of its own, so the LTI thread goes on with other platforms' work; once
 * the fetch is over fn(l, s, arg) runs again on the LTI thread, and calls
 * this with may_wait false, which decides with the key set as it is then.
 */
enum lti_verify lti_verify_token(struct lti *l, const struct lti_platform *p, const char *token,
                                 bool may_wait,
                                 void (*fn)(struct lti *l, struct store *s, void *arg),
                                 void *arg, json_t **claims, struct lti_refusal *why);

#endif
