/* lti_config.c - --lti-config FILE: the platforms the tool is registered with,
 * and the origins each registration's calls may go to. */
#include <ctype.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/core/route.h"
#include "server/lti/lti.h"

#define LTI_MAX_CONFIG (1024 * 1024)   /* bytes of a config file */

/* A required string member that is a non-empty string of at most 1024 bytes. */
static bool take(json_t *o, const char *key, char **out, size_t i, bool url, char *err,
                 size_t errsz)
{
    json_t *v = json_object_get(o, key);
    const char *s = json_string_value(v);
    if (!s || !*s || strlen(s) > 1024) {
        snprintf(err, errsz, "platform %zu: \"%s\" must be a non-empty string", i + 1, key);
        return false;
    }
    if (url && strncmp(s, "https://", 8) && strncmp(s, "http://", 7)) {
        snprintf(err, errsz, "platform %zu: \"%s\" must be an http(s):// address", i + 1, key);
        return false;
    }
    *out = strdup(s);
    if (!*out)
        snprintf(err, errsz, "out of memory");
    return *out != NULL;
}

/* Whether s is an origin a Content-Security-Policy may list as it is:
 * http(s)://host[:port], the host's first label "*" allowed, nothing that
 * could end the directive (a space, ';', a quote). */
static bool origin_ok(const char *s)
{
    const char *h = !strncmp(s, "https://", 8) ? s + 8 : !strncmp(s, "http://", 7) ? s + 7 : NULL;
    if (!h || !*h || strlen(s) > 255)
        return false;
    if (!strncmp(h, "*.", 2))
        h += 2;
    size_t n = strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-");
    if (n == 0 || h[0] == '.' || h[0] == '-')
        return false;
    if (h[n] == ':') {
        size_t d = strspn(h + n + 1, "0123456789");
        return d >= 1 && d <= 5 && h[n + 1 + d] == '\0';
    }
    return h[n] == '\0';
}

/* A platform's optional frame_origins, appended to out->frame_ancestors. */
static bool take_frame_origins(json_t *o, size_t i, struct lti_config *out, char *err,
                               size_t errsz)
{
    json_t *list = json_object_get(o, "frame_origins");
    if (!list)
        return true;
    if (!json_is_array(list) || json_array_size(list) > LTI_MAX_FRAME_ORIGINS) {
        snprintf(err, errsz, "platform %zu: \"frame_origins\" must be a list of at most %d "
                 "origins", i + 1, LTI_MAX_FRAME_ORIGINS);
        return false;
    }
    for (size_t k = 0; k < json_array_size(list); k++) {
        const char *s = json_string_value(json_array_get(list, k));
        if (!s || !origin_ok(s)) {
            snprintf(err, errsz, "platform %zu: frame origin %zu is not https://host[:port]",
                     i + 1, k + 1);
            return false;
        }
        size_t had = out->frame_ancestors ? strlen(out->frame_ancestors) : 0;
        char *t = realloc(out->frame_ancestors, had + strlen(s) + 2);
        if (!t) {
            snprintf(err, errsz, "out of memory");
            return false;
        }
        sprintf(t + had, "%s%s", had ? " " : "", s);
        out->frame_ancestors = t;
    }
    return true;
}

