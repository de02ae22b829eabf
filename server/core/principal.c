/* principal.c - the principal's plain questions: its kind's name, its
 * class scope, whether two are one person. */
#include "server/core/principal.h"

#include <string.h>

const char *principal_class_scope(const struct principal *p)
{
    size_t n = strlen(PRINCIPAL_LTI_PREFIX);
    if (p->kind != PRINCIPAL_INSTRUCTOR || strncmp(p->id, PRINCIPAL_LTI_PREFIX, n))
        return NULL;
    return p->id + n;
}

bool principal_same(const struct principal *a, const struct principal *b)
{
    return a->kind == b->kind && !strcmp(a->id, b->id);
}

const char *principal_kind_to_str(enum principal_kind k)
{
    switch (k) {
    case PRINCIPAL_NONE: return "none";
    case PRINCIPAL_STUDENT: return "student";
    case PRINCIPAL_GUEST: return "guest";
    case PRINCIPAL_INSTRUCTOR: return "instructor";
    }
    return "none";
}
