/*
 * store_lti.h - what LTI 1.3 keeps (issue 22): the tool's own keys, the
 * logins in flight (state and nonce, used once), the nonces seen, who a
 * platform's (issuer, sub) is, each (issuer, context) as a class, and
 * the outbox of scores to send back.
 *
 * The tables are made by the store's migrations with the records'
 * (store_schema.c, version 3): every store has them, and store_open
 * takes them forward with the rest. The outbox is filled by a trigger on
 * the records table, so a score to send is committed in the same
 * transaction as its record, whoever writes it.
 *
 * Same rules as store.h: one connection, one thread; errors in err.
 */
#ifndef BUTTERFLY_STORE_LTI_H
#define BUTTERFLY_STORE_LTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* ---- the tool's keys --------------------------------------------------- */

struct store_lti_key {
    const char *kid;
    const char *jwk;        /* the private key as a JWK (JSON text) */
    int64_t created_ms;
    int64_t retired_ms;     /* 0: the key in use (the newest) */
};

/* Calls fn for each key, newest first; fn returns false to stop. The
 * strings are valid during the call only. */
enum store_status store_lti_keys_each(struct store *s,
                                      bool (*fn)(const struct store_lti_key *k, void *arg),
                                      void *arg, struct store_error *err);

/* Adds a key, which becomes the one in use: the others are retired now
 * (and stay published for LTI_KEY_OVERLAP_S). When only_if_none, adds
 * nothing if a key exists (a first start; *added says which). */
enum store_status store_lti_key_add(struct store *s, const char *kid, const char *jwk,
                                    bool only_if_none, bool *added, struct store_error *err);

#define STORE_LTI_KID_SIZE 17     /* 64 random bits in hex, and the NUL */

/* Makes an RSA key pair (LTI_RSA_BITS, rhonabwy) and keeps it with
 * store_lti_key_add: the new key's kid into kid_out ("" when only_if_none
 * and a key existed). */
enum store_status store_lti_key_make(struct store *s, bool only_if_none,
                                     char kid_out[STORE_LTI_KID_SIZE], struct store_error *err);

/* Deletes keys retired before cutoff_ms. */
enum store_status store_lti_keys_prune(struct store *s, int64_t cutoff_ms,
                                       struct store_error *err);

/* ---- logins in flight ------------------------------------------------------ */

struct store_lti_state {
    char state[STORE_TOKEN_SIZE];
    char nonce[STORE_TOKEN_SIZE];
    char *issuer, *client_id, *target_link_uri;   /* owned after a take */
    char *relaunch;         /* the login again, for a new window ("" or NULL: none) */
    int64_t expires_ms;
};

#define STORE_LTI_MAX_RELAUNCH 8192   /* bytes of a login's address kept */

void store_lti_state_clear(struct store_lti_state *st);

/* Keeps a login's state (and drops the expired ones). */
enum store_status store_lti_state_put(struct store *s, const struct store_lti_state *st,
                                      struct store_error *err);

/* Takes the state: deleted whatever the answer, so it is used once.
 * STORE_NOT_FOUND when absent or expired at now_ms. */
enum store_status store_lti_state_take(struct store *s, const char *state, int64_t now_ms,
                                       struct store_lti_state *out, struct store_error *err);

/* Marks (issuer, nonce) seen until expires_ms: STORE_CONFLICT when it was. */
enum store_status store_lti_nonce_use(struct store *s, const char *issuer, const char *nonce,
                                      int64_t expires_ms, struct store_error *err);

/* ---- who a launch makes ---------------------------------------------------- */

struct store_lti_launch {
    const char *issuer, *client_id, *sub;
    const char *name;           /* "" when the launch gave none */
    const char *email;          /* "" when none */
    const char *context_id;     /* "" when none: the class is the deployment's */
    const char *context_title;
    bool instructor;            /* an instructor or teaching assistant of the context */
    const char *deployment_id;  /* the launch's deployment */
    const char *resource_link;  /* the launch's resource_link.id */
    const char *lineitem;       /* the AGS line item; NULL: no score is sent */
    const char *lineitems;      /* the platform's line items, where the tool may make one
                                   for the link when lineitem is NULL (NULL: none) */
    const char *label;          /* the link's title, for such a line item (NULL: none) */
    int64_t due_ms;             /* the link's due date for this student, ms since the
                                   epoch (0: none) */
    const char *exercise;       /* the link's exercise (its custom parameter exercise):
                                   only records of it score on its line item; NULL:
                                   the default exercise */
};

