/*
 * lti_ags.c - scores back to the platforms (Assignment and Grade Services
 * 2.0): a thread reads the outbox (filled in each record's own
 * transaction, store_lti.h), gets an access token with a signed client
 * assertion, and posts each score to its line item's /scores, in order per
 * (line item, user), retrying with backoff. The outbox is in the store, so
 * a restart goes on where it stopped; a student's answer never waits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/due/late_policy.h"
#include "common/task.h"
#include "common/verdict.h"
#include "server/lti/lti_internal.h"

#include "server/lti/lti_deep_link.h"
#include "server/lti/lti_fetch.h"
#include "server/lti/lti_keys.h"
#include "store/store_lti.h"

#define AGS_SCORE_SCOPE "https://purl.imsglobal.org/spec/lti-ags/scope/score"
#define AGS_LINEITEM_SCOPE "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
#define LINEITEM_TYPE "application/vnd.ims.lis.v2.lineitem+json"
#define LINEITEMS_TYPE "application/vnd.ims.lis.v2.lineitemcontainer+json"
#define DUE_BATCH 16

/* A copy of one due score, made during the walk. */
struct due {
    int64_t seq, graded_ms, best, last_ts, next_ms, received_ms;
    int points, max_points, status, attempts;
    char *issuer, *client_id, *sub, *lineitem;
    int64_t best_late;      /* -1: no late attempt */
    bool late;
};

struct due_list {
    struct due v[DUE_BATCH];
    size_t n;
};

static bool take_due(const struct store_lti_score *sc, void *arg)
{
    struct due_list *d = arg;
    if (d->n == DUE_BATCH)
        return false;
    struct due *x = &d->v[d->n];
    *x = (struct due){ sc->seq, sc->graded_ms, sc->best_points, sc->last_timestamp_ms,
                       sc->next_ms, sc->received_ms, sc->points, sc->max_points, sc->status,
                       sc->attempts, strdup(sc->issuer), strdup(sc->client_id), strdup(sc->sub),
                       strdup(sc->lineitem), sc->best_late_points, sc->late };
    if (x->issuer && x->client_id && x->sub && x->lineitem)
        d->n++;
    else {
        free(x->issuer);
        free(x->client_id);
        free(x->sub);
        free(x->lineitem);
    }
    return true;
}

/* A copy of one link whose line item is to be made. */
struct to_make {
    int64_t link, claim_ms;
    char *issuer, *client_id, *lineitems, *resource_link, *label;
    char *exercise;            /* the link's: its line item's title, points and tag */
};

struct make_list {
    struct to_make v[DUE_BATCH];
    size_t n;
};

static void to_make_free(struct to_make *m)
{
    free(m->issuer);
    free(m->client_id);
    free(m->lineitems);
    free(m->resource_link);
    free(m->label);
    free(m->exercise);
}

static bool take_make(const struct store_lti_to_make *m, void *arg)
{
    struct make_list *d = arg;
    if (d->n == DUE_BATCH)
        return false;
    struct to_make *x = &d->v[d->n];
    *x = (struct to_make){ m->link, m->claim_ms, strdup(m->issuer), strdup(m->client_id),
                           strdup(m->lineitems), strdup(m->resource_link), strdup(m->label),
                           strdup(m->exercise) };
    if (x->issuer && x->client_id && x->lineitems && x->resource_link && x->label &&
        x->exercise)
        d->n++;
    else
        to_make_free(x);
    return true;
}

/* The sender's store calls, each run on a records' thread with its
 * connection (lti_store_call): the outbox's rows are the writer's, the
 * signing key is read on the reader. */
enum outbox_op { OUTBOX_DUE, OUTBOX_CLAIM, OUTBOX_SENT, OUTBOX_RETRY, OUTBOX_KEY,
                 OUTBOX_TO_MAKE, OUTBOX_MAKE_CLAIM, OUTBOX_MADE };

struct make_list;

struct outbox_call {
    enum outbox_op op;
    struct due_list *due;
    struct make_list *make;
    const char *lineitem;   /* made */
    int64_t seq, when_ms, was_next_ms;   /* seq: the link, for the line items made */   /* when: the lease, the timestamp or the retry */
    bool give_up, claimed;
    const char *error;
    jwk_t **key;
    char *kid, *err;
    size_t errsz;
    bool key_ok;
    enum store_status st;
};