bool lti_config_url_origin(const char *url, char *out, size_t outsz)
{
    /* libcurl's own parser, the one that will make the call: a check
     * made by another could be told "http://a@b/" and see a different host */
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL, *user = NULL, *password = NULL;
    bool ok = u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK &&
              (!strcmp(scheme, "http") || !strcmp(scheme, "https")) &&
              curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_NO_USER &&
              curl_url_get(u, CURLUPART_PASSWORD, &password, 0) == CURLUE_NO_PASSWORD;
    if (ok) {
        for (char *c = host; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        int n = snprintf(out, outsz, "%s://%s:%s", scheme, host, port);
        ok = n > 0 && (size_t)n < outsz;
    }
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_free(user);
    curl_free(password);
    curl_url_cleanup(u);
    return ok;
}

bool lti_config_allows(const struct lti_platform *p, const char *url)
{
    char origin[LTI_ORIGIN_SIZE];
    if (!lti_config_url_origin(url, origin, sizeof origin))
        return false;
    for (size_t i = 0; i < p->n_origins; i++)
        if (!strcmp(p->origins[i], origin))
            return true;
    return false;
}

/* Adds url's origin to p's, once; false (with err) when url has none. */
static bool add_origin(struct lti_platform *p, const char *url, size_t i, const char *key,
                       char *err, size_t errsz)
{
    char origin[LTI_ORIGIN_SIZE];
    if (!lti_config_url_origin(url, origin, sizeof origin)) {
        snprintf(err, errsz, "platform %zu: \"%s\" is not an http(s) address with a host "
                 "(and no user or password)", i + 1, key);
        return false;
    }
    for (size_t k = 0; k < p->n_origins; k++)
        if (!strcmp(p->origins[k], origin))
            return true;
    snprintf(p->origins[p->n_origins++], LTI_ORIGIN_SIZE, "%s", origin);
    return true;
}

/* The registration's origins: its three URLs', its issuer's when the
 * issuer is an address (Moodle's services are on it), and the optional
 * service_origins (Canvas's line items are on the school's own host). */
static bool take_origins(json_t *o, struct lti_platform *p, size_t i, char *err, size_t errsz)
{
    char scratch[LTI_ORIGIN_SIZE];
    if (!add_origin(p, p->auth_login_url, i, "auth_login_url", err, errsz) ||
        !add_origin(p, p->auth_token_url, i, "auth_token_url", err, errsz) ||
        !add_origin(p, p->key_set_url, i, "key_set_url", err, errsz))
        return false;
    if (lti_config_url_origin(p->issuer, scratch, sizeof scratch) &&
        !add_origin(p, p->issuer, i, "issuer", err, errsz))
        return false;
    json_t *list = json_object_get(o, "service_origins");
    if (!list)
        return true;
    if (!json_is_array(list) || json_array_size(list) > LTI_MAX_SERVICE_ORIGINS) {
        snprintf(err, errsz, "platform %zu: \"service_origins\" must be a list of at most %d "
                 "origins", i + 1, LTI_MAX_SERVICE_ORIGINS);
        return false;
    }
    for (size_t k = 0; k < json_array_size(list); k++) {
        const char *s = json_string_value(json_array_get(list, k));
        /* an origin, not an address: no path, so nothing looks narrower
         * than what is allowed */
        const char *h = s && !strncmp(s, "https://", 8) ? s + 8
                        : s && !strncmp(s, "http://", 7) ? s + 7 : NULL;
        if (!h || !*h || strlen(s) > 255 || strpbrk(h, "/?#@*") ||
            !add_origin(p, s, i, "service_origins", err, errsz)) {
            snprintf(err, errsz, "platform %zu: service origin %zu is not http(s)://host[:port]",
                     i + 1, k + 1);
            return false;
        }
    }
    return true;
}

/* Frees what platform i holds and clears it (a platform refused midway). */
static void platform_free(struct lti_platform *p)
{
    free(p->name);
    free(p->issuer);
    free(p->client_id);
    free(p->auth_login_url);
    free(p->auth_token_url);
    free(p->key_set_url);
    for (size_t k = 0; k < p->n_deployments; k++)
        free(p->deployment_ids[k]);
    memset(p, 0, sizeof *p);
}

/* Platform o as out->p[i], checked against out->p[0..i-1]; deployments
 * may be empty only when no_deployment_ok (a platform that registered
 * itself and named none). */
static bool parse_platform(json_t *o, size_t i, bool no_deployment_ok, struct lti_config *out,
                           char *err, size_t errsz)
{
    struct lti_platform *p = &out->p[i];
    json_t *deps = json_object_get(o, "deployment_ids");
    bool ok = json_is_object(o) && take(o, "name", &p->name, i, false, err, errsz) &&
              take(o, "issuer", &p->issuer, i, false, err, errsz) &&
              take(o, "client_id", &p->client_id, i, false, err, errsz) &&
              take(o, "auth_login_url", &p->auth_login_url, i, true, err, errsz) &&
              take(o, "auth_token_url", &p->auth_token_url, i, true, err, errsz) &&
              take(o, "key_set_url", &p->key_set_url, i, true, err, errsz) &&
              take_frame_origins(o, i, out, err, errsz) && take_origins(o, p, i, err, errsz);
    if (ok && (!json_is_array(deps) || json_array_size(deps) < (no_deployment_ok ? 0u : 1u) ||
               json_array_size(deps) > LTI_MAX_DEPLOYMENTS)) {
        snprintf(err, errsz, "platform %zu: \"deployment_ids\" must be a list of 1 to %d "
                 "strings", i + 1, LTI_MAX_DEPLOYMENTS);
        ok = false;
    }
    for (size_t k = 0; ok && k < json_array_size(deps); k++) {
        const char *d = json_string_value(json_array_get(deps, k));
        if (!d || !*d || strlen(d) > 1024) {
            snprintf(err, errsz, "platform %zu: deployment %zu is not a string", i + 1, k + 1);
            ok = false;
        } else if (!(p->deployment_ids[p->n_deployments++] = strdup(d))) {
            ok = false;
        }
    }
    for (size_t k = 0; ok && k < i; k++) {
        if (!strcmp(out->p[k].issuer, p->issuer) && !strcmp(out->p[k].client_id, p->client_id)) {
            snprintf(err, errsz, "platforms %zu and %zu have the same issuer and client_id",
                     k + 1, i + 1);
            ok = false;
        }
    }
    return ok;
}

bool lti_config_parse(const char *text, size_t len, struct lti_config *out, char *err,
                      size_t errsz)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    json_t *list = json_object_get(root, "platforms");
    if (!root) {
        snprintf(err, errsz, "not JSON (line %d: %s)", je.line, je.text);
        return false;
    }
    /* an empty list: every platform registers itself (Dynamic Registration) */
    bool ok = json_is_array(list) && json_array_size(list) <= LTI_MAX_PLATFORMS;
    if (!ok)
        snprintf(err, errsz, "\"platforms\" must be a list of 0 to %d platforms",
                 LTI_MAX_PLATFORMS);
    for (size_t i = 0; ok && i < json_array_size(list); i++) {
        out->n = i + 1;
        ok = parse_platform(json_array_get(list, i), i, false, out, err, errsz);
    }
    json_decref(root);
    if (!ok)
        lti_config_free(out);
    return ok;
}

