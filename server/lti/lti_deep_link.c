/*
 * lti_deep_link.c - Deep Linking 2.0's chooser, choice and signed answer,
 * and the Canvas developer key's JSON (lti_deep_link.h).
 *
 * A choice is kept in the login states' table: a login's row has the
 * target_link_uri its login named (always under the public URL, lti_http.c
 * checks), a choice's the marker CHOICE_MARK, which no URL is. Each side
 * takes a row only as its own kind, and taking burns it either way, so a
 * login's state posted as a choice (or the reverse) is refused and spent.
 */
#include "server/lti/lti_deep_link.h"

#include <rhonabwy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/defaults.h"
#include "server/core/api.h"
#include "server/core/route.h"
#include "server/lti/lti_keys.h"

#define CHOICE_MARK "deep-link-choice:"
#define CLAIM "https://purl.imsglobal.org/spec/lti/claim/"
#define DL_CLAIM "https://purl.imsglobal.org/spec/lti-dl/claim/"
#define AGS_SCOPE "https://purl.imsglobal.org/spec/lti-ags/scope/"

bool lti_deep_link_keep(const struct lti_platform *p, const struct lti_claims *c,
                        struct store_lti_state *st)
{
    memset(st, 0, sizeof *st);
    if (!store_new_token(st->state) || !store_new_token(st->nonce))
        return false;
    json_t *kept = json_pack("{s:s, s:s}", "deployment_id", c->deployment_id, "return_url",
                             c->deep_link_return_url);
    if (kept && c->deep_link_data)
        json_object_set_new(kept, "data", json_string(c->deep_link_data));
    st->relaunch = kept ? json_dumps(kept, JSON_COMPACT) : NULL;
    json_decref(kept);
    st->issuer = strdup(p->issuer);
    st->client_id = strdup(p->client_id);
    st->target_link_uri = strdup(CHOICE_MARK);
    st->expires_ms = store_now_ms() + (int64_t)LTI_CHOICE_LIFETIME_S * 1000;
    if (st->relaunch && st->issuer && st->client_id && st->target_link_uri)
        return true;
    store_lti_state_clear(st);
    return false;
}

