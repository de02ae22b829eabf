/*
 * session.h - who a request is: the principal, the signed session cookie
 * that carries it, and the checks on an open lab's display name.
 *
 * A cookie is the principal, when it was issued, its expiry and the
 * fingerprint of the token it was made from, signed with HMAC-SHA256
 * under a key the server holds (from the store, so that several instances
 * share sessions). Nothing is looked up to read one: a forged, altered or
 * expired cookie fails the signature or the clock and the request is
 * simply signed out. Whether the fingerprint is still current (a renewed
 * token, a forgotten student) is server/credentials.h's question, asked
 * of memory. Pure functions: no sockets, no store.
 */
#ifndef BUTTERFLY_SESSION_H
#define BUTTERFLY_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define SESSION_KEY_BYTES 32
#define PRINCIPAL_ID_MAX 160     /* a roster id (STORE_MAX_STUDENT_ID), or "guest-" and 32
                                    hex digits, or PRINCIPAL_LTI_PREFIX and a class id */
#define PRINCIPAL_NAME_MAX 260   /* a roster name or a display name, UTF-8 */
#define PRINCIPAL_LTI_PREFIX "lti:" /* an instructor's id when a launch made the session */
#define SESSION_CRED_BYTES 8     /* a token's fingerprint: its SHA-256's first bytes */

enum principal_kind {
    PRINCIPAL_NONE,          /* signed out: grading as before, nothing attributed */
    PRINCIPAL_STUDENT,       /* a roster entry (personal link or its token) */
    PRINCIPAL_GUEST,         /* an open lab's display name: unverified */
    PRINCIPAL_INSTRUCTOR,    /* the instructor's token */
};

/* "none", "student", "guest" or "instructor"; never NULL. */
const char *principal_kind_to_str(enum principal_kind k);

struct principal;

/* The one class an instructor's session may read: the class id of the LTI
 * launch that made it (a teacher of one course sees that course's learners,
 * never the store's other classes); NULL for the instructor of the
 * server's own token (every student) and for anyone else. */
const char *principal_class_scope(const struct principal *p);

/* Whether a and b are the same person: the same kind and id. */
bool principal_same(const struct principal *a, const struct principal *b);

struct principal {
    enum principal_kind kind;
    char id[PRINCIPAL_ID_MAX];      /* the student's id; "" for none and the instructor of
                                       the token, PRINCIPAL_LTI_PREFIX and the class id for
                                       an instructor an LTI launch signed in */
    char name[PRINCIPAL_NAME_MAX];  /* shown on the page; "" when none */
    /* The token the session was made from (session_fingerprint): a session
     * ends when its token is no longer the current one. has_cred false:
     * made without a token (an open lab's name, an LTI launch), valid while
     * the student exists. */
    bool has_cred;
    uint8_t cred[SESSION_CRED_BYTES];
    time_t issued;                  /* set by session_cookie_read; 0: not known */
    /* set by session_cookie_read: made by a server older than the __Host-
     * names (its value carries no "h"), so the bare name over TLS is where
     * that server put it, not a toss */
    bool before_host_names;
};

/* The fingerprint of a token from the store's hex SHA-256 of it (its
 * first SESSION_CRED_BYTES bytes). False when hex is not such a hash. */
bool session_fingerprint_hex(const char *sha256_hex, uint8_t out[SESSION_CRED_BYTES]);

/* The fingerprint of a token itself, as session_fingerprint_hex gives it
 * for the hash the store keeps of token. */
void session_fingerprint_token(const char *token, uint8_t out[SESSION_CRED_BYTES]);

/*
 * The cookie's value for p (with its fingerprint when p->has_cred),
 * issued now, valid until now + lifetime_s, signed with key:
 * a NUL-terminated string the caller frees. NULL when out of memory or
 * when p's id or name is too long.
 */
char *session_cookie_make(const uint8_t key[SESSION_KEY_BYTES], const struct principal *p,
                          time_t now, unsigned lifetime_s);

/*
 * Reads a cookie's value: true with *out filled (issued and the
 * fingerprint too) when the signature is the key's and the expiry is
 * after now. False otherwise (forged, altered, expired, malformed, NULL),
 * *out then left signed out. A cookie made before fingerprints were
 * carried reads with has_cred false and issued 0.
 */
bool session_cookie_read(const uint8_t key[SESSION_KEY_BYTES], const char *value, time_t now,
                         struct principal *out);

/*
 * As session_cookie_make and session_cookie_read, for a personal link's
 * sign-in waiting for the page's "Sign in as NAME?" (PENDING_COOKIE,
 * PENDING_LIFETIME_S): signed as being for that, so that a pending value
 * is never read as a session, nor a session as a pending one.
 */
char *session_pending_make(const uint8_t key[SESSION_KEY_BYTES], const struct principal *p,
                           time_t now);
bool session_pending_read(const uint8_t key[SESSION_KEY_BYTES], const char *value, time_t now,
                          struct principal *out);

/*
 * The name cookie `base` has: COOKIE_HOST_PREFIX base when secure (the
 * request reached us over TLS), base otherwise. False when out is too
 * small.
 */
bool session_cookie_name(const char *base, bool secure, char *out, size_t outsz);

/*
 * The Set-Cookie value that signs this browser out: clears the session
 * cookie under the name session_cookie_name gives. Over TLS with
 * SameSite=None and Secure, as an LTI launch sets the session inside the
 * course's frame (a Lax one is ignored there, and the session would stay);
 * over plain http, Lax. False when out is too small.
 */
bool session_clear_cookie(bool secure, char *out, size_t outsz);

/*
 * The Set-Cookie value that clears cookie `base` under its bare name over
 * TLS, where a server older than the __Host- names set it (Path=/, no
 * Domain, so this replaces it). False when out is too small.
 */
bool session_clear_bare_cookie(const char *base, char *out, size_t outsz);

/*
 * The Set-Cookie header's value for cookie `base` with value `value`
 * (NULL clears the cookie): named as session_cookie_name says, HttpOnly,
 * SameSite=Lax, Path=/, Max-Age, and Secure when secure. False when out is
 * too small.
 */
bool session_set_named_cookie(const char *base, const char *value, bool secure,
                              unsigned max_age_s, char *out, size_t outsz);

/* As session_set_named_cookie with SameSite=None when secure: a cookie
 * set and sent inside the course's frame (an LTI launch). */
bool session_set_framed_cookie(const char *base, const char *value, bool secure,
                               unsigned max_age_s, char *out, size_t outsz);

/* session_set_named_cookie for SESSION_COOKIE. */
bool session_set_cookie(const char *value, bool secure, unsigned max_age_s, char *out,
                        size_t outsz);

/*
 * How many pairs of the Cookie header's value `header` are named exactly
 * `name`: 0, 1, or 2 for two or more (the scan stops there). libmicrohttpd
 * gives one value per name, so two (a sibling host's cookie, tossed for a
 * narrower path, sent first) are seen only here. NULL counts 0.
 */
unsigned session_cookie_count(const char *header, const char *name);

/*
 * A name someone else vouches for (a learning system's `name` claim, a
 * name the store kept), made fit to show: invalid UTF-8, control
 * characters and bidirectional overrides dropped, surrounding spaces
 * trimmed, cut at a character's boundary to fit outsz - 1 bytes. out may
 * be in (in place). "" when nothing is left.
 */
void session_clean_name(const char *in, char *out, size_t outsz);

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
