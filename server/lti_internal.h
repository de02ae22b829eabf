/* lti_internal.h - what lti.c, lti_ags.c and lti_http.c share. */
#ifndef BUTTERFLY_LTI_INTERNAL_H
#define BUTTERFLY_LTI_INTERNAL_H

#include <pthread.h>
#include <rhonabwy.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/defaults.h"
#include "server/lti.h"
#include "store/store.h"

#define LTI_MAX_REFUSAL_CODES 32

struct lti_job {
    void (*fn)(struct lti *l, struct store *s, void *arg);
    void *arg;
};

/* A platform's key set as last fetched. */
struct keyset {
    jwks_t *set;
    time_t fetched, last_fetch;
};

struct refusal_ctx {
    char message[256];
};

/* A platform's access token for scores, as the sender caches it. */
struct access_token {
    char *token;
    time_t expires;
};

struct lti {
    struct lti_config cfg;
    char public_url[1024];
    enum lti_policy policy;
    struct store *store;          /* the LTI thread's connection */
    struct store *sender_store;   /* the sender's */
    pthread_mutex_t lock;         /* the queue, jwks, counters */
    pthread_cond_t wake;
    struct lti_job jobs[LTI_QUEUE_LENGTH];
    size_t head, n_jobs;
    bool stopping, thread_started, curl_ready;
    bool quiesced;              /* lti_quiesce ran (only the stopping thread reads it) */
    pthread_t thread;
    char *jwks;                   /* the public key set, JSON text */
    struct keyset keysets[LTI_MAX_PLATFORMS];   /* the LTI thread's only */
    /* the sender (lti_ags.c) */
    pthread_t sender;
    bool sender_started;
    pthread_cond_t sender_wake;
    struct access_token tokens[LTI_MAX_PLATFORMS];  /* the sender's only */
    /* counters, under lock */
    uint64_t launches_ok;
    struct { const char *code; uint64_t count; } refusals[LTI_MAX_REFUSAL_CODES];
    size_t n_refusals;
    uint64_t scores_sent, scores_retried, scores_failed;
};

/* The newest key's private JWK (for signing) and its kid. */
bool lti_signing_key(struct store *s, jwk_t **key, char kid[64], char *err, size_t errsz);

/* The score sender (lti_ags.c). */
bool lti_sender_start(struct lti *l);
void lti_sender_stop(struct lti *l);

#endif