static void outbox_run(struct store *s, void *arg)
{
    struct outbox_call *c = arg;
    struct store_error e = { 0 };
    switch (c->op) {
    case OUTBOX_DUE:
        c->st = store_lti_outbox_due(s, store_now_ms(), DUE_BATCH, take_due, c->due, &e);
        break;
    case OUTBOX_CLAIM:
        c->st = store_lti_outbox_claim(s, c->seq, c->was_next_ms, c->when_ms, &c->claimed, &e);
        break;
    case OUTBOX_SENT:
        c->st = store_lti_outbox_sent(s, c->seq, c->when_ms, &e);
        break;
    case OUTBOX_RETRY:
        c->st = store_lti_outbox_retry(s, c->seq, c->when_ms, c->give_up, c->error, &e);
        break;
    case OUTBOX_KEY:
        c->key_ok = lti_keys_signing(s, c->key, c->kid, c->err, c->errsz);
        c->st = STORE_OK;
        break;
    case OUTBOX_TO_MAKE:
        c->st = store_lti_to_make_each(s, store_now_ms(), DUE_BATCH, take_make, c->make, &e);
        break;
    case OUTBOX_MAKE_CLAIM:
        c->st = store_lti_make_claim(s, c->seq, c->was_next_ms, c->when_ms, &c->claimed, &e);
        break;
    case OUTBOX_MADE:
        c->st = store_lti_made(s, c->seq, c->lineitem, &e);
        break;
    }
}

/* Runs c on the records' writer (the key: the reader); STORE_UNAVAILABLE
 * when refused (the server stopping). */
static enum store_status outbox(struct lti *l, struct outbox_call *c)
{
    c->st = STORE_UNAVAILABLE;
    if (!lti_store_call(l, c->op != OUTBOX_KEY, outbox_run, c))
        return STORE_UNAVAILABLE;
    return c->st;
}

static void due_clear(struct due_list *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->v[i].issuer);
        free(d->v[i].client_id);
        free(d->v[i].sub);
        free(d->v[i].lineitem);
    }
    d->n = 0;
}

