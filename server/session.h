/*
 * session.h - who a request is: the principal, the signed session cookie
 * that carries it, and the checks on an open lab's display name.
 *
 * A cookie is the principal and its expiry, signed with HMAC-SHA256 under
 * a key the server holds (from the store, so that several instances share
 * sessions). Nothing is looked up to read one: a forged, altered or
 * expired cookie fails the signature or the clock and the request is
 * simply signed out. Pure functions: no sockets, no store.
 */
#ifndef BUTTERFLY_SESSION_H
#define BUTTERFLY_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define SESSION_KEY_BYTES 32
#define PRINCIPAL_ID_MAX 160     /* a roster id, or "guest-" and 32 hex digits */
#define PRINCIPAL_NAME_MAX 260   /* a roster name or a display name, UTF-8 */

enum principal_kind {
    PRINCIPAL_NONE,          /* signed out: grading as before, nothing attributed */
    PRINCIPAL_STUDENT,       /* a roster entry (personal link or its token) */
    PRINCIPAL_GUEST,         /* an open lab's display name: unverified */
    PRINCIPAL_INSTRUCTOR,    /* the instructor's token */
};

/* "none", "student", "guest" or "instructor"; never NULL. */
const char *principal_kind_to_str(enum principal_kind k);

struct principal {
    enum principal_kind kind;
    char id[PRINCIPAL_ID_MAX];      /* the student's id; "" for none and the instructor */
    char name[PRINCIPAL_NAME_MAX];  /* shown on the page; "" when none */
};

/*
 * The cookie's value for p, valid until now + lifetime_s, signed with key:
 * a NUL-terminated string the caller frees. NULL when out of memory or
 * when p's id or name is too long.
 */
char *session_cookie_make(const uint8_t key[SESSION_KEY_BYTES], const struct principal *p,
                          time_t now, unsigned lifetime_s);

/*
 * Reads a cookie's value: true with *out filled when the signature is the
 * key's and the expiry is after now. False otherwise (forged, altered,
 * expired, malformed, NULL), *out then left signed out.
 */
bool session_cookie_read(const uint8_t key[SESSION_KEY_BYTES], const char *value, time_t now,
                         struct principal *out);

/*
 * The Set-Cookie header's value for cookie value `value` (NULL clears
 * the cookie): HttpOnly, SameSite=Lax, Path=/, Max-Age, and Secure when
 * secure. False when out is too small.
 */
bool session_set_cookie(const char *value, bool secure, unsigned max_age_s, char *out,
                        size_t outsz);

/*
 * Checks an open lab's display name of len bytes: valid UTF-8, at most
 * max_bytes, no control character (C0, DEL, C1) and not blank. Writes
 * it with surrounding spaces trimmed into out (outsz > max_bytes).
 * False with a sentence for the client in why.
 */
bool session_check_name(const char *name, size_t len, size_t max_bytes, char *out,
                        size_t outsz, char *why, size_t whysz);

/* Equality of n bytes in time that does not depend on where they differ. */
bool session_equal(const void *a, const void *b, size_t n);

#endif
