/* seed.c - seeds from getrandom(2). */
#include "common/seed.h"

#include <errno.h>
#include <sys/random.h>

#include "common/defaults.h"

bool seed_fresh(uint64_t *out)
{
    uint64_t x;
    unsigned char *p = (unsigned char *)&x;
    size_t have = 0;
    while (have < sizeof x) {
        /* GRND_NONBLOCK: early in a boot the kernel's pool may not be
         * seeded yet, and a grader must not hang on it (errno EAGAIN) */
        ssize_t n = getrandom(p + have, sizeof x - have, GRND_NONBLOCK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return false;
        }
        have += (size_t)n;
    }
    *out = x & MAX_SEED;
    return true;
}
