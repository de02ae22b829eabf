/* batch_progress.c - progress on standard error. */
#include "batch/batch_progress.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/parse_num.h"

/* The tallies as the bar shows them: a short name and an ANSI colour. */
static const struct {
    const char *name, *colour;
} shown[TALLY_N] = {
    [TALLY_AC] = { "AC", "\033[32m" },  [TALLY_WA] = { "WA", "\033[31m" },
    [TALLY_CE] = { "CE", "\033[33m" },  [TALLY_TLE] = { "TLE", "\033[35m" },
    [TALLY_RE] = { "RE", "\033[31m" },  [TALLY_REJ] = { "REJ", "\033[2m" },
    [TALLY_IE] = { "IE", "\033[1;31m" },
};
#define RESET "\033[0m"

void batch_progress_init(struct batch_progress *p, FILE *out, size_t total, bool quiet)
{
    *p = (struct batch_progress){ 0 };
    p->out = out;
    p->quiet = quiet;
    const char *term = getenv("TERM"), *no_colour = getenv("NO_COLOR");
    /* a dumb terminal cannot go back to the start of the line */
    p->tty = isatty(fileno(out)) && !(term && !strcmp(term, "dumb"));
    p->colour = p->tty && !(no_colour && no_colour[0]);
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

/* The rate of grading (not of reusing: that is what the wait is made of),
 * the time left and the percentage. */
static void figures(const struct batch_progress *p, double *rate, char *eta, size_t etasz,
                    int *pct)
{
    double elapsed = (clock_now_ms() - p->t0_ms) / 1000.0;
    *rate = elapsed > 0.2 ? (double)p->graded / elapsed : 0.0;
    size_t left = p->total - p->done;
    format_eta(*rate > 0 ? (double)left / *rate : (left ? -1 : 0), eta, etasz);
    *pct = p->total ? (int)(100 * p->done / p->total) : 100;
}

/* Appends printf output to out while it fits; returns the visible width added. */
static size_t append(char *out, size_t outsz, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t append(char *out, size_t outsz, size_t *len, const char *fmt, ...)
{
    if (*len >= outsz)
        return 0;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out + *len, outsz - *len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return 0;
    size_t added = (size_t)n < outsz - *len ? (size_t)n : outsz - *len - 1;
    *len += added;
    return added;
}

size_t batch_progress_line(const struct batch_progress *p, int columns, bool colour,
                           char *out, size_t outsz)
{
    double rate;
    char eta[16], core[96];
    int pct;
    figures(p, &rate, eta, sizeof eta, &pct);
    int core_w = snprintf(core, sizeof core, " %zu/%zu %3d%% %5.1f/s ETA %s", p->done,
                          p->total, pct, rate, eta);
    /* the tallies' width without the colours, which take no room */
    size_t tally_w = strlen(" |");
    for (int t = 0; t < TALLY_N; t++)
        tally_w += (size_t)snprintf(NULL, 0, " %s %zu", shown[t].name, p->tally[t]);
    size_t avail = columns > 1 ? (size_t)columns - 1 : 0;
    size_t len = 0;
    out[0] = '\0';
    bool with_tallies = (size_t)core_w + tally_w + 12 <= avail;
    size_t room = avail - (size_t)core_w - (with_tallies ? tally_w : 0);
    /* the bar takes what is left, up to 40 columns; the tallies go first
     * when there is no room for them and a bar of 10, the bar below 5 */
    if ((size_t)core_w + 7 <= avail) {
        int bar = room - 2 > 40 ? 40 : (int)(room - 2);
        int fill = p->total ? (int)((size_t)bar * p->done / p->total) : bar;
        append(out, outsz, &len, "[");
        for (int i = 0; i < bar; i++)
            append(out, outsz, &len, "%c", i < fill ? '#' : '.');
        append(out, outsz, &len, "]");
        append(out, outsz, &len, "%s", core);
    } else {
        /* too narrow even for a small bar: the figures, cut to fit */
        append(out, outsz, &len, "%.*s", (int)avail, core + 1);
        return len;
    }
    if (with_tallies) {
        append(out, outsz, &len, " |");
        for (int t = 0; t < TALLY_N; t++) {
            bool lit = colour && p->tally[t];
            append(out, outsz, &len, " %s%s %zu%s", lit ? shown[t].colour : "", shown[t].name,
                   p->tally[t], lit ? RESET : "");
        }
    }
    return len;
}

void batch_progress_tick(struct batch_progress *p, bool force)
{
    if (p->quiet)
        return;
    double now = clock_now_ms();
    if (!force && now - p->last_ms < (p->tty ? BATCH_PROGRESS_TTY_MS : BATCH_PROGRESS_PLAIN_MS))
        return;
    p->last_ms = now;
    if (p->tty) {
        /* asked at every redraw: the window may have been resized */
        struct winsize ws;
        uint64_t env_columns;
        const char *env = getenv("COLUMNS");
        int columns = 0;
        if (ioctl(fileno(p->out), TIOCGWINSZ, &ws) == 0)
            columns = ws.ws_col;
        if (columns <= 0 && env && parse_u64(env, 10000, &env_columns))
            columns = (int)env_columns;
        if (columns <= 0)
            columns = BATCH_PROGRESS_COLUMNS;
        char line[512];
        batch_progress_line(p, columns, p->colour, line, sizeof line);
        fprintf(p->out, "\r\033[K%s", line);
        p->drawn = true;
    } else {
        double rate;
        char eta[16];
        int pct;
        const size_t *t = p->tally;
        figures(p, &rate, eta, sizeof eta, &pct);
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
