/*
 * fuzz_request - the request handling the server does before a body
 * reaches the pool: the URI callback (path cut for the log, %-escape and
 * %00 flags), the route table, the static-file lookup, and the JSON source
 * extraction, then the body checks on what was extracted.
 *
 * These are static in server/http.c, so this file includes it rather than
 * copying them: what is fuzzed is the server's own code.
 */
#include "../server/http.c"

#include "source_check.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct static_files *files;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char err[256];
    (void)argc;
    (void)argv;
    files = static_files_load("static", err, sizeof err);   /* run from the repo root */
    return 0;
}

static void fuzz_uri(const uint8_t *data, size_t size)
{
    char *uri = malloc(size + 1);
    if (!uri)
        return;
    memcpy(uri, data, size);
    uri[size] = '\0';
    struct server srv;
    memset(&srv, 0, sizeof srv);
    struct request *r = on_uri(&srv, uri, NULL);
    if (r) {
        /* the log line's path: cut, and free of control characters */
        size_t n = strlen(r->path);
        if (n >= sizeof r->path)
            abort();
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)r->path[i] < 0x20 || r->path[i] == 0x7f)
                abort();
        /* a "%00" before the query string is always flagged */
        size_t q = strcspn(uri, "?");
        char *nul = memmem(uri, q, "%00", 3);
        if (nul && !r->path_nul)
            abort();
        free(r);
    }
    enum route route = match(uri);
    if (route == ROUTE_STATIC && files) {
        const struct static_file *f = static_files_find(files, uri + strlen("/static/"));
        if (f && (strchr(uri + 8, '/') || strstr(uri, "..")))
            abort();
    }
    free(uri);
}

static void fuzz_json(const uint8_t *data, size_t size)
{
    struct request r;
    memset(&r, 0, sizeof r);
    r.is_json = true;
    r.body = malloc(size + 1);
    if (!r.body)
        return;
    memcpy(r.body, data, size);
    r.len = size;
    const char *src;
    size_t len;
    json_t *owner;
    char msg[300];
    memset(msg, 'x', sizeof msg);
    if (extract_source(&r, &src, &len, &owner, msg, sizeof msg)) {
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
    free(r.body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* the first byte picks the piece */
    if (data[0] & 1)
        fuzz_uri(data + 1, size - 1);
    else
        fuzz_json(data + 1, size - 1);
    return 0;
}
