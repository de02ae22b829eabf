/*
 * lti_http.c - LTI's routes: GET /lti/jwks.json, GET and POST /lti/login
 * (third-party login initiation), POST /lti/launch (the id_token), POST
 * /lti/deep-link (an instructor's choice of the exercise to place, Deep
 * Linking 2.0), GET /lti/canvas.json (Canvas's developer key) and GET
 * /lti/register (Dynamic Registration, lti_register.h).
 *
 * The login's state and the launch's checks run on the LTI thread
 * (lti_submit): this side reads the form, suspends the connection, and
 * answers when the job resumes it. A refused launch is an HTML page that
 * says which check failed; it makes no session and counts its reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/defaults.h"
#include "common/exercise/exercise.h"
#include "server/core/route.h"
#include "server/core/http.h"
#include "server/identity/caller.h"
#include "server/identity/records.h"
#include "server/identity/session.h"
#include "server/lti/lti.h"
#include "server/lti/lti_deep_link.h"
#include "server/lti/lti_http.h"
#include "server/lti/lti_register.h"
#include "server/core/body.h"
#include "server/core/cookie.h"
#include "server/identity/lti_tag.h"
#include "store/store_lti.h"

struct lti_req {
    /* the login */
    const struct lti_platform *platform;
    struct store_lti_state st;
    char *location;
    /* the launch */
    char *id_token;
    char state[STORE_TOKEN_SIZE];
    bool no_cookie;             /* the browser sent no state cookie */
    bool taken;                 /* the login's state is taken: into taken_st */
    bool waited;                /* the job waited for the platform's key set once */
    struct store_lti_state taken_st;
    const struct lti_platform *launch_platform;
    char *relaunch;             /* then: the login again, for a new window */
    /* the answer the job made */
    unsigned status;
    enum lti_reason_id code;    /* a refusal's check, LTI_ACCEPTED when accepted */
    char message[300];
    struct principal who;
    int64_t link;               /* a learner's resource link (the page's launch tag) */
    char redirect[160];
    /* a deep-linking launch: the choice it keeps (the chooser's token) */
    bool deep;
    struct store_lti_state choice_st;
    /* the choice's post: its token and exercise, and the answer */
    char choice[STORE_TOKEN_SIZE];
    char exercise[LTI_EXERCISE_ID_MAX + 1];
    struct lti_dl_choice dl;
    char *jwt;
    /* a Dynamic Registration */
    struct lti_registration reg;
};

/* The request's LTI state (its `feature`, made by lti_http_begin). */
static struct lti_req *lti_req_of(const struct request *r)
{
    return r->feature;
}

void lti_http_release(struct request *r)
{
    struct lti_req *q = r->feature;
    if (!q)
        return;
    free(q->location);
    free(q->id_token);
    free(q->st.issuer);
    free(q->st.client_id);
    free(q->st.target_link_uri);
    free(q->st.relaunch);
    store_lti_state_clear(&q->taken_st);
    free(q->relaunch);
    store_lti_state_clear(&q->choice_st);
    lti_deep_link_choice_clear(&q->dl);
    free(q->jwt);
    free(q->reg.config_url);
    free(q->reg.registration_token);
    free(q);
    r->feature = NULL;
}

/* --- pages ------------------------------------------------------------------------ */

static void html_escape(const char *s, char *out, size_t n)
{
    size_t o = 0;
    for (; *s && o + 7 < n; s++) {
        const char *rep = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;"
                        : *s == '"' ? "&quot;" : NULL;
        if (rep) {
            memcpy(out + o, rep, strlen(rep));
            o += strlen(rep);
        } else {
            out[o++] = *s;
        }
    }
    out[o] = '\0';
}

/* A small page: a refusal says which check failed (code) and why; with
 * a relaunch address, a link that opens the login again in a new window
 * (where the browser keeps the tool's cookies). */
static enum MHD_Result page_with(struct request *r, unsigned status, const char *title,
                                 const char *code, const char *message, const char *relaunch)
{
    char t[256], m[700], c[80];
    html_escape(title, t, sizeof t);
    html_escape(message, m, sizeof m);
    html_escape(code ? code : "", c, sizeof c);
    size_t ln = relaunch && *relaunch ? 6 * strlen(relaunch) + 1 : 1;
    char *link = malloc(ln);
    if (!link)
        return response_out_of_memory(r);
    html_escape(relaunch ? relaunch : "", link, ln);
    char *body = NULL;
    int n = asprintf(&body,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<title>%s</title></head><body><main><h1>%s</h1><p>%s</p>%s%s%s%s%s%s"
        "<p>Open the exercise again from your course. If it keeps failing, show this page "
        "to your instructor.</p></main></body></html>\n",
        t, t, m, code ? "<p>Check that failed: <code id=\"check\">" : "", c,
        code ? "</code></p>" : "",
        link[0] ? "<p><a id=\"new-window\" href=\"" : "", link,
        link[0] ? "\" target=\"_blank\" rel=\"noopener\">Open the exercise in a new "
                  "window</a> (your browser blocks this tool's cookies inside the "
                  "course's page).</p>" : "");
    free(link);
    if (n < 0)
        return response_out_of_memory(r);
    return response_queue(r, status, response_from_buffer(body, (size_t)n,
                                                          MHD_RESPMEM_MUST_FREE),
                          "text/html; charset=utf-8", "no-store");
}

