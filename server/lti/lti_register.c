/* lti_register.c - LTI Dynamic Registration 1.0 (lti_register.h). */
#include "server/lti/lti_register.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"
#include "server/lti/lti_fetch.h"
#include "server/lti/lti_internal.h"
#include "store/store_lti_reg.h"

#define AGS_SCOPE "https://purl.imsglobal.org/spec/lti-ags/scope/"
#define NRPS_SCOPE "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
#define TOOL_CONFIG "https://purl.imsglobal.org/spec/lti-tool-configuration"

void lti_register_config_clear(struct lti_register_config *c)
{
    free(c->issuer);
    free(c->registration_endpoint);
    free(c->auth_login_url);
    free(c->auth_token_url);
    free(c->key_set_url);
    memset(c, 0, sizeof *c);
}

bool lti_register_url_ok(const char *url, char *origin, char *host)
{
    if (!url || strlen(url) > LTI_MAX_REG_URL ||
        !lti_config_url_origin(url, origin, LTI_ORIGIN_SIZE))
        return false;
    /* origin is "scheme://host:port": the host is what lies between */
    const char *h = strstr(origin, "://") + 3;
    const char *colon = strrchr(h, ':');
    snprintf(host, LTI_ORIGIN_SIZE, "%.*s", (int)(colon - h), h);
    if (!strncmp(origin, "https://", 8))
        return true;
    /* plain http only to this machine: nobody between can read the
     * registration token or answer for the platform */
    return !strcmp(host, "127.0.0.1") || !strcmp(host, "localhost") || !strcmp(host, "[::1]");
}

/* The string member key of o that lti_register_url_ok takes, copied
 * into *out, its host into host. */
static bool take_url(json_t *o, const char *key, char **out, char *host, char *err,
                     size_t errsz)
{
    char origin[LTI_ORIGIN_SIZE];
    const char *s = json_string_value(json_object_get(o, key));
    if (!s || !lti_register_url_ok(s, origin, host)) {
        snprintf(err, errsz, "The platform's configuration has no \"%s\" that is an https "
                 "address.", key);
        return false;
    }
    if (!(*out = strdup(s)))
        snprintf(err, errsz, "Out of memory.");
    return *out != NULL;
}

bool lti_register_config_read(const char *config_url, const char *text, size_t len,
                              struct lti_register_config *out, char *err, size_t errsz)
{
    memset(out, 0, sizeof *out);
    char origin[LTI_ORIGIN_SIZE], config_host[LTI_ORIGIN_SIZE], issuer_host[LTI_ORIGIN_SIZE];
    char reg_host[LTI_ORIGIN_SIZE], other[LTI_ORIGIN_SIZE];
    if (!lti_register_url_ok(config_url, origin, config_host)) {
        snprintf(err, errsz, "The openid_configuration is not an https address.");
        return false;
    }
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    bool ok = json_is_object(o);
    if (!ok)
        snprintf(err, errsz, "The platform's configuration is not a JSON object.");
    ok = ok && take_url(o, "issuer", &out->issuer, issuer_host, err, errsz) &&
         take_url(o, "registration_endpoint", &out->registration_endpoint, reg_host, err,
                  errsz) &&
         take_url(o, "authorization_endpoint", &out->auth_login_url, other, err, errsz) &&
         take_url(o, "token_endpoint", &out->auth_token_url, other, err, errsz) &&
         take_url(o, "jwks_uri", &out->key_set_url, other, err, errsz);
    /* the configuration speaks for the issuer only from the issuer's own
     * host, and sends our registration nowhere else: a page that names a
     * configuration elsewhere cannot register a platform of its making
     * under another's name */
    if (ok && strcmp(issuer_host, config_host)) {
        snprintf(err, errsz, "The configuration's issuer is not on the host it was fetched "
                 "from.");
        ok = false;
    }
    if (ok && strcmp(reg_host, issuer_host)) {
        snprintf(err, errsz, "The configuration's registration_endpoint is not on the "
                 "issuer's host.");
        ok = false;
    }
    if (ok && strlen(out->issuer) > STORE_MAX_TEXT) {
        snprintf(err, errsz, "The configuration's issuer is over %d bytes.", STORE_MAX_TEXT);
        ok = false;
    }
    if (ok)
        ok = lti_config_url_origin(out->issuer, out->issuer_origin, sizeof out->issuer_origin);
    json_decref(o);
    if (!ok)
        lti_register_config_clear(out);
    return ok;
}

