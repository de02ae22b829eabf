/*
 * test_lti_check.c - the pure parts of LTI 1.3 (server/lti_check.c,
 * server/lti_config.c): every claim check on its own, the registration
 * file and the origins its calls may go to, the id_token's header read
 * before any library does, and the launch form's parser. The signature and the whole flow
 * are the lti suite's (tests/lti/test_lti.py, against a platform).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/defaults.h"
#include "server/lti/lti.h"

#define CLAIM "https://purl.imsglobal.org/spec/lti/claim/"
#define NOW 1800000000

static const char config_text[] =
    "{\"platforms\": [{\"name\": \"Canvas\", \"issuer\": \"https://canvas.instructure.com\","
    " \"client_id\": \"10000000000001\", \"deployment_ids\": [\"1:abc\", \"2:def\"],"
    " \"auth_login_url\": \"https://sso.canvaslms.com/api/lti/authorize_redirect\","
    " \"auth_token_url\": \"https://sso.canvaslms.com/login/oauth2/token\","
    " \"key_set_url\": \"https://sso.canvaslms.com/api/lti/security/jwks\","
    " \"frame_origins\": [\"https://school.instructure.com\", \"https://*.example.edu:8443\"],"
    " \"service_origins\": [\"https://School.Instructure.com\"]},"
    " {\"name\": \"Other Canvas\", \"issuer\": \"https://canvas.instructure.com\","
    " \"client_id\": \"10000000000002\", \"deployment_ids\": [\"9:x\"],"
    " \"auth_login_url\": \"https://a.example/auth\", \"auth_token_url\": \"https://a.example/t\","
    " \"key_set_url\": \"https://a.example/k\"}]}";

static struct lti_config cfg;

static json_t *good_claims(void)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:s, s:s, s:s, s:[s], s:{s:s}, s:s,"
                     " s:{s:s, s:s}, s:{s:[s], s:s}}",
                     "iss", "https://canvas.instructure.com", "aud", "10000000000001",
                     "sub", "u-1", "nonce", "N1", "iat", NOW, "exp", NOW + 300,
                     CLAIM "version", "1.3.0", CLAIM "message_type", "LtiResourceLinkRequest",
                     CLAIM "deployment_id", "2:def",
                     CLAIM "roles", "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner",
                     CLAIM "resource_link", "id", "rl-1",
                     CLAIM "target_link_uri", "https://tool.example/lti/launch",
                     CLAIM "context", "id", "c-1", "title", "FFT",
                     "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint", "scope",
                     "https://purl.imsglobal.org/spec/lti-ags/scope/score", "lineitem",
                     "https://canvas.example/li/1");
}

/* The check that fails once the claims are changed by fn, NULL if none. */
static const char *failing(void (*fn)(json_t *c))
{
    json_t *c = good_claims();
    if (fn)
        fn(c);
    struct lti_claims out;
    struct lti_refusal why;
    bool ok = lti_check_claims(c, &cfg.p[0], "N1", "https://tool.example/lti/launch", NOW,
                               &out, &why);
    json_decref(c);
    if (!ok)
        assert_true(why.code > LTI_ACCEPTED && why.code < LTI_NREASONS);   /* a listed reason */
    return ok ? NULL : lti_check_reason_code(why.code);
}

#define MUTATION(name, body) static void name(json_t *c) { body; }
MUTATION(no_iss, json_object_del(c, "iss"))
MUTATION(bad_iss, json_object_set_new(c, "iss", json_string("https://canvas.instructure.co")))
MUTATION(bad_aud, json_object_set_new(c, "aud", json_string("10000000000002")))
MUTATION(list_aud, json_object_set_new(c, "aud", json_pack("[s, s]", "10000000000001", "x")))
MUTATION(list_aud_azp, json_object_set_new(c, "aud", json_pack("[s, s]", "10000000000001", "x"));
         json_object_set_new(c, "azp", json_string("10000000000001")))
