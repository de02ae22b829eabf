/* late_policy.h - what an attempt after its due date counts for
 * (--late-policy of butterfly-server and butterfly-batch): the score an
 * LTI platform is sent and the score of a Canvas or Moodle gradebook. */
#ifndef BUTTERFLY_LATE_POLICY_H
#define BUTTERFLY_LATE_POLICY_H

#include <stdbool.h>
#include <stddef.h>

/* none: a late attempt is kept and shown, never scored above the best on
 * time; accept: as if on time; penalty: its points less penalty_pct
 * percent. The order is lti.h's enum lti_late_policy's. */
enum late_kind { LATE_NONE, LATE_ACCEPT, LATE_PENALTY };

struct late_policy {
    enum late_kind kind;
    unsigned penalty_pct;   /* 0 .. 100, for LATE_PENALTY */
};

/* The option's text of the policy's choices, for messages and --help. */
#define LATE_POLICY_CHOICES "none, accept or penalty:P% with P 0 to 100"

/* Parses "none", "accept" or "penalty:P%" (P 0 to 100, digits only);
 * false for anything else (*p then unchanged). */
bool late_policy_parse(const char *text, struct late_policy *p);

/* The policy as the option writes it ("penalty:10%") into buf. */
void late_policy_format(const struct late_policy *p, char *buf, size_t n);

/* What late points count for, beside on_time_best (the best on-time
 * attempt's points, 0 when none). */
double late_policy_counts(const struct late_policy *p, double points, double on_time_best);

/* A student's score under policy best: the best on-time attempt's points
 * (0: none), or the best late one's (best_late < 0: none) as the policy
 * counts it, whichever is more. */
double late_policy_best(const struct late_policy *p, double on_time_best, double best_late);

#endif
