/*
 * lti.c - LTI's thread and what it keeps: the job queue, the tool's keys,
 * the platforms' key sets, bounded outbound calls, LTI's counters.
 *
 * A platform's key set is fetched on a thread of its own, one fetch at
 * most per platform: the launches that need it park until it is over and
 * the LTI thread goes on with the rest, so a platform whose key set hangs
 * delays its own launches (by the fetch's bound) and nobody else's.
 */
#include "server/lti/lti_internal.h"

#include "server/lti/lti_fetch.h"
#include "server/lti/lti_keys.h"
#include "server/lti/lti_register.h"

#include <curl/curl.h>
#include <pthread.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"
#include "store/store_lti.h"

/* Rereads the public key set from the store into memory. */
static void refresh_keys(struct lti *l, struct store *s)
{
    char *text = lti_keys_public_text(s);
    if (text) {
        pthread_mutex_lock(&l->lock);
        free(l->jwks);
        l->jwks = text;
        pthread_mutex_unlock(&l->lock);
    }
}

char *lti_jwks_text(struct lti *l)
{
    pthread_mutex_lock(&l->lock);
    char *copy = strdup(l->jwks ? l->jwks : "{\"keys\":[]}");
    pthread_mutex_unlock(&l->lock);
    return copy;
}

/* ---- the platforms' key sets ------------------------------------------------------ */

/* The RSA keys of a key set's JSON text, each with only what verifying
 * needs (kty, n, e, kid): a key's x5u (an address the library would
 * fetch) or x5c never reaches it. NULL when the text is no key set. */
static jwks_t *key_set_parse(const char *text)
{
    json_t *doc = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
    json_t *keys = json_object_get(doc, "keys");
    jwks_t *set = NULL;
    if (!json_is_array(keys) || r_jwks_init(&set) != RHN_OK) {
        json_decref(doc);
        return NULL;
    }
    for (size_t k = 0; k < json_array_size(keys); k++) {
        json_t *key = json_array_get(keys, k);
        const char *kty = json_string_value(json_object_get(key, "kty"));
        const char *n = json_string_value(json_object_get(key, "n"));
        const char *e = json_string_value(json_object_get(key, "e"));
        const char *kid = json_string_value(json_object_get(key, "kid"));
        if (!kty || strcmp(kty, "RSA") || !n || !e || !kid || !*kid || strlen(kid) > 256)
            continue;   /* a key that cannot verify an RS256 launch */
        json_t *clean = json_pack("{s:s, s:s, s:s, s:s}", "kty", "RSA", "n", n, "e", e,
                                  "kid", kid);
        jwk_t *jwk = NULL;
        if (clean && r_jwk_init(&jwk) == RHN_OK &&
            r_jwk_import_from_json_t(jwk, clean) == RHN_OK)
            r_jwks_append_jwk(set, jwk);
        r_jwk_free(jwk);
        json_decref(clean);
    }
    json_decref(doc);
    return set;
}

/* Moves the launches parked on platform i back to the queue (under
 * lock): the ring has room for every one (LTI_RING). */
static void unpark(struct lti *l, size_t i)
{
    size_t kept = 0;
    for (size_t k = 0; k < l->n_parked; k++) {
        if (l->parked[k].platform == i) {
            l->jobs[(l->head + l->n_jobs) % LTI_RING] = l->parked[k].job;
            l->n_jobs++;
        } else {
            l->parked[kept++] = l->parked[k];
        }
    }
    l->n_parked = kept;
    l->keysets[i].n_waiting = 0;
    pthread_cond_signal(&l->wake);
}

/* A fetch's thread: platform i's key set from its key_set_url, bounded in
 * time (LTI_FETCH_TIMEOUT_MS) and size (LTI_MAX_KEY_SET). */