/* Percent-encodes s for a form body into out. */
static void form_escape(const char *s, char *out, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (; *s && o + 4 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_' || c == '.' || c == '~') {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
}

/* The client assertion: a JWT signed with our key in use. NULL on failure. */
static char *client_assertion(struct lti *l, const struct lti_platform *p, char *err,
                              size_t errsz)
{
    jwk_t *key = NULL;
    char kid[64], jti[STORE_ID_SIZE];
    struct outbox_call kc = { .op = OUTBOX_KEY, .key = &key, .kid = kid, .err = err,
                              .errsz = errsz };
    if (outbox(l, &kc) != STORE_OK || !kc.key_ok) {
        if (!kc.key_ok && kc.st != STORE_OK)
            snprintf(err, errsz, "the store is stopping");
        return NULL;
    }
    if (!store_new_id(jti)) {
        r_jwk_free(key);
        snprintf(err, errsz, "no random bytes");
        return NULL;
    }
    time_t now = time(NULL);
    json_t *claims = json_pack("{s:s, s:s, s:s, s:I, s:I, s:s}", "iss", p->client_id, "sub",
                               p->client_id, "aud", p->auth_token_url, "iat", (json_int_t)now,
                               "exp", (json_int_t)(now + LTI_ASSERTION_LIFETIME_S), "jti", jti);
    jwt_t *jwt = NULL;
    char *out = NULL;
    if (claims && r_jwt_init(&jwt) == RHN_OK &&
        r_jwt_set_full_claims_json_t(jwt, claims) == RHN_OK &&
        r_jwt_set_header_str_value(jwt, "kid", kid) == RHN_OK &&
        r_jwt_set_sign_alg(jwt, R_JWA_ALG_RS256) == RHN_OK) {
        char *signed_jwt = r_jwt_serialize_signed(jwt, key, 0);
        out = signed_jwt ? strdup(signed_jwt) : NULL;
        r_free(signed_jwt);
    }
    if (!out)
        snprintf(err, errsz, "the client assertion could not be signed");
    json_decref(claims);
    r_jwt_free(jwt);
    r_jwk_free(key);
    return out;
}

/* A new access token of platform i for scope (a URL), its life in
 * *life_s; NULL with a sentence in err. */
static char *new_token(struct lti *l, size_t i, const char *scope_url, long long *life_s,
                       char *err, size_t errsz)
{
    const struct lti_platform *p = &l->cfg.p[i];
    char *assertion = client_assertion(l, p, err, errsz);
    if (!assertion)
        return NULL;
    size_t n = strlen(assertion) * 3 + 512;
    char *body = malloc(n), scope[256];
    if (!body) {
        free(assertion);
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    form_escape(scope_url, scope, sizeof scope);
    int w = snprintf(body, n, "grant_type=client_credentials&client_assertion_type="
                     "urn%%3Aietf%%3Aparams%%3Aoauth%%3Aclient-assertion-type%%3Ajwt-bearer"
                     "&scope=%s&client_assertion=", scope);
    form_escape(assertion, body + w, n - (size_t)w);
    free(assertion);
    char *answer = NULL;
    long status = 0;
    bool ok = lti_fetch(p, p->auth_token_url, body, "application/x-www-form-urlencoded",
                             NULL, "application/json", LTI_MAX_ANSWER, LTI_SEND_TIMEOUT_MS,
                             &answer, &status, err, errsz);
    free(body);
    if (ok && status != 200) {
        snprintf(err, errsz, "the token endpoint answered %ld", status);
        ok = false;
    }
    json_t *j = ok ? json_loads(answer, 0, NULL) : NULL;
    free(answer);
    const char *tok = json_string_value(json_object_get(j, "access_token"));
    json_t *exp = json_object_get(j, "expires_in");
    if (ok && (!tok || strlen(tok) > 4000)) {
        snprintf(err, errsz, "the token endpoint gave no access_token");
        ok = false;
    }
    char *out = NULL;
    if (ok) {
        out = strdup(tok);
        *life_s = json_is_integer(exp) ? json_integer_value(exp) : 300;
        if (!out)
            snprintf(err, errsz, "out of memory");
    }
    json_decref(j);
    return out;
}

const char *lti_ags_token(struct lti *l, size_t i, const char *scope_name,
                          struct access_token *t, char *err, size_t errsz)
{
    if (t->token && time(NULL) < t->expires)
        return t->token;
    free(t->token);
    long long life = 0;
    t->token = new_token(l, i, scope_name, &life, err, errsz);
    /* renewed a little before the platform would refuse it */
    if (t->token)
        t->expires = time(NULL) + (life > 20 ? life - 10 : life / 2);
    return t->token;
}

/* The line item's /scores address (before its query string, if any). */
static void scores_url(const char *lineitem, char *out, size_t n)
{
    size_t q = strcspn(lineitem, "?");
    snprintf(out, n, "%.*s/scores%s", (int)q, lineitem, lineitem + q);
}

/* RFC 3339 with milliseconds, UTC. */
static void iso_ms(int64_t ms, char *out, size_t n)
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, n, "%s.%03dZ", base, (int)(ms % 1000));
}

/* The score to send for d: the best (or the last) attempt, a late one
 * counted as the late policy says (common/due/late_policy.h, as the
 * class view's and the batch's Canvas and Moodle scores), never below the
 * best on time for best. */
static double score_given(const struct lti *l, const struct due *d)
{
    _Static_assert((int)LTI_LATE_NONE == (int)LATE_NONE && (int)LTI_LATE_ACCEPT == (int)LATE_ACCEPT
                   && (int)LTI_LATE_PENALTY == (int)LATE_PENALTY,
                   "--late-policy's enum is late_policy.h's");
    struct late_policy lp = { (enum late_kind)l->late_policy, l->late_penalty_pct };
    if (l->policy == LTI_POLICY_LAST)
        return d->late ? late_policy_counts(&lp, (double)d->points, (double)d->best)
                       : (double)d->points;
    return late_policy_best(&lp, (double)d->best, (double)d->best_late);
}

/* Sends one score; true when the platform took it. *timestamp gets the
 * one it was sent with; *permanent says a refusal will not change by
 * trying again (a 4xx other than 401, 408 and 429: an unknown user, say). */