json_t *lti_register_message(const char *public_url)
{
    /* the domain is host[:port], as the platform matches launches to it */
    struct lti_tool_urls u;
    lti_config_tool_urls(public_url, true, &u);
    const char *login = u.login, *launch = u.launch, *jwks = u.jwks, *domain = u.domain;
    return json_pack("{s:s, s:[s], s:[s, s], s:s, s:[s], s:s, s:s, s:s, s:s, "
                     "s:{s:s, s:s, s:s, s:[s, s, s], s:[{s:s, s:s}, {s:s, s:s, s:s}]}}",
                     "application_type", "web", "response_types", "id_token",
                     "grant_types", "implicit", "client_credentials",
                     "initiate_login_uri", login, "redirect_uris", launch,
                     "client_name", LTI_TOOL_TITLE, "jwks_uri", jwks,
                     "token_endpoint_auth_method", "private_key_jwt",
                     "scope", AGS_SCOPE "score " AGS_SCOPE "lineitem " AGS_SCOPE
                     "lineitem.readonly " NRPS_SCOPE,
                     TOOL_CONFIG, "domain", domain, "description", LTI_TOOL_DESCRIPTION,
                     "target_link_uri", launch, "claims", "iss", "sub", "name",
                     "messages", "type", "LtiResourceLinkRequest", "target_link_uri", launch,
                     "type", "LtiDeepLinkingRequest", "target_link_uri", launch,
                     "label", LTI_TOOL_TITLE);
}

bool lti_register_answer_read(const char *text, size_t len, char **client_id,
                              char **deployment_id, char *err, size_t errsz)
{
    *client_id = *deployment_id = NULL;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    const char *id = json_string_value(json_object_get(o, "client_id"));
    const char *dep = json_string_value(json_object_get(json_object_get(o, TOOL_CONFIG),
                                                        "deployment_id"));
    bool ok = id && *id && strlen(id) <= STORE_MAX_TEXT &&
              (!dep || strlen(dep) <= STORE_MAX_TEXT);
    if (!ok)
        snprintf(err, errsz, "The platform's answer to the registration names no client_id.");
    if (ok) {
        *client_id = strdup(id);
        *deployment_id = dep && *dep ? strdup(dep) : NULL;
        ok = *client_id && (!dep || !*dep || *deployment_id);
        if (!ok) {
            free(*client_id);
            free(*deployment_id);
            *client_id = *deployment_id = NULL;
            snprintf(err, errsz, "Out of memory.");
        }
    }
    json_decref(o);
    return ok;
}

/* ---- the registrar ---------------------------------------------------------------- */

static void refuse(struct lti_registration *g, unsigned status, const char *code,
                   const char *message)
{
    g->status = status;
    snprintf(g->code, sizeof g->code, "%s", code);
    snprintf(g->message, sizeof g->message, "%s", message);
}

struct take_call {
    const char *token;
    enum store_status st;
    struct store_error e;
};

static void take_run(struct store *s, void *arg)
{
    struct take_call *t = arg;
    t->st = store_lti_reg_token_take(s, t->token, store_now_ms(), &t->e);
}

struct add_call {
    const struct store_lti_platform *p;
    enum store_status st;
    struct store_error e;
};

static void add_run(struct store *s, void *arg)
{
    struct add_call *a = arg;
    a->st = store_lti_platform_add(s, a->p, &a->e);
}

/* A platform whose calls may go to origin only (a registration's). */
static void one_origin(struct lti_platform *p, const char *url)
{
    memset(p, 0, sizeof *p);
    if (lti_config_url_origin(url, p->origins[0], sizeof p->origins[0]))
        p->n_origins = 1;
}

