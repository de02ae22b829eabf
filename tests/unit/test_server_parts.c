/*
 * The server's pure functions, without sockets: routing, the checks on a
 * request's headers and body, who the client is behind a trusted proxy,
 * and the access log's sanitising of what clients send.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/client_id.h"
#include "common/defaults.h"
#include "server/observe/access_log.h"
#include "server/identity/auth.h"
#include "server/conn/client_addr.h"
#include "server/identity/record_budget.h"
#include "server/core/request.h"
#include "server/core/route.h"
#include "server/core/sse.h"
#include "server/identity/deferred.h"
#include "server/identity/idempotency.h"
#include "server/identity/session.h"
#include "server/identity/token_guard.h"
#include "server/core/cookie.h"
#include "server/core/http.h"
#include "store/store.h"

#include <nettle/hmac.h>

static enum route route_of(const char *path)
{
    const struct route_row *row = routes_find(path);
    return row ? row->route : ROUTE_NONE;
}

static bool allowed(const char *path, const char *method, char *allow)
{
    return route_allows(routes_find(path), method, allow, 64);
}

static void test_routes_and_methods(void **state)
{
    char allow[64];
    assert_int_equal(route_of("/"), ROUTE_PAGE);
    assert_int_equal(route_of("/api/tasks/butterfly/submissions"), ROUTE_SUBMIT);
    assert_int_equal(route_of("/static/app.mjs"), ROUTE_STATIC);
    assert_int_equal(route_of("/api/tasks/butterfly/submissions/"), ROUTE_NONE);
    assert_int_equal(route_of("/healthz?x"), ROUTE_NONE);
    assert_int_equal(route_of("/api/class/students/ada"), ROUTE_CLASS_STUDENT);
    assert_int_equal(route_of("/api/class/students/a/b"), ROUTE_NONE);
    assert_true(allowed("/api/tasks/butterfly/submissions", "POST", allow));
    assert_false(allowed("/api/tasks/butterfly/submissions", "GET", allow));
    assert_string_equal(allow, "POST");
    assert_true(allowed("/healthz", "HEAD", allow));
    assert_false(allowed("/healthz", "POST", allow));
    assert_string_equal(allow, "GET, HEAD");
    /* a session is begun with a name and ended by DELETE (signing out) */
    assert_true(allowed("/api/session", "POST", allow));
    assert_true(allowed("/api/session", "DELETE", allow));
    assert_false(allowed("/api/session", "GET", allow));
    assert_string_equal(allow, "POST, DELETE");
    assert_non_null(strstr(routes_find("/api/session")->refusal, "DELETE"));
    assert_false(allowed("/api/tasks/butterfly/submissions", "DELETE", allow));
    assert_string_equal(routes_find("/api/tasks/butterfly/submissions")->refusal,
                        "Submit with POST.");
    assert_false(allowed("/lti/login", "DELETE", allow));
    assert_string_equal(allow, "GET, HEAD, POST");
    /* a row's path matches whole: neither a prefix of it nor a longer
     * path, and a "{name}" row needs its segment */
    assert_int_equal(route_of("/api/tasks/butterfly/submission"), ROUTE_NONE);
    assert_int_equal(route_of("/api/tasksX"), ROUTE_NONE);
    assert_int_equal(route_of("/api/tasks/"), ROUTE_NONE);
    assert_int_equal(route_of(""), ROUTE_NONE);
    assert_int_equal(route_of("/api/class/students/"), ROUTE_NONE);
    assert_int_equal(route_of("/api/class/students"), ROUTE_CLASS_STUDENTS);
    assert_int_equal(route_of("/api/submissions/"), ROUTE_NONE);
    assert_int_equal(route_of("/static/icons/a.svg"), ROUTE_STATIC);
    assert_int_equal(route_of("/api/tasks/butterfly"), ROUTE_TASK);
}

/* The answer of a submission: the stored verdict with whether it was
 * kept, and why not when it was not (a client reads both members). */
static void test_verdict_answer_text(void **state)
{
    size_t n = 0;
    char *t = response_verdict_text("{\"points\":3}", 12, true, NULL, NULL, &n);
    assert_non_null(t);
    assert_string_equal(t, "{\"points\":3,\"recorded\":true}");
    assert_int_equal(n, strlen(t));
    free(t);
    t = response_verdict_text("{\"points\":3}", 12, false, "store_full", "The store is full.",
                              &n);
    assert_non_null(t);
    assert_string_equal(t, "{\"points\":3,\"recorded\":false,\"record_error\":"
                           "{\"code\":\"store_full\",\"message\":\"The store is full.\"}}");
    assert_int_equal(n, strlen(t));
    free(t);
    /* bytes that are no verdict object are refused, not spliced */
    assert_null(response_verdict_text("{}", 2, true, NULL, NULL, &n));
    assert_null(response_verdict_text("[1,2]", 5, true, NULL, NULL, &n));
}

/* An error answered from the reader's thread is the same answer as one
 * made on libmicrohttpd's: its status and code from the one table, and
 * the Retry-After a 503 of the store carries (issue 30, defect 8: only one
 * of the three ways of building a deferred answer carried it). */
static void test_deferred_error_retry_after(void **state)
{
    static struct request r;
    memset(&r, 0, sizeof r);
    deferred_error(&r, ERROR_STORE_UNAVAILABLE, "The records cannot be read now.");
    assert_int_equal(r.deferred_status, 503);
    assert_non_null(r.deferred_body);
    assert_non_null(strstr(r.deferred_body, "\"store_unavailable\""));
    char want[32];
    snprintf(want, sizeof want, "Retry-After: %u",
             errors_row(ERROR_STORE_UNAVAILABLE)->retry_after_s);
    assert_true(errors_row(ERROR_STORE_UNAVAILABLE)->retry_after_s > 0);
    assert_string_equal(r.deferred_header[0], want);
    free(r.deferred_body);
    /* an error that says nothing of coming back adds no header */
    memset(&r, 0, sizeof r);
    deferred_error(&r, ERROR_NOT_FOUND, "No such submission.");
    assert_int_equal(r.deferred_status, 404);
    assert_string_equal(r.deferred_header[0], "");
    free(r.deferred_body);
}

/* Server-Sent Events are framed in one place: the fields in order, the
 * blank line that dispatches, and no field that a line break in its value
 * could turn into another event. */
static void test_sse_framing(void **state)
{
    char out[128];
    size_t n = sse_format(out, sizeof out, &(struct sse_event){ .id = "7", .event = "record",
                                                                .data = "{\"a\":1}" });
    assert_string_equal(out, "id: 7\nevent: record\ndata: {\"a\":1}\n\n");
    assert_int_equal(n, strlen(out));
    sse_format(out, sizeof out, &(struct sse_event){ .retry_ms = 2000, .comment = "hello" });
    assert_string_equal(out, "retry: 2000\n: hello\n\n");
    assert_int_equal(sse_format(out, sizeof out, &(struct sse_event){
                         .event = "record", .data = "x\n\nevent: reset" }), 0);
    assert_int_equal(sse_format(out, 8, &(struct sse_event){ .comment = "heartbeat" }), 0);
}

