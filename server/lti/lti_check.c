/*
 * lti_check.c - the claims of a launch, checked one by one as 1EdTech's
 * Security Framework (5.1.3) and LTI Core 1.3 ask; and the small parsers
 * of a launch's form and cookie. Pure functions: no network, no store.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <orcania.h>

#include "common/defaults.h"
#include "common/due/iso8601.h"
#include "common/exercise/exercise.h"
#include "server/lti/lti.h"

#define CLAIM "https://purl.imsglobal.org/spec/lti/claim/"
#define AGS_CLAIM "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
#define AGS_SCORE_SCOPE "https://purl.imsglobal.org/spec/lti-ags/scope/score"
#define AGS_LINEITEM_SCOPE "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
#define ROLE_MEMBERSHIP "http://purl.imsglobal.org/vocab/lis/v2/membership#"
#define DL_SETTINGS "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
#define NRPS_CLAIM "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"

/* Every reason a launch is refused for, each with the page's sentence
 * when its check has no more precise one. The order is docs/LTI.md's. */
const struct lti_reason lti_check_reasons[LTI_NREASONS] = {
    [LTI_R_TOO_LARGE] = { "too_large", "The id_token is over 64 KiB." },
    [LTI_R_NOT_A_JWT] = { "not_a_jwt", "The id_token is not a signed JWT." },
    [LTI_R_STATE_COOKIE] = { "state_cookie", "The browser sent no state cookie: it may block cookies inside the "
                      "course's page." },
    [LTI_R_STATE] = { "state", "The state is not one of this tool's logins, was used already, or expired." },
    [LTI_R_ALG_NONE] = { "alg_none", "The id_token is unsigned (alg none): an unsigned token is refused." },
    [LTI_R_KEY_HEADER] = { "key_header", "The id_token's header names a key or a key's address (jku, x5u, jwk, "
                    "x5c): only the platform's registered key set is used." },
    [LTI_R_ALG] = { "alg", "The id_token is not signed with RS256." },
    [LTI_R_KID] = { "kid", "The key the id_token names (kid) is not in the platform's key set." },
    [LTI_R_KEY_SET] = { "key_set", "The platform's key set could not be fetched." },
    [LTI_R_SIGNATURE] = { "signature", "The id_token's signature is not the platform key's." },
    [LTI_R_ISS] = { "iss", "The issuer (iss) is not the registered platform's." },
    [LTI_R_AUD] = { "aud", "The audience (aud) does not hold this tool's client_id." },
    [LTI_R_AZP] = { "azp", "The authorised party (azp) is not this tool's client_id." },
    [LTI_R_EXP] = { "exp", "The id_token has expired (exp), or has no exp." },
    [LTI_R_IAT] = { "iat", "The id_token was issued in the future (iat, beyond 60 s of skew), or has no "
             "iat." },
    [LTI_R_NONCE] = { "nonce", "The nonce is not the one this login made." },
    [LTI_R_VERSION] = { "version", "The LTI version is missing or not 1.3.0." },
    [LTI_R_MESSAGE_TYPE] = { "message_type", "Only LtiResourceLinkRequest and LtiDeepLinkingRequest "
                     "launches are taken." },
    [LTI_R_DEPLOYMENT_ID] = { "deployment_id", "The deployment_id is not registered with this tool." },
    [LTI_R_SUB] = { "sub", "The subject (sub) is missing." },
    [LTI_R_ROLES] = { "roles", "The roles claim is missing." },
    [LTI_R_RESOURCE_LINK] = { "resource_link", "The resource_link id is missing." },
    [LTI_R_DEEP_LINKING_ROLE] = { "deep_linking_role", "Only an instructor of the course may place "
                          "an exercise (a deep-linking request from a learner)." },
    [LTI_R_DEEP_LINKING_SETTINGS] = { "deep_linking_settings", "The deep-linking request has no "
                              "valid deep_linking_settings (a deep_link_return_url at the "
                              "platform's address, accept_types with ltiResourceLink)." },
    [LTI_R_TARGET_LINK_URI] = { "target_link_uri", "The target_link_uri is not the login's." },
    [LTI_R_EXERCISE] = { "exercise", "The link's custom parameter exercise names no exercise "
                         "this tool has: set it to the id of one (GET /api/tasks lists them)." },
    [LTI_R_UNREGISTERED] = { "unregistered", "The platform is no longer registered." },
    [LTI_R_STORE] = { "store", "The tool cannot keep the launch now." },
    [LTI_R_BUSY] = { "busy", "The tool is too busy; try again shortly." },
};