MUTATION(bad_azp, json_object_set_new(c, "azp", json_string("x")))
MUTATION(expired, json_object_set_new(c, "exp", json_integer(NOW)))
MUTATION(no_exp, json_object_del(c, "exp"))
MUTATION(iat_ahead, json_object_set_new(c, "iat", json_integer(NOW + 61)))
MUTATION(iat_skew, json_object_set_new(c, "iat", json_integer(NOW + 60)))
MUTATION(bad_nonce, json_object_set_new(c, "nonce", json_string("N2")))
MUTATION(bad_version, json_object_set_new(c, CLAIM "version", json_string("1.3.1")))
MUTATION(no_type, json_object_del(c, CLAIM "message_type"))
MUTATION(deep_link, json_object_set_new(c, CLAIM "message_type",
                                        json_string("LtiDeepLinkingRequest")))
MUTATION(other_type, json_object_set_new(c, CLAIM "message_type",
                                        json_string("LtiSubmissionReviewRequest")))
#define DL_SETTINGS "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
/* an instructor's deep-linking request, its settings as given (NULL: none) */
static void deep_as_teacher(json_t *c, json_t *settings)
{
    json_object_set_new(c, CLAIM "message_type", json_string("LtiDeepLinkingRequest"));
    json_object_set_new(c, CLAIM "roles", json_pack(
        "[s]", "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"));
    json_object_del(c, CLAIM "resource_link");
    if (settings)
        json_object_set_new(c, DL_SETTINGS, settings);
}
/* settings a platform sends: a return URL at the registration's origin */
static json_t *dl_ok(void)
{
    return json_pack("{s:s, s:[s, s]}", "deep_link_return_url",
                     "https://school.instructure.com/courses/1/deep_linking_response",
                     "accept_types", "html", "ltiResourceLink");
}
static json_t *dl_with(const char *key, json_t *value)
{
    json_t *d = dl_ok();
    json_object_set_new(d, key, value);
    return d;
}
MUTATION(deep_ok, deep_as_teacher(c, dl_with("data", json_string("d-1"))))
MUTATION(deep_no_data, deep_as_teacher(c, dl_ok()))
MUTATION(deep_no_settings, deep_as_teacher(c, NULL))
MUTATION(deep_not_object, deep_as_teacher(c, json_string("x")))
MUTATION(deep_no_return, deep_as_teacher(c, json_pack("{s:[s]}", "accept_types",
                                                      "ltiResourceLink")))
MUTATION(deep_other_origin, deep_as_teacher(c, json_pack("{s:s, s:[s]}", "deep_link_return_url",
                                                         "https://evil.example/return",
                                                         "accept_types", "ltiResourceLink")))
MUTATION(deep_script, deep_as_teacher(c, json_pack("{s:s, s:[s]}", "deep_link_return_url",
                                                   "javascript:alert(1)", "accept_types",
                                                   "ltiResourceLink")))
MUTATION(deep_no_link_type, deep_as_teacher(c, json_pack("{s:s, s:[s]}", "deep_link_return_url",
                                                         "https://school.instructure.com/r",
                                                         "accept_types", "file")))
MUTATION(deep_data_number, deep_as_teacher(c, dl_with("data", json_integer(7))))
MUTATION(other_deployment, json_object_set_new(c, CLAIM "deployment_id", json_string("9:x")))
MUTATION(no_sub, json_object_set_new(c, "sub", json_string("")))
MUTATION(no_roles, json_object_del(c, CLAIM "roles"))
MUTATION(empty_roles, json_object_set_new(c, CLAIM "roles", json_array()))
MUTATION(no_link, json_object_set_new(c, CLAIM "resource_link", json_object()))
MUTATION(other_target, json_object_set_new(c, CLAIM "target_link_uri",
                                           json_string("https://tool.example/")))

