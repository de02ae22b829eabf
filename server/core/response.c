/* response.c - every response the server sends goes out through here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/defaults.h"
#include "server/core/http.h"
#include "server/core/cookie.h"
#include "server/core/errors.h"

/* Whether resp already sets cookie `name` (Set-Cookie "name=..."). */
struct cookie_find {
    const char *name;
    bool found;
};

static enum MHD_Result find_set_cookie(void *cls, enum MHD_ValueKind kind, const char *key,
                                       const char *value)
{
    struct cookie_find *f = cls;
    size_t n = strlen(f->name);
    (void)kind;
    if (key && value && !strcasecmp(key, MHD_HTTP_HEADER_SET_COOKIE) &&
        !strncmp(value, f->name, n) && value[n] == '=')
        f->found = true;
    return f->found ? MHD_NO : MHD_YES;
}

static bool sets_cookie(struct MHD_Response *resp, const char *name)
{
    struct cookie_find f = { name, false };
    MHD_get_response_headers(resp, find_set_cookie, &f);
    return f.found;
}

/* The cookie work auth_begin left for the answer (request.clear_cookies,
 * session_to_rename), for each cookie the answer does not set itself. */
static void cookie_upkeep(struct request *r, struct MHD_Response *resp)
{
    char header[1300], name[64];
    if (!r->clear_cookies && !r->session_to_rename)
        return;
    if ((r->clear_cookies & COOKIE_CLEAR_SESSION_BARE) && !sets_cookie(resp, SESSION_COOKIE) &&
        cookie_clear_bare(SESSION_COOKIE, header, sizeof header))
        response_header(r, resp, MHD_HTTP_HEADER_SET_COOKIE, header);
    if ((r->clear_cookies & COOKIE_CLEAR_PENDING_BARE) && !sets_cookie(resp, PENDING_COOKIE) &&
        cookie_clear_bare(PENDING_COOKIE, header, sizeof header))
        response_header(r, resp, MHD_HTTP_HEADER_SET_COOKIE, header);
    if (!cookie_name(SESSION_COOKIE, r->secure, name, sizeof name) ||
        sets_cookie(resp, name))
        return;
    if (r->clear_cookies & COOKIE_CLEAR_SESSION) {
        if (cookie_clear_session(r->secure, header, sizeof header))
            response_header(r, resp, MHD_HTTP_HEADER_SET_COOKIE, header);
    } else if (r->session_to_rename) {
        /* the older server's value, unchanged (its signature and expiry
         * stand), under the __Host- name; framed as an LTI launch's was
         * (made without a token), so the course's frame still sends it */
        bool framed = !r->who.has_cred && r->who.kind != PRINCIPAL_GUEST;
        if ((framed ? cookie_set_framed : cookie_set)(
                SESSION_COOKIE, r->session_to_rename, true, SESSION_LIFETIME_S, header,
                sizeof header))
            response_header(r, resp, MHD_HTTP_HEADER_SET_COOKIE, header);
    }
}

bool response_header(struct request *r, struct MHD_Response *resp, const char *name,
                     const char *value)
{
    if (MHD_add_response_header(resp, name, value) == MHD_YES)
        return true;
    r->header_lost = true;   /* response_queue answers out of memory instead */
    return false;
}

/* response_queue, and response_out_of_memory's own queueing (last:
 * false): an answer that lost a header to a failed allocation is not sent
 * (a stream without its type reads as a body that never ends, a page
 * without its CSP or no-store is a weaker page); the out-of-memory answer
 * goes instead, and when that loses one too the connection is closed. */
static enum MHD_Result queue(struct request *r, unsigned status, struct MHD_Response *resp,
                             const char *type, const char *cache, bool last)
{
    cookie_upkeep(r, resp);
    response_header(r, resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    response_header(r, resp, MHD_HTTP_HEADER_CACHE_CONTROL, cache ? cache : "no-store");
    response_header(r, resp, "X-Content-Type-Options", "nosniff");
    /* on every answer: an address with a token in it (a personal link,
     * the instructor's) never leaves in a Referer */
    response_header(r, resp, "Referrer-Policy", "no-referrer");
    if (r->header_lost) {
        r->header_lost = false;
        MHD_destroy_response(resp);
        r->state = REQ_DONE;
        return last ? response_out_of_memory(r) : MHD_NO;
    }
    enum MHD_Result ret = MHD_queue_response(r->conn, status, resp);
    MHD_destroy_response(resp);
    r->status = status;
    r->state = REQ_DONE;
    return ret;
}

enum MHD_Result response_queue(struct request *r, unsigned status, struct MHD_Response *resp,
                               const char *type, const char *cache)
{
    if (!resp) {
        r->header_lost = false;   /* whatever was added went with it */
        return response_out_of_memory(r);
    }
    return queue(r, status, resp, type, cache, true);
}

void response_add_pair(struct request *r, struct MHD_Response *resp, const char *pair)
{
    char name[64];
    const char *colon = strchr(pair, ':');
    if (!colon || (size_t)(colon - pair) >= sizeof name)
        return;
    memcpy(name, pair, (size_t)(colon - pair));
    name[colon - pair] = '\0';
    response_header(r, resp, name, colon + 1 + (colon[1] == ' '));
}

struct MHD_Response *response_from_buffer(char *data, size_t len,
                                          enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, data, mode);
    if (!resp && mode == MHD_RESPMEM_MUST_FREE)
        free(data);
    return resp;
}

