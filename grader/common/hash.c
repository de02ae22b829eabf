/* hash.c - 64-bit FNV-1a. */
#include "common/hash.h"

uint64_t hash_fnv1a64(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