bool lti_config_add(struct lti_config *c, const struct lti_config_entry *e, char *err,
                    size_t errsz)
{
    size_t i = c->n;   /* only this thread appends: no reader writes n */
    if (i >= LTI_MAX_PLATFORMS) {
        snprintf(err, errsz, "the tool has %d platforms, its most", LTI_MAX_PLATFORMS);
        return false;
    }
    json_t *o = json_pack("{s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:[]}", "name", e->name,
                          "issuer", e->issuer, "client_id", e->client_id, "auth_login_url",
                          e->auth_login_url, "auth_token_url", e->auth_token_url,
                          "key_set_url", e->key_set_url, "deployment_ids");
    if (o && e->deployment_id && *e->deployment_id)
        json_array_append_new(json_object_get(o, "deployment_ids"),
                              json_string(e->deployment_id));
    bool ok = o && parse_platform(o, i, true, c, err, errsz);
    if (!o)
        snprintf(err, errsz, "out of memory");
    json_decref(o);
    if (!ok) {
        platform_free(&c->p[i]);
        return false;
    }
    /* published whole: a reader that sees the new n sees every field */
    __atomic_store_n(&c->n, i + 1, __ATOMIC_RELEASE);
    return true;
}

bool lti_config_load(const char *path, struct lti_config *out, char *err, size_t errsz)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errsz, "cannot read %s", path);
        return false;
    }
    char *buf = malloc(LTI_MAX_CONFIG + 1);
    size_t n = buf ? fread(buf, 1, LTI_MAX_CONFIG + 1, f) : 0;
    fclose(f);
    bool ok = false;
    if (!buf)
        snprintf(err, errsz, "out of memory");
    else if (n > LTI_MAX_CONFIG)
        snprintf(err, errsz, "%s is over 1 MiB", path);
    else
        ok = lti_config_parse(buf, n, out, err, errsz);
    free(buf);
    return ok;
}

void lti_config_free(struct lti_config *c)
{
    for (size_t i = 0; i < c->n; i++)
        platform_free(&c->p[i]);
    free(c->frame_ancestors);
    memset(c, 0, sizeof *c);
}

const struct lti_platform *lti_config_find(const struct lti_config *c, const char *issuer,
                                           const char *client_id)
{
    const struct lti_platform *found = NULL;
    /* a platform that registers itself while the server runs is appended
     * (lti_config_add): n is read once, with what it publishes */
    size_t n = __atomic_load_n(&c->n, __ATOMIC_ACQUIRE);
    for (size_t i = 0; issuer && i < n; i++) {
        if (strcmp(c->p[i].issuer, issuer))
            continue;
        if (client_id && *client_id) {
            if (!strcmp(c->p[i].client_id, client_id))
                return &c->p[i];
        } else if (found) {
            return NULL;   /* several registrations: the login must say which */
        } else {
            found = &c->p[i];
        }
    }
    return client_id && *client_id ? NULL : found;
}

void lti_config_tool_urls(const char *public_url, bool with_port, struct lti_tool_urls *out)
{
    char login[32], launch[32], jwks[32];
    route_link(ROUTE_LTI_LOGIN, NULL, login, sizeof login);
    route_link(ROUTE_LTI_LAUNCH, NULL, launch, sizeof launch);
    route_link(ROUTE_LTI_JWKS, NULL, jwks, sizeof jwks);
    snprintf(out->login, sizeof out->login, "%s%s", public_url, login);
    snprintf(out->launch, sizeof out->launch, "%s%s", public_url, launch);
    snprintf(out->jwks, sizeof out->jwks, "%s%s", public_url, jwks);
    out->domain[0] = '\0';
    const char *host = strstr(public_url, "://");
    if (host) {
        host += 3;
        size_t hl = strcspn(host, with_port ? "/" : ":/");
        snprintf(out->domain, sizeof out->domain, "%.*s",
                 (int)(hl < sizeof out->domain ? hl : 0), host);
    }
}
