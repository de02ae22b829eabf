/* test_lti_register.c - Dynamic Registration's pure parts (lti_register.h):
 * which addresses a registration may call, the configuration's host checks,
 * the tool's registration message, the platform's answer, and a platform
 * appended to the registrations while they are read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "server/core/route.h"
#include "server/lti/lti.h"
#include "server/lti/lti_register.h"

#define CONF_URL "https://moodle.example.edu/mod/lti/openid-configuration.php"

static char *config_with(const char *issuer, const char *reg)
{
    char *t = NULL;
    if (asprintf(&t, "{\"issuer\": \"%s\", \"registration_endpoint\": \"%s\", "
                 "\"authorization_endpoint\": \"https://moodle.example.edu/mod/lti/auth.php\", "
                 "\"token_endpoint\": \"https://moodle.example.edu/mod/lti/token.php\", "
                 "\"jwks_uri\": \"https://moodle.example.edu/mod/lti/certs.php\"}",
                 issuer, reg) < 0)
        return NULL;
    return t;
}

static bool read_config(const char *issuer, const char *reg, char *err, size_t n)
{
    char *t = config_with(issuer, reg);
    struct lti_register_config c;
    bool ok = t && lti_register_config_read(CONF_URL, t, strlen(t), &c, err, n);
    if (ok)
        lti_register_config_clear(&c);
    free(t);
    return ok;
}

static void addresses(void **state)
{
    (void)state;
    char origin[LTI_ORIGIN_SIZE], host[LTI_ORIGIN_SIZE];
    assert_true(lti_register_url_ok("https://Moodle.Example.edu/x", origin, host));
    assert_string_equal(origin, "https://moodle.example.edu:443");
    assert_string_equal(host, "moodle.example.edu");
    assert_true(lti_register_url_ok("http://127.0.0.1:8080/c", origin, host));
    assert_true(lti_register_url_ok("http://localhost/c", origin, host));
    /* plain http elsewhere: anyone between could answer for the platform */
    assert_false(lti_register_url_ok("http://moodle.example.edu/c", origin, host));
    /* libcurl's reading of the host, not a prefix's */
    assert_false(lti_register_url_ok("http://127.0.0.1@evil.example/c", origin, host));
    assert_false(lti_register_url_ok("ftp://moodle.example.edu/c", origin, host));
    assert_false(lti_register_url_ok("file:///etc/passwd", origin, host));
}

static void configurations(void **state)
{
    (void)state;
    char err[300];
    char *t = config_with("https://moodle.example.edu", "https://moodle.example.edu/reg");
    struct lti_register_config c;
    assert_true(lti_register_config_read(CONF_URL, t, strlen(t), &c, err, sizeof err));
    assert_string_equal(c.issuer, "https://moodle.example.edu");
    assert_string_equal(c.registration_endpoint, "https://moodle.example.edu/reg");
    assert_string_equal(c.auth_token_url, "https://moodle.example.edu/mod/lti/token.php");
    assert_string_equal(c.issuer_origin, "https://moodle.example.edu:443");
    lti_register_config_clear(&c);
    free(t);
    /* the issuer on another host than the configuration's */
    assert_false(read_config("https://other.example.edu", "https://other.example.edu/reg", err,
                             sizeof err));
    assert_non_null(strstr(err, "issuer"));
    /* the registration sent to another host than the issuer's */
    assert_false(read_config("https://moodle.example.edu", "https://evil.example/reg", err,
                             sizeof err));
    assert_non_null(strstr(err, "registration_endpoint"));
    assert_false(read_config("https://moodle.example.edu", "http://moodle.example.edu/reg", err,
                             sizeof err));
    /* not an object, a member missing, twice */
    assert_false(lti_register_config_read(CONF_URL, "[]", 2, &c, err, sizeof err));
    const char *dup = "{\"issuer\": \"https://moodle.example.edu\", "
                      "\"issuer\": \"https://moodle.example.edu\"}";
    assert_false(lti_register_config_read(CONF_URL, dup, strlen(dup), &c, err, sizeof err));
    assert_false(lti_register_config_read("http://moodle.example.edu/c", "{}", 2, &c, err,
                                          sizeof err));
}

