/*
 * credentials.h - the tokens that sign someone in now, in memory, so that
 * a session made with a renewed token, an instructor's session made with
 * a replaced token, or a forgotten student's session ends without a
 * store call on the request's path.
 *
 * The table is filled from the store (store_credentials_each) on a store
 * thread every CREDENTIALS_REFRESH_S (server/records.c) and read by the
 * HTTP threads under a short lock. A session is current when its
 * student is in the table and its token's fingerprint is the one the
 * student (or the instructor) has now. A cookie issued after the table
 * was read is not judged by it (a sign-in the table cannot know yet, on
 * this instance or another sharing the store): so a renewal ends the old
 * sessions within two refreshes at most; and within IDENTITY_POLL_MS and
 * a read when the store's record of the change is read
 * (credentials_changed, server/records.c).
 *
 * A store that cannot be read keeps the last table. Until a first read,
 * and for a student past CREDENTIALS_MAX_STUDENTS, only the signature and
 * the expiry are checked. Thread-safe.
 */
#ifndef BUTTERFLY_CREDENTIALS_H
#define BUTTERFLY_CREDENTIALS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "server/identity/session.h"
#include "store/store.h"

struct credentials;

/* An empty table (everyone current until credentials_load). NULL on OOM. */
struct credentials *credentials_new(void);

/* Accepts NULL. */
void credentials_free(struct credentials *c);

/*
 * Reads the store's credentials into a new table and puts it in place of
 * the old; on failure the old one stays. now: the wall clock when the
 * read began. Call on the thread that owns s.
 */
enum store_status credentials_load(struct credentials *c, struct store *s, time_t now,
                                   struct store_error *err);

/*
 * Keeps the instructor's sessions made with the token of the table read
 * last current under the token the next credentials_load reads, for as
 * long as the store's token stays that one. A start that renews the token
 * only to print a working address (SQLite) calls it between its two
 * reads: a restart must not sign out the instructor watching the class,
 * while butterfly-admin's renewal, a later change of the token, still
 * ends those sessions.
 */
void credentials_carry_instructor(struct credentials *c);

/*
 * The store says these students (ids, n of them) were forgotten or given
 * a new token, and the instructor's token renewed when instructor, and
 * the table was read after it (the last credentials_load): their
 * sessions issued before that read began are judged by the table from now on, however
 * new they are, so such a change ends them at once rather than one
 * refresh later. A mark lasts while a session it covers could still be
 * newer than the table. False when out of memory (the students' marks
 * are then left out; the refresh's rule still ends their sessions).
 */
bool credentials_changed(struct credentials *c, const char *const *ids, size_t n,
                         bool instructor);

/* Whether the session p (as session_cookie_read gave it) is current. */
bool credentials_current(struct credentials *c, const struct principal *p);

/* Writes the table's size, its age and the failed reads for /metrics. */
void credentials_render_metrics(struct credentials *c, time_t now, FILE *f);

#endif