const char *lti_check_reason_code(enum lti_reason_id id)
{
    return id > LTI_ACCEPTED && id < LTI_NREASONS ? lti_check_reasons[id].code : "";
}

enum lti_reason_id lti_check_reason_find(const char *code)
{
    for (int i = LTI_ACCEPTED + 1; code && i < LTI_NREASONS; i++)
        if (!strcmp(lti_check_reasons[i].code, code))
            return (enum lti_reason_id)i;
    return LTI_ACCEPTED;
}

bool lti_check_refuse(struct lti_refusal *why, enum lti_reason_id code, const char *message)
{
    bool known = code > LTI_ACCEPTED && code < LTI_NREASONS;
    why->code = code;
    snprintf(why->message, sizeof why->message, "%s",
             message ? message
                     : known ? lti_check_reasons[code].message : "The launch was refused.");
    return false;
}

bool lti_check_token_unsigned(const char *token)
{
    size_t n = strcspn(token, ".");
    unsigned char head[1024];
    size_t len = 0;
    if (!token[n] || n == 0 || n > 4 * (sizeof head - 8) / 3 ||
        !o_base64url_decode((const unsigned char *)token, n, head, &len))
        return false;
    json_t *h = json_loadb((const char *)head, len, 0, NULL);
    const char *alg = json_string_value(json_object_get(h, "alg"));
    /* "None" and "NONE" are the same forgery, tried on libraries that
     * compare case-sensitively */
    bool none = alg && !strcasecmp(alg, "none");
    json_decref(h);
    return none;
}

/* Whether the n bytes at s are base64url's alphabet alone (no padding):
 * the only form a JWS part has, and one every decoder reads alike. */
static bool base64url_only(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!isalnum(c) && c != '-' && c != '_')
            return false;
    }
    return true;
}

bool lti_check_token_header(const char *token, struct lti_refusal *why)
{
    if (lti_check_token_unsigned(token))
        return lti_check_refuse(why, LTI_R_ALG_NONE, NULL);
    const char *dot1 = strchr(token, '.');
    const char *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
    size_t n = dot1 ? (size_t)(dot1 - token) : 0;
    /* a compact JWS and nothing else: a JWE (five parts) or a JSON
     * serialisation would be parsed by other paths of the library */
    if (!dot2 || strchr(dot2 + 1, '.') || n == 0 || n > LTI_MAX_JWT_HEADER ||
        dot2 == dot1 + 1 || !dot2[1] || !base64url_only(token, n) ||
        !base64url_only(dot1 + 1, (size_t)(dot2 - dot1 - 1)) ||
        !base64url_only(dot2 + 1, strlen(dot2 + 1)))
        return lti_check_refuse(why, LTI_R_NOT_A_JWT, NULL);
    unsigned char head[LTI_MAX_JWT_HEADER];
    size_t len = 0;
    if (!o_base64url_decode((const unsigned char *)token, n, head, &len))
        return lti_check_refuse(why, LTI_R_NOT_A_JWT, NULL);
    /* the header as the library will read it (jansson too): one object,
     * no member twice, so no second "jku" hides behind a first */
    json_t *h = json_loadb((const char *)head, len, JSON_REJECT_DUPLICATES, NULL);
    bool object = json_is_object(h);
    /* jku and x5u are addresses the library would fetch while parsing (a
     * blind SSRF open to anyone who knows an issuer); jwk and x5c are
     * keys the token brings for itself */
    static const char *const named[] = { "jku", "x5u", "jwk", "x5c" };
    const char *found = NULL;
    for (size_t i = 0; object && !found && i < sizeof named / sizeof *named; i++)
        if (json_object_get(h, named[i]))
            found = named[i];
    json_decref(h);
    if (!object)
        return lti_check_refuse(why, LTI_R_NOT_A_JWT,
                                "The id_token's header is not a JSON object.");
    if (found) {
        char msg[200];
        snprintf(msg, sizeof msg, "The id_token's header names a key or a key's address (%s): "
                 "only the platform's registered key set is used.", found);
        return lti_check_refuse(why, LTI_R_KEY_HEADER, msg);
    }
    why->code = LTI_ACCEPTED;
    why->message[0] = '\0';
    return true;
}

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s && strlen(s) <= 1024 ? s : NULL;
}

/* Whether a role names an instructor or a teaching assistant of the
 * context (LIS v2 membership roles; the short forms LTI allows too). */
