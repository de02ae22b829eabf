#ifndef BUTTERFLY_PG_WAIT_H
#define BUTTERFLY_PG_WAIT_H

/*
 * pg_wait.h - libpq calls with a bound on every wait.
 *
 * libpq's own calls (PQexec, PQgetResult) wait as long as the server
 * takes, and a server that is alive at the TCP level but never answers
 * (stopped, frozen, behind a proxy whose far side is gone) makes that for
 * ever: its kernel acknowledges, so no TCP timeout fires. These wait on the
 * connection's socket with poll(2) until a deadline instead. The
 * connection must be in non-blocking mode (PQsetnonblocking), so that
 * sending never waits either. After a wait ran out the connection is in
 * an unknown state: the caller drops it.
 */

#include <libpq-fe.h>
#include <stdbool.h>

/* Sends what libpq holds for c, waiting at most until deadline_ms
 * (clock_now_ms). False, with *lost, when it could not. */
bool pg_wait_flush(PGconn *c, double deadline_ms, bool *lost);

/*
 * The next result of the command in flight on c, as PQgetResult gives it
 * (NULL once there are no more), waiting at most until deadline_ms. NULL
 * with *lost when the time ran out first or the connection failed.
 */
PGresult *pg_wait_result(PGconn *c, double deadline_ms, bool *lost);

/*
 * For a command just sent on c (PQsendQuery, PQsendPrepare): sends it
 * and returns its last result, as PQexec would, with every wait bounded
 * by wait_ms from its start. NULL with *lost as pg_wait_result (NULL
 * alone: the command could not be sent, as PQexec).
 */
PGresult *pg_wait_last(PGconn *c, unsigned wait_ms, bool *lost);

/* PQexec(c, sql) with pg_wait_last's bound. */
PGresult *pg_wait_exec(PGconn *c, const char *sql, unsigned wait_ms, bool *lost);

#endif
