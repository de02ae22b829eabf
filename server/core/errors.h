/*
 * errors.h - every error the server answers, in one table: its HTTP
 * status, its code (the JSON's error.code, docs/openapi.json's Error
 * enum) and whether it says when to come back (Retry-After, with the
 * seconds a caller does not compute itself). A call names the error and
 * says the sentence; the pairing of status and code is written here only.
 */
#ifndef BUTTERFLY_ERRORS_H
#define BUTTERFLY_ERRORS_H

enum error_kind {
    ERROR_BAD_LAYOUT,
    ERROR_BAD_REQUEST,
    ERROR_TWO_SESSIONS,
    ERROR_UNAUTHORIZED,
    ERROR_CROSS_SITE,
    ERROR_FORBIDDEN,
    ERROR_LAUNCH_NOT_YOURS,
    ERROR_NOT_FOUND,
    ERROR_UNKNOWN_EXERCISE,
    ERROR_METHOD_NOT_ALLOWED,
    ERROR_NO_PENDING_SIGN_IN,
    ERROR_OPEN_LAB,
    ERROR_PENDING_CHANGED,
    ERROR_ROSTER,
    ERROR_SIGNED_IN_AS_OTHER,
    ERROR_SIGN_IN_PENDING,
    ERROR_IDEMPOTENCY_KEY_IN_USE,
    ERROR_LENGTH_REQUIRED,
    ERROR_PAYLOAD_TOO_LARGE,
    ERROR_UNSUPPORTED_MEDIA_TYPE,
    ERROR_IDEMPOTENCY_KEY_REUSED,
    ERROR_TOO_MANY_REQUESTS,
    ERROR_TOO_MANY_SIGN_INS,
    ERROR_TOO_MANY_TOKEN_FAILURES,
    ERROR_INTERNAL_ERROR,
    ERROR_GRADEBOOK_BUSY,
    ERROR_GRADEBOOK_TOO_LARGE,
    ERROR_LOADING,
    ERROR_QUEUE_FULL,
    ERROR_SHUTTING_DOWN,
    ERROR_STORE_UNAVAILABLE,
    ERROR_TOO_BUSY,
    ERROR_TOO_MANY_STREAMS,
    ERROR_TOO_MANY_CONNECTIONS,
    ERROR_COUNT
};

struct error_row {
    unsigned status;
    const char *code;
    unsigned retry_after_s;   /* the default Retry-After; 0: none */
};

/* The row of e; never NULL (an unknown e is internal_error's). */
const struct error_row *errors_row(enum error_kind e);

#endif