static void *fetch_thread(void *arg)
{
    struct keyset *ks = arg;
    struct lti *l = ks->l;
    const struct lti_platform *p = &l->cfg.p[ks->platform];
    char *text = NULL, err[160], why[256] = "";
    long status = 0;
    jwks_t *set = NULL;
    if (!lti_fetch(p, p->key_set_url, NULL, NULL, NULL, "application/json",
                        LTI_MAX_KEY_SET, LTI_FETCH_TIMEOUT_MS, &text, &status, err, sizeof err))
        snprintf(why, sizeof why, "The platform's key set could not be fetched (%s).", err);
    else if (status != 200)
        snprintf(why, sizeof why, "The platform's key set could not be fetched (it answered "
                 "%ld).", status);
    else if (!(set = key_set_parse(text)))
        snprintf(why, sizeof why, "The platform's key set is not a JWKS.");
    free(text);
    if (!set)   /* before the lock: nothing after it may wait (fetch_start joins) */
        fprintf(stderr, "butterfly-server: LTI platform %s: %s\n", p->name, why);
    pthread_mutex_lock(&l->lock);
    if (set) {
        r_jwks_free(ks->set);
        ks->set = set;
        ks->fetched = time(NULL);
        ks->failing = false;
    } else {
        if (!ks->failing)
            ks->failing_since = time(NULL);
        ks->failing = true;
        snprintf(ks->failure, sizeof ks->failure, "%s", why);
    }
    ks->in_flight = false;
    unpark(l, ks->platform);
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

/* Starts platform i's fetch (under lock, none in flight); false when no
 * thread could be made. */
static bool fetch_start(struct lti *l, size_t i)
{
    struct keyset *ks = &l->keysets[i];
    if (ks->joinable) {
        /* the last fetch is over (in_flight is its last write, under this
         * lock, and it does nothing after the unlock): the join is at once */
        pthread_join(ks->fetcher, NULL);
        ks->joinable = false;
    }
    ks->last_try = time(NULL);
    if (pthread_create(&ks->fetcher, NULL, fetch_thread, ks)) {
        if (!ks->failing)
            ks->failing_since = ks->last_try;
        ks->failing = true;
        snprintf(ks->failure, sizeof ks->failure, "The platform's key set could not be "
                 "fetched (no thread for it).");
        return false;
    }
    ks->joinable = true;
    ks->in_flight = true;
    return true;
}

enum lti_verify lti_verify_token(struct lti *l, const struct lti_platform *p, const char *token,
                                 bool may_wait,
                                 void (*fn)(struct lti *l, struct store *s, void *arg),
                                 void *arg, json_t **claims, struct lti_refusal *why)
{
    size_t i = (size_t)(p - l->cfg.p);
    *claims = NULL;
    why->code = LTI_ACCEPTED;
    /* the header is read here first: an unsigned token is a forgery with
     * a name of its own (rhonabwy parses none), and one naming a key or
     * a key's address never reaches the library, which would fetch it */
    if (!lti_check_token_header(token, why))
        return LTI_REFUSED;
    jwt_t *jwt = NULL;
    /* and then parsed with every header key source off, for good measure */
    if (r_jwt_init(&jwt) != RHN_OK ||
        r_jwt_advanced_parse(jwt, token, R_PARSE_NONE, R_FLAG_IGNORE_REMOTE) != RHN_OK) {
        r_jwt_free(jwt);
        lti_check_refuse(why, LTI_R_NOT_A_JWT, NULL);
        return LTI_REFUSED;
    }
    /* RS256 only, whatever the header says: HS256 signed with the
     * platform's public key ends here */
    const char *alg = r_jwt_get_header_str_value(jwt, "alg");
    const char *kid = r_jwt_get_header_str_value(jwt, "kid");
    enum lti_verify out = LTI_REFUSED;
    if (!alg || strcmp(alg, "RS256") || r_jwt_get_sign_alg(jwt) != R_JWA_ALG_RS256) {
        lti_check_refuse(why, LTI_R_ALG, NULL);
        r_jwt_free(jwt);
        return LTI_REFUSED;
    }
    if (!kid || !*kid) {
        lti_check_refuse(why, LTI_R_KID, "The id_token's header names no key (kid).");
        r_jwt_free(jwt);
        return LTI_REFUSED;
    }
    struct keyset *ks = &l->keysets[i];
    char failure[256] = "";
    pthread_mutex_lock(&l->lock);
    time_t now = time(NULL);
    bool fresh = ks->set && now - ks->fetched < (time_t)LTI_KEY_SET_TTL_S;
    jwk_t *key = ks->set ? r_jwks_get_by_kid(ks->set, kid) : NULL;
    /* past its time, or without the kid (the platform may have rotated):
     * fetched again, though not more often than LTI_KEY_SET_REFETCH_S */
    bool want = !fresh || !key;
    bool may_try = !ks->last_try || now - ks->last_try >= (time_t)LTI_KEY_SET_REFETCH_S;
    if (may_wait && want && !l->stopping && ks->n_waiting < LTI_KEY_SET_WAITERS &&
        (ks->in_flight || (may_try && fetch_start(l, i)))) {
        l->parked[l->n_parked++] = (struct lti_parked){ i, { fn, arg } };
        ks->n_waiting++;
        pthread_mutex_unlock(&l->lock);
        r_jwk_free(key);
        r_jwt_free(jwt);
        return LTI_WAIT;
    }
    bool failing = ks->failing, have_set = ks->set != NULL;
    snprintf(failure, sizeof failure, "%s", ks->failure);
    pthread_mutex_unlock(&l->lock);
    /* a key the platform published before, past its cache time, still
     * verifies while the platform cannot be reached (a removed key needs
     * the platform's answer, which the fetch above asked for) */
    unsigned int bits = 0;
    if (!key && (failing || !have_set)) {
        lti_check_refuse(why, LTI_R_KEY_SET, failing && failure[0] ? failure : NULL);
    } else if (!key) {
        lti_check_refuse(why, LTI_R_KID, NULL);
    } else if (!(r_jwk_key_type(key, &bits, R_FLAG_IGNORE_REMOTE) & R_KEY_TYPE_RSA)) {
        lti_check_refuse(why, LTI_R_KID, "The key the id_token names is not an RSA key.");
    } else if (r_jwt_verify_signature(jwt, key, R_FLAG_IGNORE_REMOTE) != RHN_OK) {
        lti_check_refuse(why, LTI_R_SIGNATURE, NULL);
    } else if (!(*claims = r_jwt_get_full_claims_json_t(jwt))) {
        lti_check_refuse(why, LTI_R_NOT_A_JWT, "The id_token has no claims.");
    } else {
        out = LTI_VERIFIED;
    }
    r_jwk_free(key);
    r_jwt_free(jwt);
    return out;
}

json_t *lti_health(struct lti *l)
{
    json_t *list = json_array();
    pthread_mutex_lock(&l->lock);
    for (size_t i = 0; list && i < l->cfg.n; i++) {   /* n grows under this lock */
        const struct keyset *ks = &l->keysets[i];
        if (ks->failing)
            json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:I}", "name",
                                                  l->cfg.p[i].name, "key_set", "unreachable",
                                                  "message", ks->failure, "since",
                                                  (json_int_t)ks->failing_since));
    }
    pthread_mutex_unlock(&l->lock);
    if (!list)
        return NULL;
    if (!json_array_size(list)) {
        json_decref(list);
        return json_pack("{s:s}", "status", "ok");
    }
    return json_pack("{s:s, s:o}", "status", "degraded", "platforms", list);
}

