/*
 * fuzz_request - what the server does with a request before a body reaches
 * the pool, through the server library's pure functions: the raw URI's
 * inspection (the access log's path, %-escape and %00 flags), the route
 * table, the static-file lookup, the media type and length checks, the
 * JSON source extraction, the client address behind a proxy, and the
 * access log's sanitising; then the body checks on what was extracted.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/checks/source_check.h"
#include "server/observe/access_log.h"
#include "server/conn/client_addr.h"
#include "server/core/request.h"
#include "server/core/route.h"
#include "server/core/static_files.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct static_files *files;
static struct client_rules rules;
static struct client_rules forwarded_rules;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char err[256];
    (void)argc;
    (void)argv;
    files = static_files_load("static", err, sizeof err);   /* run from the repo root */
    client_addr_rules_init(&rules);
    client_addr_proxies_add(&rules.proxies, "127.0.0.1", err, sizeof err);
    client_addr_proxies_add(&rules.proxies, "10.0.0.0/8", err, sizeof err);
    forwarded_rules = rules;
    forwarded_rules.header = CLIENT_HEADER_FORWARDED;
    return 0;
}

/* A C string of the input, as libmicrohttpd hands a URI or a header over. */
static char *text_of(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s) {
        memcpy(s, data, size);
        s[size] = '\0';
    }
    return s;
}

static void fuzz_uri(const uint8_t *data, size_t size)
{
    char *uri = text_of(data, size);
    if (!uri)
        return;
    struct request_uri u;
    request_uri_inspect(uri, &u);
    if (strlen(u.log_path) >= sizeof u.log_path)
        abort();
    /* a "%00" before the query string is always flagged */
    size_t q = strcspn(uri, "?");
    if (memmem(uri, q, "%00", 3) && !u.escaped_nul)
        abort();
    /* the log line has no byte that could steer a terminal */
    char line[1024];
    access_log_sanitize(u.log_path, line, sizeof line);
    for (const char *p = line; *p; p++)
        if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
            abort();
    const struct route_row *row = routes_find(uri);
    enum route route = row ? row->route : ROUTE_NONE;
    /* whatever the path, POST is allowed exactly where Allow says so */
    char allow[64];
    bool post = row && route_allows(row, "POST", allow, sizeof allow);
    if (row && post != (strstr(allow, "POST") != NULL))
        abort();
    if (route == ROUTE_STATIC && files) {
        const struct static_file *f = static_files_find(files, uri + strlen("/static/"));
        if (f && (strchr(uri + 8, '/') || strstr(uri, "..")))
            abort();
    }
    free(uri);
}

static void fuzz_headers(const uint8_t *data, size_t size)
{
    char *h = text_of(data, size);
    if (!h)
        return;
    /* the same text as every header the checks read */
    enum body_kind k = request_body_kind(h);
    request_check_length(h, h, request_body_limit(k));
    struct client_id peer, out;
    client_addr_parse("127.0.0.1", &peer);
    client_addr_resolve(&peer, h, &rules, &out);
    if (out.family != CLIENT_IPV4 && out.family != CLIENT_IPV6)
        abort();
    client_addr_resolve(&peer, h, &forwarded_rules, &out);
    char joined[64] = "";
    client_addr_join(joined, sizeof joined, h);
    client_addr_join(joined, sizeof joined, h);
    if (strlen(joined) >= sizeof joined)
        abort();
    /* the client is always an address, or the peer's, and prints as one */
    char text[CLIENT_ID_TEXT_MAX];
    client_id_format(&out, text, sizeof text);
    if (out.family == CLIENT_LOCAL || (!strchr(text, '.') && !strchr(text, ':')))
        abort();
    free(h);
}

static void fuzz_json(const uint8_t *data, size_t size)
{
    const char *src;
    size_t len;
    json_t *owner;
    char msg[300];
    memset(msg, 'x', sizeof msg);
    if (request_extract_source(BODY_JSON, (const char *)data, size, &src, &len, &owner, msg,
                               sizeof msg)) {
        /* jansson refuses \u0000 here, so the source is a C string */
        if (memchr(src, '\0', len) || src[len] != '\0')
            abort();
        int line;
        char cmsg[256];
        source_check(src, len, &line, cmsg, sizeof cmsg);
        json_decref(owner);
    } else if (!memchr(msg, '\0', sizeof msg)) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* the first byte picks the piece */
    switch (data[0] % 3) {
    case 0: fuzz_json(data + 1, size - 1); break;
    case 1: fuzz_uri(data + 1, size - 1); break;
    default: fuzz_headers(data + 1, size - 1); break;
    }
    return 0;
}