static void each_check(void **state)
{
    (void)state;
    assert_null(failing(NULL));
    assert_string_equal(failing(no_iss), "iss");
    assert_string_equal(failing(bad_iss), "iss");
    assert_string_equal(failing(bad_aud), "aud");
    assert_string_equal(failing(list_aud), "azp");
    assert_null(failing(list_aud_azp));
    assert_string_equal(failing(bad_azp), "azp");
    assert_string_equal(failing(expired), "exp");
    assert_string_equal(failing(no_exp), "exp");
    assert_string_equal(failing(iat_ahead), "iat");
    assert_null(failing(iat_skew));   /* LTI_CLOCK_SKEW_S is 60 */
    assert_string_equal(failing(bad_nonce), "nonce");
    assert_string_equal(failing(bad_version), "version");
    assert_string_equal(failing(no_type), "message_type");
    assert_string_equal(failing(other_type), "message_type");
    /* Deep Linking (issue 34): a learner's request, then an instructor's */
    assert_string_equal(failing(deep_link), "deep_linking_role");
    assert_null(failing(deep_ok));
    assert_null(failing(deep_no_data));
    assert_string_equal(failing(deep_no_settings), "deep_linking_settings");
    assert_string_equal(failing(deep_not_object), "deep_linking_settings");
    assert_string_equal(failing(deep_no_return), "deep_linking_settings");
    assert_string_equal(failing(deep_other_origin), "deep_linking_settings");
    assert_string_equal(failing(deep_script), "deep_linking_settings");
    assert_string_equal(failing(deep_no_link_type), "deep_linking_settings");
    assert_string_equal(failing(deep_data_number), "deep_linking_settings");
    assert_string_equal(failing(other_deployment), "deployment_id");
    assert_string_equal(failing(no_sub), "sub");
    assert_string_equal(failing(no_roles), "roles");
    assert_null(failing(empty_roles));   /* present, even empty: an anonymous learner */
    assert_string_equal(failing(no_link), "resource_link");
    assert_string_equal(failing(other_target), "target_link_uri");
}

static void what_a_launch_says(void **state)
{
    (void)state;
    json_t *c = good_claims();
    struct lti_claims out;
    struct lti_refusal why;
    assert_true(lti_check_claims(c, &cfg.p[0], "N1", "https://tool.example/lti/launch", NOW,
                                 &out, &why));
    assert_string_equal(out.sub, "u-1");
    assert_string_equal(out.name, "");
    assert_string_equal(out.context_id, "c-1");
    assert_string_equal(out.lineitem, "https://canvas.example/li/1");
    assert_false(out.instructor);
    json_object_set_new(c, CLAIM "roles", json_pack("[s]",
        "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"));
    json_object_del(c, "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint");
    assert_true(lti_check_claims(c, &cfg.p[0], "N1", "https://tool.example/lti/launch", NOW,
                                 &out, &why));
    assert_true(out.instructor);
    assert_null(out.lineitem);
    json_decref(c);
}

/* What an instructor's deep-linking request says: where the answer goes
 * and the data to echo, no resource link of its own. */
static void what_a_deep_linking_request_says(void **state)
{
    (void)state;
    json_t *c = good_claims();
    deep_ok(c);
    struct lti_claims out;
    struct lti_refusal why;
    assert_true(lti_check_claims(c, &cfg.p[0], "N1", "https://tool.example/lti/launch", NOW,
                                 &out, &why));
    assert_true(out.deep_linking && out.instructor);
    assert_null(out.resource_link_id);
    assert_string_equal(out.deep_link_return_url,
                        "https://school.instructure.com/courses/1/deep_linking_response");
    assert_string_equal(out.deep_link_data, "d-1");
    json_decref(c);
    c = good_claims();
    assert_true(lti_check_claims(c, &cfg.p[0], "N1", "https://tool.example/lti/launch", NOW,
                                 &out, &why));
    assert_false(out.deep_linking);   /* a resource link's launch */
    json_decref(c);
}