/*
 * In one transaction: the student of (issuer, sub), made on the first
 * launch (its id into student_id) and named from the launch when it names
 * itself; the class of (issuer, context) into class_id; the membership;
 * and, for a learner, the resource link of (issuer, client_id,
 * deployment, context, resource_link) with the line item this launch
 * names (none: that link's scores are not sent), and that the student
 * was launched from it now. *link_out (NULL: not wanted) gets the
 * link's number (0 for an instructor): what a record names as the launch
 * it came from (store_record.lti_link). name_out (name_size bytes) gets
 * the name the student goes by: the launch's, a former launch's, or
 * "Learner" and a short hash of the sub when no launch gave one (an
 * instructor: the launch's, else "").
 */
enum store_status store_lti_launch(struct store *s, const struct store_lti_launch *l,
                                   char student_id[STORE_ID_SIZE], char class_id[STORE_ID_SIZE],
                                   int64_t *link_out, char *name_out, size_t name_size,
                                   struct store_error *err);

/* ---- the outbox ------------------------------------------------------------ */

struct store_lti_score {
    int64_t seq;
    const char *record_id, *student, *issuer, *client_id, *sub, *lineitem;
    int points, max_points, status;
    int64_t graded_ms;
    int attempts;
    int64_t next_ms;            /* when it is due (for store_lti_outbox_claim) */
    int64_t best_points;        /* the best points of this student's on-time attempts on
                                   this line item (0: none) */
    int64_t best_late_points;   /* the best of the late ones (-1: none) */
    bool late;                  /* this attempt came after its link's due date */
    int64_t last_timestamp_ms;  /* of the score sent last on this line item (0: none) */
    int64_t received_ms;        /* the submission's time (0: a score from before version 4) */
};

/* Calls fn for each score due at now_ms, at most limit, oldest first
 * (a score whose link's line item is still to be made waits for it):
 * per (issuer, line item, sub) only the newest waiting one (it carries
 * the best so far, and sending it supersedes the older ones), when its
 * next try is not later than now_ms. Valid during the call. */
enum store_status store_lti_outbox_due(struct store *s, int64_t now_ms, unsigned limit,
                                       bool (*fn)(const struct store_lti_score *sc, void *arg),
                                       void *arg, struct store_error *err);

/* Takes score seq for one sender until lease_until_ms (its next try moves
 * there), when its next try is still was_next_ms: *claimed false when
 * another sender (another instance) took it first. */
enum store_status store_lti_outbox_claim(struct store *s, int64_t seq, int64_t was_next_ms,
                                         int64_t lease_until_ms, bool *claimed,
                                         struct store_error *err);

/* The score seq went out with this timestamp: marked sent, and every
 * older score of the pair too (superseded). */
enum store_status store_lti_outbox_sent(struct store *s, int64_t seq, int64_t timestamp_ms,
                                        struct store_error *err);

/* The score seq failed: tried again at next_ms, or marked failed for good
 * when give_up; why is kept for the class view. */
enum store_status store_lti_outbox_retry(struct store *s, int64_t seq, int64_t next_ms,
                                         bool give_up, const char *why, struct store_error *err);

/* A student whose latest score on a line item did not reach the platform:
 * failed for good, or waiting after at least one failed attempt. */
struct store_lti_unsent {
    const char *student, *class_id;   /* class_id "" when the student is in none */
    bool failed;                      /* false: still being retried */
    int attempts;
    const char *error;                /* the last failure's sentence */
};

/* Calls fn for each such student (for the class view), ordered by student. */
enum store_status store_lti_unsent_each(struct store *s,
                                        bool (*fn)(const struct store_lti_unsent *u, void *arg),
                                        void *arg, struct store_error *err);

/* Calls fn(class_id, student, arg) for each class of every (issuer,
 * context), student NULL for the class itself, then once per learner of
 * it (the class view's membership): those launched as learners that its
 * roster does not list as inactive or teaching, and its roster's active
 * learners (launched or not); a student may come twice. */
enum store_status store_lti_members_each(struct store *s,
                                         bool (*fn)(const char *class_id, const char *student,
                                                    void *arg),
                                         void *arg, struct store_error *err);

/* ---- the courses' rosters (NRPS, version 6) -------------------------------- */

/* How a course's last roster read went (lti_rosters.state). */
enum store_lti_roster_state {
    STORE_ROSTER_NONE = 0,      /* not read yet */
    STORE_ROSTER_READ = 1,      /* every page */
    STORE_ROSTER_PARTIAL = 2,   /* some pages (a bound, or a next page refused) */
    STORE_ROSTER_REFUSED = 3,   /* the platform refused it, or it was no roster */
};