static bool send_score(struct lti *l, size_t i, const struct due *d, int64_t *timestamp,
                       bool *permanent, char *err, size_t errsz)
{
    *permanent = false;
    /* the line item came in a launch: a host outside the registration's
     * gets neither our token nor a retry */
    if (!lti_config_allows(&l->cfg.p[i], d->lineitem)) {
        char origin[LTI_ORIGIN_SIZE];
        if (!lti_config_url_origin(d->lineitem, origin, sizeof origin))
            snprintf(origin, sizeof origin, "(none)");
        snprintf(err, errsz, "the line item's origin %.200s is not one of the registration's "
                 "(docs/LTI.md: service_origins)", origin);
        *permanent = true;
        return false;
    }
    const char *token = lti_ags_token(l, i, AGS_SCORE_SCOPE, &l->tokens[i], err, errsz);
    if (!token)
        return false;
    /* the submission's time, the same on every try of it (an attempt
     * that timed out here and still reached the platform is the same
     * update again); after the last sent, which a platform requires, when
     * two submissions share a millisecond */
    int64_t at = d->received_ms > 0 ? d->received_ms : d->graded_ms;
    int64_t ts = at > d->last_ts ? at : d->last_ts + 1;
    *timestamp = ts;
    double given = score_given(l, d);
    bool complete = l->policy == LTI_POLICY_BEST ? given >= d->max_points
                                                  : d->status == VERDICT_ACCEPTED && !d->late;
    char when[40], url[2200];
    iso_ms(ts, when, sizeof when);
    scores_url(d->lineitem, url, sizeof url);
    json_t *score = json_pack("{s:s, s:o, s:i, s:s, s:s, s:s}", "userId", d->sub,
                              "scoreGiven", given == (double)(json_int_t)given
                                  ? json_integer((json_int_t)given) : json_real(given),
                              "scoreMaximum", d->max_points,
                              "activityProgress", complete ? "Completed" : "Submitted",
                              "gradingProgress", "FullyGraded", "timestamp", when);
    char *body = score ? json_dumps(score, JSON_COMPACT) : NULL;
    json_decref(score);
    if (!body) {
        snprintf(err, errsz, "out of memory");
        return false;
    }
    char *answer = NULL;
    long status = 0;
    bool ok = lti_fetch(&l->cfg.p[i], url, body, "application/vnd.ims.lis.v1.score+json",
                             token, NULL, LTI_MAX_ANSWER, LTI_SEND_TIMEOUT_MS, &answer, &status,
                             err, errsz);
    free(body);
    free(answer);
    if (ok && (status < 200 || status > 299)) {
        snprintf(err, errsz, "the scores endpoint answered %ld", status);
        *permanent = status >= 400 && status < 500 && status != 401 && status != 408 &&
                     status != 429;
        if (status == 401) {
            free(l->tokens[i].token);   /* the platform ended it: ask again */
            l->tokens[i].token = NULL;
        }
        ok = false;
    }
    return ok;
}

static void count(struct lti *l, uint64_t *c)
{
    pthread_mutex_lock(&l->lock);
    (*c)++;
    pthread_mutex_unlock(&l->lock);
}

/* The platform's line items at url (with its query string, if any) plus
 * the query q, into out. */
static void with_query(const char *url, const char *q, char *out, size_t n)
{
    snprintf(out, n, "%s%c%s", url, strchr(url, '?') ? '&' : '?', q);
}

/* The id of the line item in list (a JSON array) that is this link's
 * (its resourceLinkId and our tag, the link's exercise), or NULL. */
static const char *find_ours(json_t *list, const char *resource_link, const char *exercise)
{
    size_t k;
    json_t *li;
    json_array_foreach(list, k, li) {
        const char *id = json_string_value(json_object_get(li, "id"));
        const char *rl = json_string_value(json_object_get(li, "resourceLinkId"));
        const char *tag = json_string_value(json_object_get(li, "tag"));
        if (id && rl && tag && !strcmp(rl, resource_link) && !strcmp(tag, exercise))
            return id;
    }
    return NULL;
}

/* Makes link m's line item at platform i (or finds the one made before:
 * a creation that timed out here may have reached the platform), its id
 * into out; false with a sentence in err. */
