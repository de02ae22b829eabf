/* batch_progress.c - progress on standard error. */
#include "batch_progress.h"

#include <unistd.h>

#include "clock.h"

void batch_progress_init(struct batch_progress *p, FILE *out, size_t total, bool quiet)
{
    *p = (struct batch_progress){ 0 };
    p->out = out;
    p->quiet = quiet;
    p->tty = isatty(fileno(out));
    p->total = total;
    p->t0_ms = p->last_ms = clock_now_ms();
}

static enum batch_tally tally_of(enum verdict_status s)
{
    switch (s) {
    case VERDICT_ACCEPTED: return TALLY_AC;
    case VERDICT_WRONG_ANSWER: return TALLY_WA;
    case VERDICT_COMPILATION_ERROR: return TALLY_CE;
    case VERDICT_TIME_LIMIT: return TALLY_TLE;
    case VERDICT_REJECTED: return TALLY_REJ;
    case VERDICT_INTERNAL_ERROR: return TALLY_IE;
    default: return TALLY_RE;
    }
}

void batch_progress_count(struct batch_progress *p, enum verdict_status s, bool reused)
{
    p->done++;
    if (reused)
        p->reused++;
    else
        p->graded++;
    p->tally[tally_of(s)]++;
}

static void format_eta(double seconds, char *out, size_t outsz)
{
    if (seconds < 0)
        snprintf(out, outsz, "--:--");
    else if (seconds < 3600)
        snprintf(out, outsz, "%d:%02d", (int)seconds / 60, (int)seconds % 60);
    else
        snprintf(out, outsz, "%dh%02d", (int)(seconds / 3600), (int)seconds / 60 % 60);
}

void batch_progress_tick(struct batch_progress *p, bool force)
{
    if (p->quiet)
        return;
    double now = clock_now_ms();
    if (!force && now - p->last_ms < (p->tty ? 100 : 5000))
        return;
    p->last_ms = now;
    double elapsed = (now - p->t0_ms) / 1000.0;
    /* the rate of grading, not of reusing: that is what the wait is made of */
    double rate = elapsed > 0.2 ? (double)p->graded / elapsed : 0.0;
    size_t left = p->total - p->done;
    char eta[16];
    format_eta(rate > 0 ? (double)left / rate : (left ? -1 : 0), eta, sizeof eta);
    int pct = p->total ? (int)(100 * p->done / p->total) : 100;
    const size_t *t = p->tally;
    if (p->tty) {
        char bar[25];
        int fill = p->total ? (int)(24 * p->done / p->total) : 24;
        for (int i = 0; i < 24; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[24] = '\0';
        fprintf(p->out, "\r\033[K[%s] %zu/%zu %3d%% %5.1f/s ETA %s | AC %zu WA %zu CE %zu "
                "TLE %zu RE %zu REJ %zu IE %zu", bar, p->done, p->total, pct, rate, eta,
                t[TALLY_AC], t[TALLY_WA], t[TALLY_CE], t[TALLY_TLE], t[TALLY_RE], t[TALLY_REJ],
                t[TALLY_IE]);
        p->drawn = true;
    } else {
        fprintf(p->out, "butterfly-batch: %zu/%zu done (%d%%), %.1f/s, about %s left; "
                "accepted %zu, wrong %zu, compile errors %zu, time limit %zu, runtime errors %zu, "
                "rejected %zu, internal errors %zu\n", p->done, p->total, pct, rate, eta,
                t[TALLY_AC], t[TALLY_WA], t[TALLY_CE], t[TALLY_TLE], t[TALLY_RE], t[TALLY_REJ],
                t[TALLY_IE]);
    }
    fflush(p->out);
}

void batch_progress_end(struct batch_progress *p)
{
    if (p->quiet || !p->tty || !p->drawn)
        return;
    fputc('\n', p->out);
    fflush(p->out);
}
