/* request.c - the parsing of a request's path, headers and body (the
 * routes are server/routes.c's table). */
#include "server/core/request.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/parse_num.h"

void request_uri_inspect(const char *uri, struct request_uri *out)
{
    /* the query string is not logged: it is nobody's business */
    size_t n = strcspn(uri, "?");
    out->escaped = memchr(uri, '%', n) != NULL;
    out->escaped_nul = false;
    for (size_t i = 0; i + 2 < n; i++)
        if (uri[i] == '%' && uri[i + 1] == '0' && uri[i + 2] == '0')
            out->escaped_nul = true;
    if (n >= sizeof out->log_path)
        n = sizeof out->log_path - 1;
    memcpy(out->log_path, uri, n);
    out->log_path[n] = '\0';
}

/* Whether the media type of a Content-Type value is `want`. */
static bool media_type_is(const char *value, const char *want)
{
    while (*value == ' ' || *value == '\t')
        value++;
    size_t n = strlen(want);
    if (strncasecmp(value, want, n) != 0)
        return false;
    value += n;
    while (*value == ' ' || *value == '\t')
        value++;
    /* "application/jsonx" is another type; parameters follow a ';' */
    return *value == '\0' || *value == ';';
}

enum body_kind request_body_kind(const char *content_type)
{
    if (!content_type)
        return BODY_UNSUPPORTED;
    if (media_type_is(content_type, "application/json"))
        return BODY_JSON;
    if (media_type_is(content_type, "text/plain"))
        return BODY_PLAIN;
    return BODY_UNSUPPORTED;
}

const char *request_too_large_message(enum body_kind k)
{
    return k == BODY_JSON ? "The request is over the limit of 256 KiB."
                          : "The kernel body is over the limit of 64 KiB.";
}

const char *request_length_check_to_str(enum length_check c)
{
    switch (c) {
    case LENGTH_OK: return "ok";
    case LENGTH_TOO_LARGE: return "too large";
    case LENGTH_REQUIRED: return "length required";
    case LENGTH_MALFORMED: return "malformed";
    }
    return "unknown";
}

enum length_check request_check_length(const char *content_length,
                                       const char *transfer_encoding, size_t limit)
{
    if (content_length) {
        uint64_t n;
        /* digits only: "+5", "0x10" and " 5" are not lengths */
        if (!parse_u64(content_length, UINT64_MAX, &n))
            return LENGTH_MALFORMED;
        return n > limit ? LENGTH_TOO_LARGE : LENGTH_OK;
    }
    if (transfer_encoding && !strcasecmp(transfer_encoding, "chunked"))
        return LENGTH_OK;   /* counted as it arrives */
    return LENGTH_REQUIRED;
}

bool request_extract_source(enum body_kind k, const char *body, size_t len, const char **src,
                            size_t *src_len, json_t **owner, char *msg, size_t msgsz)
{
    *owner = NULL;
    if (k != BODY_JSON) {
        *src = body ? body : "";
        *src_len = body ? len : 0;
        return true;
    }
    json_error_t jerr;
    json_t *j = json_loadb(body ? body : "", body ? len : 0, JSON_REJECT_DUPLICATES, &jerr);
    if (!j) {
        snprintf(msg, msgsz, "Malformed JSON at line %d, column %d: %s", jerr.line,
                 jerr.column, jerr.text);
        return false;
    }
    json_t *s = json_object_get(j, "source");
    if (!json_is_string(s)) {
        snprintf(msg, msgsz, "The JSON must be an object with a string \"source\".");
        json_decref(j);
        return false;
    }
    *src = json_string_value(s);
    *src_len = json_string_length(s);
    *owner = j;
    return true;
}
