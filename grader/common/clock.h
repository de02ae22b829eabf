/* clock.h - the one clock every part of the grader times things with. */
#ifndef BUTTERFLY_CLOCK_H
#define BUTTERFLY_CLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* Milliseconds on CLOCK_MONOTONIC: for durations and deadlines, never for
 * the time of day (it does not jump when the wall clock is set). */
double clock_now_ms(void);

/* The time of day in milliseconds since the epoch (CLOCK_REALTIME): for
 * times stored or compared across processes, never for durations. */
int64_t clock_wall_ms(void);

/*
 * The absolute CLOCK_MONOTONIC time `ms` milliseconds from now, for
 * pthread_cond_timedwait on a condition variable made with
 * clock_cond_init. Never wraps, whatever ms.
 */
struct timespec clock_after_ms(unsigned long long ms);

/*
 * pthread_cond_init for a condition variable whose timed waits run on
 * CLOCK_MONOTONIC, as clock_after_ms's deadlines do: setting the time of
 * day then neither stretches nor cuts them. Returns pthread_cond_init's
 * result.
 */
int clock_cond_init(pthread_cond_t *cond);

#endif