/* ---- counters -------------------------------------------------------------------- */

void lti_count_launch(struct lti *l, enum lti_reason_id refusal)
{
    pthread_mutex_lock(&l->lock);
    if (refusal == LTI_ACCEPTED)
        l->launches_ok++;
    else if (refusal > LTI_ACCEPTED && refusal < LTI_NREASONS)
        l->refused[refusal]++;
    pthread_mutex_unlock(&l->lock);
}

void lti_render_metrics(struct lti *l, FILE *f)
{
    pthread_mutex_lock(&l->lock);
    fprintf(f, "# HELP butterfly_lti_launches_total LTI launches accepted.\n"
               "# TYPE butterfly_lti_launches_total counter\n"
               "butterfly_lti_launches_total %llu\n", (unsigned long long)l->launches_ok);
    fprintf(f, "# HELP butterfly_lti_launches_refused_total LTI launches refused, by the "
               "check that failed.\n# TYPE butterfly_lti_launches_refused_total counter\n");
    /* every reason from 0, so that a rate over one is never "no data" */
    for (int k = LTI_ACCEPTED + 1; k < LTI_NREASONS; k++)
        fprintf(f, "butterfly_lti_launches_refused_total{reason=\"%s\"} %llu\n",
                lti_check_reasons[k].code, (unsigned long long)l->refused[k]);
    fprintf(f, "# HELP butterfly_lti_scores_total Scores sent back to platforms, by outcome "
               "(sent, retried, failed).\n# TYPE butterfly_lti_scores_total counter\n"
               "butterfly_lti_scores_total{outcome=\"sent\"} %llu\n"
               "butterfly_lti_scores_total{outcome=\"retried\"} %llu\n"
               "butterfly_lti_scores_total{outcome=\"failed\"} %llu\n",
            (unsigned long long)l->scores_sent, (unsigned long long)l->scores_retried,
            (unsigned long long)l->scores_failed);
    pthread_mutex_unlock(&l->lock);
}