static void registrations(void **state)
{
    (void)state;
    const struct lti_platform *p;
    p = lti_config_find(&cfg, "https://canvas.instructure.com", "10000000000002");
    assert_non_null(p);
    assert_string_equal(p->name, "Other Canvas");
    /* one issuer for every hosted Canvas: the client_id decides */
    assert_null(lti_config_find(&cfg, "https://canvas.instructure.com", NULL));
    assert_null(lti_config_find(&cfg, "https://canvas.instructure.com", "3"));
    assert_null(lti_config_find(&cfg, "https://other.example", "10000000000001"));
    struct lti_config c;
    char err[200];
    assert_false(lti_config_parse("{\"platforms\": []}", 16, &c, err, sizeof err));
    assert_false(lti_config_parse("{\"platforms\": [{\"name\": \"x\"}]}", 30, &c, err,
                                  sizeof err));
    assert_non_null(strstr(err, "issuer"));
    assert_false(lti_config_parse("nope", 4, &c, err, sizeof err));
    /* the frames that may embed the pages: every platform's, as CSP lists them */
    assert_string_equal(cfg.frame_ancestors,
                        "https://school.instructure.com https://*.example.edu:8443");
    /* nothing that could end the directive or name a path */
    const char *bad[] = { "https://a.example; script-src *", "'self'", "https://a.example/x",
                          "ftp://a.example", "https://", "https://a.example:123456",
                          "https://a b" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[600];
        int n = snprintf(text, sizeof text,
                         "{\"platforms\": [{\"name\": \"x\", \"issuer\": \"i\", \"client_id\": \"c\","
                         " \"deployment_ids\": [\"d\"], \"auth_login_url\": \"https://a/\","
                         " \"auth_token_url\": \"https://a/\", \"key_set_url\": \"https://a/\","
                         " \"frame_origins\": [\"%s\"]}]}", bad[i]);
        assert_false(lti_config_parse(text, (size_t)n, &c, err, sizeof err));
        assert_non_null(strstr(err, "frame origin"));
    }
}

static void form_values(void **state)
{
    (void)state;
    const char body[] = "state=ab%2Fc&id_token=x.y.z&name=a+b%26c&bad=%zz&empty=";
    char out[32];
    assert_true(lti_check_form_value(body, strlen(body), "state", out, sizeof out));
    assert_string_equal(out, "ab/c");
    assert_true(lti_check_form_value(body, strlen(body), "id_token", out, sizeof out));
    assert_string_equal(out, "x.y.z");
    assert_true(lti_check_form_value(body, strlen(body), "name", out, sizeof out));
    assert_string_equal(out, "a b&c");
    assert_true(lti_check_form_value(body, strlen(body), "bad", out, sizeof out));
    assert_string_equal(out, "%zz");
    assert_true(lti_check_form_value(body, strlen(body), "empty", out, sizeof out));
    assert_string_equal(out, "");
    assert_false(lti_check_form_value(body, strlen(body), "stat", out, sizeof out));
    assert_false(lti_check_form_value(body, strlen(body), "id_token", out, 4));   /* too long */
    const char nul[] = "a=x%00y";
    assert_false(lti_check_form_value(nul, strlen(nul), "a", out, sizeof out));
}

/* An unsigned token is told apart from what is no JWT at all. */
static void unsigned_tokens(void **state)
{
    (void)state;
    /* {"alg":"none","typ":"JWT"}, {"alg":"NONE"}, {"alg":"RS256"}: each with a body */
    assert_true(lti_check_token_unsigned("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJ4In0."));
    assert_true(lti_check_token_unsigned("eyJhbGciOiJOT05FIn0.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"));
    assert_false(lti_check_token_unsigned("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"));
    assert_false(lti_check_token_unsigned("not.a.jwt"));
    assert_false(lti_check_token_unsigned("eyJhbGciOiJub25lIn0"));   /* no body */
    assert_false(lti_check_token_unsigned(""));
    assert_false(lti_check_token_unsigned(".x.y"));
}

