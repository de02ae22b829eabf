/* entry.c - finding a student's grade among a layout's entries (entry.h). */
#include "gradebook/entry.h"

#include <string.h>

const struct gradebook_entry *gradebook_entry_find(const struct gradebook_entry *e, size_t n,
                                                   const char *id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(e[mid].id, id) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n && !strcmp(e[lo].id, id); lo++)
        if (e[lo].usable)
            return &e[lo];
    return NULL;
}
