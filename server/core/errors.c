/* errors.c - the table of the server's errors (errors.h). */
#include "server/core/errors.h"

#include <stddef.h>

#include "common/defaults.h"

static const struct error_row rows[ERROR_COUNT] = {
    [ERROR_BAD_LAYOUT] = { 400, "bad_layout", 0 },
    [ERROR_BAD_REQUEST] = { 400, "bad_request", 0 },
    [ERROR_TWO_SESSIONS] = { 401, "two_sessions", 0 },
    [ERROR_UNAUTHORIZED] = { 401, "unauthorized", 0 },
    [ERROR_CROSS_SITE] = { 403, "cross_site", 0 },
    [ERROR_FORBIDDEN] = { 403, "forbidden", 0 },
    [ERROR_LAUNCH_NOT_YOURS] = { 403, "launch_not_yours", 0 },
    [ERROR_NOT_FOUND] = { 404, "not_found", 0 },
    [ERROR_UNKNOWN_EXERCISE] = { 404, "unknown_exercise", 0 },
    [ERROR_METHOD_NOT_ALLOWED] = { 405, "method_not_allowed", 0 },
    [ERROR_NO_PENDING_SIGN_IN] = { 409, "no_pending_sign_in", 0 },
    [ERROR_OPEN_LAB] = { 409, "open_lab", 0 },
    [ERROR_PENDING_CHANGED] = { 409, "pending_changed", 0 },
    [ERROR_ROSTER] = { 409, "roster", 0 },
    [ERROR_SIGNED_IN_AS_OTHER] = { 409, "signed_in_as_other", 0 },
    [ERROR_SIGN_IN_PENDING] = { 409, "sign_in_pending", 0 },
    [ERROR_IDEMPOTENCY_KEY_IN_USE] = { 409, "idempotency_key_in_use", IDEMPOTENCY_RETRY_AFTER_S },
    [ERROR_LENGTH_REQUIRED] = { 411, "length_required", 0 },
    [ERROR_PAYLOAD_TOO_LARGE] = { 413, "payload_too_large", 0 },
    [ERROR_UNSUPPORTED_MEDIA_TYPE] = { 415, "unsupported_media_type", 0 },
    [ERROR_IDEMPOTENCY_KEY_REUSED] = { 422, "idempotency_key_reused", 0 },
    [ERROR_TOO_MANY_REQUESTS] = { 429, "too_many_requests", 5 },
    [ERROR_TOO_MANY_SIGN_INS] = { 429, "too_many_sign_ins", 1 },
    [ERROR_TOO_MANY_TOKEN_FAILURES] = { 429, "too_many_token_failures", 1 },
    [ERROR_INTERNAL_ERROR] = { 500, "internal_error", 0 },
    [ERROR_GRADEBOOK_BUSY] = { 503, "gradebook_busy", 2 },
    [ERROR_GRADEBOOK_TOO_LARGE] = { 503, "gradebook_too_large", 0 },
    [ERROR_LOADING] = { 503, "loading", 2 },
    [ERROR_QUEUE_FULL] = { 503, "queue_full", 5 },
    [ERROR_SHUTTING_DOWN] = { 503, "shutting_down", 5 },
    [ERROR_STORE_UNAVAILABLE] = { 503, "store_unavailable", 5 },
    [ERROR_TOO_BUSY] = { 503, "too_busy", 5 },
    [ERROR_TOO_MANY_STREAMS] = { 503, "too_many_streams", 10 },
    [ERROR_TOO_MANY_CONNECTIONS] = { 503, "too_many_connections", CONNECTION_RETRY_AFTER_S },
};

const struct error_row *errors_row(enum error_kind e)
{
    return (unsigned)e < ERROR_COUNT ? &rows[e] : &rows[ERROR_INTERNAL_ERROR];
}
