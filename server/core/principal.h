/*
 * principal.h - who a request is for, as a value: its kind, its id, the
 * name the page shows and the token's fingerprint it was made from. The
 * core carries it in every request; identity/ decides it (a cookie, a
 * token, an LTI launch) and features read it. Pure: no sockets, no store.
 */
#ifndef BUTTERFLY_PRINCIPAL_H
#define BUTTERFLY_PRINCIPAL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define PRINCIPAL_ID_MAX 160     /* a roster id (STORE_MAX_STUDENT_ID), or "guest-" and 32
                                    hex digits, or PRINCIPAL_LTI_PREFIX and a class id */
#define PRINCIPAL_NAME_MAX 260   /* a roster name or a display name, UTF-8 */
#define PRINCIPAL_SECTION_MAX 64 /* a roster section as the page shows it, UTF-8: a longer
                                    one is cut at a character (session_clean_name) */
#define PRINCIPAL_LTI_PREFIX "lti:" /* an instructor's id when a launch made the session */
#define SESSION_CRED_BYTES 8     /* a token's fingerprint: its SHA-256's first bytes */
#define PRINCIPAL_TOKEN_MAX 128  /* the longest token a request may carry (auth.h) */

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
    /* the roster's section, shown beside the name ("Signed in as NAME
     * (section S)"); "" when none: a guest, an LTI launch's learner (the
     * platform sends no section), the instructor, a session made before
     * sections were carried */
    char section[PRINCIPAL_SECTION_MAX];
    /* The token the session was made from (session_fingerprint): a session
     * ends when its token is no longer the current one. has_cred false:
     * made without a token (an open lab's name, an LTI launch), valid while
     * the student exists. */
    bool has_cred;
    uint8_t cred[SESSION_CRED_BYTES];
    time_t issued;                  /* set by session_cookie_read; 0: not known */
    int64_t issued_ms;              /* the same in ms (an older cookie: issued × 1000) */
    /* set by session_cookie_read: made by a server older than the __Host-
     * names (its value carries no "h"), so the bare name over TLS is where
     * that server put it, not a toss */
    bool before_host_names;
};

#endif