static bool make_lineitem(struct lti *l, size_t i, const struct to_make *m, char *out,
                          size_t outsz, char *err, size_t errsz)
{
    const struct lti_platform *p = &l->cfg.p[i];
    if (!lti_config_allows(p, m->lineitems)) {
        snprintf(err, errsz, "the line items' address is not at one of the registration's "
                 "origins (docs/LTI.md: service_origins)");
        return false;
    }
    char title[256];
    int points = 0;
    if (!lti_deep_link_exercise(m->exercise, title, sizeof title, &points)) {
        snprintf(err, errsz, "the link's exercise \"%.64s\" is not served here", m->exercise);
        return false;
    }
    long long life = 0;
    char *token = new_token(l, i, AGS_LINEITEM_SCOPE, &life, err, errsz);
    if (!token)
        return false;
    char rl[3 * STORE_MAX_TEXT + 1], q[3 * STORE_MAX_TEXT + 3 * EX_ID_MAX + 40];
    char url[4 * STORE_MAX_TEXT + 3 * EX_ID_MAX + 128];
    char tag[3 * EX_ID_MAX + 1];
    form_escape(m->resource_link, rl, sizeof rl);
    form_escape(m->exercise, tag, sizeof tag);
    snprintf(q, sizeof q, "resource_link_id=%s&tag=%s", rl, tag);
    with_query(m->lineitems, q, url, sizeof url);
    char *answer = NULL;
    long status = 0;
    bool ok = lti_fetch(p, url, NULL, NULL, token, LINEITEMS_TYPE, LTI_MAX_ANSWER,
                        LTI_SEND_TIMEOUT_MS, &answer, &status, err, errsz);
    if (ok && status != 200) {
        snprintf(err, errsz, "the line items answered %ld", status);
        ok = false;
    }
    json_t *list = ok ? json_loads(answer, 0, NULL) : NULL;
    free(answer);
    answer = NULL;
    if (ok && !json_is_array(list)) {
        snprintf(err, errsz, "the line items are not a list");
        ok = false;
    }
    const char *id = ok ? find_ours(list, m->resource_link, m->exercise) : NULL;
    json_t *made = NULL;
    if (ok && !id) {
        json_t *item = json_pack("{s:i, s:s, s:s, s:s}", "scoreMaximum", points, "label",
                                 m->label[0] ? m->label : title, "resourceLinkId",
                                 m->resource_link, "tag", m->exercise);
        char *body = item ? json_dumps(item, JSON_COMPACT) : NULL;
        json_decref(item);
        ok = body && lti_fetch(p, m->lineitems, body, LINEITEM_TYPE, token, LINEITEM_TYPE,
                               LTI_MAX_ANSWER, LTI_SEND_TIMEOUT_MS, &answer, &status, err,
                               errsz);
        if (!body)
            snprintf(err, errsz, "out of memory");
        free(body);
        if (ok && status != 200 && status != 201) {
            snprintf(err, errsz, "the line items answered %ld to the new one", status);
            ok = false;
        }
        made = ok ? json_loads(answer, 0, NULL) : NULL;
        free(answer);
        id = json_string_value(json_object_get(made, "id"));
        if (ok && !id) {
            snprintf(err, errsz, "the new line item has no id");
            ok = false;
        }
    }
    /* its scores will carry our token there: at the registration's origins only */
    if (ok && (strlen(id) >= outsz || strlen(id) > STORE_MAX_TEXT || !lti_config_allows(p, id))) {
        snprintf(err, errsz, "the line item's id is too long or not at one of the "
                 "registration's origins");
        ok = false;
    }
    if (ok)
        snprintf(out, outsz, "%s", id);
    json_decref(made);
    json_decref(list);
    free(token);
    return ok;
}

/* One pass over the links whose line item is to be made: each by one
 * sender (the lease), once; a failure is tried again when the lease ends. */
static void make_due(struct lti *l)
{
    struct make_list d = { .n = 0 };
    struct outbox_call dc = { .op = OUTBOX_TO_MAKE, .make = &d };
    if (outbox(l, &dc) == STORE_OK) {
        for (size_t k = 0; k < d.n; k++) {
            const struct to_make *x = &d.v[k];
            const struct lti_platform *p = lti_config_find(&l->cfg, x->issuer, x->client_id);
            struct outbox_call cc = { .op = OUTBOX_MAKE_CLAIM, .seq = x->link,
                                      .was_next_ms = x->claim_ms,
                                      .when_ms = store_now_ms() + (int64_t)LTI_MAKE_LEASE_MS };
            if (!p || outbox(l, &cc) != STORE_OK || !cc.claimed)
                continue;
            char err[300], id[STORE_MAX_TEXT + 1];
            if (make_lineitem(l, (size_t)(p - l->cfg.p), x, id, sizeof id, err, sizeof err)) {
                outbox(l, &(struct outbox_call){ .op = OUTBOX_MADE, .seq = x->link,
                                                 .lineitem = id });
            } else {
                fprintf(stderr, "butterfly-server: LTI line item for %s will be tried again: "
                        "%s\n", p->name, err);
            }
        }
    }
    for (size_t k = 0; k < d.n; k++)
        to_make_free(&d.v[k]);
}