static enum MHD_Result page(struct request *r, unsigned status, const char *title,
                            const char *code, const char *message)
{
    return page_with(r, status, title, code, message, NULL);
}

static enum MHD_Result refuse_launch(struct request *r, unsigned status,
                                     enum lti_reason_id code, const char *message)
{
    lti_count_launch(r->srv->lti, code);
    return page_with(r, status, "The launch was refused", lti_check_reason_code(code), message,
                     lti_req_of(r) ? lti_req_of(r)->relaunch : NULL);
}

/* --- the key set ------------------------------------------------------------------ */

static enum MHD_Result jwks(struct request *r)
{
    char *text = lti_jwks_text(r->srv->lti);
    if (!text)
        return response_out_of_memory(r);
    return response_queue(r, 200, response_from_buffer(text, strlen(text),
                                                       MHD_RESPMEM_MUST_FREE),
                          "application/json", "max-age=300");
}

/* The Set-Cookie value setting (state) or clearing (NULL) the cookie
 * name (the login's state, or a deep-linking chooser's choice) for
 * life seconds. The launch comes back as a cross-site POST (inside the
 * platform's frame): only SameSite=None lets the browser send it, and
 * browsers take that only with Secure. Over TLS named __Host- (Path=/):
 * a state cookie tossed by a sibling host would let the tosser's own
 * login sign this browser in as the tosser. */
static void lti_cookie(struct request *r, const char *name, const char *state, unsigned life,
                       char *out, size_t n)
{
    if (r->secure)
        snprintf(out, n, "%s%s=%s; Path=/; HttpOnly; Max-Age=%u; SameSite=None; Secure",
                 COOKIE_HOST_PREFIX, name, state ? state : "", state ? life : 0);
    else
        snprintf(out, n, "%s=%s; Path=/lti/; HttpOnly; Max-Age=%u", name, state ? state : "",
                 state ? life : 0);
}

static void state_cookie(struct request *r, const char *state, char *out, size_t n)
{
    lti_cookie(r, LTI_STATE_COOKIE, state, LTI_STATE_LIFETIME_S, out, n);
}

struct state_count {
    const char *name;
    unsigned n;
};

static enum MHD_Result count_state(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    struct state_count *c = cls;
    (void)kind;
    if (key && value && !strcasecmp(key, MHD_HTTP_HEADER_COOKIE))
        c->n += cookie_count(value, c->name);
    return MHD_YES;
}

/* The cookie bare (LTI_STATE_COOKIE, LTI_CHOICE_COOKIE) under the name
 * this scheme gives it (NULL: none), and whether two came (*two), which
 * matches no state. */
static void lti_cookie_read(struct request *r, const char *bare, const char **value, bool *two)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s", r->secure ? COOKIE_HOST_PREFIX : "", bare);
    struct state_count c = { name, 0 };
    MHD_get_connection_values(r->conn, MHD_HEADER_KIND, count_state, &c);
    *two = c.n > 1;
    *value = c.n == 1 ? MHD_lookup_connection_value(r->conn, MHD_COOKIE_KIND, name) : NULL;
}

/* --- the login ------------------------------------------------------------------- */

/* A login or launch parameter, from the form (POST) or the query (GET). */
static bool param(struct request *r, const char *name, char *out, size_t n)
{
    if (!strcmp(r->method, "POST"))
        return r->body && lti_check_form_value(r->body, r->len, name, out, n);
    const char *v = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
    if (!v || strlen(v) >= n)
        return false;
    snprintf(out, n, "%s", v);
    return true;
}

/* Appends &name=escaped(value) to *s (grown); false on OOM. */
static bool add_query(char **s, const char *name, const char *value)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t have = strlen(*s), vl = strlen(value);
    char *grown = realloc(*s, have + strlen(name) + 3 * vl + 3);
    if (!grown)
        return false;
    *s = grown;
    char *o = grown + have;
    *o++ = strchr(grown, '?') ? '&' : '?';
    o += sprintf(o, "%s=", name);
    for (size_t i = 0; i < vl; i++) {
        unsigned char c = (unsigned char)value[i];
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_' || c == '.' || c == '~') {
            *o++ = (char)c;
        } else {
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    *o = '\0';
    return true;
}

static void login_job(struct lti *l, struct store *s, void *arg)
{
    struct request *r = arg;
    struct store_error e = { 0 };
    (void)l;
    struct lti_req *q = lti_req_of(r);
    q->status = store_lti_state_put(s, &q->st, &e) == STORE_OK ? 302 : 503;
    snprintf(q->message, sizeof q->message, "%.200s", e.message);
    MHD_resume_connection(r->conn);
}

