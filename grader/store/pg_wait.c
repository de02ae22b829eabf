/* pg_wait.c - libpq calls with a bound on every wait (see pg_wait.h). */
#include "store/pg_wait.h"

#include <errno.h>
#include <poll.h>

#include "common/clock.h"

/* Waits for events on c's socket until deadline_ms; false (with *lost)
 * when the time ran out or the socket is gone. */
static bool wait_socket(PGconn *c, short events, double deadline_ms, bool *lost)
{
    int fd = PQsocket(c);
    if (fd < 0) {
        *lost = true;
        return false;
    }
    for (;;) {
        double left = deadline_ms - clock_now_ms();
        if (left <= 0) {
            *lost = true;
            return false;
        }
        struct pollfd p = { .fd = fd, .events = events };
        int n = poll(&p, 1, left > 60000 ? 60000 : (int)left + 1);
        if (n > 0)
            return true;   /* readable, writable or hung up: libpq reads which */
        if (n < 0 && errno != EINTR) {
            *lost = true;
            return false;
        }
    }
}

bool pg_wait_flush(PGconn *c, double deadline_ms, bool *lost)
{
    *lost = false;
    int r;
    while ((r = PQflush(c)) == 1) {
        /* the server may be sending while it cannot take more: read too */
        if (!wait_socket(c, POLLOUT | POLLIN, deadline_ms, lost))
            return false;
        if (!PQconsumeInput(c)) {
            *lost = true;
            return false;
        }
    }
    if (r != 0)
        *lost = true;
    return r == 0;
}

PGresult *pg_wait_result(PGconn *c, double deadline_ms, bool *lost)
{
    *lost = false;
    while (PQisBusy(c)) {
        if (!wait_socket(c, POLLIN, deadline_ms, lost))
            return NULL;
        /* a failed read: PQgetResult, still busy, could wait unbounded */
        if (!PQconsumeInput(c)) {
            *lost = true;
            return NULL;
        }
    }
    return PQgetResult(c);
}

PGresult *pg_wait_last(PGconn *c, unsigned wait_ms, bool *lost)
{
    if (!pg_wait_flush(c, clock_now_ms() + wait_ms, lost))
        return NULL;
    PGresult *last = NULL, *res;
    while ((res = pg_wait_result(c, clock_now_ms() + wait_ms, lost))) {
        PQclear(last);
        last = res;
    }
    if (*lost) {
        PQclear(last);
        return NULL;
    }
    return last;
}

PGresult *pg_wait_exec(PGconn *c, const char *sql, unsigned wait_ms, bool *lost)
{
    *lost = false;
    return PQsendQuery(c, sql) ? pg_wait_last(c, wait_ms, lost) : NULL;
}