/* A header naming a key or a key's address is refused before any library
 * reads it, however it is spelt; so is anything but a compact JWS. */
#define BODY ".eyJzdWIiOiJ4In0.c2ln"
static void token_headers(void **state)
{
    (void)state;
    struct lti_refusal why;
    static const struct { const char *token, *code; } cases[] = {
        { "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0" BODY, NULL },                 /* RS256, kid */
        { "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIiwiamt1IjoiaHR0cDovLzEwLjAuMC4xLyJ9" BODY,
          "key_header" },                                                    /* jku */
        { "eyJhbGciOiJSUzI1NiIsIng1dSI6Imh0dHA6Ly8xMC4wLjAuMS9jIn0" BODY, "key_header" },
        { "eyJhbGciOiJSUzI1NiIsImp3ayI6e319" BODY, "key_header" },            /* jwk */
        { "eyJhbGciOiJSUzI1NiIsIng1YyI6W119" BODY, "key_header" },            /* x5c */
        /* "\u006aku": jku in a JSON escape */
        { "eyJhbGciOiJSUzI1NiIsIlx1MDA2YWt1IjoiaHR0cDovLzEwLjAuMC4xLyJ9" BODY, "key_header" },
        { "eyJhbGciOiJSUzI1NiIsImtpZCI6ImEiLCJraWQiOiJiIn0" BODY, "not_a_jwt" },  /* kid twice */
        { "WzFd" BODY, "not_a_jwt" },                                        /* [1] */
        { "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", "alg_none" },
        { "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJ4In0.", "not_a_jwt" },   /* no sig */
        { "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0" BODY ".x.y", "not_a_jwt" },  /* five parts */
        { "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0=" BODY, "not_a_jwt" },        /* padding */
        { "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJ4In0+.c2ln", "not_a_jwt" },
        { "{\"alg\":\"RS256\"}" BODY, "not_a_jwt" },
        { "", "not_a_jwt" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bool ok = lti_check_token_header(cases[i].token, &why);
        if (!cases[i].code) {
            assert_true(ok);
        } else {
            assert_false(ok);
            assert_string_equal(lti_check_reason_code(why.code), cases[i].code);
        }
    }
    /* a header over its bound is not read */
    size_t n = LTI_MAX_JWT_HEADER + 8;
    char *big = malloc(n + sizeof BODY);
    assert_non_null(big);
    memset(big, 'A', n);
    memcpy(big + n, BODY, sizeof BODY);
    assert_false(lti_check_token_header(big, &why));
    assert_int_equal(why.code, LTI_R_NOT_A_JWT);
    free(big);
}

/* A registration's calls go to its own origins only, compared as libcurl
 * parses an address (scheme, host in any case, the port). */
static void origins(void **state)
{
    (void)state;
    const struct lti_platform *canvas = &cfg.p[0], *other = &cfg.p[1];
    static const struct { const char *url; bool ok; } cases[] = {
        { "https://school.instructure.com/api/lti/courses/1/line_items/2", true },
        { "https://SSO.canvaslms.com:443/login/oauth2/token", true },
        { "https://canvas.instructure.com/x", true },           /* the issuer's */
        { "http://school.instructure.com/x", false },           /* another scheme */
        { "https://school.instructure.com:8443/x", false },     /* another port */
        { "https://school.instructure.com@evil.example/x", false },
        { "https://evil.example/?https://school.instructure.com", false },
        { "https://school.instructure.com.evil.example/", false },
        { "https://a.example/k", false },                       /* the other registration's */
        { "file:///etc/passwd", false },
        { "gopher://school.instructure.com/", false },
        { "not a url", false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        assert_int_equal(lti_config_allows(canvas, cases[i].url), cases[i].ok);
    assert_true(lti_config_allows(other, "https://a.example/k"));
    assert_false(lti_config_allows(other, "https://school.instructure.com/x"));
    char o[LTI_ORIGIN_SIZE];
    assert_true(lti_config_url_origin("http://Host.Example/p?q", o, sizeof o));
    assert_string_equal(o, "http://host.example:80");
    /* a service origin is an origin: no path, user or wildcard */
    struct lti_config c;
    char err[200];
    static const char *const bad[] = { "https://x.example/path", "https://u@x.example",
                                       "https://*.x.example", "ftp://x.example", "x.example" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[700];
        snprintf(text, sizeof text, "{\"platforms\": [{\"name\": \"n\", \"issuer\": \"i\","
                 " \"client_id\": \"c\", \"deployment_ids\": [\"d\"],"
                 " \"auth_login_url\": \"https://a.example/l\","
                 " \"auth_token_url\": \"https://a.example/t\","
                 " \"key_set_url\": \"https://a.example/k\", \"service_origins\": [\"%s\"]}]}",
                 bad[i]);
        assert_false(lti_config_parse(text, strlen(text), &c, err, sizeof err));
        assert_non_null(strstr(err, "service origin"));
    }
}

/* Every reason is listed once; a refusal takes the reason's sentence
 * unless its check says more. */
static void reasons(void **state)
{
    (void)state;
    for (int i = LTI_ACCEPTED + 1; i < LTI_NREASONS; i++) {
        assert_non_null(lti_check_reasons[i].code);   /* every id has its row */
        assert_int_equal(lti_check_reason_find(lti_check_reasons[i].code), i);
        assert_true(strlen(lti_check_reasons[i].message) > 10);
    }
    assert_int_equal(lti_check_reason_find("alg_none"), LTI_R_ALG_NONE);
    assert_int_equal(lti_check_reason_find("no_such_reason"), LTI_ACCEPTED);
    assert_string_equal(lti_check_reason_code(LTI_ACCEPTED), "");
    struct lti_refusal why;
    assert_false(lti_check_refuse(&why, LTI_R_ALG_NONE, NULL));
    assert_string_equal(lti_check_reason_code(why.code), "alg_none");
    assert_non_null(strstr(why.message, "unsigned"));
    assert_false(lti_check_refuse(&why, LTI_R_KID, "More precise."));
    assert_string_equal(why.message, "More precise.");
}

/* The rel="next" of a Link header, as Canvas and Moodle page a roster. */
static void link_next(void **state)
{
    (void)state;
    char out[256];
    assert_true(lti_check_link_next("<https://p/m?page=1>; rel=\"first\", "
                                    "<https://p/m?page=2>; rel=\"next\"", out, sizeof out));
    assert_string_equal(out, "https://p/m?page=2");
    /* rel a list, unquoted, in any case, with other parameters */
    assert_true(lti_check_link_next("<https://p/a>; title=\"x, y\"; REL=\"prev next\"", out,
                                    sizeof out));
    assert_string_equal(out, "https://p/a");
    assert_true(lti_check_link_next(" <https://p/b> ;rel=next", out, sizeof out));
    assert_string_equal(out, "https://p/b");
    /* none: no next, a last only, not a link, too long for out */
    assert_false(lti_check_link_next("<https://p/m?page=9>; rel=\"last\"", out, sizeof out));
    assert_false(lti_check_link_next("", out, sizeof out));
    assert_false(lti_check_link_next("https://p/n; rel=next", out, sizeof out));
    assert_false(lti_check_link_next("<https://p/no-end; rel=next", out, sizeof out));
    assert_false(lti_check_link_next("<https://p/long/address>; rel=next", out, 8));
    assert_false(lti_check_link_next("<https://p/x>; rel=\"nextpage\"", out, sizeof out));
}

/* Who of a roster is a student: an active Learner with no teaching role. */
static void roster_members(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        bool ok, learner;
    } cases[] = {
        { "{\"user_id\":\"a\",\"roles\":[\"http://purl.imsglobal.org/vocab/lis/v2/membership#Learner\"]}",
          true, true },
        { "{\"user_id\":\"a\",\"status\":\"Active\",\"roles\":[\"Learner\"]}", true, true },
        { "{\"user_id\":\"a\",\"status\":\"Inactive\",\"roles\":[\"Learner\"]}", true, false },
        { "{\"user_id\":\"a\",\"status\":\"Deleted\",\"roles\":[\"Learner\"]}", true, false },
        { "{\"user_id\":\"a\",\"roles\":[\"http://purl.imsglobal.org/vocab/lis/v2/membership/"
          "Instructor#TeachingAssistant\"]}", true, false },
        { "{\"user_id\":\"a\",\"roles\":[\"http://purl.imsglobal.org/vocab/lis/v2/membership#Learner\","
          "\"http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor\"]}", true, false },
        { "{\"user_id\":\"a\",\"roles\":[\"http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor\"]}",
          true, false },
        { "{\"user_id\":\"a\"}", true, false },
        { "{\"roles\":[\"Learner\"]}", false, false },
        { "{\"user_id\":\"\",\"roles\":[\"Learner\"]}", false, false },
        { "{\"user_id\":7,\"roles\":[\"Learner\"]}", false, false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *m = json_loads(cases[i].json, 0, NULL);
        assert_non_null(m);
        const char *sub = NULL;
        bool learner = true;
        assert_int_equal(lti_check_roster_member(m, &sub, &learner), cases[i].ok);
        assert_int_equal(learner, cases[i].learner);
        if (cases[i].ok)
            assert_string_equal(sub, "a");
        json_decref(m);
    }
}

/* A due date as Canvas's substitution and a Moodle custom parameter give
 * it; anything else (no zone, an unmade substitution) is none. */
static void due_dates(void **state)
{
    (void)state;
    int64_t ms = 0;
    assert_true(lti_check_iso8601_ms("1970-01-01T00:00:00Z", &ms));
    assert_int_equal(ms, 0);
    assert_true(lti_check_iso8601_ms("2026-12-24T23:59:00Z", &ms));
    assert_int_equal(ms, 1798156740000LL);
    assert_true(lti_check_iso8601_ms("2026-12-24T23:59:00.250Z", &ms));
    assert_int_equal(ms, 1798156740250LL);
    assert_true(lti_check_iso8601_ms("2026-12-25T00:59:00+01:00", &ms));
    assert_int_equal(ms, 1798156740000LL);
    assert_true(lti_check_iso8601_ms("2026-12-24T18:59-05:00", &ms));
    assert_int_equal(ms, 1798156740000LL);
    assert_true(lti_check_iso8601_ms("2024-02-29T12:00:00Z", &ms));
    assert_int_equal(ms, 1709208000000LL);
    const char *bad[] = { "", "$Canvas.assignment.dueAt.iso8601", "2026-12-24T23:59:00",
                          "2026-12-24", "2026-13-01T00:00:00Z", "2026-12-24T24:00:00Z",
                          "2026-12-24T23:59:00+0100", "2026-12-24T23:59:00Zjunk",
                          "2026-12-24T23:59:00.Z", NULL };
    for (int i = 0; bad[i]; i++)
        assert_false(lti_check_iso8601_ms(bad[i], &ms));
}

int main(void)
{
    char err[200];
    if (!lti_config_parse(config_text, strlen(config_text), &cfg, err, sizeof err)) {
        fprintf(stderr, "config: %s\n", err);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_check),
        cmocka_unit_test(what_a_launch_says),
        cmocka_unit_test(what_a_deep_linking_request_says),
        cmocka_unit_test(registrations),
        cmocka_unit_test(form_values),
        cmocka_unit_test(unsigned_tokens),
        cmocka_unit_test(token_headers),
        cmocka_unit_test(origins),
        cmocka_unit_test(reasons),
        cmocka_unit_test(link_next),
        cmocka_unit_test(roster_members),
        cmocka_unit_test(due_dates),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    lti_config_free(&cfg);
    return rc;
}