static enum MHD_Result login(struct request *r)
{
    struct lti_req *q = lti_req_of(r);
    char iss[1100], hint[1100], target[1100], client[1100], msg_hint[4100];
    if (!param(r, "iss", iss, sizeof iss) || !param(r, "login_hint", hint, sizeof hint) ||
        !param(r, "target_link_uri", target, sizeof target))
        return page(r, 400, "The login was refused", "login",
                    "A login needs iss, login_hint and target_link_uri.");
    if (!param(r, "client_id", client, sizeof client))
        client[0] = '\0';
    bool has_msg_hint = param(r, "lti_message_hint", msg_hint, sizeof msg_hint);
    const struct lti_platform *p = lti_config_find(lti_config_of(r->srv->lti), iss, client);
    if (!p)
        return page(r, 400, "The login was refused", "unregistered",
                    "No platform with this issuer and client_id is registered with this tool.");
    const char *pub = lti_public_url(r->srv->lti);
    if (strncmp(target, pub, strlen(pub)) ||
        (target[strlen(pub)] != '/' && target[strlen(pub)] != '\0'))
        return page(r, 400, "The login was refused", "target_link_uri",
                    "The target_link_uri is not an address of this tool.");
    enum MHD_Result refused;
    if (!caller_sign_in_allowed(r, &refused))
        return refused;   /* each login is a write: one address cannot fill the store */
    q->platform = p;
    if (!store_new_token(q->st.state) || !store_new_token(q->st.nonce))
        return response_error(r, ERROR_INTERNAL_ERROR, "No random bytes.", NULL, NULL);
    q->st.issuer = strdup(p->issuer);
    q->st.client_id = strdup(p->client_id);
    q->st.target_link_uri = strdup(target);
    q->st.expires_ms = store_now_ms() + (int64_t)LTI_STATE_LIFETIME_S * 1000;
    char redirect_uri[1200];
    snprintf(redirect_uri, sizeof redirect_uri, "%s/lti/launch", pub);
    /* the same login, for a new window if the frame's cookies are blocked */
    q->st.relaunch = malloc(strlen(pub) + 16);
    if (q->st.relaunch) {
        sprintf(q->st.relaunch, "%s/lti/login", pub);
        bool kept = add_query(&q->st.relaunch, "iss", p->issuer) &&
                    add_query(&q->st.relaunch, "client_id", p->client_id) &&
                    add_query(&q->st.relaunch, "login_hint", hint) &&
                    (!has_msg_hint || add_query(&q->st.relaunch, "lti_message_hint", msg_hint)) &&
                    add_query(&q->st.relaunch, "target_link_uri", target);
        if (!kept || strlen(q->st.relaunch) > STORE_LTI_MAX_RELAUNCH)
            q->st.relaunch[0] = '\0';   /* too long to keep: no link, the rest works */
    }
    q->location = strdup(p->auth_login_url);
    bool ok = q->st.issuer && q->st.client_id && q->st.target_link_uri && q->location &&
              add_query(&q->location, "scope", "openid") &&
              add_query(&q->location, "response_type", "id_token") &&
              add_query(&q->location, "response_mode", "form_post") &&
              add_query(&q->location, "prompt", "none") &&
              add_query(&q->location, "client_id", p->client_id) &&
              add_query(&q->location, "redirect_uri", redirect_uri) &&
              add_query(&q->location, "login_hint", hint) &&
              (!has_msg_hint || add_query(&q->location, "lti_message_hint", msg_hint)) &&
              add_query(&q->location, "state", q->st.state) &&
              add_query(&q->location, "nonce", q->st.nonce);
    if (!ok)
        return response_out_of_memory(r);
    MHD_suspend_connection(r->conn);
    r->state = REQ_SUSPENDED;
    if (!lti_submit(r->srv->lti, login_job, r)) {
        q->status = 503;
        MHD_resume_connection(r->conn);
    }
    return MHD_YES;
}

static enum MHD_Result login_answer(struct request *r)
{
    struct lti_req *q = lti_req_of(r);
    if (q->status != 302)
        return page(r, 503, "The login could not be kept", "store",
                    "The tool cannot keep logins now; try again shortly.");
    struct MHD_Response *resp = response_from_buffer(NULL, 0, MHD_RESPMEM_PERSISTENT);
    if (!resp)
        return response_out_of_memory(r);
    response_header(r, resp, MHD_HTTP_HEADER_LOCATION, q->location);
    /* the launch comes back as a cross-site POST (inside the platform's
     * frame): only SameSite=None lets the browser send this cookie, and
     * browsers take SameSite=None only with Secure */
    char cookie[300];
    state_cookie(r, q->st.state, cookie, sizeof cookie);
    response_header(r, resp, MHD_HTTP_HEADER_SET_COOKIE, cookie);
    return response_queue(r, 302, resp, "text/plain; charset=utf-8", "no-store");
}

/* --- the launch ------------------------------------------------------------------ */

/* The job's refusal: code with its reason's sentence (lti_check_reasons). */
static void refusal(struct lti_req *q, enum lti_reason_id code)
{
    q->code = code;
    snprintf(q->message, sizeof q->message, "%s", lti_check_reasons[code].message);
}