static bool teaches(const char *role)
{
    return !strcmp(role, ROLE_MEMBERSHIP "Instructor") ||
           !strcmp(role, ROLE_MEMBERSHIP "ContentDeveloper") ||
           !strcmp(role, ROLE_MEMBERSHIP "Administrator") ||
           !strncmp(role, "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#", 61) ||
           !strcmp(role, "Instructor") || !strcmp(role, "TeachingAssistant");
}

/* Reads a deep-linking request's settings into out: false unless they
 * name a return URL at one of p's origins (the tool's signed answer is
 * posted there by the browser: an address the platform does not serve
 * would collect it) and accept an ltiResourceLink, and any data is a
 * string of at most LTI_MAX_DL_DATA bytes (echoed as it came). */
static bool deep_linking_settings(const json_t *claims, const struct lti_platform *p,
                                  struct lti_claims *out)
{
    json_t *dl = json_object_get(claims, DL_SETTINGS);
    const char *ret = str(dl, "deep_link_return_url");
    if (!json_is_object(dl) || !ret || !lti_config_allows(p, ret))
        return false;
    json_t *types = json_object_get(dl, "accept_types"), *v;
    bool link = false;
    size_t i;
    json_array_foreach(types, i, v)
        link = link || (json_is_string(v) && !strcmp(json_string_value(v), "ltiResourceLink"));
    json_t *data = json_object_get(dl, "data");
    if (!link || (data && !json_is_string(data)) ||
        (data && strlen(json_string_value(data)) > LTI_MAX_DL_DATA))
        return false;
    out->deep_linking = true;
    out->deep_link_return_url = ret;
    out->deep_link_data = data ? json_string_value(data) : NULL;
    return true;
}

