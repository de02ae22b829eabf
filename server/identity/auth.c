/* auth.c - bearer tokens and the same-origin rule. */
#include "server/identity/auth.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/defaults.h"

bool auth_token_shape(const char *token)
{
    size_t n = token ? strnlen(token, AUTH_TOKEN_MAX + 1) : 0;
    if (n == 0 || n > AUTH_TOKEN_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((token[i] >= '0' && token[i] <= '9') || (token[i] >= 'a' && token[i] <= 'f')))
            return false;
    return true;
}

size_t auth_token_len(const char *token)
{
    size_t n = strlen(token);
    while (n > 0 && (token[n - 1] == '\r' || token[n - 1] == '\n'))
        n--;
    return n;
}

bool auth_bearer(const char *authorization, char *token, size_t tokensz)
{
    if (!authorization || strncasecmp(authorization, "Bearer ", 7) != 0)
        return false;
    const char *t = authorization + 7;
    while (*t == ' ')
        t++;
    size_t n = strcspn(t, " ");
    if (t[n] != '\0' || n >= tokensz || n > AUTH_TOKEN_MAX || n == 0)
        return false;
    memcpy(token, t, n);
    token[n] = '\0';
    return true;
}

/* The "scheme://host[:port]" prefix of a URL, into out; false if none. */
static bool origin_of(const char *url, char *out, size_t outsz)
{
    const char *sep = strstr(url, "://");
    if (!sep)
        return false;
    size_t n = (size_t)(sep + 3 - url) + strcspn(sep + 3, "/?#");
    if (n >= outsz)
        return false;
    memcpy(out, url, n);
    out[n] = '\0';
    return true;
}

bool auth_same_origin(const char *origin, const char *host, const char *public_url,
                      bool custom_header)
{
    if (custom_header)
        return true;
    if (!origin)
        return false;
    char want[512];
    if (public_url && *public_url) {
        return origin_of(public_url, want, sizeof want) && !strcasecmp(origin, want);
    }
    if (!host)
        return false;
    /* "null" (a sandboxed or file page) and other hosts fail here */
    const char *sep = strstr(origin, "://");
    return sep && (!strncmp(origin, "http://", 7) || !strncmp(origin, "https://", 8)) &&
           !strcasecmp(sep + 3, host);
}