/*
 * A launch into class_id carried the roster's address url (the names and
 * roles claim): kept (the latest launch's), and a read asked for when the
 * class has none yet or when instructor (an instructor's launch reads it
 * again); the read starts once the last one's next_ms has come
 * (store_lti_roster_claim), so a course is read at most that often.
 */
enum store_status store_lti_roster_ask(struct store *s, const char *class_id,
                                       const char *issuer, const char *client_id,
                                       const char *url, bool instructor,
                                       struct store_error *err);

/* A roster read asked for and due. */
struct store_lti_roster_due {
    const char *class_id, *issuer, *client_id, *url;
    int64_t next_ms;            /* for store_lti_roster_claim */
};

/* Calls fn for each roster asked for whose next_ms is not after now_ms,
 * at most limit. Valid during the call. */
enum store_status store_lti_roster_due(struct store *s, int64_t now_ms, unsigned limit,
                                       bool (*fn)(const struct store_lti_roster_due *d,
                                                  void *arg),
                                       void *arg, struct store_error *err);

/* Takes class_id's read for one reader: the ask cleared and next_ms moved
 * to next_ms (no read before it), when next_ms is still was_next_ms and a
 * read is still asked for; *claimed false when another (instance) took it. */
enum store_status store_lti_roster_claim(struct store *s, const char *class_id,
                                         int64_t was_next_ms, int64_t next_ms, bool *claimed,
                                         struct store_error *err);

/* One member as a roster page lists it. */
struct store_lti_roster_member {
    const char *sub;            /* the platform's user_id: a launch's sub */
    const char *name;           /* "" when the roster names none */
    bool learner;               /* an active Learner, neither teaching nor inactive */
};

/*
 * The outcome of a read of class_id's roster (issuer's), in one
 * transaction: its state and message (why, "" when none). With
 * STORE_ROSTER_READ the class's roster becomes members; with PARTIAL
 * members are added to what it had; with NONE or REFUSED members are
 * ignored and the roster stays as the last read left it. An active
 * learner becomes a student (of (issuer, sub), made when new, named from
 * the roster when it names one) kept as a learner of the class; any other
 * member is kept as no learner only when already a student here (no row
 * is made for someone the class view never shows).
 */
enum store_status store_lti_roster_put(struct store *s, const char *class_id,
                                       const char *issuer, enum store_lti_roster_state state,
                                       const char *message,
                                       const struct store_lti_roster_member *members, size_t n,
                                       struct store_error *err);

/* A course's roster as the class view shows it. */
struct store_lti_roster {
    const char *class_id;
    enum store_lti_roster_state state;
    const char *message;
    int64_t read_ms;            /* the last read's end (0: none yet) */
    int64_t learners;           /* the active learners it lists */
};

/* Calls fn for each course with a roster address. Valid during the call. */
enum store_status store_lti_rosters_each(struct store *s,
                                         bool (*fn)(const struct store_lti_roster *r,
                                                    void *arg),
                                         void *arg, struct store_error *err);

/* Counts of the outbox: waiting, sent, failed. */
enum store_status store_lti_outbox_counts(struct store *s, int64_t *waiting, int64_t *sent,
                                          int64_t *failed, struct store_error *err);

/* ---- line items the tool makes --------------------------------------------- */

/* A resource link whose launches named the platform's line items but no
 * line item, and none was made for it yet. */
struct store_lti_to_make {
    int64_t link;
    const char *issuer, *client_id, *lineitems, *resource_link, *label;
    const char *exercise;       /* the exercise the link names (schema 10) */
    int64_t claim_ms;           /* its lease now (for store_lti_make_claim) */
};

/* Calls fn for each such link whose lease ended by now_ms, at most limit.
 * The strings are valid during the call. */
enum store_status store_lti_to_make_each(struct store *s, int64_t now_ms, unsigned limit,
                                         bool (*fn)(const struct store_lti_to_make *m, void *arg),
                                         void *arg, struct store_error *err);

/* Takes making link's line item until lease_until_ms, when its lease is
 * still was_claim_ms and none is made: *claimed false when another sender
 * (another instance) took it first. A sender that fails lets the lease
 * run out: the next try is then. */
enum store_status store_lti_make_claim(struct store *s, int64_t link, int64_t was_claim_ms,
                                       int64_t lease_until_ms, bool *claimed,
                                       struct store_error *err);

/* The line item made for link: kept (unless one was already), and the
 * link's scores that waited for it go to it. */
enum store_status store_lti_made(struct store *s, int64_t link, const char *lineitem,
                                 struct store_error *err);

#endif