/* One pass over what is due. */
static void send_due(struct lti *l)
{
    struct due_list d = { .n = 0 };
    struct outbox_call dc = { .op = OUTBOX_DUE, .due = &d };
    if (outbox(l, &dc) != STORE_OK) {
        due_clear(&d);
        return;
    }
    for (size_t k = 0; k < d.n; k++) {
        const struct due *x = &d.v[k];
        const struct lti_platform *p = lti_config_find(&l->cfg, x->issuer, x->client_id);
        char err[300];
        int64_t ts = 0;
        /* several instances share a PostgreSQL outbox: one sends each
         * score, the others see it taken; the lease outlives a call */
        struct outbox_call cc = { .op = OUTBOX_CLAIM, .seq = x->seq, .was_next_ms = x->next_ms,
                                  .when_ms = store_now_ms() + 3 * (int64_t)LTI_SEND_TIMEOUT_MS };
        if (outbox(l, &cc) != STORE_OK || !cc.claimed)
            continue;
        if (!p) {
            /* another instance may have just registered it (Dynamic
             * Registration): this one reads it within LTI_KEYS_REFRESH_S,
             * so the score is tried again after two of those, a few times */
            bool give_up = (unsigned)x->attempts + 1 >= LTI_UNKNOWN_PLATFORM_TRIES;
            outbox(l, &(struct outbox_call){ .op = OUTBOX_RETRY, .seq = x->seq,
                                             .when_ms = give_up ? 0 : store_now_ms() +
                                                 2000 * (int64_t)LTI_KEYS_REFRESH_S,
                                             .give_up = give_up,
                                             .error = "the platform is no longer registered" });
            count(l, give_up ? &l->scores_failed : &l->scores_retried);
            continue;
        }
        bool permanent = false;
        if (send_score(l, (size_t)(p - l->cfg.p), x, &ts, &permanent, err, sizeof err)) {
            outbox(l, &(struct outbox_call){ .op = OUTBOX_SENT, .seq = x->seq, .when_ms = ts });
            count(l, &l->scores_sent);
            continue;
        }
        bool give_up = permanent || (unsigned)x->attempts + 1 >= LTI_SEND_ATTEMPTS;
        int64_t wait = LTI_RETRY_FIRST_MS;
        for (int a = 0; a < x->attempts && wait < LTI_RETRY_MAX_MS; a++)
            wait *= 2;
        if (wait > LTI_RETRY_MAX_MS)
            wait = LTI_RETRY_MAX_MS;
        outbox(l, &(struct outbox_call){ .op = OUTBOX_RETRY, .seq = x->seq,
                                         .when_ms = store_now_ms() + wait, .give_up = give_up,
                                         .error = err });
        count(l, give_up ? &l->scores_failed : &l->scores_retried);
        fprintf(stderr, "butterfly-server: LTI score for %s %s: %s\n", p->name,
                give_up ? "failed for good" : "will be tried again", err);
    }
    due_clear(&d);
}

static void *sender_thread(void *arg)
{
    struct lti *l = arg;
    pthread_mutex_lock(&l->lock);
    while (!l->stopping) {
        pthread_mutex_unlock(&l->lock);
        make_due(l);
        send_due(l);
        pthread_mutex_lock(&l->lock);
        if (l->stopping)
            break;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += (long)LTI_SENDER_POLL_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&l->sender_wake, &l->lock, &until);
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

bool lti_ags_start(struct lti *l)
{
    l->sender_started = pthread_create(&l->sender, NULL, sender_thread, l) == 0;
    return l->sender_started;
}

void lti_ags_stop(struct lti *l)
{
    pthread_mutex_lock(&l->lock);
    l->stopping = true;
    pthread_cond_broadcast(&l->sender_wake);
    pthread_mutex_unlock(&l->lock);
    if (l->sender_started)
        pthread_join(l->sender, NULL);
    l->sender_started = false;
    for (size_t i = 0; i < LTI_MAX_PLATFORMS; i++) {
        free(l->tokens[i].token);
        l->tokens[i].token = NULL;
    }
}
