/*
 * verdict_facts.h - what the server keeps of a verdict beside its bytes.
 *
 * A record holds the points, the device and what the class view shows of
 * the verdict (each half right or not, the mistake or the compiler's first
 * words). The worker works them out from the verdict it has just made and
 * sends them in the verdict frame's header (frame.h), so that the server
 * stores and shows a verdict without parsing its JSON, which is tens of
 * kilobytes of numbers and cost more CPU per record than its commit.
 */
#ifndef BUTTERFLY_VERDICT_FACTS_H
#define BUTTERFLY_VERDICT_FACTS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/exercise/exercise.h"

#define VERDICT_FACTS_TEXT 160     /* a key or a label, its NUL included */
#define VERDICT_FACTS_DEVICE 256   /* the device's name, its NUL included */

/* What the class view shows of a verdict (server/class_model.h). */
struct verdict_shown {
    int8_t halves[EX_MAX_SWEEP];          /* in sweep order: 1 right, 0 wrong, -1 not run */
    char key[VERDICT_FACTS_TEXT];         /* "mistake:ID", "compile:MESSAGE" or "" */
    char label[VERDICT_FACTS_TEXT];       /* the words the class view shows; "" with no key */
};

struct verdict_facts {
    unsigned points, max_points;          /* score_verdict's */
    struct verdict_shown shown;
    char device[VERDICT_FACTS_DEVICE];    /* the verdict's device name; "" when none */
};

struct verdict;

/*
 * The facts of verdict v into *out. Texts are cut to fit at a character
 * boundary, and a byte of v's texts that is not part of a UTF-8 character
 * becomes '?', so that the facts are always sane (verdict_facts_sane).
 */
void verdict_facts_of(const struct verdict *v, struct verdict_facts *out);

/*
 * Whether f could have come from verdict_facts_of: every text ends in its
 * array and is valid UTF-8, the halves are
 * -1, 0 or 1, and points <= max_points <= SCORE_MAX. For facts read off a
 * worker's frame, which the supervisor does not trust.
 */
bool verdict_facts_sane(const struct verdict_facts *f);

#endif