/* Every row of the route table says what it needs: a route that changes
 * state (POST, DELETE) is either the page's own (same-origin) or a
 * platform's cross-site form (LTI), never neither; a row that reads a
 * body has its bound; each has a handler to answer with. */
static void test_route_table_rows(void **state)
{
    size_t n = 0;
    for (const struct route_row *row; (row = routes_row(n)); n++) {
        bool changes = row->methods & (METHOD_POST | METHOD_DELETE);
        unsigned origin = row->needs & (NEED_SAME_ORIGIN | NEED_CROSS_SITE_FORM);
        assert_true(changes ? origin == NEED_SAME_ORIGIN || origin == NEED_CROSS_SITE_FORM
                            : origin == 0);
        assert_true(!(row->methods & METHOD_POST) || row->body_max > 0);
        assert_non_null(row->finish);
        assert_non_null(row->refusal);
        /* the row's own path, each "{name}" a name, finds the row itself:
         * no earlier row shadows it */
        char concrete[128];
        size_t k = 0;
        for (const char *p = row->path; *p && k + 2 < sizeof concrete; p++) {
            if (*p == '{') {
                concrete[k++] = 'x';
                p = strchr(p, '}');
            } else {
                concrete[k++] = *p;
            }
        }
        concrete[k] = '\0';
        assert_ptr_equal(routes_find(concrete), row);
    }
    assert_true(n >= 24);
}

/* Links and redirects are written from the table: each route's path in
 * one place. A route with several rows gives the first that fits the
 * call; a parameter is one segment; what does not fit is refused. */
static void test_route_links_from_the_table(void **state)
{
    size_t n = 0;
    while (routes_row(n))
        n++;
    route_links_set(routes_row(0), n);
    char out[64];
    assert_true(route_link(ROUTE_PAGE, NULL, out, sizeof out));
    assert_string_equal(out, "/");
    assert_true(route_link(ROUTE_PAGE, "bit_reversal", out, sizeof out));
    assert_string_equal(out, "/tasks/bit_reversal");
    assert_true(route_link(ROUTE_SUBMIT, "butterfly16", out, sizeof out));
    assert_string_equal(out, "/api/tasks/butterfly16/submissions");
    assert_true(route_link(ROUTE_CLASS, NULL, out, sizeof out));
    assert_string_equal(out, "/class");
    assert_true(route_link(ROUTE_LTI_LAUNCH, NULL, out, sizeof out));
    assert_string_equal(out, "/lti/launch");
    /* each link is the path of a row the table routes to that route */
    assert_true(route_link(ROUTE_SUBMISSION, "abc", out, sizeof out));
    assert_int_equal(routes_find(out)->route, ROUTE_SUBMISSION);
    /* refused: no row of that shape, a parameter of two segments or
     * none, a buffer too small */
    assert_false(route_link(ROUTE_CLASS, "x", out, sizeof out));
    assert_string_equal(out, "");
    assert_false(route_link(ROUTE_SUBMIT, NULL, out, sizeof out));
    assert_false(route_link(ROUTE_PAGE, "a/b", out, sizeof out));
    assert_false(route_link(ROUTE_PAGE, "", out, sizeof out));
    assert_false(route_link(ROUTE_SUBMIT, "butterfly", out, 10));
    assert_string_equal(out, "");
}

/* "{id}" stands for one segment anywhere in a row's path, and route_param
 * reads it back: an exercise's document and its submissions are told
 * apart, and nothing longer or emptier matches. */
static void test_route_id_mid_path(void **state)
{
    const struct route_row *doc = routes_find("/api/tasks/bit_reversal");
    const struct route_row *sub = routes_find("/api/tasks/bit_reversal/submissions");
    assert_non_null(doc);
    assert_non_null(sub);
    assert_int_equal(doc->route, ROUTE_TASK);
    assert_int_equal(sub->route, ROUTE_SUBMIT);
    assert_int_equal(route_of("/api/tasks/butterfly/submissions"), ROUTE_SUBMIT);
    assert_int_equal(route_of("/api/tasks//submissions"), ROUTE_NONE);
    assert_int_equal(route_of("/api/tasks/a/submissions/b"), ROUTE_NONE);
    assert_int_equal(route_of("/api/tasks/a/other"), ROUTE_NONE);
    assert_int_equal(route_of("/api/tasks/"), ROUTE_NONE);
    assert_int_equal(route_of("/tasks/butterfly"), ROUTE_PAGE);
    assert_int_equal(route_of("/tasks"), ROUTE_PAGE);
    assert_int_equal(route_of("/tasks/a/b"), ROUTE_NONE);
    char id[33];
    assert_true(route_param(sub, "/api/tasks/bit_reversal/submissions", id, sizeof id));
    assert_string_equal(id, "bit_reversal");
    assert_true(route_param(doc, "/api/tasks/butterfly", id, sizeof id));
    assert_string_equal(id, "butterfly");
    /* a segment longer than the buffer is no id (the caller answers 404) */
    char big[64];
    memset(big, 0, sizeof big);
    snprintf(big, sizeof big, "/api/tasks/%040d", 7);
    assert_false(route_param(doc, big, id, sizeof id));
    assert_string_equal(id, "");
    /* a path of another row, or a row without "{name}" */
    assert_false(route_param(doc, "/api/tasks/a/submissions", id, sizeof id));
    assert_false(route_param(routes_find("/healthz"), "/healthz", id, sizeof id));
    /* the rest of the path, '/' too, where the row says so */
    assert_int_equal(route_of("/static/a/b.js"), ROUTE_STATIC);
}

static void test_uri_inspection(void **state)
{
    struct request_uri u;
    request_uri_inspect("/static/a%2e%2e.js?token=secret", &u);
    assert_true(u.escaped);
    assert_false(u.escaped_nul);
    assert_string_equal(u.log_path, "/static/a%2e%2e.js");   /* no query string */
    request_uri_inspect("/static/index.html%00.css", &u);
    assert_true(u.escaped_nul);
    request_uri_inspect("/?%00", &u);
    assert_false(u.escaped_nul);   /* in the query, it cuts nothing */
    char long_uri[1000];
    memset(long_uri, 'a', sizeof long_uri - 1);
    long_uri[sizeof long_uri - 1] = '\0';
    request_uri_inspect(long_uri, &u);
    assert_int_equal(strlen(u.log_path), sizeof u.log_path - 1);
}

