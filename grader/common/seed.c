/* seed.c - seeds from getrandom(2). */
#include "seed.h"

#include <errno.h>
#include <sys/random.h>

#include "defaults.h"

bool seed_fresh(uint64_t *out)
{
    uint64_t x;
    unsigned char *p = (unsigned char *)&x;
    size_t have = 0;
    while (have < sizeof x) {
        /* blocks only until the kernel's pool is first seeded, at boot */
        ssize_t n = getrandom(p + have, sizeof x - have, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        have += (size_t)n;
    }
    *out = x & MAX_SEED;
    return true;
}