/* The launch's checks before the signature's, once (the login's state
 * is used once): its platform, or NULL with the refusal in q. */
static const struct lti_platform *launch_platform(struct lti *l, struct store *s,
                                                  struct lti_req *q)
{
    struct store_error e = { 0 };
    q->status = 400;
    enum store_status ss = store_lti_state_take(s, q->state, store_now_ms(), &q->taken_st, &e);
    const struct store_lti_state *st = &q->taken_st;
    const struct lti_platform *p = NULL;
    if (ss == STORE_NOT_FOUND) {
        refusal(q, LTI_R_STATE);
    } else if (ss != STORE_OK) {
        q->status = 503;
        q->code = LTI_R_STORE;
        snprintf(q->message, sizeof q->message, "The tool cannot read its logins now.");
    } else if (q->no_cookie) {
        refusal(q, LTI_R_STATE_COOKIE);
        q->relaunch = st->relaunch && *st->relaunch ? strdup(st->relaunch) : NULL;
    } else if (!(p = lti_config_find(lti_config_of(l), st->issuer, st->client_id))) {
        refusal(q, LTI_R_UNREGISTERED);
    }
    return p;
}

/* The launch on the LTI thread. It runs a second time when it waited for
 * its platform's key set (lti_verify_token), from the signature on. */
static void launch_job(struct lti *l, struct store *s, void *arg)
{
    struct request *r = arg;
    struct lti_req *q = lti_req_of(r);
    struct store_error e = { 0 };
    struct lti_refusal why = { LTI_ACCEPTED, "" };
    json_t *claims = NULL;
    enum store_status ss;
    if (!q->taken) {
        q->taken = true;
        if (!(q->launch_platform = launch_platform(l, s, q))) {
            MHD_resume_connection(r->conn);
            return;
        }
    }
    const struct lti_platform *p = q->launch_platform;
    const struct store_lti_state *st = &q->taken_st;
    enum lti_verify v = lti_verify_token(l, p, q->id_token, !q->waited, launch_job, r, &claims,
                                         &why);
    if (v == LTI_WAIT) {
        q->waited = true;
        return;   /* the connection stays suspended until this job comes back */
    }
    if (v == LTI_REFUSED) {
        q->code = why.code;
        if (why.code == LTI_R_KEY_SET)
            q->status = 502;
        snprintf(q->message, sizeof q->message, "%s", why.message);
    } else {
        struct lti_claims c;
        if (!lti_check_claims(claims, p, st->nonce, st->target_link_uri, time(NULL), &c, &why)) {
            q->code = why.code;
            snprintf(q->message, sizeof q->message, "%s", why.message);
        } else if ((ss = store_lti_nonce_use(s, p->issuer, st->nonce,
                                             (int64_t)json_number_value(json_object_get(
                                                 claims, "exp")) * 1000 + 60000, &e)) ==
                   STORE_CONFLICT) {
            q->code = LTI_R_NONCE;
            snprintf(q->message, sizeof q->message, "The nonce was used before (a replay).");
        } else if (ss == STORE_OK && c.deep_linking) {
            /* an instructor placing an exercise: no session, no class of
             * its own; the chooser's choice is kept for its post */
            if (!lti_deep_link_keep(p, &c, &q->choice_st))
                ss = STORE_NO_MEMORY;
            else
                ss = store_lti_state_put(s, &q->choice_st, &e);
            if (ss != STORE_OK) {
                q->status = 503;
                q->code = LTI_R_STORE;
                snprintf(q->message, sizeof q->message, "The tool cannot keep the choice "
                         "now (%s).", store_status_to_str(ss));
            } else {
                q->status = 200;
                q->code = LTI_ACCEPTED;
                q->deep = true;
            }
        } else {
            char student[STORE_ID_SIZE], klass[STORE_ID_SIZE];
            /* the platform's names are shown on the class view and written
             * in gradebooks: no control character, no bidi override */
            char name[PRINCIPAL_NAME_MAX], email[PRINCIPAL_NAME_MAX];
            session_clean_name(c.name, name, sizeof name);
            session_clean_name(c.email, email, sizeof email);
            /* the link's title names the gradebook column the tool may make */
            char label[PRINCIPAL_NAME_MAX];
            session_clean_name(c.resource_link_title ? c.resource_link_title : "", label,
                               sizeof label);
            struct store_lti_launch ll = {
                .issuer = p->issuer, .client_id = p->client_id, .sub = c.sub,
                .name = name, .email = email, .context_id = c.context_id,
                .context_title = c.context_title, .instructor = c.instructor,
                .deployment_id = c.deployment_id, .resource_link = c.resource_link_id,
                .lineitem = c.lineitem, .lineitems = c.lineitems,
                .label = label, .due_ms = c.due_ms, .exercise = c.exercise,
            };
            if (ss == STORE_OK)
                ss = store_lti_launch(s, &ll, student, klass, &q->link, q->who.name,
                                      sizeof q->who.name, &e);
            /* the store's name (a roster's, maybe long) cut to a character */
            session_clean_name(q->who.name, q->who.name, sizeof q->who.name);
            if (ss != STORE_OK) {
                q->status = 503;
                q->code = LTI_R_STORE;
                snprintf(q->message, sizeof q->message, "The tool cannot keep the launch "
                         "now (%s).", store_status_to_str(ss));
            } else {
                q->status = 303;
                q->code = LTI_ACCEPTED;
                /* the course's roster: asked for here, read on the roster's
                 * thread (lti_nrps.c); a refusal to keep the ask costs the
                 * launch nothing */
                struct store_error re = { 0 };
                if (c.memberships_url &&
                    store_lti_roster_ask(s, klass, p->issuer, p->client_id, c.memberships_url,
                                         c.instructor, &re) == STORE_OK)
                    lti_nrps_wake(l);
                else if (c.memberships_url)
                    fprintf(stderr, "butterfly-server: LTI roster not asked for: %s\n",
                            re.message);
                r->srv->class_changed(r->srv->feed);   /* a class or a learner may be new */
                bool other = c.exercise && strcmp(c.exercise, exercise_default()->id) != 0;
                if (c.instructor) {
                    q->who.kind = PRINCIPAL_INSTRUCTOR;
                    /* vouched for by the platform, not by the instructor's token:
                     * the credentials table must not end it (credentials.c) */
                    snprintf(q->who.id, sizeof q->who.id, "%s%s", PRINCIPAL_LTI_PREFIX, klass);
                    /* a link of another exercise opens the view of it */
                    char view[32];
                    route_link(ROUTE_CLASS, NULL, view, sizeof view);
                    snprintf(q->redirect, sizeof q->redirect, "%s?class=%s%s%s", view, klass,
                             other ? "&task=" : "", other ? c.exercise : "");
                } else {
                    q->who.kind = PRINCIPAL_STUDENT;
                    snprintf(q->who.id, sizeof q->who.id, "%s", student);
                    /* the butterfly's page is /; another exercise's, its own */
                    route_link(ROUTE_PAGE, other ? c.exercise : NULL, q->redirect,
                               sizeof q->redirect);
                }
            }
        }
    }
    json_decref(claims);
    MHD_resume_connection(r->conn);
}