static void test_body_kinds_and_lengths(void **state)
{
    assert_int_equal(request_body_kind("text/plain"), BODY_PLAIN);
    assert_int_equal(request_body_kind("Text/Plain; charset=utf-8"), BODY_PLAIN);
    assert_int_equal(request_body_kind("application/json"), BODY_JSON);
    /* a prefix is another type */
    assert_int_equal(request_body_kind("application/jsonx"), BODY_UNSUPPORTED);
    assert_int_equal(request_body_kind("text/plainfoo"), BODY_UNSUPPORTED);
    assert_int_equal(request_body_kind(NULL), BODY_UNSUPPORTED);
    /* the bounds are the route table's: the submission's row has two, by type */
    const struct route_row *submit = routes_find("/api/tasks/butterfly/submissions");
    size_t limit = route_body_max(submit, request_body_kind("text/plain; charset=utf-8"));
    assert_int_equal(limit, 64 * 1024);
    assert_int_equal(route_body_max(submit, request_body_kind("application/json")), 256 * 1024);
    assert_int_equal(route_body_max(submit, request_body_kind(NULL)), 256 * 1024);   /* refused as 415 anyway */
    assert_int_equal(route_body_max(routes_find("/lti/launch"), BODY_PLAIN), LTI_MAX_FORM);
    /* a page only the instructor gets says where to go, from its row */
    for (size_t i = 0; routes_row(i); i++)
        if (routes_row(i)->needs & NEED_INSTRUCTOR_PAGE)
            assert_non_null(routes_row(i)->page_refusal);
    assert_true(routes_find("/class")->needs & NEED_INSTRUCTOR_PAGE);
    assert_int_equal(request_check_length("65536", NULL, limit), LENGTH_OK);
    assert_int_equal(request_check_length("65537", NULL, limit), LENGTH_TOO_LARGE);
    assert_int_equal(request_check_length("99999999999999999999999", NULL, limit),
                     LENGTH_MALFORMED);
    assert_int_equal(request_check_length("+5", NULL, limit), LENGTH_MALFORMED);
    assert_int_equal(request_check_length(" 5", NULL, limit), LENGTH_MALFORMED);
    assert_int_equal(request_check_length(NULL, "chunked", limit), LENGTH_OK);
    assert_int_equal(request_check_length(NULL, "gzip", limit), LENGTH_REQUIRED);
    assert_string_equal(request_length_check_to_str(LENGTH_REQUIRED), "length required");
    assert_non_null(strstr(request_too_large_message(BODY_JSON), "256 KiB"));
    assert_non_null(strstr(request_too_large_message(BODY_PLAIN), "64 KiB"));
}

static void test_source_extraction(void **state)
{
    const char *src;
    size_t len;
    json_t *owner;
    char msg[300];
    const char *json = "{\"source\": \"return 0.0;\\n\"}";
    assert_true(request_extract_source(BODY_JSON, json, strlen(json), &src, &len, &owner, msg,
                                       sizeof msg));
    assert_int_equal(len, 12);
    assert_memory_equal(src, "return 0.0;\n", 12);
    json_decref(owner);
    const char *dup = "{\"source\": \"a\", \"source\": \"b\"}";
    assert_false(request_extract_source(BODY_JSON, dup, strlen(dup), &src, &len, &owner, msg,
                                        sizeof msg));
    assert_non_null(strstr(msg, "Malformed JSON"));
    assert_false(request_extract_source(BODY_JSON, "[1]", 3, &src, &len, &owner, msg, sizeof msg));
    assert_non_null(strstr(msg, "string \"source\""));
    assert_true(request_extract_source(BODY_PLAIN, "abc", 3, &src, &len, &owner, msg, sizeof msg));
    assert_null(owner);
    assert_int_equal(len, 3);
}

/* The client of a peer given in text, resolved and printed, into out. */
static const char *resolve_text(const char *peer, const char *forwarding,
                                const struct client_rules *r, char out[CLIENT_ID_TEXT_MAX])
{
    struct client_id p, c;
    assert_true(client_addr_parse(peer, &p));
    client_addr_resolve(&p, forwarding, r, &c);
    return client_id_format(&c, out, CLIENT_ID_TEXT_MAX);
}

static bool contains_text(const struct trusted_proxies *t, const char *addr)
{
    struct client_id a;
    assert_true(client_addr_parse(addr, &a));
    return client_addr_proxies_contain(t, &a);
}

static void test_client_behind_a_trusted_proxy(void **state)
{
    struct client_rules r;
    client_addr_rules_init(&r);
    struct trusted_proxies *t = &r.proxies;
    char err[200], out[CLIENT_ADDR_LEN];
    assert_true(client_addr_proxies_add(t, "127.0.0.1", err, sizeof err));
    assert_true(client_addr_proxies_add(t, "10.0.0.0/8", err, sizeof err));
    assert_true(client_addr_proxies_add(t, "fd00::/8", err, sizeof err));
    assert_false(client_addr_proxies_add(t, "10.0.0.0/33", err, sizeof err));
    assert_false(client_addr_proxies_add(t, "nginx", err, sizeof err));
    assert_true(contains_text(t, "10.200.3.4"));
    assert_false(contains_text(t, "11.0.0.1"));
    /* from anyone else the header is the client's own words: ignored */
    resolve_text("192.0.2.7", "198.51.100.1", &r, out);
    assert_string_equal(out, "192.0.2.7");
    /* from the proxy: the nearest address that is not a proxy of ours */
    resolve_text("127.0.0.1", "198.51.100.1", &r, out);
    assert_string_equal(out, "198.51.100.1");
    resolve_text("127.0.0.1", "6.6.6.6, 198.51.100.1, 10.1.1.1", &r, out);
    assert_string_equal(out, "198.51.100.1");   /* the student's own "6.6.6.6" is not used */
    /* garbage stops the walk at the last trusted hop */
    resolve_text("127.0.0.1", "198.51.100.1, not-an-address, 10.1.1.1", &r, out);
    assert_string_equal(out, "10.1.1.1");
    /* one client, one key: spellings of an address are made canonical */
    r.ipv6_prefix = 128;
    resolve_text("127.0.0.1", "2001:DB8:0:0::1", &r, out);
    assert_string_equal(out, "2001:db8::1");
    r.ipv6_prefix = DEFAULT_IPV6_CLIENT_PREFIX;
    /* an IPv4-mapped hop is the IPv4 address, as a dual-stack peer is */
    resolve_text("127.0.0.1", "::ffff:192.0.2.9", &r, out);
    assert_string_equal(out, "192.0.2.9");
    /* ... so a proxy of ours written as mapped is still ours, either way */
    resolve_text("127.0.0.1", "198.51.100.1, ::ffff:10.1.1.1", &r, out);
    assert_string_equal(out, "198.51.100.1");
    struct trusted_proxies m = { .n = 0 };
    assert_true(client_addr_proxies_add(&m, "::ffff:10.0.0.0/104", err, sizeof err));
    assert_false(client_addr_proxies_add(&m, "::ffff:10.0.0.0/95", err, sizeof err));
    assert_true(contains_text(&m, "10.9.8.7"));
    assert_false(contains_text(&m, "11.9.8.7"));
    /* no proxies configured: the peer, whatever the headers say */
    struct client_rules none;
    client_addr_rules_init(&none);
    resolve_text("192.0.2.7", "198.51.100.1", &none, out);
    assert_string_equal(out, "192.0.2.7");
}

/* Forwarded (RFC 7239) only when the proxies are said to write it; the
 * two headers are never mixed. */