/* ---- the thread ------------------------------------------------------------------- */

struct job_call {
    struct lti *l;
    struct lti_job j;
};

static void job_run(struct store *s, void *arg)
{
    struct job_call *c = arg;
    c->j.fn(c->l, s, c->j.arg);
}

static void refresh_run(struct store *s, void *arg)
{
    refresh_keys(arg, s);
    lti_register_refresh(arg, s);   /* the platforms other instances registered */
}

bool lti_submit(struct lti *l, void (*fn)(struct lti *l, struct store *s, void *arg),
                void *arg)
{
    pthread_mutex_lock(&l->lock);
    /* the parked launches count: each will come back to the queue */
    bool ok = !l->stopping && l->n_jobs + l->n_parked < LTI_QUEUE_LENGTH;
    if (ok) {
        l->jobs[(l->head + l->n_jobs) % LTI_RING] = (struct lti_job){ fn, arg };
        l->n_jobs++;
        pthread_cond_signal(&l->wake);
    }
    pthread_mutex_unlock(&l->lock);
    return ok;
}

static void *launch_thread(void *arg)
{
    struct lti *l = arg;
    time_t last_refresh = time(NULL);
    pthread_mutex_lock(&l->lock);
    for (;;) {
        if (l->n_jobs) {
            struct lti_job j = l->jobs[l->head];
            l->head = (l->head + 1) % LTI_RING;
            l->n_jobs--;
            pthread_mutex_unlock(&l->lock);
            /* on the records' writer (a login and a launch write); one
             * refused is answered all the same, with no store (503) */
            struct job_call c = { l, j };
            if (!lti_store_call(l, true, job_run, &c))
                j.fn(l, NULL, j.arg);
            pthread_mutex_lock(&l->lock);
            continue;
        }
        /* a parked launch comes back once its fetch is over (bounded):
         * it is answered before the thread ends */
        if (l->stopping && !l->n_parked)
            break;
        if (time(NULL) - last_refresh >= (time_t)LTI_KEYS_REFRESH_S) {
            pthread_mutex_unlock(&l->lock);
            lti_store_call(l, false, refresh_run, l);
            last_refresh = time(NULL);
            pthread_mutex_lock(&l->lock);
            continue;
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&l->wake, &l->lock, &until);
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

const struct lti_config *lti_config_of(const struct lti *l)
{
    return &l->cfg;
}

const char *lti_public_url(const struct lti *l)
{
    return l->public_url;
}

/* At start: the tool's key pair made when the store has none, and the
 * public key set read. */
struct first_key {
    struct lti *l;
    enum store_status st;
    struct store_error e;
};

static void first_key_run(struct store *s, void *arg)
{
    struct first_key *fk = arg;
    char kid[STORE_LTI_KID_SIZE];
    fk->st = store_lti_key_make(s, true, kid, &fk->e);
    if (fk->st == STORE_OK) {
        refresh_keys(fk->l, s);
        /* beside --lti-config's: the platforms that registered themselves */
        lti_register_load(fk->l, s);
    }
}

struct lti *lti_start(const struct lti_options *o, char *err, size_t errsz)
{
    struct lti *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&l->lock, NULL);
    pthread_cond_init(&l->wake, NULL);
    pthread_cond_init(&l->sender_wake, NULL);
    pthread_cond_init(&l->roster_wake, NULL);
    for (size_t i = 0; i < LTI_MAX_PLATFORMS; i++)
        l->keysets[i] = (struct keyset){ .l = l, .platform = i };
    l->policy = o->policy;
    l->late_policy = o->late_policy;
    l->late_penalty_pct = o->late_penalty_pct;
    snprintf(l->public_url, sizeof l->public_url, "%s", o->public_url);
    char why[400];
    if (!lti_config_load(o->config_path, &l->cfg, why, sizeof why)) {
        snprintf(err, errsz, "--lti-config %s: %s", o->config_path, why);
        goto fail;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(err, errsz, "libcurl could not start");
        goto fail;
    }
    l->curl_ready = true;
    l->store_call = o->store_call;
    l->store_ctx = o->store_ctx;
    struct first_key fk = { .l = l, .st = STORE_UNAVAILABLE };
    if (!l->store_call) {
        snprintf(err, errsz, "LTI needs a store (--database): none");
        goto fail;
    }
    if (!lti_store_call(l, true, first_key_run, &fk) || fk.st != STORE_OK) {
        snprintf(err, errsz, "LTI: %s", fk.e.message[0] ? fk.e.message : "the store refused");
        goto fail;
    }
    if (pthread_create(&l->thread, NULL, launch_thread, l)) {
        snprintf(err, errsz, "cannot start LTI's thread");
        goto fail;
    }
    l->thread_started = true;
    if (!lti_ags_start(l)) {
        snprintf(err, errsz, "cannot start LTI's score sender");
        goto fail;
    }
    if (!lti_nrps_start(l)) {
        snprintf(err, errsz, "cannot start LTI's roster reader");
        goto fail;
    }
    return l;
fail:
    lti_free(l);
    return NULL;
}

void lti_quiesce(struct lti *l)
{
    if (!l || l->quiesced)
        return;
    l->quiesced = true;
    pthread_mutex_lock(&l->lock);
    l->stopping = true;
    pthread_cond_broadcast(&l->wake);
    pthread_mutex_unlock(&l->lock);
    if (l->thread_started)
        pthread_join(l->thread, NULL);
    /* no fetch starts once stopping; those that ran are over (their
     * launches were answered above) or end within their bound */
    for (size_t i = 0; i < LTI_MAX_PLATFORMS; i++) {
        if (l->keysets[i].joinable)
            pthread_join(l->keysets[i].fetcher, NULL);
        l->keysets[i].joinable = false;
    }
    lti_register_stop(l);
    lti_ags_stop(l);
    lti_nrps_stop(l);
}

void lti_free(struct lti *l)
{
    if (!l)
        return;
    lti_quiesce(l);
    for (size_t i = 0; i < LTI_MAX_PLATFORMS; i++)
        r_jwks_free(l->keysets[i].set);
    lti_config_free(&l->cfg);
    free(l->jwks);
    if (l->curl_ready)
        curl_global_cleanup();
    pthread_mutex_destroy(&l->lock);
    pthread_cond_destroy(&l->wake);
    pthread_cond_destroy(&l->sender_wake);
    pthread_cond_destroy(&l->roster_wake);
    free(l);
}