bool lti_check_claims(const json_t *claims, const struct lti_platform *p, const char *nonce,
                      const char *target_link_uri, time_t now, struct lti_claims *out,
                      struct lti_refusal *why)
{
    memset(out, 0, sizeof *out);
    why->code = LTI_ACCEPTED;
    why->message[0] = '\0';
    if (!json_is_object(claims))
        return lti_check_refuse(why, LTI_R_NOT_A_JWT,
                                "The id_token's claims are not a JSON object.");
    const char *iss = str(claims, "iss");
    if (!iss || strcmp(iss, p->issuer))
        return lti_check_refuse(why, LTI_R_ISS, NULL);
    json_t *aud = json_object_get(claims, "aud");
    bool has = false;
    if (json_is_string(aud)) {
        has = !strcmp(json_string_value(aud), p->client_id);
    } else if (json_is_array(aud)) {
        size_t i;
        json_t *v;
        json_array_foreach(aud, i, v)
            has = has || (json_is_string(v) && !strcmp(json_string_value(v), p->client_id));
    }
    if (!has)
        return lti_check_refuse(why, LTI_R_AUD, NULL);
    const char *azp = str(claims, "azp");
    if (json_is_array(aud) && (!azp || strcmp(azp, p->client_id)))
        return lti_check_refuse(why, LTI_R_AZP,
                                "The audience is a list, and azp is not this tool's "
                                "client_id.");
    if (azp && strcmp(azp, p->client_id))
        return lti_check_refuse(why, LTI_R_AZP, NULL);
    json_t *exp = json_object_get(claims, "exp"), *iat = json_object_get(claims, "iat");
    if (!json_is_number(exp) || json_number_value(exp) <= (double)now)
        return lti_check_refuse(why, LTI_R_EXP, NULL);
    if (!json_is_number(iat) || json_number_value(iat) > (double)now + LTI_CLOCK_SKEW_S)
        return lti_check_refuse(why, LTI_R_IAT, NULL);
    const char *n = str(claims, "nonce");
    if (!n || !nonce || strcmp(n, nonce))
        return lti_check_refuse(why, LTI_R_NONCE, NULL);
    const char *version = str(claims, CLAIM "version");
    if (!version || strcmp(version, "1.3.0"))
        return lti_check_refuse(why, LTI_R_VERSION, NULL);
    const char *mt = str(claims, CLAIM "message_type");
    if (!mt)
        return lti_check_refuse(why, LTI_R_MESSAGE_TYPE, "The message_type is missing.");
    bool deep = !strcmp(mt, "LtiDeepLinkingRequest");
    if (!deep && strcmp(mt, "LtiResourceLinkRequest"))
        return lti_check_refuse(why, LTI_R_MESSAGE_TYPE, NULL);
    const char *dep = str(claims, CLAIM "deployment_id");
    if (!dep)
        return lti_check_refuse(why, LTI_R_DEPLOYMENT_ID, "The deployment_id is missing.");
    /* a platform that registered itself naming no deployment (Canvas
     * names it at install): any of that client's is its */
    bool known = p->n_deployments == 0 && *dep;
    for (size_t i = 0; i < p->n_deployments; i++)
        known = known || !strcmp(p->deployment_ids[i], dep);
    if (!known)
        return lti_check_refuse(why, LTI_R_DEPLOYMENT_ID, NULL);
    const char *sub = str(claims, "sub");
    if (!sub || !*sub)
        return lti_check_refuse(why, LTI_R_SUB, NULL);
    json_t *roles = json_object_get(claims, CLAIM "roles");
    if (!json_is_array(roles))
        return lti_check_refuse(why, LTI_R_ROLES, NULL);
    size_t i;
    json_t *v;
    json_array_foreach(roles, i, v)
        if (json_is_string(v) && teaches(json_string_value(v)))
            out->instructor = true;
    /* a deep-linking request places no link of its own: it asks for one */
    const char *rl = deep ? NULL : str(json_object_get(claims, CLAIM "resource_link"), "id");
    if (!deep && (!rl || !*rl))
        return lti_check_refuse(why, LTI_R_RESOURCE_LINK, NULL);
    /* placing an exercise makes a gradebook column: the course's
     * teachers' choice, never a learner's */
    if (deep && !out->instructor)
        return lti_check_refuse(why, LTI_R_DEEP_LINKING_ROLE, NULL);
    if (deep && !deep_linking_settings(claims, p, out))
        return lti_check_refuse(why, LTI_R_DEEP_LINKING_SETTINGS, NULL);
    const char *target = str(claims, CLAIM "target_link_uri");
    if (!target || !target_link_uri || strcmp(target, target_link_uri))
        return lti_check_refuse(why, LTI_R_TARGET_LINK_URI, NULL);
    out->sub = sub;
    out->deployment_id = dep;
    out->resource_link_id = rl;
    out->name = str(claims, "name");
    if (!out->name || !*out->name)
        out->name = "";
    out->email = str(claims, "email");
    if (!out->email)
        out->email = "";
    json_t *ctx = json_object_get(claims, CLAIM "context");
    out->context_id = str(ctx, "id");
    if (!out->context_id)
        out->context_id = "";
    out->context_title = str(ctx, "title");
    if (!out->context_title)
        out->context_title = "";
    out->resource_link_title = str(json_object_get(claims, CLAIM "resource_link"), "title");
    /* the link's due date, from the custom parameter due_at (docs/LTI.md):
     * one the tool cannot read is none, not a refused launch */
    int64_t due = 0;
    const char *due_at = str(json_object_get(claims, CLAIM "custom"), "due_at");
    if (due_at && lti_check_iso8601_ms(due_at, &due) && due > 0)
        out->due_ms = due;
    /* the link's exercise (docs/LTI.md): unlike a due date, one the tool
     * does not have refuses the launch, since its scores would go to a
     * column of an exercise nobody can submit */
    json_t *ex = json_object_get(json_object_get(claims, CLAIM "custom"), "exercise");
    if (ex) {
        const char *id = json_string_value(ex);
        if (!id || !*id || strlen(id) > EX_ID_MAX || !exercise_find(id))
            return lti_check_refuse(why, LTI_R_EXERCISE, NULL);
        out->exercise = exercise_find(id)->id;
    }
    json_t *ags = json_object_get(claims, AGS_CLAIM);
    json_t *scopes = json_object_get(ags, "scope");
    const char *li = str(ags, "lineitem"), *lis = str(ags, "lineitems");
    bool score = false, make = false;
    json_array_foreach(scopes, i, v) {
        score = score || (json_is_string(v) && !strcmp(json_string_value(v), AGS_SCORE_SCOPE));
        make = make || (json_is_string(v) && !strcmp(json_string_value(v), AGS_LINEITEM_SCOPE));
    }
    /* the launch's line item when it names one (Moodle's "grade sync
     * only" names it and withholds the lineitem scope); else, with the
     * lineitem scope, the platform's line items, where the tool makes the
     * link's own */
    if (score && li && (!strncmp(li, "https://", 8) || !strncmp(li, "http://", 7)))
        out->lineitem = li;
    else if (score && make && lis && (!strncmp(lis, "https://", 8) || !strncmp(lis, "http://", 7)))
        out->lineitems = lis;
    /* the roster's address: read later, and only at the registration's
     * origins (lti_fetch), so a launch cannot aim the tool's token elsewhere */
    const char *mu = str(json_object_get(claims, NRPS_CLAIM), "context_memberships_url");
    if (mu && (!strncmp(mu, "https://", 8) || !strncmp(mu, "http://", 7)))
        out->memberships_url = mu;
    return true;
}