static enum MHD_Result launch(struct request *r)
{
    struct lti_req *q = lti_req_of(r);
    if (r->too_large)
        return refuse_launch(r, 413, LTI_R_TOO_LARGE, "The launch's form is over its size bound.");
    q->id_token = malloc(LTI_MAX_ID_TOKEN + 2);
    if (!q->id_token)
        return response_out_of_memory(r);
    if (!lti_check_form_value(r->body, r->len, "id_token", q->id_token, LTI_MAX_ID_TOKEN + 2)) {
        bool present = r->body && r->len && memmem(r->body, r->len, "id_token=", 9);
        return refuse_launch(r, 400, present ? LTI_R_TOO_LARGE : LTI_R_NOT_A_JWT, present
                             ? "The id_token is over 64 KiB." : "The launch has no id_token.");
    }
    if (strlen(q->id_token) > LTI_MAX_ID_TOKEN)
        return refuse_launch(r, 400, LTI_R_TOO_LARGE, "The id_token is over 64 KiB.");
    if (!lti_check_form_value(r->body, r->len, "state", q->state, sizeof q->state))
        return refuse_launch(r, 400, LTI_R_STATE, "The launch has no state, or not one of ours.");
    const char *cookie = NULL;
    bool two = false;
    lti_cookie_read(r, LTI_STATE_COOKIE, &cookie, &two);
    /* no cookie: the state is still taken (used once) and its login
     * offered again in a new window */
    q->no_cookie = !cookie && !two;
    if (two || (cookie && (strlen(cookie) != strlen(q->state) ||
                           !session_equal(cookie, q->state, strlen(q->state)))))
        return refuse_launch(r, 400, LTI_R_STATE, "The state is not the one this browser's login "
                             "made.");
    MHD_suspend_connection(r->conn);
    r->state = REQ_SUSPENDED;
    if (!lti_submit(r->srv->lti, launch_job, r)) {
        q->status = 503;
        refusal(q, LTI_R_BUSY);
        MHD_resume_connection(r->conn);
    }
    return MHD_YES;
}

/* The pages of Deep Linking: no script but by nonce, no form but to
 * where they post, framed by the course's pages only. */
static const char *frames_of(struct request *r)
{
    const char *f = lti_config_of(r->srv->lti)->frame_ancestors;
    return f ? f : "'none'";
}

/* An accepted deep-linking launch: the chooser, with the choice's
 * cookie (the post must come from this browser) and the login's state
 * cookie cleared. */