static void message(void **state)
{
    (void)state;
    json_t *m = lti_register_message("https://grader.example.edu:8443");
    assert_non_null(m);
    assert_string_equal(json_string_value(json_object_get(m, "initiate_login_uri")),
                        "https://grader.example.edu:8443/lti/login");
    assert_string_equal(json_string_value(json_array_get(json_object_get(m, "redirect_uris"),
                                                         0)),
                        "https://grader.example.edu:8443/lti/launch");
    assert_string_equal(json_string_value(json_object_get(m, "token_endpoint_auth_method")),
                        "private_key_jwt");
    const char *scope = json_string_value(json_object_get(m, "scope"));
    assert_non_null(strstr(scope, "lti-ags/scope/score"));
    assert_non_null(strstr(scope, "contextmembership.readonly"));
    json_t *tc = json_object_get(m, "https://purl.imsglobal.org/spec/lti-tool-configuration");
    assert_string_equal(json_string_value(json_object_get(tc, "domain")),
                        "grader.example.edu:8443");
    json_t *msgs = json_object_get(tc, "messages");
    bool deep = false;
    for (size_t i = 0; i < json_array_size(msgs); i++)
        deep = deep || !strcmp(json_string_value(json_object_get(json_array_get(msgs, i),
                                                                 "type")),
                               "LtiDeepLinkingRequest");
    assert_true(deep);
    json_decref(m);
}

static void answers(void **state)
{
    (void)state;
    char err[200], *id, *dep;
    const char *a = "{\"client_id\": \"abc\", \"https://purl.imsglobal.org/spec/"
                    "lti-tool-configuration\": {\"deployment_id\": \"3\"}}";
    assert_true(lti_register_answer_read(a, strlen(a), &id, &dep, err, sizeof err));
    assert_string_equal(id, "abc");
    assert_string_equal(dep, "3");
    free(id);
    free(dep);
    assert_true(lti_register_answer_read("{\"client_id\": \"x\"}", 18, &id, &dep, err,
                                         sizeof err));
    assert_null(dep);
    free(id);
    assert_false(lti_register_answer_read("{\"client_id\": \"\"}", 17, &id, &dep, err,
                                          sizeof err));
    assert_false(lti_register_answer_read("{}", 2, &id, &dep, err, sizeof err));
    assert_null(id);
}

static void appended(void **state)
{
    (void)state;
    struct lti_config c;
    char err[300];
    assert_true(lti_config_parse("{\"platforms\": []}", 17, &c, err, sizeof err));
    struct lti_config_entry e = { "M", "https://m.example", "c1", NULL,
                                  "https://m.example/auth", "https://m.example/token",
                                  "https://m.example/certs" };
    assert_true(lti_config_add(&c, &e, err, sizeof err));
    const struct lti_platform *p = lti_config_find(&c, "https://m.example", "c1");
    assert_non_null(p);
    assert_int_equal(p->n_deployments, 0);
    assert_true(lti_config_allows(p, "https://m.example/mod/lti/services.php/1/lineitems"));
    /* the same client again, or a bad address: refused, nothing appended */
    assert_false(lti_config_add(&c, &e, err, sizeof err));
    e.client_id = "c2";
    e.key_set_url = "ftp://m.example/certs";
    assert_false(lti_config_add(&c, &e, err, sizeof err));
    assert_int_equal(c.n, 1);
    e.key_set_url = "https://m.example/certs";
    e.deployment_id = "7";
    assert_true(lti_config_add(&c, &e, err, sizeof err));
    assert_int_equal(lti_config_find(&c, "https://m.example", "c2")->n_deployments, 1);
    lti_config_free(&c);
}

int main(void)
{
    /* the tool's URLs are the route table's paths, as the server gives
     * them at its start */
    size_t n = 0;
    while (routes_row(n))
        n++;
    route_links_set(routes_row(0), n);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(addresses),
        cmocka_unit_test(configurations),
        cmocka_unit_test(message),
        cmocka_unit_test(answers),
        cmocka_unit_test(appended),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