static void test_forwarded_header(void **state)
{
    struct client_rules r;
    client_addr_rules_init(&r);
    char err[200], out[CLIENT_ADDR_LEN];
    assert_int_equal(r.header, CLIENT_HEADER_X_FORWARDED_FOR);
    assert_string_equal(client_addr_header_to_str(r.header), DEFAULT_PROXY_HEADER);
    assert_true(client_addr_proxies_add(&r.proxies, "127.0.0.1", err, sizeof err));
    enum client_header h;
    assert_true(client_addr_header_parse("forwarded", &h));
    assert_int_equal(h, CLIENT_HEADER_FORWARDED);
    assert_true(client_addr_header_parse("X-FORWARDED-FOR", &h));
    assert_false(client_addr_header_parse("X-Real-IP", &h));
    r.header = CLIENT_HEADER_FORWARDED;
    /* with quotes, ports and brackets */
    resolve_text("127.0.0.1", "for=192.0.2.60;proto=http, for=\"[2001:db8:cafe::17]:4711\"",
                 &r, out);
    assert_string_equal(out, "2001:db8:cafe::/64");
    resolve_text("127.0.0.1", "for=\"192.0.2.43:47011\"", &r, out);
    assert_string_equal(out, "192.0.2.43");
    resolve_text("127.0.0.1", "for=unknown", &r, out);
    assert_string_equal(out, "127.0.0.1");
    /* X-Forwarded-For syntax in a Forwarded header is no address */
    resolve_text("127.0.0.1", "198.51.100.1", &r, out);
    assert_string_equal(out, "127.0.0.1");
}

/* Every line of the header, joined in order: the proxy's own appended line
 * (HAProxy's option forwardfor) is on the right. */
static void test_forwarding_lines_joined(void **state)
{
    char buf[64] = "";
    client_addr_join(buf, sizeof buf, "6.6.6.6");              /* the client's own line */
    client_addr_join(buf, sizeof buf, "198.51.100.1");         /* the proxy's */
    assert_string_equal(buf, "6.6.6.6, 198.51.100.1");
    struct client_rules r;
    client_addr_rules_init(&r);
    char err[200], out[CLIENT_ADDR_LEN];
    assert_true(client_addr_proxies_add(&r.proxies, "127.0.0.1", err, sizeof err));
    resolve_text("127.0.0.1", buf, &r, out);
    assert_string_equal(out, "198.51.100.1");
    /* too long: the left end goes, from an entry's start, never the right */
    char small[24] = "";
    client_addr_join(small, sizeof small, "1.1.1.1, 2.2.2.2");
    client_addr_join(small, sizeof small, "3.3.3.3, 4.4.4.4");
    assert_string_equal(small, "3.3.3.3, 4.4.4.4");
    client_addr_join(small, sizeof small, "5.5.5.5, 6.6.6.6, 7.7.7.7, 8.8.8.8");
    assert_true(strlen(small) < sizeof small);
    assert_non_null(strstr(small, "8.8.8.8"));
    resolve_text("127.0.0.1", small, &r, out);
    assert_string_equal(out, "8.8.8.8");
}

/* IPv6 clients are their network: one host holds a whole /64. */
static void test_ipv6_clients_grouped(void **state)
{
    struct client_rules r;
    client_addr_rules_init(&r);
    char out[CLIENT_ADDR_LEN];
    assert_int_equal(r.ipv6_prefix, 64);
    resolve_text("2001:db8:1:2:aaaa::1", NULL, &r, out);
    assert_string_equal(out, "2001:db8:1:2::/64");
    resolve_text("2001:db8:1:2:ffff:ffff:ffff:ffff", NULL, &r, out);
    assert_string_equal(out, "2001:db8:1:2::/64");
    resolve_text("2001:db8:1:3::1", NULL, &r, out);
    assert_string_equal(out, "2001:db8:1:3::/64");
    r.ipv6_prefix = 60;
    resolve_text("2001:db8:1:2f::1", NULL, &r, out);
    assert_string_equal(out, "2001:db8:1:20::/60");
    r.ipv6_prefix = 128;
    resolve_text("2001:db8::1", NULL, &r, out);
    assert_string_equal(out, "2001:db8::1");
    /* IPv4 and mapped IPv4 are not touched */
    r.ipv6_prefix = 64;
    resolve_text("192.0.2.7", NULL, &r, out);
    assert_string_equal(out, "192.0.2.7");
    resolve_text("::ffff:192.0.2.7", NULL, &r, out);
    assert_string_equal(out, "192.0.2.7");
}

/* The client stays binary from the socket on: a dual-stack peer is its
 * IPv4 address, one network is one key, and text appears only when printed. */
static void test_client_ids_from_sockets(void **state)
{
    struct sockaddr_in v4 = { .sin_family = AF_INET };
    struct sockaddr_in6 mapped = { .sin6_family = AF_INET6 }, v6 = { .sin6_family = AF_INET6 };
    struct sockaddr unix_peer = { .sa_family = AF_UNIX };
    struct client_id a, b, c;
    char out[CLIENT_ID_TEXT_MAX];
    assert_int_equal(inet_pton(AF_INET, "192.0.2.1", &v4.sin_addr), 1);
    assert_int_equal(inet_pton(AF_INET6, "::ffff:192.0.2.1", &mapped.sin6_addr), 1);
    assert_true(client_addr_from_sockaddr((struct sockaddr *)&v4, &a));
    assert_true(client_addr_from_sockaddr((struct sockaddr *)&mapped, &b));
    assert_true(client_id_equal(&a, &b));
    assert_int_equal(client_id_hash(&a), client_id_hash(&b));
    assert_string_equal(client_id_format(&a, out, sizeof out), "192.0.2.1");
    /* a socket that is no internet peer is the local client, "-" when printed */
    assert_false(client_addr_from_sockaddr(&unix_peer, &c));
    assert_false(client_addr_from_sockaddr(NULL, &c));
    assert_int_equal(c.family, CLIENT_LOCAL);
    assert_string_equal(client_id_format(&c, out, sizeof out), "-");
    /* two hosts of one /64 are one client; the next /64 is another */
    struct client_rules r;
    client_addr_rules_init(&r);
    assert_int_equal(inet_pton(AF_INET6, "2001:db8:1:2::7", &v6.sin6_addr), 1);
    assert_true(client_addr_from_sockaddr((struct sockaddr *)&v6, &a));
    assert_int_equal(a.prefix, 128);
    client_addr_resolve(&a, NULL, &r, &b);
    assert_true(client_addr_parse("2001:db8:1:2:ffff::1", &a));
    client_addr_resolve(&a, NULL, &r, &c);
    assert_true(client_id_equal(&b, &c));
    assert_string_equal(client_id_format(&c, out, sizeof out), "2001:db8:1:2::/64");
    assert_true(client_addr_parse("2001:db8:1:3::7", &a));
    client_addr_resolve(&a, NULL, &r, &c);
    assert_false(client_id_equal(&b, &c));
    /* the log prints it, and nothing a client wrote reaches it */
    char line[256];
    FILE *f = fmemopen(line, sizeof line, "w");
    assert_non_null(f);
    access_log_write(f, &(struct access_log_entry){ .client = &c, .method = "GET", .path = "/",
                                                   .status = 200, .wait_ms = -1 });
    fclose(f);
    assert_non_null(strstr(line, "Z 2001:db8:1:3::/64 GET / 200 "));
}