static enum MHD_Result chooser_answer(struct request *r)
{
    struct lti_req *q = lti_req_of(r);
    size_t len = 0;
    char *text = lti_deep_link_chooser(lti_public_url(r->srv->lti), q->choice_st.state, &len);
    char *csp = NULL;
    if (!text || asprintf(&csp, "default-src 'none'; style-src 'unsafe-inline'; "
                          "form-action 'self'; frame-ancestors %s; base-uri 'none'",
                          frames_of(r)) < 0) {
        free(text);
        return response_out_of_memory(r);
    }
    struct MHD_Response *resp = response_from_buffer(text, len, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(csp);
        return response_out_of_memory(r);
    }
    response_header(r, resp, "Content-Security-Policy", csp);
    free(csp);
    char cookie[300], clear[200];
    lti_cookie(r, LTI_CHOICE_COOKIE, q->choice_st.state, LTI_CHOICE_LIFETIME_S, cookie,
               sizeof cookie);
    response_header(r, resp, MHD_HTTP_HEADER_SET_COOKIE, cookie);
    state_cookie(r, NULL, clear, sizeof clear);
    response_header(r, resp, MHD_HTTP_HEADER_SET_COOKIE, clear);
    return response_queue(r, 200, resp, "text/html; charset=utf-8", "no-store");
}

static enum MHD_Result launch_answer(struct request *r)
{
    struct lti_req *q = lti_req_of(r);
    if (q->code)
        return refuse_launch(r, q->status, q->code, q->message);
    lti_count_launch(r->srv->lti, LTI_ACCEPTED);
    if (q->deep)
        return chooser_answer(r);
    unsigned life = q->who.kind == PRINCIPAL_INSTRUCTOR ? LTI_INSTRUCTOR_SESSION_S
                                                        : SESSION_LIFETIME_S;
    char *value = session_cookie_make(records_session_key(r->srv->records), &q->who,
                                      time(NULL), life);
    if (!value)
        return response_out_of_memory(r);
    char cookie[1300];
    /* inside the platform's frame the session is a third-party cookie:
     * SameSite=None (with Secure) or the browser drops it; over plain
     * http (a test, a laptop) the page's own Lax cookie */
    bool made = cookie_set_framed(SESSION_COOKIE, value, r->secure, life, cookie,
                                          sizeof cookie);
    free(value);
    if (!made)
        return response_out_of_memory(r);
    struct MHD_Response *resp = response_from_buffer(NULL, 0, MHD_RESPMEM_PERSISTENT);
    if (!resp)
        return response_out_of_memory(r);
    /* a learner's page says which launch it came from (lti_tag.h): in the
     * fragment, which the browser keeps for the page and never sends */
    char location[sizeof q->redirect + LTI_TAG_SIZE + 16], tag[LTI_TAG_SIZE];
    if (q->who.kind == PRINCIPAL_STUDENT &&
        lti_tag_make(records_session_key(r->srv->records), q->who.id, q->link, tag))
        snprintf(location, sizeof location, "%s#launch=%s", q->redirect, tag);
    else
        snprintf(location, sizeof location, "%s", q->redirect);
    response_header(r, resp, MHD_HTTP_HEADER_LOCATION, location);
    response_header(r, resp, MHD_HTTP_HEADER_SET_COOKIE, cookie);
    char clear[200];
    state_cookie(r, NULL, clear, sizeof clear);
    response_header(r, resp, MHD_HTTP_HEADER_SET_COOKIE, clear);
    return response_queue(r, 303, resp, "text/plain; charset=utf-8", "no-store");
}

/* --- Deep Linking: the choice ------------------------------------------------------ */

static enum MHD_Result refuse_choice(struct request *r, unsigned status, const char *message)
{
    return page(r, status, "The choice was refused", "choice", message);
}

/* The choice on the LTI thread: its kept state taken (used once,
 * whatever comes next), then the answer signed with the tool's key. */
static void choice_job(struct lti *l, struct store *s, void *arg)
{
    struct request *r = arg;
    struct lti_req *q = lti_req_of(r);
    struct store_error e = { 0 };
    struct store_lti_state st;
    q->status = 400;
    enum store_status ss = store_lti_state_take(s, q->choice, store_now_ms(), &st, &e);
    if (ss == STORE_OK && lti_deep_link_read(&st, &q->dl)) {
        if (!lti_config_find(lti_config_of(l), q->dl.issuer, q->dl.client_id)) {
            snprintf(q->message, sizeof q->message, "The platform is no longer registered.");
        } else if (!(q->jwt = lti_deep_link_response(s, &q->dl, lti_public_url(l), q->exercise,
                                                     q->message, sizeof q->message))) {
            q->status = 503;
        } else {
            q->status = 200;
        }
    } else if (ss == STORE_OK || ss == STORE_NOT_FOUND) {
        /* a login's state is no choice; either way it is spent now */
        snprintf(q->message, sizeof q->message, "This choice is not one of this tool's, was "
                 "made already, or expired (%u minutes): open the placement again from the "
                 "course.", LTI_CHOICE_LIFETIME_S / 60);
    } else {
        q->status = 503;
        snprintf(q->message, sizeof q->message, "The tool cannot read its choices now.");
    }
    store_lti_state_clear(&st);
    MHD_resume_connection(r->conn);
}