void lti_deep_link_choice_clear(struct lti_dl_choice *out)
{
    if (!out)
        return;
    free(out->issuer);
    free(out->client_id);
    free(out->deployment_id);
    free(out->return_url);
    free(out->data);
    memset(out, 0, sizeof *out);
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

bool lti_deep_link_read(const struct store_lti_state *st, struct lti_dl_choice *out)
{
    memset(out, 0, sizeof *out);
    if (!st->target_link_uri || strcmp(st->target_link_uri, CHOICE_MARK) || !st->relaunch)
        return false;
    json_t *kept = json_loads(st->relaunch, 0, NULL);
    const char *dep = json_string_value(json_object_get(kept, "deployment_id"));
    const char *ret = json_string_value(json_object_get(kept, "return_url"));
    json_t *data = json_object_get(kept, "data");
    bool ok = dep && ret && (!data || json_is_string(data));
    if (ok) {
        out->issuer = dup_or_null(st->issuer);
        out->client_id = dup_or_null(st->client_id);
        out->deployment_id = strdup(dep);
        out->return_url = strdup(ret);
        out->data = data ? strdup(json_string_value(data)) : NULL;
        snprintf(out->nonce, sizeof out->nonce, "%s", st->nonce);
        ok = out->issuer && out->client_id && out->deployment_id && out->return_url &&
             (!data || out->data);
    }
    json_decref(kept);
    if (!ok)
        lti_deep_link_choice_clear(out);
    return ok;
}

bool lti_deep_link_exercise(const char *id, char *title, size_t titlesz, int *points)
{
    /* the list the page and the API read: no second copy of a title or
     * of the points, which would drift from the gradebook's */
    json_t *tasks = api_tasks(), *t;
    size_t i;
    bool found = false;
    json_array_foreach(tasks, i, t) {
        const char *tid = json_string_value(json_object_get(t, "id"));
        if (!found && tid && id && !strcmp(tid, id)) {
            snprintf(title, titlesz, "%s", json_string_value(json_object_get(t, "title")));
            *points = (int)json_integer_value(json_object_get(t, "points"));
            found = *points > 0;
        }
    }
    json_decref(tasks);
    return found;
}

/* s with HTML's special characters escaped, a new string (NULL: OOM). */
static char *escaped(const char *s)
{
    size_t n = 1;
    for (const char *c = s; *c; c++)
        n += *c == '<' || *c == '>' ? 4 : *c == '&' ? 5 : *c == '"' || *c == '\'' ? 6 : 1;
    char *out = malloc(n), *o = out;
    if (!out)
        return NULL;
    for (; *s; s++) {
        const char *rep = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;"
                        : *s == '"' ? "&quot;" : *s == '\'' ? "&#39;" : NULL;
        if (rep) {
            memcpy(o, rep, strlen(rep));
            o += strlen(rep);
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
    return out;
}

/* Appends text to the memstream f, escaped; false on OOM. */
static bool put_escaped(FILE *f, const char *text)
{
    char *e = escaped(text ? text : "");
    if (!e)
        return false;
    fputs(e, f);
    free(e);
    return true;
}

static const char page_head[] =
    "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    "<title>%s</title><style>body{font-family:sans-serif;max-width:40em;margin:2em auto;"
    "padding:0 1em}li{margin:1em 0}</style></head><body><main><h1>%s</h1>";

char *lti_deep_link_chooser(const char *public_url, const char *token, size_t *len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f)
        return NULL;
    bool ok = true;
    char action[32];   /* the route the choice is posted to */
    route_link(ROUTE_LTI_DEEP_LINK, NULL, action, sizeof action);
    fprintf(f, page_head, "Choose an exercise", "Choose the exercise to place in the course");
    fputs("<p>The exercise you choose becomes an assignment of the course, with its own "
          "gradebook column: the students' scores go there.</p><ul id=\"exercises\">", f);
    json_t *tasks = api_tasks(), *t;
    size_t i;
    /* one form per exercise, no script: it works where scripts are off */
    json_array_foreach(tasks, i, t) {
        const char *id = json_string_value(json_object_get(t, "id"));
        const char *title = json_string_value(json_object_get(t, "title"));
        const char *sub = json_string_value(json_object_get(t, "subtitle"));
        /* the public address: behind a proxy the tool may sit under a path */
        fputs("<li><form method=\"post\" action=\"", f);
        ok = ok && put_escaped(f, public_url);
        fputs(action, f);
        fputs("\">", f);
        fputs("<input type=\"hidden\" name=\"choice\" value=\"", f);
        ok = ok && put_escaped(f, token);
        fputs("\"><input type=\"hidden\" name=\"exercise\" value=\"", f);
        ok = ok && put_escaped(f, id);
        fputs("\"><button type=\"submit\">", f);
        ok = ok && put_escaped(f, title);
        fputs("</button> ", f);
        ok = ok && put_escaped(f, sub);
        fprintf(f, ", <span class=\"points\">%d</span> points</form></li>",
                (int)json_integer_value(json_object_get(t, "points")));
    }
    json_decref(tasks);
    fprintf(f, "</ul><p>This choice is good for %u minutes.</p></main></body></html>\n",
            LTI_CHOICE_LIFETIME_S / 60);
    if (fclose(f) != 0 || !ok || !text) {
        free(text);
        return NULL;
    }
    *len = n;
    return text;
}

char *lti_deep_link_response(struct store *s, const struct lti_dl_choice *c,
                             const char *public_url, const char *id, char *err, size_t errsz)
{
    char title[256];
    int points = 0;
    if (!lti_deep_link_exercise(id, title, sizeof title, &points)) {
        snprintf(err, errsz, "no exercise is called \"%.64s\"", id);
        return NULL;
    }
    jwk_t *key = NULL;
    char kid[64];
    if (!lti_keys_signing(s, &key, kid, err, errsz))
        return NULL;
    char url[1100], launch[32];
    route_link(ROUTE_LTI_LAUNCH, NULL, launch, sizeof launch);
    snprintf(url, sizeof url, "%s%s", public_url, launch);
    time_t now = time(NULL);
    /* what the platform makes of it: a link whose launches name the
     * exercise (custom), and its gradebook column (lineItem), whose line
     * item the later launches' grades claim names */
    json_t *item = json_pack("{s:s, s:s, s:s, s:{s:s}, s:{s:i, s:s, s:s}}",
                             "type", "ltiResourceLink", "title", title, "url", url,
                             "custom", "exercise", id,
                             "lineItem", "scoreMaximum", points, "label", title,
                             "resourceId", id);
    json_t *claims = json_pack("{s:s, s:s, s:I, s:I, s:s, s:s, s:s, s:s, s:[o]}",
                               "iss", c->client_id, "aud", c->issuer,
                               "iat", (json_int_t)now,
                               "exp", (json_int_t)(now + LTI_ASSERTION_LIFETIME_S),
                               "nonce", c->nonce,
                               CLAIM "message_type", "LtiDeepLinkingResponse",
                               CLAIM "version", "1.3.0",
                               CLAIM "deployment_id", c->deployment_id,
                               DL_CLAIM "content_items", item);
    if (claims && c->data)
        json_object_set_new(claims, DL_CLAIM "data", json_string(c->data));
    jwt_t *jwt = NULL;
    char *out = NULL;
    if (claims && r_jwt_init(&jwt) == RHN_OK &&
        r_jwt_set_full_claims_json_t(jwt, claims) == RHN_OK &&
        r_jwt_set_header_str_value(jwt, "kid", kid) == RHN_OK &&
        r_jwt_set_header_str_value(jwt, "typ", "JWT") == RHN_OK &&
        r_jwt_set_sign_alg(jwt, R_JWA_ALG_RS256) == RHN_OK) {
        char *signed_jwt = r_jwt_serialize_signed(jwt, key, 0);
        out = signed_jwt ? strdup(signed_jwt) : NULL;
        r_free(signed_jwt);
    }
    if (!out)
        snprintf(err, errsz, "the deep-linking answer could not be signed");
    r_jwt_free(jwt);
    r_jwk_free(key);
    json_decref(claims);
    return out;
}

char *lti_deep_link_autopost(const char *return_url, const char *jwt, const char *script_nonce,
                             size_t *len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f)
        return NULL;
    fprintf(f, page_head, "Placing the exercise", "Placing the exercise in the course");
    fputs("<form id=\"answer\" method=\"post\" action=\"", f);
    bool ok = put_escaped(f, return_url);
    fputs("\"><input type=\"hidden\" name=\"JWT\" value=\"", f);
    ok = ok && put_escaped(f, jwt);
    fputs("\"><p>Back to the course… If nothing happens, press "
          "<button type=\"submit\">Continue</button>.</p></form>", f);
    fputs("<script nonce=\"", f);
    ok = ok && put_escaped(f, script_nonce);
    fputs("\">document.getElementById(\"answer\").submit();</script></main></body></html>\n",
          f);
    if (fclose(f) != 0 || !ok || !text) {
        free(text);
        return NULL;
    }
    *len = n;
    return text;
}

char *lti_deep_link_autopost_csp(const char *return_url, const char *script_nonce,
                                 const char *frame_ancestors)
{
    char origin[LTI_ORIGIN_SIZE];
    if (!lti_config_url_origin(return_url, origin, sizeof origin))
        return NULL;
    char *csp = NULL;
    if (asprintf(&csp, "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-%s'; "
                 "form-action %s; frame-ancestors %s; base-uri 'none'", script_nonce, origin,
                 frame_ancestors ? frame_ancestors : "'none'") < 0)
        return NULL;
    return csp;
}

json_t *lti_deep_link_canvas(const char *public_url)
{
    /* Canvas's domain is the host alone */
    struct lti_tool_urls u;
    lti_config_tool_urls(public_url, false, &u);
    const char *login = u.login, *launch = u.launch, *jwks = u.jwks, *domain = u.domain;
    json_t *placements = json_array();
    const char *where[] = { "link_selection", "assignment_selection" };
    for (size_t i = 0; placements && i < sizeof where / sizeof where[0]; i++)
        json_array_append_new(placements, json_pack("{s:s, s:s, s:s, s:s}",
                                                     "placement", where[i],
                                                     "message_type", "LtiDeepLinkingRequest",
                                                     "target_link_uri", launch,
                                                     "text", LTI_TOOL_TITLE));
    /* scopes: scores; line items read and made (a link whose launch names
     * only the course's line items gets one the tool makes, lti_ags.c);
     * the course's roster (lti_nrps.c). custom_fields: Canvas fills in
     * the assignment's due date for each student (docs/LTI.md) */
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:[s, s, s, s], s:[{s:s, s:s, s:s, s:s, "
                     "s:{s:s, s:s, s:o}}], s:{s:s}}",
                     "title", LTI_TOOL_TITLE, "description", LTI_TOOL_DESCRIPTION,
                     "oidc_initiation_url", login, "target_link_uri", launch,
                     "public_jwk_url", jwks,
                     "scopes", AGS_SCOPE "score", AGS_SCOPE "lineitem.readonly",
                     AGS_SCOPE "lineitem", LTI_NRPS_SCOPE,
                     "extensions", "platform", "canvas.instructure.com", "domain", domain,
                     "tool_id", "butterfly-grader", "privacy_level", LTI_CANVAS_PRIVACY,
                     "settings", "platform", "canvas.instructure.com", "text", LTI_TOOL_TITLE,
                     "placements", placements,
                     "custom_fields", "due_at", "$Canvas.assignment.dueAt.iso8601");
}
