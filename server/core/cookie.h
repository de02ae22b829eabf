/*
 * cookie.h - the text of the Set-Cookie headers the server writes, and the
 * count of a name in a Cookie header. The values (a signed session) are
 * identity/session.h's; this only frames them. Pure functions.
 */
#ifndef BUTTERFLY_COOKIE_H
#define BUTTERFLY_COOKIE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The name cookie `base` has: COOKIE_HOST_PREFIX base when secure (the
 * request reached us over TLS), base otherwise. False when out is too
 * small.
 */
bool cookie_name(const char *base, bool secure, char *out, size_t outsz);

/*
 * The Set-Cookie value that signs this browser out: clears the session
 * cookie under the name cookie_name gives. Over TLS with
 * SameSite=None and Secure, as an LTI launch sets the session inside the
 * course's frame (a Lax one is ignored there, and the session would stay);
 * over plain http, Lax. False when out is too small.
 */
bool cookie_clear_session(bool secure, char *out, size_t outsz);

/*
 * The Set-Cookie value that clears cookie `base` under its bare name over
 * TLS, where a server older than the __Host- names set it (Path=/, no
 * Domain, so this replaces it). False when out is too small.
 */
bool cookie_clear_bare(const char *base, char *out, size_t outsz);

/*
 * The Set-Cookie header's value for cookie `base` with value `value`
 * (NULL clears the cookie): named as cookie_name says, HttpOnly,
 * SameSite=Lax, Path=/, Max-Age, and Secure when secure. False when out is
 * too small.
 */
bool cookie_set(const char *base, const char *value, bool secure,
                              unsigned max_age_s, char *out, size_t outsz);

/* As cookie_set with SameSite=None when secure: a cookie
 * set and sent inside the course's frame (an LTI launch). */
bool cookie_set_framed(const char *base, const char *value, bool secure,
                               unsigned max_age_s, char *out, size_t outsz);

/* cookie_set for SESSION_COOKIE. */
bool cookie_set_session(const char *value, bool secure, unsigned max_age_s, char *out,
                        size_t outsz);

/*
 * How many pairs of the Cookie header's value `header` are named exactly
 * `name`: 0, 1, or 2 for two or more (the scan stops there). libmicrohttpd
 * gives one value per name, so two (a sibling host's cookie, tossed for a
 * narrower path, sent first) are seen only here. NULL counts 0.
 */
unsigned cookie_count(const char *header, const char *name);

#endif