bool lti_check_iso8601_ms(const char *t, int64_t *ms)
{
    return iso8601_ms(t, ms);
}

bool lti_check_role_teaches(const char *role)
{
    return role && teaches(role);
}

bool lti_check_role_learns(const char *role)
{
    return role && (!strcmp(role, ROLE_MEMBERSHIP "Learner") || !strcmp(role, "Learner") ||
                    !strncmp(role, "http://purl.imsglobal.org/vocab/lis/v2/membership/Learner#",
                             57));
}

bool lti_check_roster_member(const json_t *member, const char **sub, bool *learner)
{
    *sub = str(member, "user_id");
    *learner = false;
    if (!*sub || !**sub)
        return false;
    const char *status = str(member, "status");
    bool learns = false, teaching = false;
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(member, "roles"), i, v) {
        learns = learns || lti_check_role_learns(json_string_value(v));
        teaching = teaching || lti_check_role_teaches(json_string_value(v));
    }
    /* NRPS: status absent is Active; Inactive and Deleted are not in the class */
    *learner = learns && !teaching && (!status || !strcmp(status, "Active"));
    return true;
}

/* Skips spaces and tabs. */
static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

bool lti_check_link_next(const char *value, char *out, size_t outsz)
{
    const char *p = value;
    while (p && *p) {
        p = skip_ws(p);
        if (*p != '<')
            return false;
        const char *end = strchr(p + 1, '>');
        if (!end)
            return false;
        const char *uri = p + 1;
        size_t len = (size_t)(end - uri);
        bool next = false;
        p = end + 1;
        /* the link's parameters, up to the next link (a comma outside quotes) */
        while (*p && *p != ',') {
            p = skip_ws(p);
            if (*p == ';') {
                p++;
                continue;
            }
            const char *name = p;
            while (*p && *p != '=' && *p != ';' && *p != ',')
                p++;
            size_t nl = (size_t)(p - name);
            while (nl && (name[nl - 1] == ' ' || name[nl - 1] == '\t'))
                nl--;
            char val[256];
            size_t vl = 0;
            if (*p == '=') {
                p = skip_ws(p + 1);
                bool quoted = *p == '"';
                if (quoted)
                    p++;
                while (*p && (quoted ? *p != '"' : (*p != ';' && *p != ',' && *p != ' '))) {
                    if (vl + 1 < sizeof val)
                        val[vl++] = *p;
                    p++;
                }
                if (quoted && *p == '"')
                    p++;
            }
            val[vl] = '\0';
            if (nl == 3 && !strncasecmp(name, "rel", 3)) {
                /* rel is a space-separated list of relation types */
                char *save = NULL;
                for (char *tok = strtok_r(val, " \t", &save); tok;
                     tok = strtok_r(NULL, " \t", &save))
                    next = next || !strcasecmp(tok, "next");
            }
        }
        if (next) {
            if (len + 1 > outsz || !len)
                return false;
            memcpy(out, uri, len);
            out[len] = '\0';
            return true;
        }
        if (*p == ',')
            p++;
    }
    return false;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool lti_check_form_value(const char *body, size_t len, const char *name, char *out, size_t outsz)
{
    size_t nl = strlen(name), i = 0;
    while (i < len) {
        size_t end = i;
        while (end < len && body[end] != '&')
            end++;
        if (end - i > nl && !memcmp(body + i, name, nl) && body[i + nl] == '=') {
            size_t o = 0;
            for (size_t k = i + nl + 1; k < end; k++) {
                char c = body[k];
                if (c == '+') {
                    c = ' ';
                } else if (c == '%' && k + 2 < end && hexval(body[k + 1]) >= 0 &&
                           hexval(body[k + 2]) >= 0) {
                    c = (char)(hexval(body[k + 1]) * 16 + hexval(body[k + 2]));
                    k += 2;
                }
                if (c == '\0' || o + 1 >= outsz)
                    return false;
                out[o++] = c;
            }
            out[o] = '\0';
            return true;
        }
        i = end + 1;
    }
    return false;
}
