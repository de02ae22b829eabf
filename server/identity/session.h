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

#include "server/core/principal.h"

#define SESSION_KEY_BYTES 32
#define SESSION_CRED_BYTES 8     /* a token's fingerprint: its SHA-256's first bytes */

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