/* The registration, on the registrar's thread: g's answer filled. */
static void registration_run(struct lti *l, struct lti_registration *g)
{
    struct take_call t = { .token = g->token, .st = STORE_UNAVAILABLE };
    if (!lti_store_call(l, true, take_run, &t) ||
        (t.st != STORE_OK && t.st != STORE_NOT_FOUND)) {
        refuse(g, 503, "store", "The tool cannot read its registration addresses now; try "
               "again shortly.");
        return;
    }
    if (t.st == STORE_NOT_FOUND) {
        /* before any fetch: without a valid address nothing is called */
        refuse(g, 400, "registration_token", "This registration address is not valid: it "
               "was used, expired, or was never made (butterfly-admin lti registration-url "
               "makes one, for one registration within an hour).");
        return;
    }
    char err[300], *text = NULL;
    long status = 0;
    struct lti_platform at;
    struct lti_register_config cfg = { 0 };
    char origin[LTI_ORIGIN_SIZE], host[LTI_ORIGIN_SIZE];
    if (!lti_register_url_ok(g->config_url, origin, host)) {
        refuse(g, 400, "openid_configuration", "The openid_configuration is not an https "
               "address.");
        return;
    }
    one_origin(&at, g->config_url);
    if (!lti_fetch(&at, g->config_url, NULL, NULL, NULL, "application/json", LTI_MAX_REG_CONFIG,
                   LTI_FETCH_TIMEOUT_MS, &text, &status, err, sizeof err) || status != 200) {
        char m[400];
        if (text)
            snprintf(err, sizeof err, "it answered %ld", status);
        snprintf(m, sizeof m, "The platform's configuration could not be fetched (%s).", err);
        refuse(g, 502, "openid_configuration", m);
        free(text);
        return;
    }
    bool read = lti_register_config_read(g->config_url, text, strlen(text), &cfg, err,
                                         sizeof err);
    free(text);
    text = NULL;
    if (!read) {
        refuse(g, 400, "openid_configuration", err);
        return;
    }
    snprintf(g->frame_origin, sizeof g->frame_origin, "%s", cfg.issuer_origin);
    if (__atomic_load_n(&l->cfg.n, __ATOMIC_ACQUIRE) >= LTI_MAX_PLATFORMS) {
        /* before the platform makes a client the tool could not use */
        refuse(g, 503, "registration", "The tool has as many platforms as it can hold.");
        lti_register_config_clear(&cfg);
        return;
    }
    json_t *msg = lti_register_message(l->public_url);
    char *body = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
    json_decref(msg);
    char *client_id = NULL, *deployment_id = NULL;
    one_origin(&at, cfg.registration_endpoint);
    bool sent = body && lti_fetch(&at, cfg.registration_endpoint, body, "application/json",
                                  g->registration_token && *g->registration_token
                                      ? g->registration_token : NULL,
                                  "application/json", LTI_MAX_ANSWER, LTI_SEND_TIMEOUT_MS,
                                  &text, &status, err, sizeof err);
    free(body);
    if (!sent || (status != 200 && status != 201)) {
        char m[400];
        if (sent)
            snprintf(err, sizeof err, "it answered %ld", status);
        else if (!body)
            snprintf(err, sizeof err, "out of memory");
        snprintf(m, sizeof m, "The platform refused the registration (%s).", err);
        refuse(g, 502, "registration", m);
        free(text);
        lti_register_config_clear(&cfg);
        return;
    }
    read = lti_register_answer_read(text, strlen(text), &client_id, &deployment_id, err,
                                    sizeof err);
    free(text);
    if (!read) {
        refuse(g, 502, "registration", err);
        lti_register_config_clear(&cfg);
        return;
    }
    char name[LTI_ORIGIN_SIZE + 16];
    host[0] = '\0';
    lti_register_url_ok(cfg.issuer, origin, host);
    snprintf(name, sizeof name, "%s (registered)", host);
    struct store_lti_platform sp = {
        .name = name, .issuer = cfg.issuer, .client_id = client_id,
        .deployment_id = deployment_id ? deployment_id : "", .auth_login_url = cfg.auth_login_url,
        .auth_token_url = cfg.auth_token_url, .key_set_url = cfg.key_set_url,
        .registered_ms = store_now_ms(),
    };
    struct lti_config_entry ce = { name, cfg.issuer, client_id, deployment_id,
                                   cfg.auth_login_url, cfg.auth_token_url, cfg.key_set_url };
    struct add_call a = { .p = &sp, .st = STORE_UNAVAILABLE };
    if (lti_config_find(&l->cfg, cfg.issuer, client_id)) {
        refuse(g, 409, "registered", "A platform with this issuer and client_id is registered "
               "with this tool already.");
    } else if (!lti_store_call(l, true, add_run, &a) || a.st != STORE_OK) {
        if (a.st == STORE_CONFLICT)
            refuse(g, 409, "registered", "A platform with this issuer and client_id is "
                   "registered with this tool already.");
        else
            refuse(g, 503, "store", "The tool could not keep the registration now.");
    } else {
        /* under lock: lti_health reads n under it, and the refresh
         * (lti_register_refresh) may have read the new row already */
        pthread_mutex_lock(&l->lock);
        bool added = lti_config_find(&l->cfg, cfg.issuer, client_id) ||
                     lti_config_add(&l->cfg, &ce, err, sizeof err);
        pthread_mutex_unlock(&l->lock);
        if (added) {
            g->status = 200;
            snprintf(g->message, sizeof g->message, "Registered %s as client %s%s%s.",
                     cfg.issuer, client_id, deployment_id ? ", deployment " : "",
                     deployment_id ? deployment_id : "");
            fprintf(stderr, "butterfly-server: LTI platform %s registered itself (client %s)\n",
                    cfg.issuer, client_id);
        } else {
            /* kept, and taken at the next start; say why not now */
            char m[400];
            snprintf(m, sizeof m, "The registration is kept but not in use until a restart "
                     "(%s).", err);
            refuse(g, 503, "registration", m);
        }
    }
    free(client_id);
    free(deployment_id);
    lti_register_config_clear(&cfg);
}