static void test_access_log_escapes_what_could_steer_a_terminal(void **state)
{
    char out[128];
    assert_string_equal(access_log_sanitize("GET", out, sizeof out), "GET");
    assert_string_equal(access_log_sanitize(NULL, out, sizeof out), "-");
    assert_string_equal(access_log_sanitize("", out, sizeof out), "-");
    /* escape sequences, carriage return, backspace */
    assert_string_equal(access_log_sanitize("G\x1b[2J\r\bT", out, sizeof out),
                        "G\\x1b[2J\\x0d\\x08T");
    /* C1 (U+0085) and a right-to-left override (U+202E), as UTF-8 */
    assert_string_equal(access_log_sanitize("/\xc2\x85/\xe2\x80\xae", out, sizeof out),
                        "/\\xc2\\x85/\\xe2\\x80\\xae");
    /* spaces and backslashes cannot fake fields or escapes */
    assert_string_equal(access_log_sanitize("a b\\x41", out, sizeof out), "a\\x20b\\x5cx41");
    /* cut to fit, never in the middle of an escape */
    char tiny[7];
    access_log_sanitize("\x1b\x1b", tiny, sizeof tiny);
    assert_string_equal(tiny, "\\x1b");
}

static const uint8_t key_a[SESSION_KEY_BYTES] = { 1, 2, 3 };
static const uint8_t key_b[SESSION_KEY_BYTES] = { 9 };