enum MHD_Result response_json(struct request *r, unsigned status, json_t *j)
{
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;
    json_decref(j);
    /* an answer that cannot be written (out of memory, text that is not
     * UTF-8) is a 500, never a connection closed without a word */
    if (!text)
        return response_error(r, ERROR_INTERNAL_ERROR, "The answer could not be written.", NULL,
                              NULL);
    return response_queue(r, status,
                          response_from_buffer(text, strlen(text), MHD_RESPMEM_MUST_FREE),
                          "application/json", NULL);
}

/* Every error has the same shape: {"error": {"code", "message"}}, its
 * status and code from the one table (errors.h). */
enum MHD_Result response_error(struct request *r, enum error_kind e, const char *message,
                               const char *header, const char *value)
{
    const struct error_row *row = errors_row(e);
    json_t *j = json_pack("{s:{s:s, s:s}}", "error", "code", row->code, "message", message);
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text)
        return response_out_of_memory(r);
    struct MHD_Response *resp = response_from_buffer(text, strlen(text), MHD_RESPMEM_MUST_FREE);
    if (!resp)
        return response_out_of_memory(r);
    if (header)
        response_header(r, resp, header, value);
    if (row->retry_after_s && !(header && !strcasecmp(header, MHD_HTTP_HEADER_RETRY_AFTER))) {
        char secs[16];
        snprintf(secs, sizeof secs, "%u", row->retry_after_s);
        response_header(r, resp, MHD_HTTP_HEADER_RETRY_AFTER, secs);
    }
    return response_queue(r, row->status, resp, "application/json", NULL);
}

enum MHD_Result response_out_of_memory(struct request *r)
{
    /* written at compile time: the answer needs no memory of its own but
     * libmicrohttpd's response; without even that, the connection closes */
    static const char body[] =
        "{\"error\":{\"code\":\"internal_error\",\"message\":\"Out of memory.\"}}";
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(sizeof body - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    r->header_lost = false;   /* the answer that lost one is gone */
    if (!resp) {
        r->state = REQ_DONE;
        return MHD_NO;
    }
    return queue(r, errors_row(ERROR_INTERNAL_ERROR)->status, resp, "application/json", NULL,
                 false);
}

enum MHD_Result response_file(struct request *r, const char *name)
{
    /* The name is looked up in the set loaded at start, never opened:
     * "..", "%2e%2e", "%2f" and "%00" can only fail to match. */
    const struct static_file *f = static_files_find(r->srv->files, name);
    if (!f)
        return response_error(r, ERROR_NOT_FOUND, "No such file.", NULL, NULL);
    const char *inm = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                  MHD_HTTP_HEADER_IF_NONE_MATCH);
    bool fresh = inm && !strcmp(inm, f->etag);
    struct MHD_Response *resp = fresh ? response_from_buffer(NULL, 0, MHD_RESPMEM_PERSISTENT)
                                      : response_from_buffer(f->data, f->len,
                                                             MHD_RESPMEM_PERSISTENT);
    if (!resp)
        return response_out_of_memory(r);
    response_header(r, resp, MHD_HTTP_HEADER_ETAG, f->etag);
    response_header(r, resp, "Content-Security-Policy", r->srv->page_csp);
    /* Revalidate every time: the page changes with the server, and a 304
     * costs one round trip. */
    return response_queue(r, fresh ? 304 : 200, resp, f->content_type, "no-cache");
}

char *response_verdict_text(const char *stored, size_t len, bool recorded, const char *code,
                            const char *reason, size_t *outlen)
{
    /* The stored bytes, their closing brace replaced by the members that
     * say whether they are kept: no second parse of a verdict that was
     * made by this server and ends in '}'. */
    if (len < 3 || stored[0] != '{' || stored[len - 1] != '}')
        return NULL;   /* never "{}": a verdict has members */
    /* a kept record's tail is a constant: the answer of every recorded
     * submission allocates nothing more for it */
    const char *tail = ",\"recorded\":true}";
    char *made = NULL;
    if (!recorded) {
        json_t *e = json_pack("{s:s, s:s}", "code", code ? code : "", "message",
                              reason ? reason : "");
        char *et = e ? json_dumps(e, JSON_COMPACT) : NULL;
        json_decref(e);
        if (et && asprintf(&made, ",\"recorded\":false,\"record_error\":%s}", et) < 0)
            made = NULL;
        free(et);
        if (!made)
            return NULL;
        tail = made;
    }
    size_t tl = strlen(tail);
    char *out = malloc(len - 1 + tl + 1);
    if (out) {
        memcpy(out, stored, len - 1);
        memcpy(out + len - 1, tail, tl + 1);
        if (outlen)
            *outlen = len - 1 + tl;
    }
    free(made);
    return out;
}
