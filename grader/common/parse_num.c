/* parse_num.c - one strict number parser for every command line. */
#include "common/parse_num.h"

#include <errno.h>
#include <stdlib.h>

bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    /* strtoull accepts "-1" (as a huge number) and leading blanks */
    if (!s || !(*s >= '0' && *s <= '9'))
        return false;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end || x > max)
        return false;
    *out = x;
    return true;
}
