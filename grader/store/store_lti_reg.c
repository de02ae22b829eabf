/* store_lti_reg.c - LTI Dynamic Registration's rows (store_lti_reg.h). */
#include "store/store_lti_reg.h"

#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"

static enum store_status exec(struct store *s, const char *sql, const struct store_value *p,
                              size_t n, store_row_fn row, void *arg, uint64_t *changes,
                              struct store_error *err)
{
    return s->ops->exec(s, sql, false, p, n, row, arg, changes, err);
}

struct token_new {
    const char *hash;
    int64_t expires_ms;
};

static enum store_status put_token(struct store *s, void *arg, struct store_error *err)
{
    struct token_new *t = arg;
    struct store_value now = sv_int(store_now_ms());
    enum store_status st = exec(s, "DELETE FROM lti_registration_tokens WHERE expires_ms < ?1",
                                &now, 1, NULL, NULL, NULL, err);
    struct store_value p[] = { sv_text(t->hash), sv_int(t->expires_ms) };
    if (st == STORE_OK)
        st = exec(s, "INSERT INTO lti_registration_tokens (token_sha256, expires_ms) "
                     "VALUES (?1, ?2)", p, 2, NULL, NULL, NULL, err);
    return st;
}

enum store_status store_lti_reg_token_new(struct store *s, int64_t expires_ms,
                                          char token[STORE_TOKEN_SIZE], struct store_error *err)
{
    char hash[STORE_SHA256_SIZE];
    if (!store_new_token(token))
        return store_fail(err, STORE_ERROR, "no random bytes for a registration token");
    store_sha256_hex(token, strlen(token), hash);
    struct token_new t = { hash, expires_ms };
    enum store_status st = store_in_write(s, put_token, &t, err);
    if (st != STORE_OK)
        token[0] = '\0';
    return st;
}

struct token_take {
    const char *hash;
    int64_t now_ms, expires_ms;
    bool found;
};

static bool expires_row(const struct store_value *c, size_t n, void *arg)
{
    struct token_take *t = arg;
    if (n >= 1 && c[0].type == SV_INT) {
        t->expires_ms = c[0].i;
        t->found = true;
    }
    return false;
}

static enum store_status take_token(struct store *s, void *arg, struct store_error *err)
{
    struct token_take *t = arg;
    struct store_value p = sv_text(t->hash);
    enum store_status st = exec(s, "SELECT expires_ms FROM lti_registration_tokens "
                                   "WHERE token_sha256 = ?1", &p, 1, expires_row, t, NULL, err);
    if (st == STORE_OK && t->found)
        st = exec(s, "DELETE FROM lti_registration_tokens WHERE token_sha256 = ?1", &p, 1, NULL,
                  NULL, NULL, err);
    return st;
}

enum store_status store_lti_reg_token_take(struct store *s, const char *token, int64_t now_ms,
                                           struct store_error *err)
{
    /* only what store_new_token makes is hashed and looked up: 64 hex */
    if (!token || strlen(token) != STORE_TOKEN_SIZE - 1 ||
        strspn(token, "0123456789abcdef") != STORE_TOKEN_SIZE - 1)
        return store_fail(err, STORE_NOT_FOUND, "no such registration token");
    char hash[STORE_SHA256_SIZE];
    store_sha256_hex(token, strlen(token), hash);
    struct token_take t = { hash, now_ms, 0, false };
    enum store_status st = store_in_write(s, take_token, &t, err);
    if (st == STORE_OK && (!t.found || t.expires_ms < now_ms))
        return store_fail(err, STORE_NOT_FOUND, "no such registration token, or it was used "
                          "or expired");
    return st;
}

static bool text_ok(const char *v, bool may_be_empty)
{
    return v && (may_be_empty || *v) && strlen(v) <= STORE_MAX_TEXT;
}

static enum store_status add_platform(struct store *s, void *arg, struct store_error *err)
{
    const struct store_lti_platform *x = arg;
    struct store_value p[] = { sv_text(x->issuer), sv_text(x->client_id), sv_text(x->name),
                               sv_text(x->deployment_id), sv_text(x->auth_login_url),
                               sv_text(x->auth_token_url), sv_text(x->key_set_url),
                               sv_int(x->registered_ms) };
    uint64_t added = 0;
    enum store_status st = exec(s, "INSERT INTO lti_platforms (issuer, client_id, name, "
                                   "deployment_id, auth_login_url, auth_token_url, key_set_url, "
                                   "registered_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
                                   "ON CONFLICT (issuer, client_id) DO NOTHING", p, 8, NULL,
                                NULL, &added, err);
    if (st == STORE_OK && added == 0)
        return store_fail(err, STORE_CONFLICT, "a platform with this issuer and client_id is "
                          "registered already");
    return st;
}

enum store_status store_lti_platform_add(struct store *s, const struct store_lti_platform *p,
                                         struct store_error *err)
{
    if (!text_ok(p->name, false) || !text_ok(p->issuer, false) ||
        !text_ok(p->client_id, false) || !text_ok(p->deployment_id, true) ||
        !text_ok(p->auth_login_url, false) || !text_ok(p->auth_token_url, false) ||
        !text_ok(p->key_set_url, false))
        return store_fail(err, STORE_INVALID, "a platform's field is missing or over %d bytes",
                          STORE_MAX_TEXT);
    return store_in_write(s, add_platform, (void *)p, err);
}

struct platform_walk {
    bool (*fn)(const struct store_lti_platform *p, void *arg);
    void *arg;
};

static bool platform_row(const struct store_value *c, size_t n, void *arg)
{
    struct platform_walk *w = arg;
    if (n < 8)
        return false;
    char *v[7] = { NULL };
    bool ok = true;
    for (size_t i = 0; i < 7; i++)
        ok = (v[i] = store_memdup(c[i].p ? c[i].p : "", c[i].len)) != NULL && ok;
    bool more = false;
    if (ok)
        more = w->fn(&(struct store_lti_platform){ v[0], v[1], v[2], v[3], v[4], v[5], v[6],
                                                   c[7].i }, w->arg);
    for (size_t i = 0; i < 7; i++)
        free(v[i]);
    return more;
}

enum store_status store_lti_platforms_each(struct store *s,
                                           bool (*fn)(const struct store_lti_platform *p,
                                                      void *arg),
                                           void *arg, struct store_error *err)
{
    enum store_status st = store_ready(s, err);
    if (st != STORE_OK)
        return st;
    struct platform_walk w = { fn, arg };
    return exec(s, "SELECT name, issuer, client_id, deployment_id, auth_login_url, "
                   "auth_token_url, key_set_url, registered_ms FROM lti_platforms "
                   "ORDER BY registered_ms, issuer, client_id", NULL, 0, platform_row, &w, NULL,
                err);
}
