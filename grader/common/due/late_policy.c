/* late_policy.c - the late policy's text and its arithmetic (late_policy.h). */
#include "common/due/late_policy.h"

#include <stdio.h>
#include <string.h>

bool late_policy_parse(const char *text, struct late_policy *p)
{
    if (!text)
        return false;
    if (!strcmp(text, "none") || !strcmp(text, "accept")) {
        p->kind = !strcmp(text, "none") ? LATE_NONE : LATE_ACCEPT;
        p->penalty_pct = 0;
        return true;
    }
    /* penalty:P% with 1 to 3 digits, nothing else (no sign, no space) */
    if (strncmp(text, "penalty:", 8))
        return false;
    const char *d = text + 8;
    unsigned v = 0;
    size_t n = 0;
    for (; d[n] >= '0' && d[n] <= '9' && n < 4; n++)
        v = v * 10 + (unsigned)(d[n] - '0');
    if (n == 0 || n > 3 || strcmp(d + n, "%") || v > 100)
        return false;
    p->kind = LATE_PENALTY;
    p->penalty_pct = v;
    return true;
}

void late_policy_format(const struct late_policy *p, char *buf, size_t n)
{
    if (p->kind == LATE_PENALTY)
        snprintf(buf, n, "penalty:%u%%", p->penalty_pct);
    else
        snprintf(buf, n, "%s", p->kind == LATE_ACCEPT ? "accept" : "none");
}

double late_policy_counts(const struct late_policy *p, double points, double on_time_best)
{
    switch (p->kind) {
    case LATE_ACCEPT:
        return points;
    case LATE_PENALTY:
        return points * (100.0 - (double)p->penalty_pct) / 100.0;
    case LATE_NONE:
        break;
    }
    /* kept and shown, never scored above the best on time */
    return points < on_time_best ? points : on_time_best;
}

double late_policy_best(const struct late_policy *p, double on_time_best, double best_late)
{
    double late = best_late >= 0 ? late_policy_counts(p, best_late, on_time_best) : 0.0;
    return late > on_time_best ? late : on_time_best;
}
