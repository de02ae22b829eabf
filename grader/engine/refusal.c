/* refusal.c - whose fault a refused module is (see refusal.h). */
#include "engine/refusal.h"

#include "engine/checks/spirv_robust.h"

void refusal_set(struct verdict *v, const uint32_t *own, size_t own_words, const char *ours,
                 const char *msg)
{
    char own_msg[320];
    if (spirv_robust_validate(own, own_words, own_msg, sizeof own_msg)) {
        verdict_set_message(v, "The grader's %s failed on a valid kernel: %s.", ours, msg);
    } else {
        v->status = VERDICT_REJECTED;
        verdict_set_message(v, "The compiled kernel could not be made safe to run: %s", own_msg);
    }
}
