/* cookie.c - Set-Cookie headers' text, and counting a Cookie header's names. */
#include "server/core/cookie.h"

#include <stdio.h>
#include <string.h>

#include "common/defaults.h"

bool cookie_name(const char *base, bool secure, char *out, size_t outsz)
{
    int n = snprintf(out, outsz, "%s%s", secure ? COOKIE_HOST_PREFIX : "", base);
    return n > 0 && (size_t)n < outsz;
}

/* The header's value setting (value) or clearing (NULL) cookie base:
 * over TLS named COOKIE_HOST_PREFIX base, which the browser takes only
 * with Secure, Path=/ and no Domain, and so from no other host or
 * plain-http page; SameSite=None when framed, as a cookie inside the
 * course's frame must be (browsers take that only with Secure). */
static bool set_cookie(const char *base, const char *value, bool secure, bool framed,
                       unsigned max_age_s, char *out, size_t outsz)
{
    int n = snprintf(out, outsz, "%s%s=%s; Path=/; HttpOnly; SameSite=%s; Max-Age=%u%s",
                     secure ? COOKIE_HOST_PREFIX : "", base, value ? value : "",
                     secure && framed ? "None" : "Lax", value ? max_age_s : 0,
                     secure ? "; Secure" : "");
    return n > 0 && (size_t)n < outsz;
}

bool cookie_set(const char *base, const char *value, bool secure,
                              unsigned max_age_s, char *out, size_t outsz)
{
    /* HttpOnly: no script reads it; SameSite=Lax: a cross-site POST does
     * not carry it (the Origin check is the second lock) */
    return set_cookie(base, value, secure, false, max_age_s, out, outsz);
}

bool cookie_set_framed(const char *base, const char *value, bool secure,
                               unsigned max_age_s, char *out, size_t outsz)
{
    return set_cookie(base, value, secure, true, max_age_s, out, outsz);
}

bool cookie_set_session(const char *value, bool secure, unsigned max_age_s, char *out,
                        size_t outsz)
{
    return cookie_set(SESSION_COOKIE, value, secure, max_age_s, out, outsz);
}

bool cookie_clear_session(bool secure, char *out, size_t outsz)
{
    /* None over TLS: an LTI launch set it inside the course's frame, where
     * a Lax clearing is ignored and the session would stay */
    return set_cookie(SESSION_COOKIE, NULL, secure, true, 0, out, outsz);
}

bool cookie_clear_bare(const char *base, char *out, size_t outsz)
{
    int n = snprintf(out, outsz, "%s=; Path=/; HttpOnly; SameSite=None; Secure; Max-Age=0",
                     base);
    return n > 0 && (size_t)n < outsz;
}

unsigned cookie_count(const char *header, const char *name)
{
    unsigned count = 0;
    size_t name_len = strlen(name);
    const char *p = header;
    /* pairs are "name=value" split by ';' with optional spaces; a name
     * matches whole and case-sensitively, as browsers keep them */
    while (p && *p && count < 2) {
        while (*p == ' ' || *p == '\t' || *p == ';')
            p++;
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > name_len && !memcmp(p, name, name_len) && p[name_len] == '=')
            count++;
        p = end;
    }
    return count;
}