static enum MHD_Result choice(struct request *r)
{
    struct lti_req *q = lti_req_of(r);
    if (r->too_large)
        return refuse_choice(r, 413, "The choice is over its size bound.");
    if (!lti_check_form_value(r->body, r->len, "choice", q->choice, sizeof q->choice) ||
        !lti_check_form_value(r->body, r->len, "exercise", q->exercise, sizeof q->exercise))
        return refuse_choice(r, 400, "A choice needs the chooser's choice and an exercise.");
    char title[256];
    int points;
    if (!lti_deep_link_exercise(q->exercise, title, sizeof title, &points))
        return refuse_choice(r, 400, "No exercise has this name.");
    /* the choice's cookie, set with the chooser: a token copied out of
     * the page into another browser (or a form another site makes with
     * one) does not carry it */
    const char *cookie = NULL;
    bool two = false;
    lti_cookie_read(r, LTI_CHOICE_COOKIE, &cookie, &two);
    if (!cookie || two || strlen(cookie) != strlen(q->choice) ||
        !session_equal(cookie, q->choice, strlen(q->choice)))
        return refuse_choice(r, 400, "This browser did not open this chooser (its cookie is "
                             "missing or another's).");
    MHD_suspend_connection(r->conn);
    r->state = REQ_SUSPENDED;
    if (!lti_submit(r->srv->lti, choice_job, r)) {
        q->status = 503;
        snprintf(q->message, sizeof q->message, "The tool is too busy; try again shortly.");
        MHD_resume_connection(r->conn);
    }
    return MHD_YES;
}

/* The choice made: the page that posts the signed answer back to the
 * platform, the choice's cookie cleared. */
static enum MHD_Result choice_answer(struct request *r)
{
    struct lti_req *q = lti_req_of(r);
    if (q->status != 200)
        return refuse_choice(r, q->status, q->message);
    char nonce[STORE_TOKEN_SIZE];
    if (!store_new_token(nonce))
        return response_error(r, ERROR_INTERNAL_ERROR, "No random bytes.", NULL, NULL);
    size_t len = 0;
    char *csp = lti_deep_link_autopost_csp(q->dl.return_url, nonce, frames_of(r));
    char *text = csp ? lti_deep_link_autopost(q->dl.return_url, q->jwt, nonce, &len) : NULL;
    struct MHD_Response *resp = text ? response_from_buffer(text, len, MHD_RESPMEM_MUST_FREE)
                                     : NULL;
    if (!resp) {
        free(csp);
        return response_out_of_memory(r);
    }
    response_header(r, resp, "Content-Security-Policy", csp);
    free(csp);
    char clear[200];
    lti_cookie(r, LTI_CHOICE_COOKIE, NULL, 0, clear, sizeof clear);
    response_header(r, resp, MHD_HTTP_HEADER_SET_COOKIE, clear);
    return response_queue(r, 200, resp, "text/html; charset=utf-8", "no-store");
}

/* --- Canvas's developer key ------------------------------------------------------ */

static enum MHD_Result canvas(struct request *r)
{
    json_t *j = lti_deep_link_canvas(lti_public_url(r->srv->lti));
    char *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
    json_decref(j);
    if (!text)
        return response_out_of_memory(r);
    return response_queue(r, 200, response_from_buffer(text, strlen(text),
                                                       MHD_RESPMEM_MUST_FREE),
                          "application/json", "no-cache");
}

/* --- Dynamic Registration ------------------------------------------------------- */

static enum MHD_Result refuse_registration(struct request *r, unsigned status, const char *code,
                                           const char *message)
{
    return page(r, status, "The registration was refused", code, message);
}

static void registration_done(void *arg)
{
    struct request *r = arg;
    MHD_resume_connection(r->conn);
}

/* The platform opens the one-time address with its configuration's
 * address and its token appended; the registration runs on the
 * registrar's thread (lti_register.h), the connection suspended. */
static enum MHD_Result registration(struct request *r)
{
    struct lti_req *q = lti_req_of(r);
    const char *token = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "token");
    const char *conf = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND,
                                                   "openid_configuration");
    const char *rt = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND,
                                                 "registration_token");
    if (!strcmp(r->method, "HEAD"))   /* a look changes nothing: the token is not spent */
        return refuse_registration(r, 400, "method", "A registration is made by GET.");
    if (!token || strlen(token) >= sizeof q->reg.token)
        return refuse_registration(r, 400, "registration_token", "This address has no "
                                   "registration token of this tool's (butterfly-admin lti "
                                   "registration-url makes one).");
    if (!conf || !*conf || strlen(conf) > LTI_MAX_REG_URL)
        return refuse_registration(r, 400, "openid_configuration", "Open this address from "
                                   "the platform's Dynamic Registration (it appends "
                                   "openid_configuration and registration_token).");
    if (rt && strlen(rt) > LTI_MAX_REG_TOKEN)
        return refuse_registration(r, 400, "registration_token", "The platform's "
                                   "registration_token is over its size bound.");
    enum MHD_Result refused;
    if (!caller_sign_in_allowed(r, &refused))
        return refused;   /* each try takes a token from the store: bounded per address */
    snprintf(q->reg.token, sizeof q->reg.token, "%s", token);
    q->reg.config_url = strdup(conf);
    q->reg.registration_token = rt ? strdup(rt) : NULL;
    if (!q->reg.config_url || (rt && !q->reg.registration_token))
        return response_out_of_memory(r);
    q->reg.done = registration_done;
    q->reg.arg = r;
    MHD_suspend_connection(r->conn);
    r->state = REQ_SUSPENDED;
    if (!lti_register_start(r->srv->lti, &q->reg)) {
        q->reg.status = 503;
        snprintf(q->reg.code, sizeof q->reg.code, "busy");
        snprintf(q->reg.message, sizeof q->reg.message, "Another registration is in "
                 "progress; try again in a few seconds.");
        MHD_resume_connection(r->conn);
    }
    return MHD_YES;
}