static void test_session_cookie(void **state)
{
    struct principal p = { .kind = PRINCIPAL_GUEST, .id = "guest1", .name = "Ada \"<b>\"" };
    struct principal out;
    char *c = session_cookie_make(key_a, &p, 1000, 60);
    assert_non_null(c);
    assert_true(session_cookie_read(key_a, c, 1059, &out));
    assert_int_equal(out.kind, PRINCIPAL_GUEST);
    assert_string_equal(out.id, "guest1");
    assert_string_equal(out.name, p.name);
    /* expired, another key, one byte changed anywhere: signed out */
    assert_false(session_cookie_read(key_a, c, 1060, &out));
    assert_int_equal(out.kind, PRINCIPAL_NONE);
    assert_false(session_cookie_read(key_b, c, 1001, &out));
    for (size_t i = 0, n = strlen(c); i < n; i += 7) {
        char saved = c[i];
        c[i] = saved == 'a' ? 'b' : 'a';
        assert_false(session_cookie_read(key_a, c, 1001, &out));
        c[i] = saved;
    }
    assert_false(session_cookie_read(key_a, "", 1001, &out));
    assert_false(session_cookie_read(key_a, NULL, 1001, &out));
    free(c);
    char header[300];
    /* over TLS the name is __Host-: Secure, Path=/ and no Domain, so that
     * no sibling host can set one (cookie tossing) */
    assert_true(cookie_set_session("v", true, 60, header, sizeof header));
    assert_string_equal(header, "__Host-" SESSION_COOKIE
                        "=v; Path=/; HttpOnly; SameSite=Lax; Max-Age=60; Secure");
    assert_null(strstr(header, "Domain"));
    assert_true(cookie_set_session("v", false, 60, header, sizeof header));
    assert_string_equal(header, SESSION_COOKIE "=v; Path=/; HttpOnly; SameSite=Lax; Max-Age=60");
    assert_true(cookie_set_session(NULL, false, 60, header, sizeof header));
    assert_non_null(strstr(header, "Max-Age=0"));
    assert_true(cookie_set_framed(SESSION_COOKIE, "v", true, 60, header, sizeof header));
    assert_string_equal(header, "__Host-" SESSION_COOKIE
                        "=v; Path=/; HttpOnly; SameSite=None; Max-Age=60; Secure");
    /* signing out over TLS clears an LTI launch's cookie inside the
     * course's frame too: SameSite=None, as it was set */
    assert_true(cookie_clear_session(true, header, sizeof header));
    assert_string_equal(header, "__Host-" SESSION_COOKIE
                        "=; Path=/; HttpOnly; SameSite=None; Max-Age=0; Secure");
    assert_true(cookie_clear_session(false, header, sizeof header));
    assert_string_equal(header, SESSION_COOKIE "=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
    assert_true(cookie_clear_bare(SESSION_COOKIE, header, sizeof header));
    assert_string_equal(header, SESSION_COOKIE "=; Path=/; HttpOnly; SameSite=None; Secure; Max-Age=0");
    assert_true(cookie_name(SESSION_COOKIE, true, header, sizeof header));
    assert_string_equal(header, "__Host-" SESSION_COOKIE);
    assert_false(cookie_set_session("v", true, 60, header, 20));
}

/* A roster student's section rides in the cookie (and the pending one, so
 * that a yes keeps it); a value made before it reads as no section; the
 * longest id, name and section together still make a cookie within
 * SESSION_VALUE_MAX, without the section, which is only shown. */
static void test_session_section(void **state)
{
    (void)state;
    struct principal p = { .kind = PRINCIPAL_STUDENT, .id = "s1", .name = "Sam",
                           .section = "Lab B \"2\"" };
    struct principal out;
    char *c = session_cookie_make(key_a, &p, 1000, 60);
    assert_true(session_cookie_read(key_a, c, 1001, &out));
    assert_string_equal(out.section, "Lab B \"2\"");
    free(c);
    c = session_pending_make(key_a, &p, 1000);
    assert_true(session_pending_read(key_a, c, 1001, &out));
    assert_string_equal(out.section, p.section);
    free(c);
    struct principal none = { .kind = PRINCIPAL_GUEST, .id = "g1", .name = "Zoë" };
    c = session_cookie_make(key_a, &none, 1000, 60);
    assert_null(strstr(c, "2273223a"));   /* no "s": the value as before sections */
    assert_true(session_cookie_read(key_a, c, 1001, &out));
    assert_string_equal(out.section, "");
    free(c);
    /* the worst case: every byte of id, name and section escaped in JSON */
    struct principal big = { .kind = PRINCIPAL_STUDENT };
    memset(big.id, '"', STORE_MAX_STUDENT_ID);
    memset(big.name, '"', PRINCIPAL_NAME_MAX - 1);
    memset(big.section, '"', PRINCIPAL_SECTION_MAX - 1);
    c = session_cookie_make(key_a, &big, 1000, SESSION_LIFETIME_S);
    assert_non_null(c);
    assert_true(strlen(c) <= SESSION_VALUE_MAX);
    assert_true(session_cookie_read(key_a, c, 1001, &out));
    assert_string_equal(out.name, big.name);
    assert_string_equal(out.section, "");
    char header[SESSION_HEADER_MAX];
    assert_true(cookie_set_session(c, true, SESSION_LIFETIME_S, header, sizeof header));
    free(c);
    /* a long section with a short name and id fits, whole */
    struct principal lng = { .kind = PRINCIPAL_STUDENT, .id = "s2", .name = "Lee" };
    memset(lng.section, 'x', PRINCIPAL_SECTION_MAX - 1);
    c = session_cookie_make(key_a, &lng, 1000, 60);
    assert_true(session_cookie_read(key_a, c, 1001, &out));
    assert_string_equal(out.section, lng.section);
    free(c);
}

/* Two values of one cookie are seen whole-name only, whatever the spaces;
 * the count stops at two. */
static void test_session_cookie_count(void **state)
{
    (void)state;
    static const struct {
        const char *header;
        unsigned want;
    } cases[] = {
        { "a=1", 1 },
        { "a=1; a=2", 2 },
        { "a=1;a=2;a=3", 2 },
        { "  a=1 ;\ta=2", 2 },
        { "ab=1; b=2; xa=3", 0 },
        { "a", 0 },              /* no value: not a pair */
        { "a=", 1 },
        { "b=a=1; a=2", 1 },     /* "a=1" inside b's value is no pair */
        { ";;; ;", 0 },
        { "", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(cookie_count(cases[i].header, "a"), cases[i].want);
    assert_int_equal(cookie_count(NULL, "a"), 0);
    /* the prefixed name is another name */
    assert_int_equal(cookie_count("__Host-a=1; a=2", "a"), 1);
    assert_int_equal(cookie_count("__Host-a=1; a=2", "__Host-a"), 1);
}

/* A value this server makes says so ("h"); one an older server made reads
 * with before_host_names, the only kind honoured under the bare name
 * over TLS. */
static void test_session_host_marker(void **state)
{
    (void)state;
    struct principal p = { .kind = PRINCIPAL_STUDENT, .id = "s1", .name = "Sam" };
    struct principal out;
    char *c = session_cookie_make(key_a, &p, 1000, 60);
    assert_true(session_cookie_read(key_a, c, 1001, &out));
    assert_false(out.before_host_names);
    free(c);
    /* an older server's value, signed as it signed them: no "h" */
    const char *payload = "{\"k\":\"student\",\"t\":1000,\"e\":1060,\"i\":\"s1\","
                          "\"n\":\"Sam\",\"f\":\"\"}";
    size_t n = strlen(payload);
    char old[512];
    for (size_t i = 0; i < n; i++)
        snprintf(old + 2 * i, 3, "%02x", (unsigned char)payload[i]);
    struct hmac_sha256_ctx ctx;
    uint8_t mac[SHA256_DIGEST_SIZE];
    hmac_sha256_set_key(&ctx, SESSION_KEY_BYTES, key_a);
    hmac_sha256_update(&ctx, 2 * n, (const uint8_t *)old);
    hmac_sha256_digest(&ctx, sizeof mac, mac);
    old[2 * n] = '.';
    for (size_t i = 0; i < sizeof mac; i++)
        snprintf(old + 2 * n + 1 + 2 * i, 3, "%02x", mac[i]);
    assert_true(session_cookie_read(key_a, old, 1001, &out));
    assert_true(out.before_host_names);
    assert_string_equal(out.id, "s1");
}

/* A link's pending sign-in and a session are signed for what they are:
 * neither is ever read as the other. */
static void test_pending_is_no_session(void **state)
{
    (void)state;
    struct principal p = { .kind = PRINCIPAL_STUDENT, .id = "s1", .name = "Sam" };
    struct principal out;
    char *pending = session_pending_make(key_a, &p, 1000);
    char *session = session_cookie_make(key_a, &p, 1000, SESSION_LIFETIME_S);
    assert_true(session_pending_read(key_a, pending, 1000 + PENDING_LIFETIME_S - 1, &out));
    assert_string_equal(out.id, "s1");
    assert_false(session_pending_read(key_a, pending, 1000 + PENDING_LIFETIME_S, &out));
    assert_false(session_cookie_read(key_a, pending, 1001, &out));
    assert_false(session_pending_read(key_a, session, 1001, &out));
    assert_true(session_cookie_read(key_a, session, 1001, &out));
    free(pending);
    free(session);
}

/* An LTI launch's instructor lasts LTI_INSTRUCTOR_SESSION_S from the
 * launch, even in a cookie made (before that bound) to last two weeks; a
 * learner's and the token's instructor's last their cookie's life. */
static void test_lti_instructor_session_bound(void **state)
{
    (void)state;
    struct principal lti = { .kind = PRINCIPAL_INSTRUCTOR, .id = PRINCIPAL_LTI_PREFIX "c1" };
    struct principal own = { .kind = PRINCIPAL_INSTRUCTOR, .id = "" };
    struct principal learner = { .kind = PRINCIPAL_STUDENT, .id = "s1", .name = "Sam" };
    struct principal out;
    time_t t0 = 1000000;
    char *a = session_cookie_make(key_a, &lti, t0, SESSION_LIFETIME_S);
    char *b = session_cookie_make(key_a, &own, t0, SESSION_LIFETIME_S);
    char *c = session_cookie_make(key_a, &learner, t0, SESSION_LIFETIME_S);
    assert_true(session_cookie_read(key_a, a, t0 + LTI_INSTRUCTOR_SESSION_S - 1, &out));
    assert_false(session_cookie_read(key_a, a, t0 + LTI_INSTRUCTOR_SESSION_S, &out));
    assert_int_equal(out.kind, PRINCIPAL_NONE);
    assert_true(session_cookie_read(key_a, b, t0 + LTI_INSTRUCTOR_SESSION_S + 60, &out));
    assert_true(session_cookie_read(key_a, c, t0 + LTI_INSTRUCTOR_SESSION_S + 60, &out));
    free(a);
    free(b);
    free(c);
}

/* A cookie signed as session.c signs one, from a payload given whole: the
 * shape a server wrote before fingerprints were carried. */
static char *signed_cookie(const uint8_t key[SESSION_KEY_BYTES], const char *payload)
{
    static const char digits[] = "0123456789abcdef";
    size_t n = strlen(payload);
    char *out = malloc(2 * n + 1 + 2 * SHA256_DIGEST_SIZE + 1);
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[(uint8_t)payload[i] >> 4];
        out[2 * i + 1] = digits[payload[i] & 15];
    }
    uint8_t mac[SHA256_DIGEST_SIZE];
    struct hmac_sha256_ctx ctx;
    hmac_sha256_set_key(&ctx, SESSION_KEY_BYTES, key);
    hmac_sha256_update(&ctx, 2 * n, (const uint8_t *)out);
    hmac_sha256_digest(&ctx, sizeof mac, mac);
    out[2 * n] = '.';
    for (size_t i = 0; i < sizeof mac; i++) {
        out[2 * n + 1 + 2 * i] = digits[mac[i] >> 4];
        out[2 * n + 2 + 2 * i] = digits[mac[i] & 15];
    }
    out[2 * n + 1 + 2 * SHA256_DIGEST_SIZE] = '\0';
    return out;
}

/* The cookie carries the fingerprint of the token it was made from and
 * when it was issued, both under the signature; the fingerprint of a
 * token is the one of the hash the store keeps of it. */
static void test_session_cookie_fingerprint(void **state)
{
    const char *token = "00112233445566778899aabbccddeeff";
    char hex[STORE_SHA256_SIZE];
    store_sha256_hex(token, strlen(token), hex);
    uint8_t from_token[SESSION_CRED_BYTES], from_hash[SESSION_CRED_BYTES];
    session_fingerprint_token(token, from_token);
    assert_true(session_fingerprint_hex(hex, from_hash));
    assert_memory_equal(from_token, from_hash, SESSION_CRED_BYTES);
    assert_false(session_fingerprint_hex("abc", from_hash));
    assert_false(session_fingerprint_hex(NULL, from_hash));

    struct principal p = { .kind = PRINCIPAL_STUDENT, .id = "s1", .name = "Sam",
                           .has_cred = true };
    memcpy(p.cred, from_token, sizeof p.cred);
    struct principal out;
    char *c = session_cookie_make(key_a, &p, 5000, 60);
    assert_true(session_cookie_read(key_a, c, 5001, &out));
    assert_true(out.has_cred);
    assert_memory_equal(out.cred, p.cred, SESSION_CRED_BYTES);
    assert_int_equal(out.issued, 5000);
    free(c);
    /* made without a token (an open lab's name, an LTI launch): none carried */
    struct principal g = { .kind = PRINCIPAL_GUEST, .id = "g1", .name = "Ada" };
    c = session_cookie_make(key_a, &g, 5000, 60);
    assert_true(session_cookie_read(key_a, c, 5001, &out));
    assert_false(out.has_cred);
    assert_int_equal(out.issued, 5000);
    free(c);
    /* a cookie from before: no fingerprint, issued unknown (so judged by
     * every table of current tokens) */
    c = signed_cookie(key_a, "{\"k\":\"student\",\"e\":9000,\"i\":\"s1\",\"n\":\"Sam\"}");
    assert_true(session_cookie_read(key_a, c, 5001, &out));
    assert_int_equal(out.kind, PRINCIPAL_STUDENT);
    assert_false(out.has_cred);
    assert_int_equal(out.issued, 0);
    free(c);
    /* a fingerprint of another shape, even signed, is no session */
    c = signed_cookie(key_a, "{\"k\":\"student\",\"t\":1,\"e\":9000,\"i\":\"s1\","
                             "\"n\":\"Sam\",\"f\":\"00zz\"}");
    assert_false(session_cookie_read(key_a, c, 5001, &out));
    assert_int_equal(out.kind, PRINCIPAL_NONE);
    assert_false(out.has_cred);
    free(c);
}

static void test_display_names(void **state)
{
    char out[80], why[128];
    assert_true(session_check_name("  Ada L.  ", 10, 64, out, sizeof out, why, sizeof why));
    assert_string_equal(out, "Ada L.");
    assert_true(session_check_name("Zoë <i>", 8, 64, out, sizeof out, why, sizeof why));
    const char *bad[] = { "a\x07" "b", "a\nb", "\xe2\x80\xae" "evil", "\xc2\x85x", "\xff", "   ",
                          "\xc0\xaf" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(session_check_name(bad[i], strlen(bad[i]), 64, out, sizeof out, why,
                                        sizeof why));
    char longname[70];
    memset(longname, 'x', 65);
    assert_false(session_check_name(longname, 65, 64, out, sizeof out, why, sizeof why));
    assert_non_null(strstr(why, "64"));
}

/* A learning system's name: shown as it can be, never refused. */
static void test_vouched_names_cleaned(void **state)
{
    char out[8];
    session_clean_name("  \xe2\x80\xae" "Ev\x07il\xff  ", out, sizeof out);
    assert_string_equal(out, "Evil");
    /* cut at a character: "Zoë" is 4 bytes, a fifth would not fit "ë" */
    session_clean_name("abcdZo\xc3\xabq", out, sizeof out);
    assert_string_equal(out, "abcdZo");
    session_clean_name(NULL, out, sizeof out);
    assert_string_equal(out, "");
    char in_place[] = "\x1b[31mRed";
    session_clean_name(in_place, in_place, sizeof in_place);
    assert_string_equal(in_place, "[31mRed");
}

static void test_bearer_and_origin(void **state)
{
    char t[AUTH_TOKEN_MAX + 1];
    assert_true(auth_bearer("Bearer abc123", t, sizeof t));
    assert_string_equal(t, "abc123");
    assert_true(auth_bearer("bearer  abc", t, sizeof t));
    assert_false(auth_bearer("Basic abc", t, sizeof t));
    assert_false(auth_bearer("Bearer ", t, sizeof t));
    assert_false(auth_bearer("Bearer a b", t, sizeof t));
    assert_true(auth_token_shape("0123abcdef"));
    assert_false(auth_token_shape("ABC"));
    assert_false(auth_token_shape(""));
    assert_true(auth_same_origin("http://h:8080", "h:8080", NULL, false));
    assert_false(auth_same_origin("http://evil", "h:8080", NULL, false));
    assert_false(auth_same_origin("null", "h:8080", NULL, false));
    assert_false(auth_same_origin(NULL, "h:8080", NULL, false));
    assert_true(auth_same_origin(NULL, NULL, NULL, true));
    assert_true(auth_same_origin("https://class.example", "backend:1",
                                 "https://class.example/grader/", false));
    assert_false(auth_same_origin("http://class.example", "class.example",
                                  "https://class.example/", false));
}

static void test_token_guard(void **state)
{
    struct token_guard *g = token_guard_new(TOKEN_FAILURES_PER_WINDOW, TOKEN_FAILURE_WINDOW_S);
    struct client_id one, two;
    assert_true(client_addr_parse("10.0.0.1", &one));
    assert_true(client_addr_parse("10.0.0.2", &two));
    unsigned retry = 0;
    for (unsigned i = 0; i < TOKEN_FAILURES_PER_WINDOW; i++) {
        assert_true(token_guard_allow(g, &one, 100, &retry));
        token_guard_count(g, &one, 100);
    }
    assert_false(token_guard_allow(g, &one, 101, &retry));
    assert_int_equal(retry, TOKEN_FAILURE_WINDOW_S - 1);
    assert_true(token_guard_allow(g, &two, 101, &retry));   /* another client */
    assert_true(token_guard_allow(g, &one, 100 + TOKEN_FAILURE_WINDOW_S, &retry));
    uint64_t failures, refused;
    token_guard_counts(g, &failures, &refused);
    assert_int_equal(failures, TOKEN_FAILURES_PER_WINDOW);
    assert_int_equal(refused, 1);
    token_guard_free(g);
    /* another budget: the sign-ins' */
    g = token_guard_new(2, 60);
    token_guard_count(g, &one, 100);
    token_guard_count(g, &one, 100);
    assert_false(token_guard_allow(g, &one, 130, &retry));
    assert_int_equal(retry, 30);
    assert_true(token_guard_allow(g, &one, 160, &retry));
    token_guard_free(g);
    /* a record's id is the route's {id}: one segment, never empty */
    const struct route_row *rec = routes_find("/api/submissions/ab");
    char id[8];
    assert_non_null(rec);
    assert_int_equal(rec->route, ROUTE_SUBMISSION);
    assert_true(route_param(rec, "/api/submissions/ab", id, sizeof id));
    assert_string_equal(id, "ab");
    assert_int_equal(route_of("/api/submissions/"), ROUTE_NONE);
    assert_int_equal(route_of("/api/submissions/a/b"), ROUTE_NONE);
    /* the same for a class's student */
    const struct route_row *st = routes_find("/api/class/students/s042");
    assert_non_null(st);
    assert_int_equal(st->route, ROUTE_CLASS_STUDENT);
    assert_true(route_param(st, "/api/class/students/s042", id, sizeof id));
    assert_string_equal(id, "s042");
}

/* Issue 29: what a signed-out client may have kept, by count and bytes,
 * per client and per window; a /64 is one client, as in the fair share. */
/* Idempotency-Key: its shape (a UUID, base64url, a counter; 1 to
 * IDEMPOTENCY_KEY_MAX bytes), whose it is, and one claim per key in flight. */
static void test_idempotency_keys(void **state)
{
    (void)state;
    char longest[IDEMPOTENCY_KEY_MAX + 2];
    memset(longest, 'k', sizeof longest);
    longest[IDEMPOTENCY_KEY_MAX] = '\0';
    const char *good[] = { "0b8f6c1e-3d2a-4c5b-9e7f-1a2b3c4d5e6f", "a", "run:42", "YWJj+/=_.",
                           longest };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(idempotency_key_valid(good[i]));
    longest[IDEMPOTENCY_KEY_MAX] = 'k';
    longest[IDEMPOTENCY_KEY_MAX + 1] = '\0';
    const char *bad[] = { "", "a b", "a;b", "a\"b", "caf\xc3\xa9", "a\r\nX-Evil: 1", longest };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(idempotency_key_valid(bad[i]));
    struct principal sam = { .kind = PRINCIPAL_STUDENT }, nobody = { .kind = PRINCIPAL_NONE };
    snprintf(sam.id, sizeof sam.id, "s1");
    struct client_id c;
    const uint8_t addr[4] = { 10, 0, 0, 7 };
    client_id_set(&c, CLIENT_IPV4, addr, 32);
    char scope[IDEMPOTENCY_SCOPE_MAX];
    idempotency_scope(&sam, &c, scope);
    assert_string_equal(scope, "student:s1");
    idempotency_scope(&nobody, &c, scope);
    assert_string_equal(scope, "none:10.0.0.7");
    struct idempotency *t = idempotency_new(2);
    assert_non_null(t);
    assert_int_equal(idempotency_claim(t, "student:s1", "k"), IDEMPOTENCY_CLAIMED);
    assert_int_equal(idempotency_claim(t, "student:s1", "k"), IDEMPOTENCY_IN_USE);
    /* the NUL between scope and key keeps ("student:s1", "k") and ("student:s1k", "") apart */
    assert_int_equal(idempotency_claim(t, "student:s1k", ""), IDEMPOTENCY_CLAIMED);
    assert_int_equal(idempotency_claim(t, "student:s2", "k"), IDEMPOTENCY_FULL);
    idempotency_release(t, "student:s1", "k");
    idempotency_release(t, "student:s1", "k");   /* twice: nothing */
    assert_int_equal(idempotency_claim(t, "student:s2", "k"), IDEMPOTENCY_CLAIMED);
    assert_string_equal(idempotency_claim_to_str(IDEMPOTENCY_IN_USE), "in_use");
    idempotency_free(t);
    idempotency_free(NULL);
}

static void test_record_budget(void **state)
{
    (void)state;
    struct record_budget *b = record_budget_new(3, 1000, 600);
    struct client_id one, two, v6a, v6b;
    assert_true(client_addr_parse("10.0.0.1", &one));
    assert_true(client_addr_parse("10.0.0.2", &two));
    for (int i = 0; i < 3; i++)
        assert_int_equal(record_budget_take(b, &one, 100, 100), BUDGET_OK);
    assert_int_equal(record_budget_take(b, &one, 100, 101), BUDGET_RECORDS);
    assert_int_equal(record_budget_take(b, &two, 100, 101), BUDGET_OK);   /* its own */
    assert_int_equal(record_budget_take(b, &one, 100, 700), BUDGET_OK);   /* a new window */
    /* bytes: 900 fit, 101 more do not, 100 do */
    assert_int_equal(record_budget_take(b, &two, 800, 102), BUDGET_OK);
    assert_int_equal(record_budget_take(b, &two, 101, 102), BUDGET_BYTES);
    assert_int_equal(record_budget_take(b, &two, 100, 102), BUDGET_OK);
    /* one record larger than the whole budget is never kept */
    assert_int_equal(record_budget_take(b, &one, 1001, 703), BUDGET_BYTES);
    record_budget_free(b);
    /* a /64 is one client: its addresses share one budget */
    struct client_rules rules;
    client_addr_rules_init(&rules);
    struct sockaddr_in6 a = { .sin6_family = AF_INET6 }, c = { .sin6_family = AF_INET6 };
    inet_pton(AF_INET6, "2001:db8:1:2::1", &a.sin6_addr);
    inet_pton(AF_INET6, "2001:db8:1:2:ffff::9", &c.sin6_addr);
    client_addr_from_sockaddr((struct sockaddr *)&a, &v6a);
    client_addr_from_sockaddr((struct sockaddr *)&c, &v6b);
    struct client_id ca, cb;
    client_addr_resolve(&v6a, NULL, &rules, &ca);
    client_addr_resolve(&v6b, NULL, &rules, &cb);
    b = record_budget_new(1, 0, 600);   /* 0: no bound on bytes */
    assert_int_equal(record_budget_take(b, &ca, 1u << 30, 100), BUDGET_OK);
    assert_int_equal(record_budget_take(b, &cb, 1, 100), BUDGET_RECORDS);
    record_budget_free(b);
    record_budget_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routes_and_methods),
        cmocka_unit_test(test_route_table_rows),
        cmocka_unit_test(test_route_links_from_the_table),
        cmocka_unit_test(test_verdict_answer_text),
        cmocka_unit_test(test_deferred_error_retry_after),
        cmocka_unit_test(test_sse_framing),
        cmocka_unit_test(test_session_cookie),
        cmocka_unit_test(test_session_section),
        cmocka_unit_test(test_session_cookie_count),
        cmocka_unit_test(test_session_host_marker),
        cmocka_unit_test(test_lti_instructor_session_bound),
        cmocka_unit_test(test_pending_is_no_session),
        cmocka_unit_test(test_session_cookie_fingerprint),
        cmocka_unit_test(test_display_names),
        cmocka_unit_test(test_vouched_names_cleaned),
        cmocka_unit_test(test_bearer_and_origin),
        cmocka_unit_test(test_idempotency_keys),
        cmocka_unit_test(test_token_guard),
        cmocka_unit_test(test_record_budget),
        cmocka_unit_test(test_uri_inspection),
        cmocka_unit_test(test_body_kinds_and_lengths),
        cmocka_unit_test(test_source_extraction),
        cmocka_unit_test(test_client_behind_a_trusted_proxy),
        cmocka_unit_test(test_forwarded_header),
        cmocka_unit_test(test_forwarding_lines_joined),
        cmocka_unit_test(test_ipv6_clients_grouped),
        cmocka_unit_test(test_client_ids_from_sockets),
        cmocka_unit_test(test_access_log_escapes_what_could_steer_a_terminal),
        cmocka_unit_test(test_route_id_mid_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
