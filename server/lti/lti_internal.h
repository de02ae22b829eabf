/* lti_internal.h - what lti.c, lti_ags.c and lti_http.c share. */
#ifndef BUTTERFLY_LTI_INTERNAL_H
#define BUTTERFLY_LTI_INTERNAL_H

#include <pthread.h>
#include <rhonabwy.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/defaults.h"
#include "server/lti/lti.h"
#include "store/store.h"


struct lti_job {
    void (*fn)(struct lti *l, struct store *s, void *arg);
    void *arg;
};

/* The job ring holds the queue and the launches parked on a key set's
 * fetch: lti_submit admits while both together are under
 * LTI_QUEUE_LENGTH, and the one job the LTI thread has in hand may park
 * on top of them. */
#define LTI_RING (LTI_QUEUE_LENGTH + 1u)

struct lti;

/* A platform's key set as last fetched, and its fetch (under lti.lock;
 * a fetch runs on a thread of its own, one at most per platform). */
struct keyset {
    struct lti *l;
    size_t platform;            /* its index in l->cfg.p */
    jwks_t *set;                /* NULL: none fetched yet */
    time_t fetched;             /* the last fetch that worked */
    time_t last_try;            /* the last fetch started (0: never) */
    bool in_flight;             /* a fetch is running */
    bool joinable;              /* fetcher is a thread to join */
    bool failing;               /* the last fetch failed: /healthz says so */
    time_t failing_since;
    char failure[256];          /* why, for the refusal page and /healthz */
    size_t n_waiting;           /* launches parked on the fetch */
    pthread_t fetcher;
};

/* A launch parked until its platform's key set fetch is over. */
struct lti_parked {
    size_t platform;
    struct lti_job job;
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
    enum lti_late_policy late_policy;
    unsigned late_penalty_pct;
    /* the store, through the records' threads (lti_options.store_call) */
    bool (*store_call)(void *ctx, bool write, store_call_fn fn, void *arg);
    void *store_ctx;
    pthread_mutex_t lock;         /* the queue, jwks, counters */
    pthread_cond_t wake;
    struct lti_job jobs[LTI_RING];
    size_t head, n_jobs;
    struct lti_parked parked[LTI_RING];
    size_t n_parked;
    bool stopping, thread_started, curl_ready;
    bool quiesced;              /* lti_quiesce ran (only the stopping thread reads it) */
    pthread_t thread;
    char *jwks;                   /* the public key set, JSON text */
    struct keyset keysets[LTI_MAX_PLATFORMS];   /* under lock */
    /* the sender (lti_ags.c) */
    pthread_t sender;
    bool sender_started;
    pthread_cond_t sender_wake;
    struct access_token tokens[LTI_MAX_PLATFORMS];  /* the sender's only */
    /* the registrar (lti_register.c): one Dynamic Registration at a time */
    pthread_t registrar;
    bool reg_busy, reg_joinable;   /* under lock */
    /* the rosters' reader (lti_nrps.c) */
    pthread_t roster;
    bool roster_started, roster_woken;   /* roster_woken under lock */
    pthread_cond_t roster_wake;
    struct access_token roster_tokens[LTI_MAX_PLATFORMS];  /* the reader's only */
    /* counters, under lock */
    uint64_t launches_ok;
    uint64_t refused[LTI_NREASONS];   /* by reason; [LTI_ACCEPTED] unused */
    uint64_t scores_sent, scores_retried, scores_failed;
};

/* Runs fn with a connection of the records' (write: the writer's) and
 * returns once it has run; false, fn not called, when refused. */
static inline bool lti_store_call(struct lti *l, bool write, store_call_fn fn, void *arg)
{
    /* inline: lti.c and lti_ags.c both call it, and neither calls the other back */
    return l->store_call && l->store_call(l->store_ctx, write, fn, arg);
}

/* The score sender (lti_ags.c). */
bool lti_ags_start(struct lti *l);
void lti_ags_stop(struct lti *l);

/* Platform i's access token for scope (one scope, a token endpoint's
 * client-credentials grant with our signed assertion), from the cache t
 * (the calling thread's own) or the token endpoint, bounded by
 * LTI_SEND_TIMEOUT_MS. NULL with a sentence in err when none came (the
 * endpoint refused: its status is in the sentence). */
const char *lti_ags_token(struct lti *l, size_t i, const char *scope,
                             struct access_token *t, char *err, size_t errsz);

/* The rosters' reader (lti_nrps.c): a thread reading the courses'
 * rosters asked for in the store (store_lti_roster_ask), woken by
 * lti_nrps_wake (lti.h) after a launch asked; stopped within one page's
 * bound. */
bool lti_nrps_start(struct lti *l);
void lti_nrps_stop(struct lti *l);

#endif