struct registrar {
    struct lti *l;
    struct lti_registration *g;
};

static void *registrar_thread(void *arg)
{
    struct registrar *r = arg;
    struct lti *l = r->l;
    registration_run(l, r->g);
    r->g->done(r->g->arg);   /* g is the caller's from here on */
    free(r);
    pthread_mutex_lock(&l->lock);
    l->reg_busy = false;
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

bool lti_register_start(struct lti *l, struct lti_registration *g)
{
    struct registrar *r = malloc(sizeof *r);
    if (!r)
        return false;
    *r = (struct registrar){ l, g };
    pthread_mutex_lock(&l->lock);
    bool ok = !l->stopping && !l->reg_busy;
    if (ok && l->reg_joinable) {
        /* the last is over (reg_busy false is its last write): at once */
        pthread_join(l->registrar, NULL);
        l->reg_joinable = false;
    }
    ok = ok && !pthread_create(&l->registrar, NULL, registrar_thread, r);
    if (ok) {
        l->reg_busy = true;
        l->reg_joinable = true;
    }
    pthread_mutex_unlock(&l->lock);
    if (!ok)
        free(r);
    return ok;
}

void lti_register_stop(struct lti *l)
{
    pthread_mutex_lock(&l->lock);
    bool join = l->reg_joinable;
    l->reg_joinable = false;
    pthread_mutex_unlock(&l->lock);
    if (join)
        pthread_join(l->registrar, NULL);
}

static bool load_one(const struct store_lti_platform *p, void *arg)
{
    struct lti *l = arg;
    char err[300];
    if (lti_config_find(&l->cfg, p->issuer, p->client_id)) {
        fprintf(stderr, "butterfly-server: LTI platform %s (client %s), registered in the "
                "store, is also in --lti-config: --lti-config's is used\n", p->issuer,
                p->client_id);
        return true;
    }
    struct lti_config_entry ce = { p->name, p->issuer, p->client_id, p->deployment_id,
                                   p->auth_login_url, p->auth_token_url, p->key_set_url };
    if (!lti_config_add(&l->cfg, &ce, err, sizeof err)) {
        fprintf(stderr, "butterfly-server: LTI platform %s (client %s) in the store is not "
                "used: %s\n", p->issuer, p->client_id, err);
        return true;
    }
    /* its pages are framed by the platform's own host: its issuer's */
    char origin[LTI_ORIGIN_SIZE], host[LTI_ORIGIN_SIZE];
    if (lti_register_url_ok(p->issuer, origin, host)) {
        size_t had = l->cfg.frame_ancestors ? strlen(l->cfg.frame_ancestors) : 0;
        char *grown = realloc(l->cfg.frame_ancestors, had + strlen(origin) + 2);
        if (grown) {
            sprintf(grown + had, "%s%s", had ? " " : "", origin);
            l->cfg.frame_ancestors = grown;
        }
    }
    return true;
}

/* A platform another instance of this store registered, appended here
 * (under lock: the registrar appends too); one already known is skipped
 * without a word (every LTI_KEYS_REFRESH_S). */
static bool refresh_one(const struct store_lti_platform *p, void *arg)
{
    struct lti *l = arg;
    char err[300];
    struct lti_config_entry ce = { p->name, p->issuer, p->client_id, p->deployment_id,
                                   p->auth_login_url, p->auth_token_url, p->key_set_url };
    pthread_mutex_lock(&l->lock);
    bool known = lti_config_find(&l->cfg, p->issuer, p->client_id) != NULL;
    bool added = !known && lti_config_add(&l->cfg, &ce, err, sizeof err);
    pthread_mutex_unlock(&l->lock);
    if (added)
        fprintf(stderr, "butterfly-server: LTI platform %s (client %s), registered through "
                "another instance, is used from now on\n", p->issuer, p->client_id);
    return true;
}

void lti_register_refresh(struct lti *l, struct store *s)
{
    struct store_error e = { 0 };
    store_lti_platforms_each(s, refresh_one, l, &e);   /* failing: tried again next time */
}

void lti_register_load(struct lti *l, struct store *s)
{
    struct store_error e = { 0 };
    if (store_lti_platforms_each(s, load_one, l, &e) != STORE_OK)
        fprintf(stderr, "butterfly-server: the platforms registered in the store could not be "
                "read: %s\n", e.message);
}
