/* lti_fetch.c - LTI's outbound calls (libcurl): bounded in time and size,
 * only to the hosts of a platform's registration. */
#include "server/lti/lti_fetch.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/defaults.h"

struct sink {
    char *buf;
    size_t len, max;
    bool over;
};

static size_t sink_write(char *data, size_t size, size_t n, void *arg)
{
    struct sink *k = arg;
    size_t add = size * n;
    if (k->len + add > k->max) {
        k->over = true;
        return 0;   /* libcurl stops the transfer */
    }
    char *grown = realloc(k->buf, k->len + add + 1);
    if (!grown)
        return 0;
    memcpy(grown + k->len, data, add);
    k->buf = grown;
    k->len += add;
    k->buf[k->len] = '\0';
    return add;
}

/* The Link headers' values of an answer, joined with commas (one header
 * value as many as it likes, RFC 8288), bounded. */
struct links {
    char text[4096];
    size_t len;
    bool over;
};

static size_t header_line(char *data, size_t size, size_t n, void *arg)
{
    struct links *k = arg;
    size_t len = size * n;
    if (len > 5 && !strncasecmp(data, "link:", 5)) {
        size_t from = 5, to = len;
        while (from < to && (data[from] == ' ' || data[from] == '\t'))
            from++;
        while (to > from && (data[to - 1] == '\r' || data[to - 1] == '\n' ||
                             data[to - 1] == ' '))
            to--;
        size_t add = to - from + (k->len ? 1 : 0);
        if (k->len + add + 1 > sizeof k->text) {
            k->over = true;
        } else {
            if (k->len)
                k->text[k->len++] = ',';
            memcpy(k->text + k->len, data + from, to - from);
            k->len += to - from;
            k->text[k->len] = '\0';
        }
    }
    return len;
}

static bool fetch(const struct lti_platform *p, const char *url, const char *body,
                  const char *ctype, const char *bearer, const char *accept, size_t max,
                  long timeout_ms, char **out, long *status, struct links *links, char *err,
                  size_t errsz)
{
    *out = NULL;
    *status = 0;
    /* only the registration's hosts: a line item comes in a launch, and
     * no address anyone else names is called with our assertion or token */
    if (!p || !lti_config_allows(p, url)) {
        snprintf(err, errsz, "the address is not at a host of the platform's registration");
        return false;
    }
    CURL *c = curl_easy_init();
    if (!c) {
        snprintf(err, errsz, "libcurl could not start");
        return false;
    }
    struct sink k = { NULL, 0, max, false };
    struct curl_slist *h = NULL;
    char line[4200];
    if (ctype) {
        snprintf(line, sizeof line, "Content-Type: %s", ctype);
        h = curl_slist_append(h, line);
    }
    if (accept) {
        snprintf(line, sizeof line, "Accept: %s", accept);
        h = curl_slist_append(h, line);
    }
    if (bearer) {
        snprintf(line, sizeof line, "Authorization: Bearer %s", bearer);
        h = curl_slist_append(h, line);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)LTI_CONNECT_TIMEOUT_MS);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &k);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "butterfly-grader-lti");
    if (h)
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    if (links) {
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, header_line);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, links);
    }
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    }
    CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (rc != CURLE_OK || k.over) {
        snprintf(err, errsz, "%s", k.over ? "the answer is over its size bound"
                                          : curl_easy_strerror(rc));
        free(k.buf);
        return false;
    }
    *out = k.buf ? k.buf : strdup("");
    return *out != NULL;
}

bool lti_fetch(const struct lti_platform *p, const char *url, const char *body,
               const char *ctype, const char *bearer, const char *accept, size_t max,
               long timeout_ms, char **out, long *status, char *err, size_t errsz)
{
    return fetch(p, url, body, ctype, bearer, accept, max, timeout_ms, out, status, NULL, err,
                 errsz);
}

bool lti_fetch_page(const struct lti_platform *p, const char *url, const char *bearer,
                    const char *accept, size_t max, long timeout_ms, char **out, long *status,
                    char *next, size_t nextsz, bool *next_unread, char *err, size_t errsz)
{
    struct links links = { .len = 0 };
    links.text[0] = '\0';
    next[0] = '\0';
    *next_unread = false;
    if (!fetch(p, url, NULL, NULL, bearer, accept, max, timeout_ms, out, status, &links, err,
               errsz))
        return false;
    /* a next link this cannot follow (the links past their bound, the
     * address past nextsz) is said, never taken for the last page */
    if (links.over) {
        *next_unread = true;
    } else if (links.len && !lti_check_link_next(links.text, next, nextsz)) {
        next[0] = '\0';
        char *big = malloc(sizeof links.text);
        *next_unread = big && lti_check_link_next(links.text, big, sizeof links.text);
        free(big);
    }
    return true;
}