/* Registered: the page that tells the platform to close its frame or
 * window (Dynamic Registration's org.imsglobal.lti.close), framed by the
 * platform only. */
static enum MHD_Result registration_answer(struct request *r)
{
    struct lti_req *q = lti_req_of(r);
    if (q->reg.status != 200)
        return refuse_registration(r, q->reg.status, q->reg.code, q->reg.message);
    char nonce[STORE_TOKEN_SIZE], m[800];
    if (!store_new_token(nonce))
        return response_error(r, ERROR_INTERNAL_ERROR, "No random bytes.", NULL, NULL);
    html_escape(q->reg.message, m, sizeof m);
    char *body = NULL, *csp = NULL;
    int n = asprintf(&body,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>Registered</title></head><body><main><h1>The tool is registered</h1>"
        "<p id=\"registered\">%s</p><p>The platform closes this page; if it stays, close "
        "it.</p></main><script nonce=\"%s\">(window.opener || window.parent).postMessage("
        "{subject: \"org.imsglobal.lti.close\"}, \"*\");</script></body></html>\n", m, nonce);
    if (n < 0 || asprintf(&csp, "default-src 'none'; script-src 'nonce-%s'; form-action 'none'; "
                          "frame-ancestors %s; base-uri 'none'", nonce,
                          q->reg.frame_origin[0] ? q->reg.frame_origin : "'none'") < 0) {
        free(n < 0 ? NULL : body);
        return response_out_of_memory(r);
    }
    struct MHD_Response *resp = response_from_buffer(body, (size_t)n, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(csp);
        return response_out_of_memory(r);
    }
    response_header(r, resp, "Content-Security-Policy", csp);
    free(csp);
    return response_queue(r, 200, resp, "text/html; charset=utf-8", "no-store");
}

/* --- the routes ------------------------------------------------------------------ */

enum MHD_Result lti_http_begin(struct request *r)
{
    r->feature = calloc(1, sizeof(struct lti_req));
    if (!r->feature)
        return response_out_of_memory(r);
    if (r->route == ROUTE_LTI_JWKS || r->route == ROUTE_LTI_CANVAS || strcmp(r->method, "POST")) {
        r->state = REQ_HEADERS;   /* answered by lti_http_finish once complete */
        return MHD_YES;
    }
    /* the one body reader, as for every POST: a malformed Content-Length
     * is a 400, neither a length nor chunked a 411 (issue 30, defect 5);
     * a form over its bound is LTI's own refusal page */
    /* r->limit: the row's bound (LTI_MAX_FORM) */
    const char *cl = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_LENGTH);
    const char *te = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_TRANSFER_ENCODING);
    if (request_check_length(cl, te, r->limit) == LENGTH_TOO_LARGE)
        return r->route == ROUTE_LTI_LAUNCH
                   ? refuse_launch(r, 413, LTI_R_TOO_LARGE, "The launch is over its size bound.")
                   : r->route == ROUTE_LTI_DEEP_LINK
                   ? refuse_choice(r, 413, "The choice is over its size bound.")
                   : page(r, 413, "The login was refused", "too_large",
                          "The login is over its size bound.");
    enum MHD_Result refused;
    if (body_refused(r, "The form is over its size bound.", &refused))
        return refused;
    r->state = REQ_READING;
    return MHD_YES;
}

enum MHD_Result lti_http_body(struct request *r, const char *data, size_t *size)
{
    return body_take(r, data, size);
}

enum MHD_Result lti_http_finish(struct request *r)
{
    switch (r->route) {
    case ROUTE_LTI_JWKS:
        return jwks(r);
    case ROUTE_LTI_LOGIN:
        if (r->too_large)
            return page(r, 413, "The login was refused", "too_large",
                        "The login is over its size bound.");
        return login(r);
    case ROUTE_LTI_LAUNCH:
        return launch(r);
    case ROUTE_LTI_DEEP_LINK:
        return choice(r);
    case ROUTE_LTI_CANVAS:
        return canvas(r);
    case ROUTE_LTI_REGISTER:
        return registration(r);
    default:
        return response_error(r, ERROR_NOT_FOUND, "No such resource.", NULL, NULL);
    }
}

enum MHD_Result lti_http_answer(struct request *r)
{
    return r->route == ROUTE_LTI_LOGIN ? login_answer(r)
         : r->route == ROUTE_LTI_DEEP_LINK ? choice_answer(r)
         : r->route == ROUTE_LTI_REGISTER ? registration_answer(r) : launch_answer(r);
}
